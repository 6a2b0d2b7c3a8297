// bulk_flat (kernels/async/bulk_flat.cu) on an sm_90 device: it runs its two flat forms (dense
// batches of small matrices, matrices of at most 32 dense-row columns) itself at every element
// size and alignment, bit for bit with poison and guard bands (tests/support/harness.hpp),
// including the units whose run starts or ends outside the operand's whole 16-byte chunks
// (pointers one element off 16 bytes, operands shorter than a chunk); anywhere else it falls
// back naming its rule.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <kernels/common/flat.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

struct Batch {
  std::int64_t batch, rows, cols;
};

bool takes(const Batch& b, int e) {
  const FlatForm f =
      flat_plan(b.rows, b.cols, e, b.batch, b.cols, b.rows, b.rows * b.cols, b.rows * b.cols).form;
  return flat_src_is_one_run(f);
}

TEST(BulkFlat, RunsItsFormsAtAnyAlignmentAndNamesItsRuleElsewhere) {
  TMAKIT_NEED_GPU(90);
  const std::string no_tma = tma_unavailable_reason();
  TransposeOptions opt;
  opt.variant = "bulk_flat";
  int ran = 0;
  for (int e : {1, 2, 4, 8, 16}) {
    // Batches (one matrix is 1 x 1 .. 32 KB), then single matrices with the pointers aligned
    // and one element off 16 bytes: narrow (kTall), small (kBatch of one), neither.
    const std::vector<Batch> batches = {{300, 97, 75}, {7, 5, 3},    {4000, 32, 32},
                                        {3, 1, 1},     {50, 33, 65}, {9, 200, 31}};
    for (const Batch& b : batches) {
      Status st;
      MatrixLayout layout;
      layout.batch = b.batch;
      const std::string err = test::check_transpose_layout(
          b.rows, b.cols, e, false, layout, [&](const void* src, void* dst) {
            st = transpose(src, dst, b.rows, b.cols, e, layout, opt);
            return st;
          });
      const std::string where = std::to_string(b.batch) + "x" + std::to_string(b.rows) + "x" +
                                std::to_string(b.cols) + " " + std::to_string(e) + "B";
      EXPECT_EQ(err, "") << where << " ran " << st.variant;
      if (!no_tma.empty()) {
        EXPECT_EQ(st.fallback_reason, no_tma) << where;
      } else if (takes(b, e)) {
        EXPECT_EQ(st.variant, "bulk_flat") << where << ": fell back: " << st.fallback_reason;
        ++ran;
      } else {
        EXPECT_NE(st.fallback_reason.find("bulk_flat moves"), std::string::npos)
            << where << ": " << st.fallback_reason;
      }
    }
    for (const test::Shape& s : std::vector<test::Shape>{
             {12347, 7}, {1001, 32}, {5, 3}, {1, 1}, {33, 31}, {64, 64}, {1000, 999}, {7, 1001}})
      for (std::size_t offset : {std::size_t{0}, static_cast<std::size_t>(e % 16)}) {
        Status st;
        const std::string err = test::check_transpose(
            s.rows, s.cols, e, false, offset, [&](const void* src, void* dst) {
              st = transpose(src, dst, s.rows, s.cols, e, opt);
              return st;
            });
        const std::string where = std::to_string(s.rows) + "x" + std::to_string(s.cols) + " " +
                                  std::to_string(e) + "B +" + std::to_string(offset);
        EXPECT_EQ(err, "") << where << " ran " << st.variant;
        if (!no_tma.empty()) {
          EXPECT_EQ(st.fallback_reason, no_tma) << where;
        } else if (takes({1, s.rows, s.cols}, e)) {
          EXPECT_EQ(st.variant, "bulk_flat") << where << ": fell back: " << st.fallback_reason;
          ++ran;
        } else {
          EXPECT_NE(st.fallback_reason.find("bulk_flat moves"), std::string::npos)
              << where << ": " << st.fallback_reason;
        }
      }
  }
  if (no_tma.empty()) EXPECT_GE(ran, 60) << "too few calls ran bulk_flat itself";
}

}  // namespace
}  // namespace tmakit
