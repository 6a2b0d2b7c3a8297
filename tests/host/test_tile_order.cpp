// The tile launch order (kernels/common/grid.hpp): every tile exactly once, in groups of
// `group` tile rows walked column by column, for 32- and 64-bit index types.
#include <cstdint>
#include <vector>
#include <gtest/gtest.h>
#include <kernels/common/grid.hpp>

namespace tmakit {
namespace {

template <class I>
void expect_bijection(I tiles_r, I tiles_c, I group) {
  std::vector<int> seen(static_cast<std::size_t>(tiles_r * tiles_c), 0);
  for (I n = 0; n < tiles_r * tiles_c; ++n) {
    const TileAt<I> t = grouped_tile<I>(n, tiles_r, tiles_c, group);
    ASSERT_LT(t.r, tiles_r);
    ASSERT_LT(t.c, tiles_c);
    ++seen[static_cast<std::size_t>(t.r * tiles_c + t.c)];
  }
  for (int s : seen) ASSERT_EQ(s, 1) << tiles_r << "x" << tiles_c << " group " << group;
}

TEST(TileOrder, EveryTileOnce) {
  for (std::uint32_t r : {1u, 3u, 16u, 17u, 40u})
    for (std::uint32_t c : {1u, 5u, 16u, 33u})
      for (std::uint32_t g : {1u, 2u, 8u, 16u, 64u}) {
        expect_bijection<std::uint32_t>(r, c, g);
        expect_bijection<std::int64_t>(r, c, g);
      }
}

TEST(TileOrder, GroupsWalkColumnsOfTheGroup) {
  // 8 x 4 tiles in groups of 4 rows: n = 0..3 go down column 0 of rows 0..3, n = 4 starts
  // column 1; the second group starts at row 4.
  using U = std::uint32_t;
  EXPECT_EQ(grouped_tile<U>(0, 8, 4, 4).r, 0u);
  EXPECT_EQ(grouped_tile<U>(3, 8, 4, 4).r, 3u);
  EXPECT_EQ(grouped_tile<U>(3, 8, 4, 4).c, 0u);
  EXPECT_EQ(grouped_tile<U>(4, 8, 4, 4).r, 0u);
  EXPECT_EQ(grouped_tile<U>(4, 8, 4, 4).c, 1u);
  EXPECT_EQ(grouped_tile<U>(16, 8, 4, 4).r, 4u);
  EXPECT_EQ(grouped_tile<U>(16, 8, 4, 4).c, 0u);
  // Group 1 is row-major.
  EXPECT_EQ(grouped_tile<U>(5, 8, 4, 1).r, 1u);
  EXPECT_EQ(grouped_tile<U>(5, 8, 4, 1).c, 1u);
  // A last, shorter group (10 rows, groups of 4: rows 8..9) still walks its columns.
  EXPECT_EQ(grouped_tile<U>(33, 10, 4, 4).r, 9u);
  EXPECT_EQ(grouped_tile<U>(33, 10, 4, 4).c, 0u);
  EXPECT_EQ(grouped_tile<U>(34, 10, 4, 4).c, 1u);
}

}  // namespace
}  // namespace tmakit
