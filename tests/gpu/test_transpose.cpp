// Every registered variant x element size x shape, bit for bit against the CPU reference.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/device.hpp>
#include <kernels/launchers.hpp>
#include <tests/support/ranking.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/variant_cases.hpp>
#include <tmakit/plan.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

using Case = test::VariantCase;

class Transpose : public ::testing::TestWithParam<Case> {};

// Runs the case's variant on each shape with src and dst offset by offset_bytes.
void expect_matches_reference(const Case& c, const std::vector<test::Shape>& shapes,
                              std::size_t offset_bytes) {
  const VariantInfo* info = find_variant(c.variant);
  ASSERT_NE(info, nullptr);
  // TMA techniques run on any GPU: before sm_90 they fall back to a classic technique.
  TMAKIT_NEED_GPU(info->uses_tma ? 75 : info->min_cc);
  TransposeOptions opt;
  opt.variant = c.variant;
  const bool copy = info->kind == VariantKind::kCopy;
  for (const test::Shape& s : shapes) {
    const std::string err = test::check_transpose(
        s.rows, s.cols, c.elem_bytes, copy, offset_bytes, [&](const void* src, void* dst) {
          return transpose(src, dst, s.rows, s.cols, c.elem_bytes, opt);
        });
    EXPECT_EQ(err, "") << c.variant << " " << s.rows << "x" << s.cols << " x" << c.elem_bytes
                       << "B";
  }
}

TEST_P(Transpose, MatchesReferenceOnEveryShape) {
  expect_matches_reference(GetParam(), test::standard_shapes(), 0);
}

// Pointers offset by one element are not 16-byte aligned: the vector techniques must take
// their scalar path and still be exact.
TEST_P(Transpose, MatchesReferenceWithUnalignedPointers) {
  expect_matches_reference(GetParam(), {{64, 64}, {33, 31}, {1000, 999}}, GetParam().elem_bytes);
}

// Skinny matrices, k x N and N x k, with k below, at and above the short-side limits (32) and
// rows that are no multiple of 4 or 16 bytes; N odd and not a multiple of any tile. Aligned
// and with pointers one element off 16 bytes (smem_flat's partial chunks, every technique's
// scalar paths).
TEST_P(Transpose, MatchesReferenceOnSkinnyShapes) {
  std::vector<test::Shape> shapes;
  for (std::int64_t k : {2, 3, 7, 17, 32, 33})
    for (std::int64_t n : {1001, 12347}) {
      shapes.push_back({k, n});
      shapes.push_back({n, k});
    }
  expect_matches_reference(GetParam(), shapes, 0);
  if (GetParam().elem_bytes < 16)
    expect_matches_reference(GetParam(), shapes, GetParam().elem_bytes);
}

// Skinny shapes whose long side is a whole number of 16-byte chunks at every element size
// (N a multiple of 16): the shapes reg_permute's register blocks take (kernels/common/
// reg_block.hpp), at each short side it instantiates differently (blocks per thread 4 / 2 / 1,
// odd and even K, the 32 limit) and just past it; N not a multiple of any grid's block count.
TEST_P(Transpose, MatchesReferenceOnChunkAlignedSkinnyShapes) {
  std::vector<test::Shape> shapes;
  for (std::int64_t k : {2, 3, 5, 8, 16, 31, 32, 33})
    for (std::int64_t n : {1008, 40016}) {
      shapes.push_back({k, n});
      shapes.push_back({n, k});
    }
  expect_matches_reference(GetParam(), shapes, 0);
}

INSTANTIATE_TEST_SUITE_P(Registry, Transpose, ::testing::ValuesIn(test::all_variant_cases()),
                         test::variant_case_name);

class AutoVariant : public ::testing::TestWithParam<int> {};

TEST_P(AutoVariant, MatchesReferenceAndNamesWhatRan) {
  TMAKIT_NEED_GPU(75);
  const int e = GetParam();
  std::vector<test::Shape> shapes = test::standard_shapes();
  shapes.push_back({(1 << 20) + 7, 1});  // N x 1, N >= 1M: bulk_flat's tall form at 4-16 B
  for (const test::Shape& s : shapes) {
    std::string ran;
    const std::string err =
        test::check_transpose(s.rows, s.cols, e, false, 0, [&](const void* src, void* dst) {
          Status st = transpose(src, dst, s.rows, s.cols, e);
          ran = st.variant;
          return st;
        });
    EXPECT_EQ(err, "") << "auto " << s.rows << "x" << s.cols << " x" << e << "B";
    EXPECT_NE(find_variant(ran), nullptr) << "auto reported '" << ran << "'";
  }
}
INSTANTIATE_TEST_SUITE_P(ElemBytes, AutoVariant, ::testing::Values(1, 2, 4, 8));

// Shapes where the class rules `auto` once had (docs/perf-guide.md 8.2) sent calls to different
// techniques. The dense call runs what a plan of the problem names for this GPU (the decider's
// pick, host/transpose/decider.hpp) and matches the reference; the same
// call with padded leading dimensions, gapped batch strides and src / dst one element off 16 bytes
// matches it too (the dispatcher may fall back there, and says what ran).
TEST(AutoClassRules, DenseRunsTheTablePickAndStridedMatchesTheReference) {
  TMAKIT_NEED_GPU(75);
  DeviceCaps caps;
  ASSERT_TRUE(current_device_caps(&caps).ok());
  struct Case {
    std::int64_t batch, rows, cols;
    int e;
  };
  // The last five: the 2026-11-27 4 B rules by the sides' sectors and k x N at 8 B (H200).
  const Case cases[] = {{300, 48, 40, 2},   {200, 48, 200, 2},  {300, 40, 72, 2}, {300, 56, 120, 2},
                        {300, 40, 72, 4},   {300, 32, 48, 4},   {300, 37, 37, 4}, {300, 40, 72, 8},
                        {25, 350, 333, 4},  {1, 1771, 1773, 4}, {3, 511, 509, 2}, {1, 20, 65536, 2},
                        {1, 20, 65536, 16}, {1, 28, 70000, 16}, {300, 44, 52, 4}, {300, 36, 36, 4},
                        {300, 40, 88, 4},   {1, 11, 65537, 8},  {1, 8, 65536, 8}};
  for (const Case& c : cases)
    for (const bool strided : {false, true}) {
      MatrixLayout layout;
      layout.batch = c.batch;
      std::size_t offset = 0;
      if (strided) {
        layout.src_ld_elems = c.cols + 3;
        layout.dst_ld_elems = c.rows + 5;
        if (c.batch > 1) {
          layout.src_batch_stride_elems = c.rows * (c.cols + 3) + 7;
          layout.dst_batch_stride_elems = c.cols * (c.rows + 5) + 11;
        }
        offset = static_cast<std::size_t>(c.e);
      }
      std::string ran;
      const std::string err = test::check_transpose_layout(
          c.rows, c.cols, c.e, false, layout,
          [&](const void* src, void* dst) {
            Status st = transpose(src, dst, c.rows, c.cols, c.e, layout);
            ran = st.variant;
            return st;
          },
          offset, offset);
      const std::string what = std::to_string(c.batch) + " x " + std::to_string(c.rows) + " x " +
                               std::to_string(c.cols) + " at " + std::to_string(c.e) + " B" +
                               (strided ? ", strided" : "") + ", ran " + ran;
      EXPECT_EQ(err, "") << what;
      if (!strided) {  // what a heuristic plan of the problem names
        Plan plan;
        ASSERT_TRUE(make_plan(&plan, c.rows, c.cols, c.e, layout).ok()) << what;
        EXPECT_EQ(ran, plan.variant()) << what;
      }
    }
}

// Lines of at least kLineMemcpyMinBytes: smem_strip's cudaMemcpyAsync by name, both
// orientations, 1 B one element off 16 bytes too; one element fewer than the threshold takes the
// copy kernel. Through auto the same calls run the first runnable entry of the decider's ranking.
TEST(LineCopy, LongLinesMatchTheReference) {
  TMAKIT_NEED_GPU(75);
  for (int e : {1, 16}) {
    const std::int64_t n = kernels::kLineMemcpyMinBytes / e;
    for (std::int64_t len : {n + 3, n - 1})
      for (bool tall : {false, true})
        for (const char* variant : {"smem_strip", "auto"})
          for (std::size_t offset : {std::size_t{0}, std::size_t(e)}) {
            if (offset != 0 && e == 16) continue;
            const std::int64_t rows = tall ? len : 1, cols = tall ? 1 : len;
            std::string ran;
            const std::string err = test::check_transpose(
                rows, cols, e, false, offset, [&](const void* src, void* dst) {
                  TransposeOptions o;
                  o.variant = variant;
                  Status st = transpose(src, dst, rows, cols, e, o);
                  ran = st.variant;
                  return st;
                });
            EXPECT_EQ(err, "") << variant << " " << rows << "x" << cols << " x" << e << "B";
            if (std::string(variant) == "auto") {
              EXPECT_EQ(ran, test::next_runnable(rows, cols, e, {})) << rows << "x" << cols;
            } else if (len >= n) {
              EXPECT_EQ(ran, "smem_strip") << variant << " " << rows << "x" << cols;
            }
          }
  }
}

// reg_realign at 1 B loads each lane's next vector itself up to kRealignOwnNextMaxBytes1B of
// matrix and shuffles it from the neighbouring lane above: odd shapes just below and above the
// size, aligned and one byte off 16, by name and through auto (which runs reg_realign there).
TEST(RegRealign, OddShapesEitherSideOfTheOwnNextSizeMatchTheReference) {
  TMAKIT_NEED_GPU(75);
  constexpr std::int64_t rows = 4099;  // odd: no row a multiple of 16 bytes
  const std::int64_t cols = kernels::kRealignOwnNextMaxBytes1B / rows;
  for (std::int64_t c : {cols - (cols % 2 == 0 ? 1 : 0), cols + (cols % 2 == 0 ? 1 : 2)}) {
    ASSERT_EQ(c % 2, 1);
    for (const char* variant : {"reg_realign", "auto"})
      for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
        std::string ran;
        const std::string err =
            test::check_transpose(rows, c, 1, false, offset, [&](const void* src, void* dst) {
              TransposeOptions o;
              o.variant = variant;
              Status st = transpose(src, dst, rows, c, 1, o);
              ran = st.variant;
              return st;
            });
        EXPECT_EQ(err, "") << variant << " " << rows << "x" << c << " offset " << offset
                           << (rows * c > kernels::kRealignOwnNextMaxBytes1B ? " (shuffles)"
                                                                             : " (own loads)");
        EXPECT_EQ(ran, "reg_realign") << variant << " " << rows << "x" << c;
      }
  }
}

}  // namespace
}  // namespace tmakit
