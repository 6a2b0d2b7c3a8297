// The index math of reg_tile (kernels/classic/reg_tile.cu), host and device, so the host tests
// check it: which calls its blocks take, where block n of a call sits, and the 8 x 8 byte
// transpose in registers.
//
// A block is B x B elements, B = W / E, whose rows are one aligned W-byte access each:
//   1 B: 8 x 8 bytes, W = 8 (8-byte accesses: 16-byte ones would make a block 16 x 16 and a
//        thread hold 256 bytes);  2 B: 8 x 8, W = 16;  4 B: 4 x 4, W = 16;  8 B: 2 x 2, W = 16.
// Block (bi, bj) of matrix m: src rows bi B + i, bytes bj W.. of each; its transpose goes to dst
// rows bj B + j, bytes bi W.. of each.
//
// Block order (n = 0 .. batch * nbi * nbj - 1, nbi = rows / B, nbj = cols / B): matrix by
// matrix; inside one, bands of H = 32 / W block rows (the last band h = nbi mod H rows when
// that is not 0); inside a band, column by column, the band's block rows fastest:
//   n = m * nbi * nbj + band * H * nbj + bj * h + (bi - band * H)
// So consecutive lanes take the h blocks of one block column, then the next column: on the
// load side the lanes of one block row at consecutive bj read one run of the src row; on the
// store side the h lanes of one block column write h W = 32 contiguous bytes of each dst row,
// one whole sector. Where a matrix is narrower than the warp, the warp goes on into the next
// band or matrix, and each group of h lanes still fills its sectors.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/grid.hpp>

namespace tmakit {

// Access bytes (one block row) and block side in elements, per element size (1, 2, 4, 8).
TMAKIT_HD constexpr int reg_tile_access_bytes(int e) {
  return e == 1 ? 8 : 16;
}
TMAKIT_HD constexpr int reg_tile_side(int e) {
  return reg_tile_access_bytes(e) / e;
}
// Block rows per band: H W = 32 bytes, one sector of each dst row per block column.
TMAKIT_HD constexpr int reg_tile_band(int e) {
  return 32 / reg_tile_access_bytes(e);
}

// Everything a launch needs, fixed for the call (bytes where named _bytes).
struct RegTilePlan {
  bool ok = false;
  std::uint32_t nbi = 0, nbj = 0;       // blocks down and across a matrix
  std::uint32_t blocks_per_matrix = 0;  // nbi * nbj
  std::uint32_t full_bands = 0;         // nbi / H
  std::uint64_t blocks = 0;             // batch * blocks_per_matrix
  std::int64_t src_ld_bytes = 0, dst_ld_bytes = 0, src_bs_bytes = 0, dst_bs_bytes = 0;
  const char* why_not = nullptr;  // !ok: the rule the call breaks
};

// The plan of a call, or why the blocks cannot take it: both sides whole blocks, every base,
// pitch and batch stride a multiple of W, at most 2^32 - 1 blocks of one matrix.
// batch_strides_bytes_or: a batch of several dimensions (BatchStrides, a permutation's tile
// form): the OR of its further dimensions' strides in bytes, each a multiple of W as well; else 0.
inline RegTilePlan reg_tile_plan(std::int64_t rows, std::int64_t cols, int e, std::int64_t batch,
                                 std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs,
                                 std::int64_t dst_bs, std::uintptr_t src, std::uintptr_t dst,
                                 std::int64_t batch_strides_bytes_or = 0) {
  RegTilePlan p;
  if (e != 1 && e != 2 && e != 4 && e != 8) {
    p.why_not = "element size not 1, 2, 4 or 8 bytes";
    return p;
  }
  const std::int64_t b = reg_tile_side(e), w = reg_tile_access_bytes(e);
  if (rows <= 0 || cols <= 0 || batch <= 0) {
    p.why_not = "an empty call";
    return p;
  }
  if (rows % b != 0 || cols % b != 0) {
    p.why_not = "a side not a whole number of blocks (8 elements at 1-2 B, 4 at 4 B, 2 at 8 B)";
    return p;
  }
  const std::int64_t sbs = batch > 1 ? src_bs * e : 0, dbs = batch > 1 ? dst_bs * e : 0;
  if (src % w != 0 || dst % w != 0 || (src_ld * e) % w != 0 || (dst_ld * e) % w != 0 ||
      sbs % w != 0 || dbs % w != 0 || (batch_strides_bytes_or % w) != 0) {
    p.why_not = "a base, pitch or batch stride not a multiple of the block's row bytes";
    return p;
  }
  const std::int64_t per_matrix = (rows / b) * (cols / b);
  if (per_matrix > 0xffffffffLL) {
    p.why_not = "more than 2^32 - 1 blocks in one matrix";
    return p;
  }
  p.ok = true;
  p.nbi = static_cast<std::uint32_t>(rows / b);
  p.nbj = static_cast<std::uint32_t>(cols / b);
  p.blocks_per_matrix = static_cast<std::uint32_t>(per_matrix);
  p.full_bands = p.nbi / static_cast<std::uint32_t>(reg_tile_band(e));
  p.blocks = static_cast<std::uint64_t>(batch) * p.blocks_per_matrix;
  p.src_ld_bytes = src_ld * e;
  p.dst_ld_bytes = dst_ld * e;
  p.src_bs_bytes = sbs;
  p.dst_bs_bytes = dbs;
  return p;
}

// reg_tile_plan's batch_strides_bytes_or of a call's BatchStrides: 0 for a batch of one
// dimension.
inline std::int64_t reg_tile_batch_strides_bytes_or(const BatchStrides& st, int e) {
  if (!st.has_batch_dims()) return 0;
  return (st.src_batch1_elems | st.dst_batch1_elems | st.src_batch2_elems | st.dst_batch2_elems) *
         e;
}

// The plan of a call's BatchStrides (a batch of one dimension or of several).
inline RegTilePlan reg_tile_plan(std::int64_t rows, std::int64_t cols, int e,
                                 const BatchStrides& st, std::uintptr_t src, std::uintptr_t dst) {
  return reg_tile_plan(rows, cols, e, st.batch, st.src_ld_elems, st.dst_ld_elems,
                       st.src_batch_elems, st.dst_batch_elems, src, dst,
                       reg_tile_batch_strides_bytes_or(st, e));
}

// Block n's matrix and block coordinates (the order above).
struct RegTileAt {
  std::uint64_t m;
  std::uint32_t bi, bj;
};
TMAKIT_HD RegTileAt reg_tile_at(const RegTilePlan& p, std::uint64_t n, std::uint32_t band_rows) {
  std::uint64_t m = 0;
  std::uint32_t k = static_cast<std::uint32_t>(n);
  if (p.blocks != p.blocks_per_matrix) {  // a 32-bit division where the call allows
    m = p.blocks <= 0xffffffffULL ? static_cast<std::uint32_t>(n) / p.blocks_per_matrix
                                  : n / p.blocks_per_matrix;
    k = static_cast<std::uint32_t>(n - m * p.blocks_per_matrix);
  }
  const std::uint32_t full = p.full_bands * band_rows * p.nbj;  // blocks in the full bands
  if (k < full) {
    const std::uint32_t band = k / (band_rows * p.nbj), r = k % (band_rows * p.nbj);
    return {m, band * band_rows + r % band_rows, r / band_rows};
  }
  const std::uint32_t h = p.nbi - p.full_bands * band_rows, r = k - full;  // the short band
  return {m, p.full_bands * band_rows + r % h, r / h};
}

// 8 x 8 bytes: row i of the block is x[i] (bytes 0-3 in .lo, 4-7 in .hi); afterwards y[j] is
// column j: byte i of y[j] is byte j of x[i]. Three PRMT per output word.
struct Row8 {
  std::uint32_t lo, hi;
};
TMAKIT_HD void transpose_8x8_bytes(const Row8 (&x)[8], Row8 (&y)[8]) {
  for (int j = 0; j < 8; ++j) {
    const std::uint32_t s = static_cast<std::uint32_t>(j % 4);
    const std::uint32_t sel = s | (s + 4) << 4;  // byte s of a, then byte s of b
    std::uint32_t w[2];
    for (int half = 0; half < 2; ++half) {  // output bytes 0-3: rows 0-3; 4-7: rows 4-7
      const Row8 &a = x[4 * half], &b = x[4 * half + 1], &c = x[4 * half + 2], &d = x[4 * half + 3];
      const std::uint32_t ab = byte_perm(j < 4 ? a.lo : a.hi, j < 4 ? b.lo : b.hi, sel);
      const std::uint32_t cd = byte_perm(j < 4 ? c.lo : c.hi, j < 4 ? d.lo : d.hi, sel);
      w[half] = byte_perm(ab, cd, 0x5410);  // ab's bytes 0-1, then cd's bytes 0-1
    }
    y[j] = {w[0], w[1]};
  }
}

}  // namespace tmakit
