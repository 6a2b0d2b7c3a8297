// The decider's survey distributions (host/cli/shapes.hpp), without a GPU: the "channels"
// distribution draws what it says (batches of 2-64 matrices with one side of 3-512 elements,
// each orientation, 1 MB to 1 GB), and a (distribution, seed, count) gives the same cells again,
// so a training run can be redrawn and a held-out seed never equals a training one by accident.
// The "permute" distribution is the transposes that the permute preset's random permutations
// reduce to, and that preset's draw stays the one its seeds name in docs/data.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/cli/shapes.hpp>
#include <tmakit/permute.hpp>

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

// channels_aligned: the same class, both sides whole 16 bytes at every element size.
TEST(SurveyCells, AlignedChannelsHaveRowsOfWholeSixteenBytes) {
  const std::vector<SurveyCell> cells = decider_survey_cells("channels_aligned", 400, 7);
  ASSERT_EQ(cells.size(), 400u);
  int short_under_128 = 0;
  for (const SurveyCell& c : cells) {
    const Shape& s = c.shape;
    SCOPED_TRACE(std::to_string(c.elem_bytes) + " B " + s.name());
    EXPECT_GE(s.batch, 2);
    EXPECT_LE(s.batch, 64);
    EXPECT_EQ(s.rows * c.elem_bytes % 16, 0);
    EXPECT_EQ(s.cols * c.elem_bytes % 16, 0);
    const std::int64_t short_side = std::min(s.rows, s.cols);
    EXPECT_GE(short_side, 3);
    EXPECT_LE(short_side, 512);
    EXPECT_LE(static_cast<double>(s.batch * s.rows * s.cols * c.elem_bytes),
              1.1 * 1024 * 1024 * 1024);  // HW rounds up by less than 16 bytes a row
    short_under_128 += short_side < 128;
  }
  EXPECT_GT(short_under_128, 100);  // log-uniform C: the short channel counts are common
}

// skinny: single matrices with a short side of 2-600 either way, 4-512 MB, every element size.
TEST(SurveyCells, SkinnyCellsAreSingleMatricesWithAShortSide) {
  const std::vector<SurveyCell> cells = decider_survey_cells("skinny", 600, 5);
  ASSERT_EQ(cells.size(), 600u);
  int k_rows = 0, k_cols = 0, over_32 = 0;
  std::vector<int> sizes;
  for (const SurveyCell& c : cells) {
    const Shape& s = c.shape;
    SCOPED_TRACE(std::to_string(c.elem_bytes) + " B " + s.name());
    EXPECT_EQ(s.batch, 1);
    const std::int64_t k = std::min(s.rows, s.cols);
    EXPECT_GE(k, 2);
    EXPECT_LE(k, 600);
    const double bytes = static_cast<double>(s.rows * s.cols * c.elem_bytes);
    EXPECT_GE(bytes, 3.9 * 1024 * 1024);  // N rounds down by less than one row of k
    EXPECT_LE(bytes, 512.0 * 1024 * 1024);
    (s.rows <= s.cols ? k_rows : k_cols) += 1;
    over_32 += k > 32;
    sizes.push_back(c.elem_bytes);
  }
  EXPECT_GT(k_rows, 200);  // both orientations
  EXPECT_GT(k_cols, 200);
  EXPECT_GT(over_32, 250);  // log-uniform k: the region above the flat techniques' 32 is common
  for (int e : {1, 2, 4, 8, 16}) EXPECT_GT(std::count(sizes.begin(), sizes.end(), e), 80) << e;
}

TEST(SurveyCells, ADistributionAndSeedGiveTheSameCells) {
  for (const char* dist :
       {"train", "domain", "channels", "channels_aligned", "permute", "skinny", "heldout"}) {
    SCOPED_TRACE(dist);
    EXPECT_EQ(key(decider_survey_cells(dist, 50, 101)), key(decider_survey_cells(dist, 50, 101)));
    EXPECT_NE(key(decider_survey_cells(dist, 50, 101)), key(decider_survey_cells(dist, 50, 102)));
  }
}

// Every cell is the transpose form of one of the random set's permutations (redrawn here from the
// same generator and reduced again): a dense batch of rows x cols at the reduction's element size.
TEST(SurveyCells, PermuteCellsAreTheTransposesThatRandomPermutationsReduceTo) {
  const std::vector<SurveyCell> cells = decider_survey_cells("permute", 200, 11);
  ASSERT_EQ(cells.size(), 200u);
  // The set of transposes the permutations of 1-256 MB reduce to (a large draw of the same
  // generator): each cell must be one of them.
  std::vector<std::string> forms;
  for (const PermutationCell& c :
       random_permutations(20000, 11, 1024.0 * 1024, 256.0 * 1024 * 1024)) {
    PermuteReduction r;
    ASSERT_TRUE(reduce_permutation(c.extents, c.perm, c.elem_bytes, {}, &r));
    if (r.form == PermuteForm::kTranspose)
      forms.push_back(std::to_string(r.transpose_elem_bytes) + ":" +
                      Shape{"", r.layout.batch, r.rows, r.cols}.name());
  }
  std::sort(forms.begin(), forms.end());
  int batched = 0;
  std::vector<int> sizes;
  for (const SurveyCell& c : cells) {
    const std::string k = std::to_string(c.elem_bytes) + ":" + c.shape.name();
    SCOPED_TRACE(k);
    EXPECT_TRUE(std::binary_search(forms.begin(), forms.end(), k));
    const double bytes =
        static_cast<double>(c.shape.batch * c.shape.rows * c.shape.cols) * c.elem_bytes;
    EXPECT_GE(bytes, 1024.0 * 1024);
    EXPECT_LE(bytes, 256.0 * 1024 * 1024);
    EXPECT_GT(std::min(c.shape.rows, c.shape.cols), 1);
    batched += c.shape.batch > 1;
    sizes.push_back(c.elem_bytes);
  }
  EXPECT_GT(batched, 40);
  EXPECT_LT(batched, 160);
  for (int e : {1, 2, 4, 8, 16}) EXPECT_GT(std::count(sizes.begin(), sizes.end(), e), 10) << e;
}

// The permute preset's random cases of a seed are the ones its data files name: seed 8's first
// three (docs/data/permute-seed8-*.json.xz).
TEST(SurveyCells, RandomPermutationsOfASeedStayTheSame) {
  const std::vector<PermutationCell> c =
      random_permutations(3, 8, 16.0 * 1024 * 1024, 256.0 * 1024 * 1024);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].elem_bytes, 8);
  EXPECT_EQ(c[0].extents, (std::vector<std::int64_t>{23, 9, 193, 76, 2}));
  EXPECT_EQ(c[0].perm, (std::vector<int>{2, 1, 4, 0, 3}));
  EXPECT_EQ(c[1].elem_bytes, 1);
  EXPECT_EQ(c[1].extents, (std::vector<std::int64_t>{28, 208, 7, 70, 40}));
  EXPECT_EQ(c[2].elem_bytes, 4);
  EXPECT_EQ(c[2].extents, (std::vector<std::int64_t>{84, 527, 129, 3}));
  EXPECT_EQ(c[2].perm, (std::vector<int>{1, 2, 3, 0}));
}

// The permute preset's named cases (named_permutations, which bench/permute_rows.cpp and tmakit
// permute-cases --named share): each a permutation of its rank at a power-of-two element size, no
// benchmark name twice, and the layouts docs/permute.md section 4 times among them (pixel shuffle
// at rank 6, ViT heads at 4 B, NCHW -> NHWC at 1, 2 and 4 B).
TEST(SurveyCells, NamedPermutationsAreThePresetsLayouts) {
  const std::vector<NamedPermutation> named = named_permutations();
  ASSERT_EQ(named.size(), 21u);
  std::vector<std::string> names;
  for (const NamedPermutation& c : named) {
    SCOPED_TRACE(c.label);
    EXPECT_FALSE(c.label.empty());
    ASSERT_EQ(c.cell.perm.size(), c.cell.extents.size());
    std::vector<int> sorted = c.cell.perm;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t k = 0; k < sorted.size(); ++k) EXPECT_EQ(sorted[k], static_cast<int>(k));
    EXPECT_EQ(c.cell.elem_bytes & (c.cell.elem_bytes - 1), 0);
    names.push_back(permutation_case_name(c.cell.elem_bytes, c.label, c.cell.extents, c.cell.perm));
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  for (const char* want :
       {"e2/pixel_shuffle/8x64x2x2x128x128/0.1.4.2.5.3/", "e4/vit_heads/16x197x12x64/0.2.1.3/",
        "e1/nchw_to_nhwc/64x256x56x56/0.2.3.1/", "e2/nchw_to_nhwc/64x256x56x56/0.2.3.1/",
        "e4/nchw_to_nhwc/32x192x56x56/0.2.3.1/", "e4/small_41302/8x9x10x11x120/4.1.3.0.2/"})
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), std::string(want))) << want;
}

// The tile class of the transposes' matrix rule (matrix_permutations): every case reduces to a
// tile of rank 5 or less whose matrix (src's contiguous extent x dst's x the element size) lies in
// the range, both sides at least the given thresholds, every extent 2-600, the tensor in its byte
// range; all five element sizes come; a seed gives the same cases again, another seed others.
TEST(SurveyCells, MatrixPermutationsAreTilesOfSmallMatrices) {
  const int sides[5] = {80, 96, 112, 192, 224};
  const std::vector<PermutationCell> cells =
      matrix_permutations(150, 701, 16e6, 128e6, 4096, 65536, sides);
  ASSERT_EQ(cells.size(), 150u);
  std::vector<int> sizes;
  for (const PermutationCell& c : cells) {
    PermuteReduction r;
    ASSERT_TRUE(reduce_permutation(c.extents, c.perm, c.elem_bytes, {}, &r));
    SCOPED_TRACE(r.to_string());
    ASSERT_EQ(r.form, PermuteForm::kTile);
    EXPECT_LE(r.extents.size(), 5u);
    const std::int64_t a = r.extents.back(), b = r.extents[r.perm.back()];
    const int size = c.elem_bytes == 16 ? 4 : c.elem_bytes == 8 ? 3 : c.elem_bytes / 2;
    EXPECT_GE(std::min(a, b) * c.elem_bytes, sides[size]);
    EXPECT_GE(a * b * c.elem_bytes, 4096);
    EXPECT_LE(a * b * c.elem_bytes, 65536);
    double bytes = c.elem_bytes;
    for (std::int64_t n : c.extents) {
      EXPECT_GE(n, 2);
      EXPECT_LE(n, 600);
      bytes *= static_cast<double>(n);
    }
    EXPECT_GE(bytes, 16e6);
    EXPECT_LE(bytes, 128e6);
    sizes.push_back(c.elem_bytes);
  }
  for (int e : {1, 2, 4, 8, 16}) EXPECT_GT(std::count(sizes.begin(), sizes.end(), e), 10) << e;
  auto names = [](const std::vector<PermutationCell>& v) {
    std::string s;
    for (const PermutationCell& c : v) {
      s += std::to_string(c.elem_bytes) + ":";
      for (std::int64_t n : c.extents) s += std::to_string(n) + ",";
      for (int p : c.perm) s += std::to_string(p);
      s += ";";
    }
    return s;
  };
  EXPECT_EQ(names(cells), names(matrix_permutations(150, 701, 16e6, 128e6, 4096, 65536, sides)));
  EXPECT_NE(names(cells), names(matrix_permutations(150, 702, 16e6, 128e6, 4096, 65536, sides)));
  // A range no tile meets gives none rather than looping for ever.
  EXPECT_TRUE(matrix_permutations(2, 701, 16e6, 128e6, 10, 20, sides).empty());
}

}  // namespace
}  // namespace tmakit::cli
