// `auto`'s table: which technique runs a call, per shape class, element size and GPU (the H100's
// HBM3 or the H200's HBM3e, told apart by the device's DRAM bandwidth), and the classic technique
// a TMA technique falls back to. Every rule carries the measurements that chose it (GPU, run,
// % of memcpy); docs/perf-guide.md has the sessions they come from. Host code only: the kernels'
// headers it reads (flat.hpp, reg_block.hpp) are the planners' own arithmetic, shared so that
// `auto` and the launchers agree on which calls a form takes.
#include <algorithm>
#include <cstdint>
#include <string>
#include <host/transpose/registry.hpp>
#include <kernels/common/flat.hpp>
#include <kernels/common/reg_block.hpp>

namespace tmakit {
namespace {
// The fastest classic technique for a shape class, measured on the H100 (docs/perf-guide.md):
//  - a side of at most 32 elements (k x N, N x k, small matrices): smem_strip, whose tile spans
//    that side (2026-11-22 quick run: 4x4000000 / 4000000x4 at 43/67/91/98/98% of memcpy for
//    1/2/4/8/16 B, where the square tiles reached 7-32%);
//  - rows 16-byte multiples (the vector rungs run): 1 B vec_padded 85.9% of copy, 2 B
//    vec_padded 83.6% (8192^2); 4 B smem_wide 96.1% at 16384^2 (smem_xor 92.0%), 96.0% at
//    32768^2; 8 B smem_padded 97.8% (8192^2; smem_xor / smem_wide tie at 16384^2)
//    (2026-11-21);
//  - odd rows (no 16-byte vectors): smem_wide for 1-8 B (12345x6789: 1283/1651/2026/2537 GB/s,
//    where vec_padded ran 481/864 at 1/2 B and smem_padded 2182 at 8 B, 2026-11-22);
//  - output rows that are not 32-byte multiples, 2-8 B: smem_sector, whose blocks write whole
//    sectors (12345x6789: 2 B 1844 / 4 B 2683 / 8 B 2760 GB/s = 64.9 / 91.3 / 92.6% of memcpy,
//    smem_wide 58.3 / 68.4 / 84.6%; at 1 B it ran 24.6%, smem_wide 48.0%, 2026-11-22,
//    data at commit 358db19). On small matrices it lost at 2 and 4 B
//    (batched 3000x97x75, full run 2026-11-23: 768 / 1623 GB/s against smem_wide's 1358 /
//    2174; at 8 B it won, 2796 against smem_padded's 2650), so 2-4 B take it only when both
//    sides exceed kSectorMinSide (between 97, measured to lose, and 3001, measured to win);
//  - 16 B: smem_padded (smem_strip ties on odd shapes);
//  - odd rows at 1-2 B, both sides > kRealignMinSide: smem_realign, 16-byte vectors at any row
//    alignment (2026-11-23, H100, odd shapes 3001x4999 / 12345x6789 / 6789x12345: 1 B 1303 /
//    1886 / 1865 GB/s = 67-72% of memcpy where smem_wide ran 1041 / 1283 / 1208; 2 B 1742 /
//    2248 / 2210 = 74-79% where smem_sector ran 1566 / 1834 / 1829; data at commit 358db19). On
//    small matrices it lost (3000x97x75: 519 / 610 against smem_wide's 818 / 1353; 4096x64x64
//    batches 709 / 1362 against 1483 / 2149): its tile is 128 bytes x 160 rows.
//  - Both thresholds were 1024 (the short side) until the probe preset's odd shapes (session
//    13, data at commit 358db19 % of memcpy H100 | H200): a short side
//    of 777 wins with both, 20001x777 1 / 2 B smem_realign 77.6 / 82.3 | 67.3 / 71.2 where
//    smem_wide ran 63.8 / 71.9 | 58.5 / 67.3, 4 B smem_sector 95.5 | 86.7 against 79.8 | 78.0
//    (777x20001: 2 B 73.2 | 62.9 against 64.3 | 59.7; 4 B 90.9 | 82.4 against 73.2 | 71.1), so
//    kOddMidSide = 512 (between 97, measured to lose, and 777). What a small matrix lacks is
//    tiles: 1001x999 (72 / 144 realign tiles at 1 / 2 B) ran smem_realign 65.8 / 109.4 | 63.3
//    / 106.1 against smem_wide 75.5 / 107.3 | 72.0 / 102.2 and smem_sector 68.6 / 123.7 |
//    65.0 / 119.9, so smem_realign also needs one wave of tiles (512).
//  - a side of at most 32 elements at 1-2 B, at most 16 at 4 B: smem_flat, 16-byte accesses
//    on both sides whatever k (2026-11-23, H100, scripts/flat-experiments.sh runs 2-3,
//    data at commit 358db19 % of memcpy smem_flat / smem_strip: 1 B k = 2..32
//    82-108 / 47-83, 2 B 80-112 / 69-105, 4 B k <= 16 95-105 / 90-105; 4 B k = 24 82 / 87 and
//    8 B 84-99 / 97-101, so those keep smem_strip).
//  - ... and k x N at 4 B for every k <= 32 (N >= 65536): since smem_flat reads its rows'
//    partial chunks whole (2026-11-26), 24 x N runs it at 98-99% of memcpy against smem_strip's
//    86-89 on the H100 (CLI, 24x1000000 99.1 / 89.1, 24x1000003 98.0 / 86.3) and 91.4-92.1
//    against 74.9-75.3 on the H200 (24x1000003, benchmark probe preset; docs/perf-guide.md).
//  - ... and N x k at 4 B for every k <= 32 (N >= 65536): since smem_flat's N x k stores write
//    whole 32-byte sectors at any row start (2026-11-27), 1000003x24 runs it at 93.8 / 87.4% of
//    memcpy where smem_strip (auto's pick) ran 89.1 / 74.7, H100 / H200 (probe preset,
//    data at commit 358db19). The aligned
//    1000000x24 already ran it faster (the 2026-11-26 CLI: H100 98.3 against 89.8, H200 93.4).
//    8 B keeps smem_strip either way (24x1000003 97.2 / 96.5; 1000003x24 H200 88.2 / 90.9).
constexpr std::int64_t kOddMidSide = 512;
constexpr std::int64_t kFlatSkinny4Min = 65536;
// bulk_flat for batches of small odd matrices up to these bytes a matrix (2026-11-27, below).
constexpr std::int64_t kBulkFlatMaxMatrixBytes = 12 * 1024;       // the H100's table
constexpr std::int64_t kBulkFlatMaxMatrixBytesHbm3e = 24 * 1024;  // the H200's (2026-11-27)
// ... and for 2 B batches above the flat kernels' 32 KB, up to kFlatMaxMatrixBytes2B (64 KB) on
// the H200 and this on the H100 (2026-11-27, below).
constexpr std::int64_t kBulkFlat2BMaxMatrixBytes = 56 * 1024;

// smem_sector at 4 B from a short side of 181 (the 2026-11-27 class sweep and its checks, % of
// memcpy smem_sector / smem_wide, H100 | H200): batched 250x511x509 97.0 / 79.1 | 91.5 /
// 76.5, 400x350x333 93.9 / 82.8 | 92.6 / 87.5, 1000x190x250 - | 88.6 / 83.2, 600x201x300,
// 500x270x300 - | 83.9 / 83.2, 160x700x450 93.9 / 92.8 | 92.5 / 94.5. On the H200 it lost at
// 170 (400x170x520, 10% behind), 150 (800x150x300) and 130 (500x250x130 75.1 / 89.8 | 64.0 /
// 95.2); on the H100 it won at 170 and 150 (11% / 10% ahead) and lost at 130. The lines (H100
// between 130 and 150, H200 between 170 and 190) are fitted to these shapes; none was held out.
constexpr std::int64_t kSector4MinSide = 140, kSector4MinSideHbm3e = 180;
// ... and at 4 B only from 11 MiB a call: below, the output's partial sectors merge in the L2,
// and smem_sector's extra input rows are what is left of it. Odd single matrices, % of memcpy
// smem_wide / smem_sector, H100 | H200: 1001x999 (4.0 MB) 133.6 / 129.0 | 133.5 / 127.9,
// 1499x1501 (9.0 MB) 117.6 / 109.7 | 118.0 / 100.5, 1601x1650 (10.6 MB) - | 10% behind;
// 1771x1773 (12.6 MB) - | 103.3 / 106.7, 2001x1999 (16.0 MB) 103.5 / 108.8 | 103.2 / 108.6,
// 2897x2903 85.9 / 101.4 | 86.2 / 100.2. The line between 10.6 and 12.6 MB is fitted.
constexpr std::int64_t kSectorMinCallBytes = std::int64_t{11} << 20;
// 2 B takes smem_sector no more (2026-11-27): 1001x999 2 B (2 MB) ran smem_wide 131.3 / 118.6 |
// 125.5 / 116.0, the batch 250x511x509 2 B smem_wide 74.5 / 57.1 | 78.0 / 42.0; one 2 B matrix
// of 16 MiB has at least 1024 of reg_realign's tiles, so reg_realign takes every large one.

std::string classic_best(std::int64_t rows, std::int64_t cols, int elem_bytes,
                         std::int64_t batch = 1, bool hbm3e = false) {
  const std::int64_t short_side = std::min(rows, cols);
  if (short_side > 1 &&
      ((elem_bytes <= 2 && short_side <= 32) || (elem_bytes == 4 && short_side <= 16) ||
       (elem_bytes == 4 && short_side <= 32 && std::max(rows, cols) >= kFlatSkinny4Min)))
    return "smem_flat";
  if (short_side <= 32) return "smem_strip";
  const bool rows16 = (cols * elem_bytes) % 16 == 0 && (rows * elem_bytes) % 16 == 0;
  // smem_realign's tiles of an odd matrix (kernels/common/realign.hpp RealignTile: kOwned =
  // 128 rows plus kPad = 32, 128 bytes wide; 4 CTAs per SM; that header is not included here,
  // its device loops' #pragma unroll warn under the host compiler): below one wave of them on
  // the H100 / H200 (528 / 528) the small tiles of smem_wide / smem_sector win.
  const std::int64_t realign_tiles =
      ceil_div(rows + 32, std::int64_t(128)) * ceil_div(cols * elem_bytes, std::int64_t(128));
  // At 1 B, reg_realign (2026-11-24: the transpose in registers, no input tile, 256-row tiles)
  // ran 74-76% of memcpy on the large odd shapes where smem_realign ran 71-72 on the H100 (H200
  // 64-65 against 59), and tied on 3001x4999 (80.4 / 80.9 | 72.1 / 72.4) and the probe's
  // 777x20001 (H200 62.5 / 63.4); at 2 B it lost on the H100 (76.6 / 79.6). The 2026-11-26 phase 3
  // with fewer instructions took it ahead at 2 B as well: H200, two runs each
  // (data at commit 358db19), % of memcpy reg_realign /
  // smem_realign: 12345x6789 77.2 / 63.0, 6789x12345 76.1 / 62.6, 3001x4999 81.6 / 70.9; probe
  // 4097x4095 83.4 / 70.0, 9999x9999 77.1 / 63.3, 20001x777 88.2 / 71.7, 777x20001 74.4 / 63.9.
  // On the H100 the 2 B pick was made before its measurement: a later full run of 2026-11-26 is its
  // check (docs/perf-guide.md).
  if (!rows16 && elem_bytes <= 2 && short_side > kOddMidSide && realign_tiles >= 512)
    return "reg_realign";
  const bool out_rows_split_sectors = (rows * elem_bytes) % 32 != 0;
  const bool sector_call =
      std::max<std::int64_t>(batch, 1) * rows * cols * elem_bytes >= kSectorMinCallBytes;
  if (out_rows_split_sectors &&
      (elem_bytes == 8 ||
       (elem_bytes == 4 && short_side > (hbm3e ? kSector4MinSideHbm3e : kSector4MinSide) &&
        sector_call)))
    return "smem_sector";
  switch (elem_bytes) {
    case 1:
    case 2:
      return rows16 ? "vec_padded" : "smem_wide";
    case 4:
      return "smem_wide";
    case 8:
      return rows16 ? "smem_padded" : "smem_wide";
    default:
      return "smem_padded";
  }
}

}  // namespace

std::string fallback_variant(const std::string& token, std::int64_t rows, std::int64_t cols,
                             int elem_bytes) {
  const VariantDef* def = find_variant_def(token);
  if (def != nullptr && def->info.kind == VariantKind::kCopy) return "copy";
  if (def != nullptr && def->info.kind == VariantKind::kAccumulate) return "smem_accumulate";
  // bulk_flat without the TMA unit is smem_flat, where a flat form can take the call (a small
  // matrix, or a side of at most 32).
  if (token == "bulk_flat" &&
      (rows * cols * elem_bytes <= flat_max_matrix_bytes(elem_bytes) || std::min(rows, cols) <= 32))
    return "smem_flat";
  return classic_best(rows, cols, elem_bytes);
}

std::string auto_variant(std::int64_t rows, std::int64_t cols, int elem_bytes, std::int64_t batch,
                         double dram_gbps) {
  // The fastest technique per shape class and element size on the H100, TMA where it won; the
  // dispatcher falls back from it (and says why) where TMA cannot run. Percent of
  // cudaMemcpyAsync at 8192^2 / 16384^2 (2026-11-21):
  //   1 B: tma_load_store 92.8 / 91.0 (tma_pipeline 94.6 / 90.0, vec_padded 86.5 / 85.1)
  //   2 B: tma_load_store 93.3 / 92.7 (tma_pipeline 93.4 / 91.1, vec_padded 83.5 / 84.0)
  //   4 B: smem_wide - / 96.1 (smem_xor 92.8 / 92.0, tma_pipeline 92.5 / 91.9)
  //   8 B: smem_padded 97.8 / 96.8 (every TMA technique 92-93)
  //  16 B: smem_padded (int4_8x8 is the Programming Guide's teaching example, not fast)
  // Skinny and odd shapes: classic_best (above); TMA needs 16-byte rows.
  //
  // tma_wide (256-byte tile rows, column-major tile order, evict_last loads; 2026-11-23) where
  // its tiles are full and many. Full runs of 2026-11-23 (data at commit 358db19),
  // tma_wide / the best technique, H100 | H200:
  //  - 1 B, 4000-16384 tiles of 256 x 256 bytes: 16384^2 1.00 | 0.97, 32768^2 1.00 | 0.99,
  //    1000x512x512 1.00 | 0.89 (tma_load_store best on the H200: one 128 KB CTA per SM keeps
  //    too few bytes moving for HBM3e), so 1 B takes it on the H100 table only;
  //  - 2 B: 16384^2, 32768^2, 1000x512x512, 1024x256x256 (4096 tiles) 1.00 | 1.00; with 2048
  //    tiles (2048x128x128) 0.96 | 1.00, with 1024 (8192x2048, 4096^2) 0.87 | 0.90: so at least
  //    kWideMinTiles = 3000 (between 2048, measured to lose, and 4000, measured to win);
  //  - 4 and 8 B, >= 16384 tiles and both sides >= 128: 0.993-1.000 | 1.000 (16384^2, 32768^2,
  //    1000x512x512, 1024x256x256, 2048x128x128 8 B, 4096^2 8 B, 8192x2048 8 B), where
  //    smem_wide / smem_padded ran 0.94-0.96 of it on the H200; skinny k = 32 (32 x 4000000 and
  //    4000000 x 32) 0.98-1.00 | 1.00; k = 16 0.82-0.84 | 0.64-0.67 (smem_strip / tma_store);
  //    64 x 64 matrices 0.95-0.98 | 0.96-0.98 (classic).
  //  - a side shorter than the tile (256 bytes) wastes it: 2048x128x128 1 B ran 0.55 | 0.46.
  const bool hbm3e = kernels::is_hbm3e(dram_gbps);  // the H200's table where the GPUs differ
  const std::int64_t short_side = std::min(rows, cols), long_side = std::max(rows, cols);
  // A line (k = 1) of at least kLineMemcpyMinBytes: smem_strip's cudaMemcpyAsync. Final run
  // (data at commit 358db19), 16 B, % of memcpy: 1 x 4000000 auto
  // (smem_strip's `copy`) 94.7 | 95.1, cuTENSOR 98.0 | 96.2; 4000000 x 1 auto (bulk_flat) 96.7 |
  // 94.3, cuTENSOR 95.8 | 96.9. With it (final run): 101.0 / 102.0 | 100.4 / 99.8 (best
  // technique), cuTENSOR 98.2 / 99.1 | 96.5 / 96.6. Smaller lines keep the kernels below
  // (110-138% of memcpy at 1-8 B).
  if (short_side == 1 && rows * cols * batch * elem_bytes >= kernels::kLineMemcpyMinBytes)
    return "smem_strip";
  // Batches of small matrices (one matrix <= 32 KB, smem_flat's batch form: g whole matrices a
  // block, one run each way). H100 runs 2-3 of 2026-11-23 (scripts/flat-experiments.sh, bench
  // presets full and probe), % of memcpy smem_flat / what auto ran before:
  //   1-2 B: 16384x32x32 83 / 51 (1 B), 88 / 79 (2 B); 3000x97x75 70 / 42, 85 / 58;
  //          100000x8x8 97 / 7, 92 / 8; 20000x16x48 81 / 27, 93 / 37; 5000x33x65 53 / 32, 65 / 40
  //          but 4096x64x64 and 2048x128x128 (16-byte rows, sides >= 64) 54-72 where
  //          tma_load_store / vec_padded ran 95-110: those keep the TMA picks below;
  //   4 B:   3000x97x75 94 / 81, 5000x33x65 81 / 60, 10000x24x40 89 / 62, 100000x8x8 95 / 12;
  //          16384x32x32 90-96 against tma_load_store's 102: 16-byte rows with a side >= 32
  //          keep it;
  //   8 B:   100000x8x8 95 / 21, 20000x16x48 98 / 90; sides > 16 ran 86-96 / 98-100.
  //   16 B:  (probe runs of 2026-11-24, data at commit 358db19 H100 | H200)
  //          100000x8x8 98.6 | 89.7 where smem_strip (what auto ran) managed 40.5 | 29.5; a side
  //          of 16 already split the GPUs (20000x16x48: 99.8 / 99.0 | 87.7 / 98.0), so < 16.
  // reg_tile (2026-11-24: one 8 x 8 block per thread, in registers) for batches of matrices
  // with sides of 32..64 at 1 B and of 32 at 2 B. H100 run of 2026-11-24 (data at commit 358db19),
  // % of memcpy reg_tile / what auto ran: 16384x32x32 1 B 87.8 / 83.3 (reg_permute), 2 B 96.4
  // / 92.2 (cuTENSOR 95.6); 4096x64x64 1 B 100.1 / 96.9 (vec_padded). Not at 64 x 64 2 B (97.9
  // against tma_load_store's 98.8), sides of 8..24 (100000x8x8 1 B 88.5 against smem_flat's 104.0)
  // or 128 and up (92.7 against 102.6). The 2026-11-27 run (class sweep and its check, tmakit_bench
  // --shapes, data at commit 358db19) found 2 B batches of 16-byte rows with a short side of 32..63
  // fast with it where the rows are a multiple of 16, % of memcpy reg_tile / the best other, H100 |
  // H200: 3000x48x40 125.4 / 109.8 (bulk_flat) | 122.3 / 99.3 (tma_load_store), 1500x48x200
  // 105.3 / 100.0 | 97.1 / 96.5, 8000x32x48 95.5 / 92.4 | 92.1 / 85.5; and slow where they are
  // not: 6000x40x40 87.5 / 104.6 | 86.5 / 92.1, 4000x40x72 66.3 / 90.1 | 63.8 / 79.3,
  // 2000x56x120 66.7 / 101.0, 1200x40x256 53.2 / 93.8 (H100).
  const bool rows16 = (cols * elem_bytes) % 16 == 0 && (rows * elem_bytes) % 16 == 0;
  const bool tile2_mid = elem_bytes == 2 && rows16 && rows % 16 == 0 && cols % 8 == 0 &&
                         short_side >= 32 && short_side < 64;
  if (batch > 1 && elem_bytes <= 2 && rows % 8 == 0 && cols % 8 == 0 && short_side >= 32 &&
      (long_side <= (elem_bytes == 1 ? 64 : 32) || tile2_mid))
    return "reg_tile";
  // On the H200 also 16 x N at 2 B: 16x4000000 90.6 against reg_permute's 88.2 (final run
  // 2026-11-24; the H100 ran both at 94.1).
  // ... and N x 16 / N x 32 at 1-2 B (2026-11-25, final runs on the H200, % of memcpy
  // reg_tile / auto's pick then): 4000000x16 1 B 85.4 / 84.1, 84.8 / 83.6, 85.2 / 83.6
  // (reg_permute); 4000000x32 2 B 88.9 / 87.4, 89.1 / 88.2, 89.0 / 87.1 (tma_load); the other two
  // within 0.7 of the pick (4000000x32 1 B 83.2-83.5 / 83.6-83.9, 4000000x16 2 B 87.7-88.3 /
  // 88.3-88.5 smem_flat). N x 24 was not measured.
  // The 2026-11-25 L2 prefetch hints (kernels/primitives/ld_l2.cuh) moved the 1 B picks on the
  // H200 (final run, data at commit 358db19 % of memcpy):
  //  - N x 16 / N x 32 at 1 B go back to reg_permute (kTall with .L2::256B): 4000000x16 92.4
  //    against reg_tile's 88.4, 4000000x32 90.3 against 87.2. At 2 B reg_tile stays (4000000x16
  //    91.7 / 90.4, 4000000x32 89.4 / 89.3).
  //  - 32 x N at 1 B takes reg_tile (.L2::128B): 32x4000000 91.2 against reg_permute's 88.9
  //    (the 2026-11-25 experiment: 90.7 against 87.7). 16 x N does not (reg_tile 46-48: its
  //    bands are 32 rows at 1 B).
  const bool wide16_2b = elem_bytes == 2 && rows == 16 && cols % 8 == 0 && cols >= 65536;
  const bool wide32_1b = elem_bytes == 1 && rows == 32 && cols % 8 == 0 && cols >= 65536;
  const bool tall16_32 =
      elem_bytes == 2 && (cols == 16 || cols == 32) && rows % 8 == 0 && rows >= 65536;
  if (hbm3e && batch <= 1 && (wide16_2b || wide32_1b || tall16_32)) return "reg_tile";
  // reg_permute (2026-11-24: K x 16-byte blocks permuted in registers, no shared memory) where
  // its block takes the dense call (a short side of 2..32, the long side whole 16-byte chunks;
  // the launcher checks the pointers and strides and runs smem_flat where they break a rule).
  // H100 runs 2026-11-24 (data at commit 358db19 scripts/reg-experiments.sh),
  // % of memcpy reg_permute / the best other technique:
  //   k x N (kWide, lane-paired stores): 1 B k = 2..32 93.8-119.6 / 83.7-109.9 (16 x 4M 93.8 /
  //     83.7, 32 x 4M 94.2 / 91.4, 9 x 2M 93.0 / 75.3); 2 B k <= 16 94.1-124.3 / 91.1-110.3, but
  //     32 x 4M 92.9 / 94.7; 4 B k <= 4 97.8-111.6 / 95.3-106.2, k = 7..16 0.96-0.98 of the best;
  //     8 B 0.94-1.01 (smem_strip kept).
  //   N x k (kTall): 1 B k <= 9 96.4-131.6 / 85.5-102.0, k = 16 / 32 89.6 / 87.8 against
  //     90.9 / 90.7; 2 B k <= 9 92.5-132.4 / 91.8-109.5, k = 16 0.92; 4 B k <= 4 99.5-113.5 /
  //     95.7-106.3, k = 7 0.99; 8 B 0.97-1.02.
  //   batches at 1-2 B (probe): 100000x8x8 96.0 / 95.8, 90.8 / 87.7; 20000x16x48 90.1 / 87.3,
  //     93.9 / 93.8; 16384x32x32 and 10000x24x40 within 1 point of smem_flat; at 4-8 B 0.88-0.97.
  {
    const std::int64_t b = std::max<std::int64_t>(batch, 1);
    const RegPlan rp =
        reg_plan(rows, cols, elem_bytes, b, cols, rows, rows * cols, rows * cols, 0, 0);
    const int kb = rp.k * elem_bytes;  // the short side's bytes
    // Realigned reads (k x N at 1 B whose rows are not 16-byte multiples, 2026-11-27): CLI,
    // k x 1000001, % of memcpy reg_permute / smem_flat (auto's pick before), H200 | H100: k = 2
    // 111.5 / 103.1 | 113.0 / 106.3, 4 104.9 / 97.8 | 109.0 / 104.7, 12 85.2 / 71.4 | 89.1 /
    // 79.1, 24 75.5 / 61.2 | 82.9 / 71.1, 31 71.3 / 64.1 | 80.2 / 68.0; ties at 3 and 7; but
    // 16 80.8 / 87.1 | 87.8 / 89.9 (smem_flat's gather is at its best at k = 16), and 32 71.0 /
    // 73.4 on the H200 against 82.3 / 78.4 on the H100. Probe, two rounds: 12 x 1000003 85.7 /
    // 73.4 | 90.4 / 81.8, 24 x 1000003 74.9 / 69.0 | 84.3 / 77.2 (data at commit 358db19). One
    // matrix only: batches not measured. The 2026-11-27 gather (smem_flat's walk placed once per
    // thread, flat_gather.cuh) took k = 8 from it too: 8 x 1000003, tmakit_bench --shapes, two
    // rounds each, % of memcpy smem_flat / reg_permute, H100 109.6 / 102.6, 110.0 / 103.0 |
    // H200 98.9 / 98.1, 105.3 / 103.9 (k = 12 and 24 stay: 12 x 1000003 81.0 / 86.9, 24 x
    // 1000003 80.0 / 83.0 on the H100).
    const bool pays_realign = rp.realign && b == 1 && elem_bytes == 1 &&
                              ((rp.k % 16 != 0 && rp.k != 8) || (!hbm3e && rp.k == 32));
    // Batches at 2 B of 16-byte rows with a short side of 16..31 went to smem_flat with session
    // 38's gather (same runs, smem_flat / reg_permute, two rounds): 20000x16x48 H100 96.2 / 93.8,
    // 96.1 / 93.4 | H200 91.1 / 86.3, 91.8 / 86.6; 10000x24x40 H100 108.4 / 107.8, 108.7 / 107.6
    // | H200 106.0 / 102.8, 105.1 / 102.9. (The H100's figures are from the build with 4 blocks
    // per SM, docs/perf-guide.md.)
    const bool batch2_mid =
        b > 1 && elem_bytes == 2 && rows16 && short_side >= 16 && short_side < 32;
    // k x N at 2 B with k = 17..31 and 16-byte input rows (the 2026-11-27 class sweep, the first
    // measurement between k = 16 and 32; tmakit_bench --shapes, one run each, % of memcpy):
    // 20x1048576 reg_permute 92.3 | 88.2 where smem_flat (auto's pick then) ran 91.4 | 79.3,
    // H100 | H200. 32 x N keeps the TMA picks below (32x4000000: tma_load_store 95.2 | 93.7,
    // reg_permute 93.1 | 88.4, full runs of 2026-11-27).
    const bool wide2_mid = elem_bytes == 2 && rp.k > 16 && rp.k < 32;
    const bool pays = rp.form != RegForm::kNone && !rp.realign && !batch2_mid &&
                      (b > 1                       ? elem_bytes <= 2
                       : rp.form == RegForm::kWide ? (elem_bytes <= 2 && kb <= 32) || wide2_mid ||
                                                         (elem_bytes == 4 && rp.k <= 4)
                                                   : elem_bytes <= 4 && rp.k < 16);
    // The H200 (same scripts, data at commit 358db19) also takes N x k at 1 B for
    // every k: 4000000x16 / 4000000x32 84.2 / 83.1 where smem_flat ran 76.8 / 76.9 and
    // tma_load (its pick for N x 32) 76.4; and at 4 B for k < 8: 4000000x7 reg_permute 3617 /
    // 3694 GB/s against smem_flat 3570 / 3522 in two full runs of 2026-11-24 (the H100 ran
    // smem_flat 2756 / 2760 against 2726 / 2735 there); k = 16 stays on smem_flat (3745 / 3762
    // against 3305 / 3358). On 2026-11-25, put the L2 prefetch hint on reg_permute's N x k loads (k
    // >= 7) on the H100 too, and N x k at 1 B follows the H200 there (experiment, two runs each, %
    // of memcpy): reg_permute 4000000x16 99.0, 4000000x32 95.5, where a full run of 2026-11-25 had
    // smem_flat (auto's pick) at 92.2 / 90.0 and reg_tile (hinted) ran 94.3 / 92.3. N x 24 was not
    // measured.
    const bool pays_tall = rp.form == RegForm::kTall && b == 1 &&
                           (elem_bytes == 1 || (hbm3e && elem_bytes == 4 && rp.k < 8));
    // 8 B, N x k with k <= 4 and 2 x N (full runs of 2026-11-24, the first with the flush that
    // demotes evict_last lines; data at commit 358db19), reg_permute
    // / smem_strip, H100 | H200: 4000000x2 1.00 / 0.99 | 1.00 / 0.95, 4000000x4 1.00 / 1.00 |
    // 1.00 / 0.97, 2x4000000 1.00 / 1.00 | 1.00 / 0.97; 4 x N and k = 7 stay on smem_strip
    // (reg_permute 0.96-1.00 | 0.96-0.98 of it).
    const bool pays8 =
        elem_bytes == 8 && b == 1 && !rp.realign &&
        ((rp.form == RegForm::kTall && rp.k <= 4) || (rp.form == RegForm::kWide && rp.k == 2));
    // N x k at 2-4 B with k < 16 for any row length (it took kb <= 16 until 2026-11-27): the
    // probe preset's 2097152 x 9 (18 / 36-byte rows), % of memcpy reg_permute / smem_flat (auto's
    // pick then), H100 | H200 (data at commit 358db19):
    // 2 B 97.7 / 92.0 | 93.5 / 86.2, 4 B 95.3 / 94.5 | 92.6 / 88.0; full runs of 2026-11-27,
    // 4000000 x 7 4 B 101.5 / 100.6 on the H100 (the H200 took it already). k = 16 keeps smem_flat
    // / reg_tile (4000000 x 16 4 B 95.5 / 97.4 | 88.8 / 90.3).
    if (pays || pays_tall || pays8 || pays_realign) return "reg_permute";
  }
  // k x N at 8 B on the H200 (one matrix, N >= 65536, k = 3..31 but 4, 8 and 16): smem_flat,
  // whose kWide form moves 16-byte chunks on both sides, where classic_best ran smem_strip.
  // The 2026-11-27 runs (k = 3, 5, 6, 7, 9, 12, 13, 18, 20, 24, 29, 31; % of memcpy smem_flat /
  // smem_strip): 0.4-7.6 ahead but at k = 13 (94.7 / 95.1). On 2026-11-27, held out (tmakit_bench
  // --shapes, two rounds, data at commit 358db19): 10x2000000
  // 98.9 / 97.0, 11x1500007 96.2 / 91.2, 14x3000000 97.0 / 93.1, 15x1500000 98.8 / 96.8,
  // 22x1500001 97.4 / 91.1, 27x1500000 96.5 / 95.6; but 4x3000001 94.8 / 101.4 and 8x2000000
  // 87.3 / 97.0 (and the 2026-11-27 16 x N 95.2 / 97.0), as predicted from the 2026-11-27
  // powers of two: those keep the strip. Why they differ is not known. The H100 ties (session
  // 42's same shapes: within 2.4 either way) and keeps the strip.
  if (hbm3e && elem_bytes == 8 && batch <= 1 && rows >= 3 && rows < 32 && rows != 4 && rows != 8 &&
      rows != 16 && cols >= kFlatSkinny4Min)
    return "smem_flat";
  const bool small_batch = batch > 1 && rows * cols * elem_bytes <= kFlatMaxMatrixBytes;
  // Batches of odd 2 B matrices of 32-64 KB (kFlatMaxMatrixBytes2B, 2026-11-27: smem_flat's and
  // bulk_flat's batch form takes them, one matrix a unit): bulk_flat, up to 56 KB a matrix on
  // the H100 and 64 KB on the H200. `TMAKIT_FLAT_MAX_MATRIX_BYTES=65536 bash scripts/2026-11-27.sh
  // envab`, two rounds, % of memcpy bulk_flat / smem_flat / the best other (auto's pick then,
  // smem_wide), H100 | H200: 2938x81x240 [38880 B] 86.1 / 72.7 / 69.8 | 65.3 / 60.2 / 51.7
  // (cuTENSOR 60.8); 2465x198x106 [41976] 85.3 / 86.3 / 73.8 | 80.7 / 75.0 / 57.5; held out for
  // the rule: 3000x64x300 [38400] 92.2 / 91.7 / 90.1 | 85.6 / 84.6 / 79.4, 2000x101x199 [40198]
  // 92.6 / 93.4 / 72.9 | 86.9 / 83.5 / 54.8, 1500x211x111 [46842] 91.5 / 97.2 / 81.6 | 85.6 /
  // 88.3 / 62.6, 1200x150x170 [51000] 87.7 / 84.9 / 82.1 | 82.8 / 75.0 / 64.8; 600x250x130
  // [65000] 79.7 / 77.9 / 83.9 on the H100 (lost) and 72.8 / 68.6 / 65.9 on the H200.
  if (batch > 1 && elem_bytes == 2 && !rows16 && rows * cols * elem_bytes > kFlatMaxMatrixBytes &&
      rows * cols * elem_bytes <= (hbm3e ? kFlatMaxMatrixBytes2B : kBulkFlat2BMaxMatrixBytes))
    return "bulk_flat";
  // bulk_flat (2026-11-24: smem_flat's gather with one 1-D bulk copy per unit, persistent CTAs)
  // for batches of small matrices whose rows are not 16-byte multiples (1-4 B; which ones: session
  // 34's line at the end of this comment). The 2026-11-24 % of memcpy bulk_flat / smem_flat
  // (data at commit 358db19), H100 (4 CTAs per SM) | H200 (6): 3000x97x75 1 B 72.1
  // / 68.5 | 63.0 / 60.3, 2 B 83.9 / 85.5 | 75.1 / 70.9, 4 B 92.2 / 94.8 | 84.6 / 82.1; 5000x33x65
  // 1 B 62.3 / 54.9 | 48.7 / 42.8, 2 B 75.2 / 70.8 | 65.3 / 58.9, 4 B 87.5 / 79.5 | 75.8 / 66.8;
  // 2000x100x60 1 B 89.8 / 87.8 | 77.8 / 75.9, 2 B 97.0 / 95.9 | 80.9 / 77.2; 10000x24x40 1 B 86.9
  // / 82.2 | 76.4 / 70.6; 100000x8x8 1 B 100.7 / 101.1 | 85.4 / 86.0 (a tie). With 16-byte rows it
  // won or lost by shape (20000x16x48 2 B 89.4 / 93.4 | 79.0 / 79.6, 100000x8x8 2 B 89.3 / 86.4
  // | 82.6 / 70.8), so those keep smem_flat. At 2 B the H100 takes it too (2026-11-25): 3000x97x75
  // ran bulk_flat 3.4, 1.8 and 2.2% faster than smem_flat (auto's pick then) in final runs /
  // p. The 2026-11-27 run (one binary of HEAD's library, two rounds of the probe and full presets'
  // batches, data at commit 358db19 and the H200 sweep's base runs, data at commit 358db19): since
  // smem_flat's 2026-11-26 to 27 kernels the line is the matrix's bytes, not its element size. % of
  // memcpy bulk_flat / smem_flat, H100 | H200, matrix bytes in brackets:
  //   5000x33x65 1 / 2 / 4 B [2145 / 4290 / 8580] 64.6 / 59.4, 81.5 / 76.7, 91.9 / 88.9 |
  //     51.0 / 46.9, 68.9 / 62.9, 78.8 / 69.6; 10000x24x40 1 B [960] 93.4 / 87.4 | 91.0 / 83.5;
  //   2000x100x60 1 / 2 B [6000 / 12000] 90.6 / 87.0, 94.3 / 94.9 | 76.5 / 74.7, 79.2 / 76.2;
  //   3000x97x75 1 / 2 / 4 B [7275 / 14550 / 29100] 82.1 / 79.1, 92.5 / 97.8, 91.1 / 94.8 |
  //     69.2 / 63.2, 80.9 / 76.6, 83.6 / 82.9; 500x250x130 1 B [32500] 70.8 / 78.7 | 56.6 / 64.9.
  // So bulk_flat up to 12 KB a matrix on the H100 (between 8580, measured to win, and 14550,
  // measured to lose; 12000 a tie) and 30 KB on the H200 (29100 won, 32500 lost); 8-16 B were
  // not measured and keep what follows.
  // The 2026-11-27 gather (smem_flat's walk placed once per thread) moved the H200's line down to
  // 24 KB: 3000x97x75 4 B [29100], % of memcpy smem_flat / bulk_flat, the 2026-11-27 A/B (two
  // rounds) 91.0 / 91.0, 94.3 / 92.6, final runs of 2026-11-27 92.5 / 90.0, 94.6 / 91.1
  // (auto ran bulk_flat: 3.5% behind, data at commit 358db19);
  // 5000x33x65 8 B [17160] keeps bulk_flat (the 2026-11-27 A/B: 90.7 / 85.9, 89.3 / 85.3), and so
  // do 1-2 B up to 14550 (3000x97x75 2 B 86.4 / 83.7, 86.6 / 84.9). 24 KB lies between 17160
  // (measured to win) and 29100 (measured to lose).
  const std::int64_t bulk_flat_max_matrix_bytes =
      hbm3e ? kBulkFlatMaxMatrixBytesHbm3e : kBulkFlatMaxMatrixBytes;
  // The 2026-11-27 probe runs (the preset's batches, one run per GPU, % of memcpy; data at commit
  // 358db19), H100 | H200, against auto's pick then:
  //  - 8 B matrices of sides <= 8 (2 x 2 blocks): reg_tile, 100000x8x8 99.2 | 96.8 where
  //    smem_flat ran 96.6 | 88.9 (at 4 B smem_flat keeps them: 94.4 | 82.9 against 87.5 | 80.0);
  //  - on the H200, 16-byte rows with a short side of 16..31 at 4-8 B: tma_store (8 B only since
  //    2026-11-27, below), 20000x16x48
  //    4 B 90.1 (reg_tile 90.6) and 8 B 98.0 where smem_flat ran 85.1 / 83.8, 10000x24x40 4 B
  //    91.0 and 8 B 93.8 where smem_flat / smem_strip ran 84.5 / 85.7 (the H100 runs smem_flat /
  //    smem_strip at 93.8-99.1 there, TMA 0.5-3 points behind);
  //  - on the H200, bulk_flat at 8 B too within its size limit: 5000x33x65 8 B 85.0 where
  //    smem_wide ran 77.6 (3000x97x75, 58 KB a matrix, keeps smem_wide: 94.9).
  if (batch > 1 && elem_bytes == 8 && rows % 2 == 0 && cols % 2 == 0 && long_side <= 8)
    return "reg_tile";
  // The 2026-11-27 smem_flat took the 4 B half of the H200's tma_store rule (tmakit_bench --shapes,
  // two rounds, % of memcpy smem_flat / tma_store): 20000x16x48 94.2 / 90.2, 94.8 / 90.9;
  // 10000x24x40 89.6 / 90.6, 90.1 / 90.4 (a tie). 8 B keeps it (85.7 / 97.2, 79.6 / 92.9).
  if (hbm3e && small_batch && rows16 && elem_bytes == 8 && short_side >= 16 && short_side < 32)
    return "tma_store";
  // Batches of 16-byte-row matrices with a short side of 32..63, between the flat kernels'
  // sides and tma_wide's (>= 64), where reg_tile (above) does not take them. The 2026-11-27 class
  // sweep and its check (one to three runs per GPU; % of memcpy, H100 | H200):
  //  - 2 B: tma_load_store on the H200 (4000x40x72 78.6, bulk_flat 79.3; 6000x40x40 90.2,
  //    smem_flat 92.1; 2000x56x120 97.0; 1200x40x256 91.6, where smem_flat, auto's pick then,
  //    ran 74.8 / 92.1 / 78.4 / 70.3); on the H100 above 12 KB a matrix (2000x56x120 101.0,
  //    1200x40x256 93.8 against smem_flat's 95.5 / 78.8), below it smem_flat stays (6000x40x40
  //    104.6, bulk_flat 96.6, tma_load_store 92.7; 4000x40x72 86.9 / 90.1 / 82.1);
  //  - 4 B, matrices of at most 4096 elements (one smem_wide tile's worth) and a short side of
  //    33..63: tma_wide on both GPUs. No technique was within a few points of the best on all
  //    ten shapes measured (4000x40x72, 6000x40x40, 3000x48x80, 5000x36x100, 3000x44x88,
  //    2000x64x48, 7000x36x52, 4000x52x76, 3500x40x96, 4500x44x64: the best was
  //    tma_load_store, reg_tile, smem_flat, smem_wide, tma_wide or bulk_flat by shape). Behind
  //    the best at most (mean), H100 | H200: tma_wide 10.5% (4.1) | 13.1% (5.7), smem_flat
  //    18.1 (4.0) | 33.2 (13.0), tma_load_store 29.9 (13.8) | 23.2 (9.6), smem_wide (auto's pick
  //    before) 16.5 (5.8) | 35.2 (17.4). Two narrower rules written on the way failed on the
  //    shapes held out for them: smem_flat on the H100 (2000x64x48, 4500x44x64: 18% / 10%
  //    behind) and tma_load_store up to a long side of 80 on the H200 (7000x36x52, 4000x52x76,
  //    4500x44x64: 14-24% behind). A short side of 32 on the H100 runs smem_flat (8000x32x48
  //    95.9, the best; smem_padded, the pick before, 76.5); the H200 keeps tma_load_store there
  //    (93.8). Larger matrices keep smem_wide (2000x100x60 98.6 | 101.0, 2500x60x100 - | 99.9,
  //    2000x56x120 99.0 | 93.1);
  //    On 2026-11-27, split the 4 B rule by the 32-byte sectors of the rows (a side = 4 mod 8
  //    splits them; tmakit_bench --shapes, two rounds per GPU, 19 held-out shapes and the
  //    2026-11-27 ten, data at commit 358db19 and the summary auto-rules-4b-summary.txt; % of
  //    memcpy, best / tma_wide / the new pick, H100 | H200):
  //     - a side that splits and the matrix at least half of one 64 x 64 tile (2048..4096
  //       elements, both sides <= 64): smem_wide, one tile a matrix (4000x44x52 108.3 / 97.0 /
  //       108.3 | 97.7 / 93.7 / 97.7, 3500x52x52 109.4 / 98.8 / 109.4 | 105.3 / 95.2 / 105.3,
  //       2500x60x60 109.6 / 102.3 / 109.6 | 108.8 / 98.7 / 108.8; 4500x44x64 98.1 / 95.3 / 98.1
  //       | 94.1 / 94.1 / 92.9);
  //     - else both sides split: smem_flat, whose batch form moves each matrix as one run and
  //       never sees the rows' sectors (6000x36x36 105.1 / 92.1 / 105.1 | 102.2 / 85.6 / 102.0,
  //       5000x36x100 103.6 / 95.1 / 103.3 | 97.2 / 88.5 / 97.1, 6000x36x44 107.9 / 95.3 / 107.6
  //       | 102.1 (bulk_flat) / 91.2 / 99.7);
  //     - else tma_wide as before (4000x40x56 96.8 / 95.9 / 95.9 | 90.7 / 90.7 / 90.7, where
  //       smem_wide ran 84.0 on the H200: the first form of the rule, one tile whatever the
  //       sectors, was fitted on the H100 and lost this cell on the H200).
  //    Over the 29 | 29 measured shapes of the class, behind the best at most (mean): tma_wide
  //    13.2% (6.4) | 16.2% (6.3), the new picks 4.5% (0.4) | 12.7% (1.5). The worst are cells
  //    that keep tma_wide, both sides on sectors, where tma_load_store or reg_tile won on the
  //    H200 (4000x40x72 78.1 against 89.5; 3000x48x80, 3500x40x96, 6000x40x40 4.9-6.3 behind).
  //    On the H200, where both sides are on sectors (0 mod 8) and one is above 64, those four
  //    cells (tma_load_store best in all) made a prediction, checked on five held-out shapes
  //    (data at commit 358db19 two rounds, % of memcpy
  //    tma_load_store / tma_wide): 3000x40x88 102.6 / 94.3, 2500x48x72 101.4 / 92.7, 3500x40x80
  //    102.4 / 90.9, 2600x40x96 93.3 / 88.8, 2200x56x72 102.8 / 98.8; with both sides <= 64
  //    tma_wide stayed ahead as predicted (2500x56x64 91.8 / 97.0, 3000x48x64 91.8 / 97.4,
  //    4000x48x48 89.1 / 93.1). So tma_load_store there on the H200; the H100 mixed (4000x40x72
  //    92.6 / 88.4, 3500x40x96 96.2 / 99.5) and keeps tma_wide.
  //  - 8 B on the H200, at most 4096 elements: tma_load_store (4000x40x72 94.4-95.8, smem_wide
  //    86.5-86.9; 3000x48x80 96.4, 5000x36x100 96.6 against 95.0 / 98.2). The H100 keeps
  //    smem_wide (4000x40x72 98.6 against 95.4).
  if (small_batch && rows16 && short_side >= 32 && short_side < 64 && long_side > 32) {
    if (elem_bytes == 2 && short_side > 32 &&
        (hbm3e || rows * cols * elem_bytes > kBulkFlatMaxMatrixBytes))
      return "tma_load_store";
    if (elem_bytes == 4 && short_side > 32 && rows * cols <= 4096) {
      const bool row_split = rows % 8 == 4, col_split = cols % 8 == 4;
      if (rows <= 64 && cols <= 64 && rows * cols >= 2048 && (row_split || col_split))
        return "smem_wide";
      if (row_split && col_split) return "smem_flat";
      if (hbm3e && rows % 8 == 0 && cols % 8 == 0 && std::max(rows, cols) > 64)
        return "tma_load_store";
      return "tma_wide";
    }
    if (elem_bytes == 4 && short_side == 32 && !hbm3e && rows * cols <= 4096) return "smem_flat";
    if (elem_bytes == 8 && hbm3e && short_side > 32 && rows * cols <= 4096) return "tma_load_store";
  }
  // At 4 B the H100 runs smem_flat, not bulk_flat, since the 2026-11-27 gather (the 2026-11-27
  // class sweep, one run, % of memcpy smem_flat / bulk_flat): 8000x37x37 [5476 B] 99.9 / 91.0,
  // 5000x33x65 [8580 B] 94.4 / 95.1 (a tie). The H200 keeps bulk_flat (85.3 / 85.2, 86.7 / 77.6
  // in the 2026-11-27 probe run).
  if (small_batch && !rows16 && (elem_bytes <= 2 || (hbm3e && elem_bytes <= 8)) &&
      rows * cols * elem_bytes <= bulk_flat_max_matrix_bytes)
    return "bulk_flat";
  // N x 1 at 4-16 B, N >= 1M (a copy: dst is src's bytes): bulk_flat's tall form, one 1-D bulk
  // copy per unit. % of memcpy bulk_flat / what auto ran (smem_strip), 4000000x1 4 / 8 / 16 B,
  // final run (data at commit 358db19): H100 125.7 / 119.2,
  // 114.4 / 108.2, 97.8 / 94.5; H200 118.2 / 116.9, 110.2 / 110.1, 95.6 / 95.5. On 2026-11-24,
  // against smem_flat (data at commit 358db19): H100 114.7 / 113.0, 107.0 / 106.5,
  // 96.5 / 95.7; H200 111.9 / 107.4, 106.9 / 106.7, 93.6 / 93.6. At 1-2 B it lost (H100 119.9
  // against smem_strip's 133.2 at 2 B). Strided layouts: the dispatcher runs smem_flat.
  if (batch <= 1 && cols == 1 && rows >= (std::int64_t{1} << 20) && elem_bytes >= 4)
    return "bulk_flat";
  if (small_batch &&
      ((elem_bytes <= 2 && !(rows16 && short_side >= 64)) ||
       (elem_bytes == 4 && !(rows16 && short_side >= 32)) ||
       (elem_bytes == 8 && short_side <= 16) || (elem_bytes == 16 && short_side < 16)))
    return "smem_flat";
  // Skinny (a side <= 32): smem_flat (classic_best) at 1-2 B, except 32 rows of 16-byte
  // multiples (32 x N), where the TMA transposes ran 90-95% of memcpy and smem_flat 82-83
  // (N x 32 is the other way round: smem_flat 90 / 95 at 1 / 2 B, tma_load_store 83 / 94).
  // On the H200, N x 32 with 16-byte rows at 1-2 B: tma_load ran 1.00 of the best where
  // smem_flat ran 0.96 | 0.96 (4000000x32, full run 2026-11-23; on the H100 smem_flat was the
  // best and tma_load 0.90 / 0.98).
  if (hbm3e && rows16 && elem_bytes <= 2 && cols == 32 && rows >= 65536) return "tma_load";
  if (elem_bytes <= 2 && short_side <= 32 && !(rows == 32 && rows16))
    return classic_best(rows, cols, elem_bytes, batch, hbm3e);
  // 16 B: tma_wide (32 x 32 tiles of 16-byte elements; 16-byte rows always, so TMA takes any
  // shape) where a side holds a whole tile and the tiles cover at most 15% more than the
  // matrix. scripts/e16-experiment.sh, 2026-11-24, % of memcpy tma_wide / smem_padded, H100 |
  // H200: odd 12345x6789 90.7 / 88.6 | 90.2 / 85.7, 3001x4999 92.9 / 90.9 | 92.9 / 87.3;
  // 16384^2 96.1 / 96.0 | 92.3 / 88.4; 4096^2 95.8 / 95.9 | 98.3 / 95.2; batches of 64^2..512^2
  // 98.8-100.1 / 96.4-99.3; 32 x 4000000 97.6 / 97.4 | 98.7 / 97.1; 4000000 x 32 95.7 / 96.3 |
  // 93.9 / 94.9. It lost where the tiles waste much (3000x97x75: 95.5 / 95.8 | 92.1 / 95.6, 69%
  // more tile than matrix) and at k = 16 (H200 94.0 against smem_strip's 97.4). At 2048^2
  // (4096 tiles) it measured 97.2 | 97.0 in that run but 90.3 | 91.1 in the full runs of
  // 2026-11-24 (smem_padded 97.4 | 96.8 in both), so it also needs kWide16MinTiles tiles: 8192,
  // between 4096 (measured to vary) and 14758 (3001x4999, measured to win in both runs).
  // On the H200 2048^2 has since run tma_wide ahead in every full run: 37.63 / 37.93 / 37.67 us
  // against smem_padded's 38.11 / 38.30 / 38.18 (runs of 2026-11-26/27,
  // data at commit 358db19; auto ran smem_padded 1.4-2.1% behind tma_wide), so its table
  // starts at 4096 tiles. The H100 keeps 8192: smem_padded was ahead there in three of four
  // runs (50.79 / 51.01 / 50.90 against 51.32 / 51.16 / 51.62 us, runs; aa 51.49
  // against 51.08).
  constexpr std::int64_t kWide16MinTiles = 8192, kWide16MinTilesHbm3e = 4096;
  // 16 x N at 16 B on the H100 (N >= 65536): tma_wide, half of each 32-row tile past the matrix,
  // ran 683.1-684.0 us against smem_strip's 693.0-693.5 (auto's pick) in all four full run,
  // ad, af, ag (16x4000000, data at commit 358db19). N x 16 tied (695.9-697.5 against
  // 694.8-695.8) and the H200 lost with it (16x4000000 510.4-511.7 against 493.7-495.7).
  if (!hbm3e && elem_bytes == 16 && rows == 16 && cols >= 65536) return "tma_wide";
  // N x 2 at 16 B on the H200 (N >= 65536): smem_flat, since the 2026-11-27 kTall walk
  // (kernels/primitives/flat_gather.cuh) took it from 89.4 to 95.4% of memcpy (4000000x2, final
  // runs) where smem_strip (auto's pick) ran 92.4 / 92.3. The H100 ties (runs:
  // 98.2 / 98.4, 98.5 / 98.1) and keeps the strip; N x 4 and N x 7 keep it on both (ar: smem_flat
  // 94.5 / 94.8 against 96.3 / 98.5).
  if (hbm3e && elem_bytes == 16 && batch <= 1 && cols == 2 && rows >= kFlatSkinny4Min)
    return "smem_flat";
  // k x N at 16 B on the H200 with k = 17..30 (N >= 65536): tma_wide, whose 32-row tiles lost at
  // k = 16 (above). The 2026-11-27 class sweep and its check (% of memcpy tma_wide / smem_strip,
  // auto's pick then / smem_flat): 18x2000000 98.2 / 87.5 / 95.6, 20x1048576 99.9-100.3 /
  // 84.3-84.4 / 96.4-96.7, 24x1000003 97.5-98.3 / 94.9-95.5 / 96.4-96.9, 28x1048576 99.4 /
  // 97.7 / 96.5; at k = 31 it lost (31x1500007 93.7-94.1 / 96.3-96.5 / 96.6-96.9). The H100
  // keeps the strip (18x2000000 / 20x1048576 / 28x1048576 tma_wide 98.8 / 98.6 / 97.8 against
  // 97.7 / 97.1 / 97.2; 31x1500007 94.5 against 95.8).
  if (hbm3e && elem_bytes == 16 && batch <= 1 && rows > 16 && rows < 31 && cols >= kFlatSkinny4Min)
    return "tma_wide";
  if (elem_bytes == 16 && short_side >= 32) {
    const std::int64_t side = tma_wide_side(16);  // 32
    const std::int64_t matrix_tiles = ((rows + side - 1) / side) * ((cols + side - 1) / side);
    const std::int64_t min_tiles = hbm3e ? kWide16MinTilesHbm3e : kWide16MinTiles;
    if (std::max<std::int64_t>(batch, 1) * matrix_tiles >= min_tiles &&
        matrix_tiles * side * side * 100 <= rows * cols * 115)
      return "tma_wide";
  }
  if (rows16 && elem_bytes <= 8) {
    const std::int64_t side = tma_wide_side(elem_bytes);
    const std::int64_t tiles =
        std::max<std::int64_t>(batch, 1) * ((rows + side - 1) / side) * ((cols + side - 1) / side);
    const std::int64_t bytes = std::max<std::int64_t>(batch, 1) * rows * cols * elem_bytes;
    constexpr std::int64_t kPipelineMinBytes = 16 << 20, kPipelineMaxBytes = 192 << 20;
    // The 2026-11-24 run (full runs 2026-11-24, the flush that demotes evict_last lines; before it,
    // whatever ran after tma_wide on a shape found part of its input still in the L2, so the
    // tables below were partly chosen on inflated figures), tma_wide / the best, H100 | H200:
    //  - 2 B under 16 MB: 2048^2 (256 tiles) 1.00 | 1.00 where tma_load_store ran 0.97 | 0.98;
    //    on the H200 at any count: 4096^2 and 8192x2048 (1024 tiles) 1.00 where tma_pipeline
    //    ran 0.99 / 0.98, 2048x128x128 1.00 against 0.96 (on the H100 tma_pipeline keeps its
    //    16-192 MB window: 1.00 there, tma_wide 0.98-1.00); 2026-11-25 changed the 2 B rule
    //    after three more runs (below);
    //  - 4 and 8 B from 4096 tiles (was 16384) and a short side of 64: 4096^2 4 B 1.00 | 1.00
    //    (H200 tma_pipeline 0.97), 8192x2048 4 B 1.00 | 1.00 (0.98), 2048x128x128 4 B 1.00 |
    //    1.00 (smem_wide 0.99 | 0.97), 4096x64x64 4 B 0.99 | 1.00 (smem_wide 0.98 | 0.96),
    //    2048^2 8 B 0.99 | 1.00 (smem_padded 0.99 | 0.98); 2048^2 4 B (1024 tiles) lost: 0.91 on
    //    the H200, where tma_pipeline (below) ran 1.00.
    constexpr std::int64_t kWideMinTiles = 3000, kWideMinTiles48 = 4096;
    if (elem_bytes == 1 && short_side >= side && tiles >= kWideMinTiles && !hbm3e)
      return "tma_wide";
    //  - 2026-11-25, from final runs (data at commit 358db19), % of memcpy tma_pipeline / tma_wide:
    //  one 2 B matrix of fewer than
    //    kWideMinTiles tiles runs tma_pipeline from 8 MB on both GPUs (H100 2048^2 98.4 / 97.3,
    //    98.6 / 96.3, 98.0 / 97.6; H200 2048^2 93.8 / 92.8, 95.1 / 95.1, 95.3 / 94.1; H200 4096^2
    //    99.4 / 97.4, 97.0 / 95.7, 97.2 / 95.4; H200 8192x2048 98.4 / 96.6, 96.8 / 95.4, 96.5 /
    //    95.2), and a batch of them tma_wide (2048x128x128: H100 97.1 / 98.7, 98.7 / 100.4, 97.0
    //    / 97.7; H200 94.3 / 98.1, 93.0 / 98.1, 93.6 / 97.7).
    //    So fewer tiles than kWideMinTiles take tma_wide in batches only (a single 2 B matrix of
    //    256 tiles is 8 MB, inside the pipeline's window below).
    constexpr std::int64_t kWideMinTiles2 = 256;  // 2048x128x128 2 B, the fewest measured to win
    if (elem_bytes == 2 && short_side >= side &&
        (tiles >= kWideMinTiles || (tiles >= kWideMinTiles2 && batch > 1)))
      return "tma_wide";
    //    Batches of 32 x 32 at 8 B (one tile each): 16384x32x32 1.00 | 1.00 where smem_xor, the
    //    pick before, ran 1.00 | 0.98.
    // (Output rows that split 32-byte sectors keep 16384 at 4 B: smem_sector is built for them,
    // and no such shape was measured between. At 8 B see below.)
    // One 8-byte matrix on the H100 runs smem_sector instead (2026-11-24, five gated
    // runs; worst of five runs as a fraction of the best technique, tma_wide |
    // smem_sector): 2048^2 0.976 | 1.000, 4096^2 0.990 | 1.000 (one outlier of tma_wide at
    // 0.755), 8192x2048 0.991 | 1.000, 16384^2 0.998 | 0.995, 32768^2 0.992 | 0.995, 32x4000000
    // 1.000 | 0.995, 4000000x32 0.979 | 1.000. On the H200 tma_wide was the best in all of
    // them; in batches smem_sector ran 0.65 at 32 x 32 and 0.99 from 64 x 64, tma_wide 0.99.
    // On 2026-11-27, measured that class at 8 B (output rows of 16-byte but not 32-byte multiples,
    // rows = 2 mod 4): tma_wide lost in 24 of 26 cells, % of memcpy tma_wide / smem_sector /
    // smem_wide (the 2026-11-27 survey and class sweep, one run each, and the 2026-11-27 held-out
    // shapes on the H200, two rounds: data at commit 358db19):
    //  - batches of rows >= 128, H100: 2465x198x106 94.4 / 99.0 / 96.5, 736x190x388 89.5 /
    //    99.9 / 98.1, 500x250x130 97.7 / 100.8 / 99.1, so smem_sector; H200 smem_wide within
    //    1.5 of the best in all seven: 1000x130x250 93.7 / 95.9 / 94.5, 1000x134x250 94.8 / 96.3
    //    / 95.4, 736x190x388 98.1 / 96.6 / 96.9, 2465x198x106 91.6 / 94.8 / 95.5, 500x250x130
    //    94.5 / 92.5 / 97.6, 600x258x200 98.5 / 97.5 / 97.8, 400x310x286 94.8 / 98.2 / 97.0;
    //  - batches of rows < 128, where smem_sector's 64-row blocks are up to half padding: H200
    //    smem_wide 0.9-8.9 above tma_wide in all seven (2000x66x200 89.0 / 73.8 / 92.7, 3000x66x102
    //    84.1 / 75.4 / 93.0, 2000x70x200 90.2 / 77.9 / 94.2, 3000x78x100 88.2 / 85.1 / 95.3,
    //    2000x82x150 92.2 / 88.0 / 95.8, 3000x90x102 91.6 / 91.9 / 95.6, 818x110x190 95.3 / 97.5
    //    / 96.2); H100 818x110x190 91.7 / 101.2 / 99.3. smem_wide on both GPUs: smem_sector
    //    won that H100 cell by 1.9, but ran 16-19 points below smem_wide at rows 66-70 on the H200,
    //    and the H100 measured no rows below 110 (2026-11-27 changed that, below);
    //  - one matrix on the H200: classic_best (smem_sector, or smem_strip at a side of 32):
    //    3110x6596 94.9 / 97.9, 5002x6000 95.8 / 98.0, 9998x3000 94.2 / 97.8, 3000002x48 82.5 /
    //    90.4, 2000002x32 79.8 against smem_strip's 88.5 (smem_wide 89.9), 3672182x32 76.1 /
    //    88.0 (89.6). The H100 runs smem_sector there already (below).
    // On 2026-11-27, held out 9 shapes on the H100 (tmakit_bench --shapes, two rounds,
    // data at commit 358db19), % of memcpy tma_wide / smem_sector
    // / smem_wide: rows >= 128 1000x130x250 90.4 / 99.1 / 95.1, 400x310x286 89.7 / 99.6 / 97.9,
    // 1500x106x150 94.2 / 99.7 / 98.4; and below 128, where 2026-11-27 had chosen smem_wide from
    // the H200, smem_sector ahead of it too: 3000x90x102 97.0 / 100.3 / 98.0, 2000x70x200 97.3 /
    // 98.4 / 97.2, 3000x78x100 100.9 / 100.4 / 98.7, 2000x66x200 99.2 / 96.5 / 96.4. So the H100
    // runs smem_sector for every batch of the class (at most 2.7 behind the best there, smem_wide
    // 2.8); the H200 smem_wide (held out in 2026-11-27: 2500x74x120 95.5 / 92.2 / 96.3, 3000x86x90
    // 93.0 / 85.7 / 96.7, 2000x98x160 95.9 / 95.3 / 95.4, 1500x118x140 96.9 / 96.9 / 97.0).
    const bool out_rows_on_sectors = (rows * elem_bytes) % 32 == 0;
    if (elem_bytes >= 4 && tiles >= (out_rows_on_sectors ? kWideMinTiles48 : 16384) &&
        (short_side >= 64 ||
         (short_side >= 32 && (long_side >= 65536 || (elem_bytes == 8 && batch > 1 &&
                                                      rows % side == 0 && cols % side == 0))))) {
      const bool split8 = elem_bytes == 8 && !out_rows_on_sectors;
      if (split8 && batch > 1) return hbm3e ? "smem_wide" : "smem_sector";
      if (elem_bytes == 8 && batch <= 1 && !hbm3e) return "smem_sector";
      if (!split8) return "tma_wide";
      // split8, one matrix on the H200: the classic pick below
    }
    // A side of exactly 32 (k = 32 skinny, batches of 32 x 32) at 1-2 B, and 32-wide batches at
    // 4 B: tma_load_store ran 0.71-1.00 of the best where smem_strip ran 0.51-0.80 (1-2 B) and
    // 0.50-0.67 (16384x32x32 4 B) in the same runs.
    // Batches of 32 x 32 matrices at 1 and 8 B: smem_padded (1 B) and smem_xor (8 B) were best
    // on both GPUs (16384x32x32: tma_load_store 0.71 | 0.73, smem_strip 0.97 | 0.89 of them).
    // tma_pipeline (persistent CTAs, a ring of TMA stages) where tma_wide does not take the
    // call and there is enough to stream: 1-2 B calls of 16 MB to 192 MB whose short side is
    // at least 128 elements, and 32 x N at 1 B. Full runs of 2026-11-23, tma_pipeline /
    // tma_load_store as a fraction of the best technique, H100 | H200: 4096^2 1 B 1.00 / 0.91 |
    // 1.00 / 0.86, 2 B 1.00 / 0.87 | 1.00 / 0.94; 8192x2048 1 B 1.00 / 0.92 | 1.00 / 0.93, 2 B
    // 1.00 / 0.96 | 1.00 / 0.97; 2048x128x128 1 B 1.00 / 0.97 | 1.00 / 0.98; 32x4000000 1 B
    // 1.00 / 0.87 | 0.99 / 0.84. Outside the window it lost: 2048^2 (4-8 MB) 0.88-0.95 where
    // tma_load_store ran 0.91-1.00; on the H200 1000x512x512 and 16384^2 1 B (262-268 MB) 0.94
    // and 0.98 where tma_load_store ran 1.00; 32x4000000 2 B 0.97 | 0.98 against 1.00;
    // 4096x64x64 2 B 0.94 | 0.94 against 0.97 | 0.99.
    // Those runs used the flush that left tma_wide's evict_last lines in the L2 (2026-11-24), so
    // figures measured after tma_wide on a shape were inflated. With the flush that demotes them
    // (runs 2026-11-24): 1 B from 4 MB, 2048^2 1 B tma_pipeline 1.00 | 1.00 where
    // tma_load_store, the pick before, ran 0.93 | 0.93.
    // 2 B from 8 MB (2026-11-25): 2048^2, the smallest 2 B call measured in the window (above).
    const std::int64_t pipeline_min_bytes = elem_bytes == 1   ? (4 << 20)
                                            : elem_bytes == 2 ? (8 << 20)
                                                              : kPipelineMinBytes;
    const bool pipeline_window = bytes >= pipeline_min_bytes && bytes <= kPipelineMaxBytes;
    // On the H200, batches of 1 B matrices with sides of 256 or more take tma_load_store: in the
    // three H200 runs of 2026-11-24 (three runs) 1024x256x256 ran tma_load_store 1.00
    // where tma_pipeline ran 0.986 / 0.969 / 0.989 (2048x128x128 stays: tma_pipeline 1.00,
    // tma_load_store 0.985 / 0.980 / 0.973).
    const bool h200_batch1 = hbm3e && elem_bytes == 1 && batch > 1 && short_side >= 256;
    if (elem_bytes <= 2 && pipeline_window && !h200_batch1 &&
        (short_side >= 128 || (elem_bytes == 1 && rows == 32)))
      return "tma_pipeline";
    // 4 B single matrices of 16-64 MB with sides >= 1024: tma_pipeline 1.00 | 1.00 of the best
    // at 2048^2 and 4096^2 where smem_wide ran 0.90 | 0.90 and 0.99 | 1.00; 8192x2048 0.98 |
    // 0.99 (smem_wide 1.00 | 1.00).
    if (elem_bytes == 4 && batch <= 1 && short_side >= 1024 && bytes >= kPipelineMinBytes &&
        bytes <= (64 << 20))
      return "tma_pipeline";
    // 16 x N at 4 B: tma_load_store 1.00 | 1.00 of the best (16x4000000) where smem_flat ran
    // 0.98 | 0.87 (N x 16 keeps smem_flat: 1.00 | 1.00, tma_load_store 0.94 | 0.98).
    if (elem_bytes == 4 && rows == 16 && cols >= 65536) return "tma_load_store";
    // Batches of 64-127-wide matrices at 1 B (a side below the 128-byte TMA tile): vec_padded
    // 1.00 | 1.00 of the best (4096x64x64) where tma_load_store ran 0.85 | 0.84.
    if (elem_bytes == 1 && batch > 1 && short_side >= 64 && short_side < 128) return "vec_padded";
    const bool small32 = short_side == 32 && long_side < 65536;
    if (elem_bytes == 1 && small32) return "smem_padded";
    // One 1 B matrix above the pipeline's window on the H200 runs reg_realign (2026-11-26, final
    // runs, data at commit 358db19; % of memcpy reg_realign /
    // tma_load_store): 16384^2 88.9 / 88.2 and 88.1 / 87.2, 32768^2 89.8 / 86.7 and 89.5 / 86.4.
    // Batches stay (1000x512x512: 92.2 / 95.2 and 91.9 / 95.1); on the H100 tma_wide (above).
    if (hbm3e && elem_bytes == 1 && batch <= 1 && bytes > kPipelineMaxBytes && short_side >= 256)
      return "reg_realign";
    if (elem_bytes <= 2 && short_side >= 32) return "tma_load_store";
    // On the H100, batches of 32 x 32 at 4 B take smem_padded: in its four runs of 2026-11-24
    // (four runs) 16384x32x32 ran smem_padded 1.000 / 0.994 / 1.000 / 1.000 of the
    // best and tma_load_store 0.979 / 1.000 / 0.995 / 0.981 (the H200: tma_load_store 1.00,
    // smem_padded 0.94 in run).
    if (elem_bytes == 4 && small32 && batch > 1 && !hbm3e) return "smem_padded";
    if (elem_bytes == 4 && small32) return "tma_load_store";
    if (elem_bytes == 8 && small32) return "smem_xor";
  }
  // Batches at 8 B with a short side of 33..63: smem_wide, where rows are 16-byte multiples (too
  // short for tma_wide's rule above; classic_best would run smem_padded) or split sectors
  // (classic_best would run smem_sector, whose 64-row blocks and extra input rows are mostly
  // padding there). The 2026-11-27 probe runs (above), % of memcpy, H100 | H200: 2000x100x60 8 B
  // smem_wide 101.5 | 102.2, smem_padded 96.6 | 89.0 (tma_wide 103.3 | 98.9: not taken, one
  // shape); 5000x33x65 8 B on the H100 smem_wide 93.5, smem_sector 72.5 (the H200 runs bulk_flat
  // there, above). 3000x97x75 keeps smem_sector on the H100 (final run: 100.4 / 97.5).
  const bool split_sectors = (rows * elem_bytes) % 32 != 0;
  if (elem_bytes == 8 && batch > 1 && short_side > 32 && short_side < 64 &&
      (rows16 || split_sectors))
    return "smem_wide";
  // The H200's classic picks where they differ (same full run): odd 2 B shapes whose output
  // rows split sectors ran smem_wide 1.07-1.15x smem_sector (12345x6789, 6789x12345,
  // 3001x4999); small odd 8 B matrices (3000x97x75) smem_padded 1.08x smem_sector. Above
  // kOddMidSide classic_best's picks won on the H200 too (2026-11-24 probe, above: 1001x999 2 /
  // 8 B smem_sector 119.9 / 123.6% against smem_wide 102.2 and smem_padded 119.2; 20001x777 8 B
  // 95.9 against 77.8), so this rule stops there.
  // On 2026-11-25, put smem_wide's 2-8 B loads first with .L2::256B on Hopper (kernels/classic/
  // smem_wide.cu), and the small odd 8 B matrices moved to it: 3000x97x75 on the H200, two runs
  // each (the 2026-11-25 experiment, data at commit 358db19), % of
  // memcpy smem_wide 94.7 against smem_padded's 92.0 hinted and 86.5 plain (final run, auto's
  // pick then: 86.5; smem_sector 81.5). On the H100 smem_sector keeps them (100.2 in run,
  // hinted smem_wide 97.5 in the 2026-11-25 experiment).
  if (hbm3e && !rows16 && (elem_bytes == 2 || elem_bytes == 8) && split_sectors &&
      short_side > 32 && short_side <= kOddMidSide)
    return "smem_wide";
  // Odd 2 B: classic_best takes reg_realign on both GPUs since 2026-11-26. Before that the H200
  // alone took it at 2 B, from final run (data at commit 358db19), %
  // of memcpy reg_realign / smem_realign: 12345x6789 65.5 / 63.6, 6789x12345 64.2 / 62.1,
  // 3001x4999 68.3 / 68.6 (its .L2::256B loads, 2026-11-25).
  std::string classic = classic_best(rows, cols, elem_bytes, batch, hbm3e);
  // Before the hints (2026-11-24 to 25): 2026-11-24 had reg_realign ahead (12345x6789 65.9 /
  // 63.9% of memcpy, 6789x12345 64.0 / 63.0, probe 4097x4095 72.7 / 70.5); 2026-11-25 moved
  // the pick to smem_realign, % of memcpy smem_realign / reg_realign on the H200:
  //  - final runs (data at commit 358db19): 3001x4999
  //    70.4 / 68.9, 69.2 / 67.6, 70.3 / 68.2; 12345x6789 and 6789x12345 0.2-0.8 behind;
  //  - 2026-11-25, two runs each (data at commit 358db19 knob off):
  //    12345x6789 66.8 / 64.2, 6789x12345 66.9 / 63.5, 3001x4999 69.5 / 66.9; the probe
  //    preset 4097x4095 73.7 / 73.6, 9999x9999 67.4 / 65.7, 20001x777 75.6 / 74.6, 777x20001
  //    64.3 / 62.5.
  return classic;
}

std::string auto_accumulate_variant(std::int64_t rows, std::int64_t cols, DataType type,
                                    double beta, double dram_gbps) {
  // Per class, from the accumulate cells measured with beta = 1 (docs/perf-guide.md
  // "Transpose-accumulate" has the figures; docs/data/accumulate-{h100,h200}-2026-11-27.json.xz):
  //  - rows whose bytes are 16-byte multiples on both sides (TMA's rule): tma_accumulate, except
  //    a side <= 32 at 2 and 4 B (skinny matrices, batches of small ones), where
  //    flat_accumulate's whole-chunk walk wins (tma_accumulate's 2T x 2T tile is mostly empty);
  //  - a side <= 32 otherwise: flat_accumulate;
  //  - odd rows: smem_accumulate, on the H200 at 8 B sector_accumulate.
  (void)beta;  // every technique below takes any beta
  const int e = data_type_bytes(type);
  const bool hbm3e = kernels::is_hbm3e(dram_gbps);
  const bool tma_rows = (rows * e) % 16 == 0 && (cols * e) % 16 == 0;
  const bool small_side = std::min(rows, cols) <= 32;
  if (tma_rows && (!small_side || e == 8)) return "tma_accumulate";
  if (small_side) return "flat_accumulate";
  if (e == 8 && hbm3e) return "sector_accumulate";
  return "smem_accumulate";
}

}  // namespace tmakit
