// The program compute-sanitizer runs (tests/tools/run_sanitizer.sh): one technique, classic or
// TMA, over each swizzle mode and barrier style and every element size it has, at small shapes with
// edges (including 1 x 1 and single rows and columns) and one batched strided layout, each
// result checked against the CPU reference. Prints one line per run.
// Exit: 0 all correct, 1 a mismatch or error, 77 no suitable device (skip) unless
// TMAKIT_REQUIRE_GPU=1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>
#include <tests/support/accumulate.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/permute_check.hpp>
#include <tmakit/permute.hpp>
#include <tmakit/tmakit.hpp>

int main(int argc, char** argv) {
  using namespace tmakit;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s VARIANT\n", argv[0]);
    return 1;
  }
  const VariantInfo* v = find_variant(argv[1]);
  if (v == nullptr) v = find_permute_variant(argv[1]);
  if (v == nullptr) {
    std::fprintf(stderr, "'%s' is not a registered technique\n", argv[1]);
    return 1;
  }
  DeviceInfo dev;
  const Status ds = query_device(&dev);
  if (!ds || dev.cc < v->min_cc) {
    std::printf("skipped: '%s' needs compute capability %d (%s)\n", v->token.c_str(), v->min_cc,
                ds ? (dev.name + " is " + std::to_string(dev.cc)).c_str() : ds.message.c_str());
    const char* req = std::getenv("TMAKIT_REQUIRE_GPU");
    return req != nullptr && std::string(req) == "1" ? 1 : 77;
  }
  if (v->kind == VariantKind::kPermute) {  // permute(): every form, odd and 16-byte strides
    int failures = 0, runs = 0;
    struct Case {
      std::vector<std::int64_t> n;
      std::vector<int> p;
    };
    const std::vector<Case> cases = {
        {{5, 3, 7, 2, 9}, {4, 3, 2, 1, 0}}, {{5, 3, 7, 9}, {0, 2, 1, 3}},
        {{16, 48, 32}, {2, 1, 0}},          {{16, 3, 32, 32}, {0, 2, 1, 3}},
        {{32, 16, 2, 32}, {3, 0, 2, 1}},    {{1, 1}, {1, 0}},
        {{33, 65, 64}, {1, 0, 2}},          {{7, 1, 5}, {2, 1, 0}},
    };
    for (int e : {1, 2, 4, 8, 16})
      for (const Case& c : cases)
        for (std::size_t offset : {std::size_t{0}, static_cast<std::size_t>(e)}) {
          TransposeOptions opt;
          opt.variant = v->token;
          const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, opt, offset);
          ++runs;
          failures += r.error.empty() ? 0 : 1;
          std::printf("%s %dB %s %s offset %zu: %s (ran %s)\n", v->token.c_str(), e,
                      test::text(c.n).c_str(), test::text(c.p).c_str(), offset,
                      r.error.empty() ? "ok" : ("FAIL " + r.error).c_str(),
                      r.status.variant.c_str());
        }
    std::printf("%d runs, %d failed\n", runs, failures);
    return failures == 0 ? 0 : 1;
  }
  if (v->kind == VariantKind::kAccumulate) {  // transpose_accumulate: every type, beta 1 and 0
    int failures = 0, runs = 0;
    const MatrixLayout strided{3, 160, 64, 48 * 160 + 32, 144 * 64 + 16};
    const std::vector<std::pair<test::Shape, MatrixLayout>> shapes = {
        {{48, 80}, {}}, {{1, 1}, {}}, {{33, 31}, {}}, {{144, 272}, {}}, {{48, 144}, strided}};
    for (DataType t :
         {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32})
      for (double beta : {1.0, 0.0})
        for (const auto& [shape, lay] : shapes) {
          TransposeOptions opt;
          opt.variant = v->token;
          Status st;
          const std::string err = test::check_transpose_accumulate(
              shape.rows, shape.cols, t, 2, beta, lay, [&](const void* src, void* dst) {
                st = transpose_accumulate(src, dst, shape.rows, shape.cols, t, 2, beta, lay, opt);
                return st;
              });
          ++runs;
          failures += err.empty() ? 0 : 1;
          std::printf("%s %s beta %.0f %lldx%lld batch %lld: %s (ran %s)\n", v->token.c_str(),
                      to_string(t), beta, static_cast<long long>(shape.rows),
                      static_cast<long long>(shape.cols), static_cast<long long>(lay.batch),
                      err.empty() ? "ok" : ("FAIL " + err).c_str(), st.variant.c_str());
        }
    std::printf("%d runs, %d failed\n", runs, failures);
    return failures == 0 ? 0 : 1;
  }
  const bool copy = v->kind == VariantKind::kCopy;
  std::vector<TmaBarrier> barriers = {TmaBarrier::kDefault};
  if (v->barrier_axis) barriers = {TmaBarrier::kPtx, TmaBarrier::kCudaBarrier};
  std::vector<int> swizzles = v->swizzle_axis_bytes;
  if (swizzles.empty()) swizzles = {-1};
  struct Case {
    test::Shape shape;
    MatrixLayout layout;
    bool tma_eligible;  // TMA must run itself (no fallback) on this case
    bool form = false;  // a shape-limited technique must run itself on this case (its forms)
  };
  // The strided case: 48 x 144 (rows and columns 16-byte multiples for every element size, as
  // TMA stores need), pitches and gaps that are 16-byte multiples too.
  MatrixLayout strided{3, 160, copy ? 176 : 64, 48 * 160 + 32, (copy ? 48 * 176 : 144 * 64) + 16};
  if (!v->strided) strided = {3, 0, 0, 0, 0};
  MatrixLayout skinny_strided{2, 1003, 0, 5 * 1003 + 5, 0};  // 5 x 1000, rows 1003 apart
  if (!v->strided) skinny_strided = {2, 0, 0, 0, 0};
  const std::vector<Case> cases = {
      {{48, 80}, {}, true},
      {{144, 272}, {}, true},
      {{1, 1}, {}, false},
      {{1, 257}, {}, false},
      {{33, 31}, {}, false},
      {{48, 144}, strided, true},
      // bulk_flat's two forms: a dense batch of small matrices, a matrix of <= 32 columns.
      {{33, 31}, {5, 0, 0, 0, 0}, false, true},
      {{3000, 7}, {}, false, true},
      // Skinny k x N with rows off 16 bytes (smem_flat's kWide: partial source chunks read whole
      // inside the operand, 2026-11-26), dense and with strided rows and a gap between matrices.
      {{7, 1001}, {}, false},
      {{5, 1000}, skinny_strided, false},
  };
  // Every swizzle mode with the first barrier style, every other barrier style with the
  // default (widest) swizzle: each kernel instantiation's code paths, not their product.
  std::vector<std::pair<int, TmaBarrier>> axes;
  for (int sw : swizzles) axes.push_back({sw, barriers.front()});
  for (std::size_t i = 1; i < barriers.size(); ++i) axes.push_back({swizzles.back(), barriers[i]});
  int failures = 0, runs = 0;
  for (const auto& [sw, b] : axes)
    for (int e : {1, 2, 4, 8, 16}) {
      if (!v->supports_elem_bytes(e)) continue;
      for (const Case& c : cases) {
        TransposeOptions opt;
        opt.variant = v->token;
        opt.swizzle_bytes = sw;
        opt.barrier = b;
        Status st;
        const std::string err = test::check_transpose_layout(
            c.shape.rows, c.shape.cols, e, copy, c.layout, [&](const void* src, void* dst) {
              st = transpose(src, dst, c.shape.rows, c.shape.cols, e, c.layout, opt);
              return st;
            });
        // A shape-limited technique runs itself on its forms; elsewhere it may instead fall
        // back naming its own rule (the reason starts with its token), never for another reason.
        const bool must_be_itself =
            v->shape_limited ? c.form : !v->may_fall_back || c.tma_eligible || e == 16;
        const bool by_rule = v->shape_limited && st.fallback_reason.rfind(v->token + " ", 0) == 0;
        const bool ok = err.empty() && (must_be_itself     ? st.variant == v->token
                                        : v->shape_limited ? st.variant == v->token || by_rule
                                                           : true);
        ++runs;
        failures += ok ? 0 : 1;
        std::printf("%s sw%d %s %dB %lldx%lld batch %lld: %s%s%s\n", v->token.c_str(), sw,
                    to_string(b), e, static_cast<long long>(c.shape.rows),
                    static_cast<long long>(c.shape.cols), static_cast<long long>(c.layout.batch),
                    ok ? "ok" : "FAIL ",
                    ok ? "" : (err + " ran " + st.variant + " " + st.fallback_reason).c_str(),
                    ok && st.variant != v->token ? (" (ran " + st.variant + ")").c_str() : "");
      }
    }
  std::printf("%d runs, %d failed\n", runs, failures);
  return failures == 0 ? 0 : 1;
}
