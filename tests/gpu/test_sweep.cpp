// Seeded random calls, technique by technique ("make classes of input correct, not a
// list"). The other GPU tests pin shapes and layouts by hand; here each technique x element size
// (and `auto`) takes TMAKIT_SWEEP_CALLS calls (default 24) drawn from five shape classes: small
// odd matrices, skinny k x N and N x k (k 1..33), batches of small matrices, mid-sized odd
// matrices; half of them with padded leading dimensions and gapped batch strides, half with src
// and dst moved off 16-byte alignment (by whole elements). Every byte of the destination span is
// compared with the CPU reference (padding and gaps must stay poison). A technique may refuse
// only what it documents: strided operands where it (or its fallback) takes dense ones only.
// A failure prints the seed and call index; TMAKIT_SWEEP_SEED picks another draw.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/sweep.hpp>
#include <tests/support/variant_cases.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 10) : fallback;
}

struct SweepCall {
  std::int64_t rows, cols;
  MatrixLayout layout;
  std::size_t src_offset_bytes, dst_offset_bytes;
  std::string describe(int e) const {
    auto n = [](std::int64_t x) { return std::to_string(x); };
    return n(layout.batch) + " x " + n(rows) + " x " + n(cols) + " at " + n(e) + " B, ld " +
           n(layout.src_ld_elems) + " / " + n(layout.dst_ld_elems) + ", batch strides " +
           n(layout.src_batch_stride_elems) + " / " + n(layout.dst_batch_stride_elems) +
           ", offsets " + n(std::int64_t(src_offset_bytes)) + " / " +
           n(std::int64_t(dst_offset_bytes)) + " bytes";
  }
};

// One call of a class: at most about 1.5 M elements of either operand's span.
SweepCall draw(test::SweepPicker& pick, int e) {
  SweepCall c{1, 1, {}, 0, 0};
  switch (pick(0, 4)) {
    case 0:  // small odd matrices
      c.rows = pick(1, 200);
      c.cols = pick(1, 200);
      break;
    case 1:  // k x N
      c.rows = pick(1, 33);
      c.cols = pick(500, 40000);
      break;
    case 2:  // N x k
      c.rows = pick(500, 40000);
      c.cols = pick(1, 33);
      break;
    case 3:  // a batch of small matrices
      c.rows = pick(1, 130);
      c.cols = pick(1, 130);
      c.layout.batch = pick(2, std::max<std::int64_t>(2, 100000 / ((c.rows + 4) * (c.cols + 4))));
      break;
    default:  // mid-sized odd matrices
      c.rows = pick(200, 1200);
      c.cols = pick(200, 1200);
  }
  if (pick(0, 1)) {  // padded lines, gapped matrices (element counts, any residue)
    c.layout.src_ld_elems = c.cols + pick(0, 19);
    c.layout.dst_ld_elems = c.rows + pick(0, 19);
    if (c.layout.batch > 1) {
      c.layout.src_batch_stride_elems = c.rows * c.layout.src_ld_elems + pick(0, 37);
      c.layout.dst_batch_stride_elems = c.cols * c.layout.dst_ld_elems + pick(0, 37);
    }
  }
  if (pick(0, 1)) {  // whole elements off the allocations' alignment
    const std::int64_t most = std::max<std::int64_t>(1, 64 / e);
    c.src_offset_bytes = static_cast<std::size_t>(pick(0, most) * e);
    c.dst_offset_bytes = static_cast<std::size_t>(pick(0, most) * e);
  }
  return c;
}

bool dense(const MatrixLayout& l) {
  return l.src_ld_elems == 0 && l.dst_ld_elems == 0 && l.src_batch_stride_elems == 0 &&
         l.dst_batch_stride_elems == 0;
}

using Case = test::VariantCase;

class Sweep : public ::testing::TestWithParam<Case> {};

TEST_P(Sweep, RandomCallsMatchTheReference) {
  const Case& c = GetParam();
  TMAKIT_NEED_GPU(75);
  const std::int64_t calls = env_int("TMAKIT_SWEEP_CALLS", 24);
  const auto seed = static_cast<std::uint64_t>(
      env_int("TMAKIT_SWEEP_SEED", static_cast<std::int64_t>(test::kSweepSeed)));
  // One stream of draws per case, so a case's calls do not depend on the others.
  std::seed_seq seq{seed, std::uint64_t(std::hash<std::string>{}(c.variant)),
                    std::uint64_t(c.elem_bytes)};
  test::SweepPicker pick(seq);
  int ran = 0;
  for (std::int64_t i = 0; i < calls; ++i) {
    const SweepCall call = draw(pick, c.elem_bytes);
    TransposeOptions opt;
    opt.variant = c.variant;
    Status st;
    auto run = [&](const void* src, void* dst) {
      st = transpose(src, dst, call.rows, call.cols, c.elem_bytes, call.layout, opt);
      return st;
    };
    const std::string err =
        test::check_transpose_layout(call.rows, call.cols, c.elem_bytes, false, call.layout, run,
                                     call.src_offset_bytes, call.dst_offset_bytes);
    const std::string where = c.variant + ", seed " + std::to_string(seed) + ", call " +
                              std::to_string(i) + ": " + call.describe(c.elem_bytes);
    if (st.code == StatusCode::kUnsupported && !dense(call.layout) &&
        st.message.find("dense operands only") != std::string::npos)
      continue;  // documented: a dense-only technique (or fallback) given strided operands
    EXPECT_EQ(err, "") << where << " ran " << st.variant << " (" << st.fallback_reason << ")";
    ran += err.empty();
  }
  // A technique that refused every call would pass without checking anything.
  EXPECT_GT(ran, 0) << c.variant << ": no call ran";
}

std::vector<Case> sweep_cases() {
  std::vector<Case> cases;
  for (const Case& c : test::all_variant_cases())
    if (find_variant(c.variant)->kind == VariantKind::kTranspose) cases.push_back(c);
  for (int e : {1, 2, 4, 8, 16}) cases.push_back({"auto", e});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Registry, Sweep, ::testing::ValuesIn(sweep_cases()),
                         test::variant_case_name);

}  // namespace
}  // namespace tmakit
