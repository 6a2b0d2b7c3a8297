// The per-device policy (host/device_policy.hpp) without a GPU: the rows by DRAM bandwidth, and
// TMAKIT_POLICY's fields, each applied or refused with its reason and nothing else changed.
#include <string>
#include <gtest/gtest.h>
#include <host/device_policy.hpp>

namespace tmakit {
namespace {

TEST(DevicePolicy, RowsByBandwidth) {
  std::string h100, h200, none;
  const DevicePolicy a = device_policy(3352, &h100), b = device_policy(4800, &h200),
                     c = device_policy(0, &none);
  EXPECT_EQ(h100, "hbm3");
  EXPECT_EQ(h200, "hbm3e");
  EXPECT_EQ(none, "hbm3");
  EXPECT_FALSE(a.sector_column_tiles);
  EXPECT_TRUE(b.sector_column_tiles);
  EXPECT_EQ(a.flat_skinny_unit_bytes, kFlatTileBytes);
  EXPECT_EQ(b.flat_skinny_unit_bytes, 2 * kFlatTileBytes);
  EXPECT_EQ(b.flat_unit_bytes, kFlatTileBytes);
  EXPECT_EQ(c.sector_bytes, 32);
  // The batch of transposes against the box walk: each GPU's own fit of the matrix threshold,
  // the H100's far lower from 2 B on (docs/perf-guide.md section 4.13).
  EXPECT_EQ(a.transpose_min_matrix_bytes(1), b.transpose_min_matrix_bytes(1));
  for (int e : {2, 4, 8, 16})
    EXPECT_LT(a.transpose_min_matrix_bytes(e), b.transpose_min_matrix_bytes(e)) << e << " B";
  EXPECT_EQ(b.transpose_min_matrix_bytes(2), DevicePolicy{}.transpose_min_matrix_bytes(2));
  EXPECT_EQ(c.transpose_min_matrix_bytes(2), a.transpose_min_matrix_bytes(2));
}

TEST(DevicePolicy, OverridesApplyEachField) {
  DevicePolicy p;
  ASSERT_EQ(apply_policy_overrides("sector_bytes=64,strip_tile=128x64,flat_unit_bytes=8192,"
                                   "flat_table_max_rows=0,flat_batch_table_bytes=8,"
                                   "flat_max_matrix_bytes=1000,bulk_flat_stages=3,bulk_flat_ctas=2,"
                                   "bulk_flat_unit_bytes=65536,sector_column_tiles=1",
                                   &p),
            "");
  EXPECT_EQ(p.sector_bytes, 64);
  EXPECT_EQ(p.strip_tile_rows, 128);
  EXPECT_EQ(p.strip_tile_cols, 64);
  EXPECT_EQ(p.flat_unit_bytes, 8192);
  EXPECT_EQ(p.flat_skinny_unit_bytes, 8192);  // flat_unit_bytes sets every flat unit
  EXPECT_EQ(p.flat_limits.max_rows, 0);
  EXPECT_EQ(p.flat_limits.batch_max_elem_bytes, 8);
  EXPECT_EQ(p.flat_limits.batch_max_matrix_bytes, kFlatMaxMatrixBytes);  // raised to the floor
  EXPECT_EQ(p.bulk_flat_stages, 3);
  EXPECT_EQ(p.bulk_flat_ctas_per_sm, 2);
  EXPECT_EQ(p.bulk_flat_unit_bytes, 65536);
  EXPECT_TRUE(p.sector_column_tiles);
  ASSERT_EQ(
      apply_policy_overrides(
          "permute_box_words=0,permute_tma_min_fill_pct=40,"
          "permute_box_cuts_first=0,permute_box_registers_min_bytes=4,"
          "permute_box_registers_elements_max_bytes=4,permute_box_registers_box_fits_min_bytes=16,"
          "permute_box_registers_words_min_bytes=8,"
          "permute_rows_vector_min_bytes=8,permute_rows_vector_max_vecs=64,"
          "permute_rows_flat_max_vector_bytes=8,"
          "permute_box_origin_once=0,permute_box_pipeline=0,permute_rows_min_bytes=64,"
          "permute_box_async=0,permute_box_pad=0,permute_box_row_tables=0,"
          "permute_box_async_barriers=2,permute_box_overlap_edges=0,permute_rows_as_elements=0,"
          "permute_box_src_runs=0,permute_box_dst_runs=0,permute_box_narrow_dst_runs_max_bytes=0,"
          "permute_box_dst_registers=0,"
          "permute_box_first_copies_early=0,"
          "permute_box_words_small_block_max_bytes=1,"
          "permute_tma_max_box_ratio=8,"
          "permute_transpose_min_side_bytes=0,permute_box_target_elems=2048,"
          "permute_box_swizzle_bytes=32,permute_box_sm_smem_bytes=204800,"
          "permute_box_max_smem_bytes=65536,permute_box_whole_runs=0,"
          "permute_box_whole_runs_past_registers=1,permute_box_registers_small_box_ratio=0,"
          "permute_box_dst_by_src_words_max_bytes=8,permute_box_past_static_for_wider_words=0",
          &p),
      "");
  EXPECT_FALSE(p.permute_box_words);
  EXPECT_EQ(p.permute_tma_min_fill_pct, 40);
  EXPECT_EQ(p.permute_box_cuts_first, 0);
  EXPECT_EQ(p.permute_box_registers_min_bytes, 4);
  EXPECT_EQ(p.permute_box_registers_elements_max_bytes, 4);
  EXPECT_EQ(p.permute_box_registers_box_fits_min_bytes, 16);
  EXPECT_EQ(p.permute_box_registers_words_min_bytes, 8);
  EXPECT_EQ(p.permute_rows_vector_min_bytes, 8);
  EXPECT_EQ(p.permute_rows_vector_max_vecs, 64);
  EXPECT_EQ(p.permute_rows_flat_max_vector_bytes, 8);
  EXPECT_FALSE(p.permute_box_origin_once);
  EXPECT_FALSE(p.permute_box_pipeline);
  for (int e : {1, 2, 4, 8, 16}) EXPECT_EQ(p.rows_min_bytes(e), 64) << e;
  EXPECT_FALSE(p.permute_box_async);
  EXPECT_FALSE(p.permute_box_pad);
  EXPECT_FALSE(p.permute_box_row_tables);
  EXPECT_EQ(p.permute_box_async_barriers, 2);
  EXPECT_FALSE(p.permute_box_overlap_edges);
  EXPECT_FALSE(p.permute_rows_as_elements);
  EXPECT_FALSE(p.permute_box_src_runs);
  EXPECT_FALSE(p.permute_box_dst_runs);
  EXPECT_EQ(p.permute_box_narrow_dst_runs_max_bytes, 0);
  EXPECT_FALSE(p.permute_box_dst_registers);
  EXPECT_FALSE(p.permute_box_first_copies_early);
  EXPECT_EQ(p.permute_box_words_small_block_max_bytes, 1);
  // Its kernels exist at 1-2 B only: a larger value is refused, not ignored.
  EXPECT_NE(apply_policy_overrides("permute_box_words_small_block_max_bytes=4", &p), "");
  EXPECT_EQ(p.permute_box_words_small_block_max_bytes, 1);
  EXPECT_EQ(p.permute_tma_max_box_ratio, 8);
  for (int e : {1, 2, 4, 8, 16}) EXPECT_EQ(p.transpose_min_side_bytes(e), 0) << e;
  EXPECT_EQ(p.permute_box_target_elems, 2048);
  EXPECT_EQ(p.permute_box_swizzle_bytes, 32);
  EXPECT_EQ(p.permute_box_sm_smem_bytes, 204800);
  EXPECT_EQ(p.permute_box_max_smem_bytes, 65536);
  EXPECT_FALSE(p.permute_box_whole_runs);
  EXPECT_TRUE(p.permute_box_whole_runs_past_registers);
  EXPECT_FALSE(DevicePolicy{}.permute_box_whole_runs_past_registers);
  EXPECT_EQ(p.permute_box_registers_small_box_ratio, 0);
  EXPECT_EQ(DevicePolicy{}.permute_box_registers_small_box_ratio, 2);
  EXPECT_EQ(p.permute_box_dst_by_src_words_max_bytes, 8);
  EXPECT_FALSE(p.permute_box_past_static_for_wider_words);
  EXPECT_TRUE(DevicePolicy{}.permute_box_past_static_for_wider_words);
  // One element size's threshold, the others kept.
  ASSERT_EQ(apply_policy_overrides(
                "permute_transpose_min_side_bytes=96,permute_transpose_min_side_bytes_e8=200", &p),
            "");
  EXPECT_EQ(p.transpose_min_side_bytes(1), 96);
  EXPECT_EQ(p.transpose_min_side_bytes(4), 96);
  EXPECT_EQ(p.transpose_min_side_bytes(8), 200);
  EXPECT_EQ(p.transpose_min_side_bytes(16), 96);
  // The matrix threshold, one size of it.
  ASSERT_EQ(apply_policy_overrides("permute_transpose_min_matrix_bytes_e2=4096", &p), "");
  EXPECT_EQ(p.transpose_min_matrix_bytes(2), 4096);
  EXPECT_EQ(p.transpose_min_matrix_bytes(4), DevicePolicy{}.transpose_min_matrix_bytes(4));
  // The rank 6-8 threshold is a field of its own.
  ASSERT_EQ(apply_policy_overrides("permute_wide_transpose_min_side_bytes_e16=0", &p), "");
  EXPECT_EQ(p.wide_transpose_min_side_bytes(16), 0);
  EXPECT_EQ(p.wide_transpose_min_side_bytes(8), DevicePolicy{}.wide_transpose_min_side_bytes(8));
  EXPECT_EQ(p.transpose_min_side_bytes(16), 96);
  ASSERT_EQ(apply_policy_overrides("permute_rows_min_bytes_e2=48,permute_rows_min_bytes_e16=1024,"
                                   "permute_tma_min_row_bytes=300,permute_tma_min_row_bytes_e8=96",
                                   &p),
            "");
  EXPECT_EQ(p.rows_min_bytes(1), 64);
  EXPECT_EQ(p.rows_min_bytes(2), 48);
  EXPECT_EQ(p.rows_min_bytes(4), 64);
  EXPECT_EQ(p.rows_min_bytes(8), 64);
  EXPECT_EQ(p.rows_min_bytes(16), 1024);
  for (int e : {1, 2, 4, 16}) EXPECT_EQ(p.tma_min_row_bytes(e), 300) << e;
  EXPECT_EQ(p.tma_min_row_bytes(8), 96);
  ASSERT_EQ(
      apply_policy_overrides("permute_tile_min_fill_pct=50,permute_tile_min_fill_pct_e1=101", &p),
      "");
  EXPECT_EQ(p.tile_min_fill_pct(1), 101);
  for (int e : {2, 4, 8, 16}) EXPECT_EQ(p.tile_min_fill_pct(e), 50) << e;
  EXPECT_NE(apply_policy_overrides("permute_tile_min_fill_pct=102", &p), "");
}

TEST(DevicePolicy, BadOverridesAreRefusedWithTheReason) {
  const struct {
    const char* text;
    const char* why;
  } cases[] = {{"sector_bytes=48", "sector_bytes 48 is out of its range"},
               {"sector_bytes=256", "out of its range"},
               {"flat_unit_bytes=100", "flat_unit_bytes 100 is out of its range (4096..32768)"},
               {"bulk_flat_stages=x", "bulk_flat_stages 'x' is not an integer"},
               {"strip_tile=100x64", "strip_tile '100x64' is not RxC"},
               {"strip_tile=512x512", "within 48 KB"},
               {"nonsense=1", "unknown field 'nonsense'"},
               {"sector_bytes", "'sector_bytes' is not FIELD=VALUE"},
               {"permute_box_swizzle_bytes=48", "permute_box_swizzle_bytes 48 is out of its range"},
               {"permute_box_target_elems=32", "out of its range (64..16384)"},
               // Under the static 48 KB the launches' own checks would refuse boxes they take.
               {"permute_box_max_smem_bytes=32768", "out of its range (48896..98304)"},
               {"permute_box_max_smem_bytes=131072", "out of its range"}};
  for (const auto& c : cases) {
    DevicePolicy p;
    const std::string why = apply_policy_overrides(c.text, &p);
    EXPECT_NE(why.find(c.why), std::string::npos) << c.text << ": '" << why << "'";
  }
}

}  // namespace
}  // namespace tmakit
