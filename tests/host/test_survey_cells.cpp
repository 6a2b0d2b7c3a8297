// The decider's survey distributions (host/cli/shapes.hpp), without a GPU: the "channels"
// distribution draws what it says (batches of 2-64 matrices with one side of 3-512 elements,
// each orientation, 1 MB to 1 GB), and a (distribution, seed, count) gives the same cells again,
// so a training run can be redrawn and a held-out seed never equals a training one by accident.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/cli/shapes.hpp>

namespace tmakit::cli {
namespace {

std::string key(const std::vector<SurveyCell>& cells) {
  std::string s;
  for (const SurveyCell& c : cells) s += std::to_string(c.elem_bytes) + ":" + c.shape.name() + ",";
  return s;
}

TEST(SurveyCells, ChannelsAreBatchesOfMatricesWithOneShortSide) {
  const std::vector<SurveyCell> cells = decider_survey_cells("channels", 400, 7);
  ASSERT_EQ(cells.size(), 400u);
  int c_rows = 0, c_cols = 0;
  std::vector<int> sizes;
  for (const SurveyCell& c : cells) {
    const Shape& s = c.shape;
    SCOPED_TRACE(std::to_string(c.elem_bytes) + " B " + s.name());
    EXPECT_GE(s.batch, 2);
    EXPECT_LE(s.batch, 64);
    const std::int64_t short_side = std::min(s.rows, s.cols);
    EXPECT_GE(short_side, 3);
    EXPECT_LE(short_side, 512);
    const double bytes = static_cast<double>(s.batch * s.rows * s.cols * c.elem_bytes);
    EXPECT_LE(bytes, 1024.0 * 1024 * 1024);
    EXPECT_GE(bytes, 0.25 * 1024 * 1024);  // HW rounds down; the batch and C are at most 64 x 512
    (s.rows <= s.cols ? c_rows : c_cols) += 1;
    sizes.push_back(c.elem_bytes);
  }
  EXPECT_GT(c_rows, 100);  // both layouts' directions
  EXPECT_GT(c_cols, 100);
  for (int e : {1, 2, 4, 8, 16}) EXPECT_GT(std::count(sizes.begin(), sizes.end(), e), 40) << e;
}

TEST(SurveyCells, ADistributionAndSeedGiveTheSameCells) {
  for (const char* dist : {"train", "domain", "channels", "heldout"}) {
    SCOPED_TRACE(dist);
    EXPECT_EQ(key(decider_survey_cells(dist, 50, 101)), key(decider_survey_cells(dist, 50, 101)));
    EXPECT_NE(key(decider_survey_cells(dist, 50, 101)), key(decider_survey_cells(dist, 50, 102)));
  }
}

}  // namespace
}  // namespace tmakit::cli
