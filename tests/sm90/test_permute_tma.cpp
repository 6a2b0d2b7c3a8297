// permute_tma on sm_90: where every stride is a 16-byte multiple it runs itself (no fallback)
// on every permutation's reduced form, transposing tiles of 1-8-byte elements and whole rows of
// any; 16-byte elements that need a transposing tile are refused with the reason.
#include <cstdint>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/gpu.hpp>
#include <tests/support/permute_check.hpp>
#include <tmakit/permute.hpp>

namespace tmakit {
namespace {

TEST(PermuteTma, RunsItselfWhereStridesAre16ByteMultiples) {
  TMAKIT_NEED_GPU(90);
  TransposeOptions o;
  o.variant = "permute_tma";
  o.allow_fallback = false;
  int tma_runs = 0;
  for (int rank = 2; rank <= 5; ++rank)
    for (int e : {1, 2, 4, 8, 16}) {
      const std::int64_t u = e >= 16 ? 1 : 16 / e;
      std::vector<std::int64_t> n = {3 * u, 2 * u, u, 3 * u};
      if (rank == 5)
        n = e >= 4 ? std::vector<std::int64_t>{u, 2 * u, u, u, 3 * u}
                   : std::vector<std::int64_t>{u, u, u, u, 2 * u};
      n.resize(rank);
      for (const auto& perm : test::all_perms(rank)) {
        PermuteReduction red;
        ASSERT_TRUE(reduce_permutation(n, perm, e, {}, &red).ok());
        const test::PermuteRun r = test::check_permute(n, perm, e, {}, o);
        const bool tile16 =
            e == 16 && (red.form == PermuteForm::kTile || red.form == PermuteForm::kTranspose);
        if (tile16) {
          EXPECT_EQ(r.status.code, StatusCode::kUnsupported) << red.to_string();
          EXPECT_NE(r.status.message.find("1, 2, 4 or 8 bytes"), std::string::npos)
              << r.status.message;
          continue;
        }
        ASSERT_TRUE(r.error.empty()) << red.to_string() << ": " << r.error;
        EXPECT_EQ(r.status.variant, "permute_tma");
        EXPECT_TRUE(r.status.fallback_reason.empty()) << r.status.fallback_reason;
        ++tma_runs;
      }
    }
  EXPECT_GT(tma_runs, 500);
}

// auto's picks among permute_tma and permute_tile, with nothing said of a fallback: rows into a
// dense dst, 512 bytes or more included, go to permute_tile's flat rows walk (as fast as
// permute_tma or faster on every row-form case it was measured on, docs/permute.md); shorter rows
// to permute_tile's rows kernels; a mostly empty tile to permute_tile.
TEST(PermuteTma, AutoPicksItForRowsAndFullTiles) {
  TMAKIT_NEED_GPU(90);
  const test::PermuteRun rows = test::check_permute({2, 64, 8, 256}, {0, 2, 1, 3}, 2, {}, {});
  ASSERT_TRUE(rows.error.empty()) << rows.error;
  EXPECT_EQ(rows.status.variant, "permute_tile");
  EXPECT_TRUE(rows.status.fallback_reason.empty()) << rows.status.fallback_reason;
  const test::PermuteRun short_rows = test::check_permute({2, 64, 8, 64}, {0, 2, 1, 3}, 2, {}, {});
  ASSERT_TRUE(short_rows.error.empty()) << short_rows.error;
  EXPECT_EQ(short_rows.status.variant, "permute_tile");
  const test::PermuteRun tile = test::check_permute({64, 3, 64, 2}, {3, 2, 1, 0}, 4, {}, {});
  ASSERT_TRUE(tile.error.empty()) << tile.error;
  // Extents 64 x 2 inner: the 32-element tile is mostly empty, permute_tile's pick.
  EXPECT_EQ(tile.status.variant, "permute_tile");
}

}  // namespace
}  // namespace tmakit
