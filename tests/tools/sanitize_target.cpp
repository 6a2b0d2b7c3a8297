// The program compute-sanitizer runs (tests/tools/run_sanitizer.sh): one TMA technique over
// every swizzle mode x barrier style x element size it has, at small TMA-eligible shapes with
// edges, each result checked against the CPU reference. Prints one line per run.
// Exit: 0 all correct, 1 a mismatch or error, 77 no sm_90 device (skip) unless
// TMAKIT_REQUIRE_GPU=1.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <tests/support/harness.hpp>
#include <tmakit/tmakit.hpp>

int main(int argc, char** argv) {
  using namespace tmakit;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s VARIANT\n", argv[0]);
    return 1;
  }
  const VariantInfo* v = find_variant(argv[1]);
  if (v == nullptr || !v->uses_tma) {
    std::fprintf(stderr, "'%s' is not a TMA technique\n", argv[1]);
    return 1;
  }
  DeviceInfo dev;
  const Status ds = query_device(&dev);
  if (!ds || dev.cc < 90) {
    std::printf("skipped: needs an sm_90 device (%s)\n",
                ds ? (dev.name + " is " + std::to_string(dev.cc)).c_str() : ds.message.c_str());
    const char* req = std::getenv("TMAKIT_REQUIRE_GPU");
    return req != nullptr && std::string(req) == "1" ? 1 : 77;
  }
  std::vector<TmaBarrier> barriers = {TmaBarrier::kDefault};
  if (v->barrier_axis) barriers = {TmaBarrier::kPtx, TmaBarrier::kCudaBarrier};
  int failures = 0, runs = 0;
  for (int sw : v->swizzle_axis_bytes)
    for (TmaBarrier b : barriers)
      for (int e : {1, 2, 4, 8, 16}) {
        if (!v->supports_elem_bytes(e)) continue;
        for (const test::Shape s : {test::Shape{48, 80}, test::Shape{144, 272}}) {
          TransposeOptions opt;
          opt.variant = v->token;
          opt.swizzle_bytes = sw;
          opt.barrier = b;
          Status st;
          const std::string err = test::check_transpose(
              s.rows, s.cols, e, v->kind == VariantKind::kCopy, 0, [&](const void* src, void* dst) {
                st = transpose(src, dst, s.rows, s.cols, e, opt);
                return st;
              });
          const bool ok = err.empty() && st.variant == v->token;
          ++runs;
          failures += ok ? 0 : 1;
          std::printf("%s sw%d %s %dB %lldx%lld: %s%s\n", v->token.c_str(), sw, to_string(b), e,
                      static_cast<long long>(s.rows), static_cast<long long>(s.cols),
                      ok ? "ok" : "FAIL ",
                      ok ? "" : (err + " ran " + st.variant + " " + st.fallback_reason).c_str());
        }
      }
  std::printf("%d runs, %d failed\n", runs, failures);
  return failures == 0 ? 0 : 1;
}
