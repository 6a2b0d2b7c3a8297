// Grid sizing shared by every tiled launcher. A matrix is cut into tiles_y x tiles_x tiles;
// the grid covers them with at most 2^31-1 blocks in x and 65535 in y, and the kernels walk
// the remainder with a grid-stride loop (kernels/primitives/tile_loop.cuh). A batch of
// matrices takes grid z (at most 65535; the kernels stride over the rest of the batch). So any
// shape whose element count fits in 64 bits can be launched.
#pragma once
#include <algorithm>
#include <cstdint>
#include <kernels/common/arch.hpp>

// Tile rows per group of the launch order (see grouped_tile); 1 is plain row-major order.
#ifndef TMAKIT_TILE_GROUP
#define TMAKIT_TILE_GROUP 1
#endif

namespace tmakit {

inline constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

// Where the matrices of a batch and their rows sit, in elements: matrix b of src starts at
// src + b * src_batch_elems and its row i at + i * src_ld_elems; likewise dst. Dense
// operands: src_ld_elems = cols, dst_ld_elems = rows (a copy: cols), batch strides = one
// matrix.
//
// The batch may also be two or three dimensions (a permutation's tile form, host/permute: the
// dimensions around the transposed pair): matrix b = b0 + n0 * (b1 + n1 * b2) starts at
// b0 * src_batch_elems + b1 * src_batch1_elems + b2 * src_batch2_elems (likewise dst), with
// n0 = batch_n0, n1 = batch_n1 and batch = n0 * n1 * n2. batch_n0 = 0: one dimension. Only the
// techniques whose registry row says so (VariantInfo::batch_dims) take such a batch; their
// kernels find a matrix through batch_offsets().
struct BatchStrides {
  std::int64_t batch = 1;
  std::int64_t src_ld_elems = 0, dst_ld_elems = 0;
  std::int64_t src_batch_elems = 0, dst_batch_elems = 0;
  std::int64_t batch_n0 = 0, batch_n1 = 1;
  std::int64_t src_batch1_elems = 0, dst_batch1_elems = 0;
  std::int64_t src_batch2_elems = 0, dst_batch2_elems = 0;

  // Matrix b's first element in src and in dst, in elements. Batches: the batch may have
  // several dimensions (batch_n0 != 0); the tile kernels take it as a template argument, so the
  // one-dimension kernels keep their registers (docs/perf-guide.md section 4.13).
  template <bool Batches>
  TMAKIT_HD void offsets_of(std::int64_t b, std::int64_t* src_off, std::int64_t* dst_off) const {
    if (!Batches) {
      *src_off = b * src_batch_elems;
      *dst_off = b * dst_batch_elems;
      return;
    }
    std::int64_t b0, b1, b2;  // b = b0 + n0 * q, q = b1 + n1 * b2
    if (b < 0xffffffffLL) {
      // 32-bit divisions (a 64-bit one is a call of about 70 instructions); an extent clamped to
      // 2^32 - 1 divides b (< 2^32 - 1) as the extent itself does: quotient 0.
      using U = std::uint32_t;
      const U e0 = batch_n0 < 0xffffffffLL ? U(batch_n0) : 0xffffffffu;
      const U e1 = batch_n1 < 0xffffffffLL ? U(batch_n1) : 0xffffffffu;
      const U q = U(b) / e0, q1 = q / e1;
      b0 = U(b) - q * e0;
      b1 = q - q1 * e1;
      b2 = q1;
    } else {
      const std::int64_t q = b / batch_n0;
      b0 = b - q * batch_n0;
      b2 = q / batch_n1;
      b1 = q - b2 * batch_n1;
    }
    *src_off = b0 * src_batch_elems + b1 * src_batch1_elems + b2 * src_batch2_elems;
    *dst_off = b0 * dst_batch_elems + b1 * dst_batch1_elems + b2 * dst_batch2_elems;
  }
  TMAKIT_HD bool has_batch_dims() const { return batch_n0 != 0; }
  TMAKIT_HD void batch_offsets(std::int64_t b, std::int64_t* src_off, std::int64_t* dst_off) const {
    if (has_batch_dims())
      offsets_of<true>(b, src_off, dst_off);
    else
      offsets_of<false>(b, src_off, dst_off);
  }
  // Whether every batch stride of src (dst) is a multiple of m elements (a batch of one matrix:
  // true), for the kernels' vector and sector rules.
  TMAKIT_HD bool src_batches_multiple_of(std::int64_t m) const {
    return batch == 1 ||
           (src_batch_elems % m == 0 && src_batch1_elems % m == 0 && src_batch2_elems % m == 0);
  }
  TMAKIT_HD bool dst_batches_multiple_of(std::int64_t m) const {
    return batch == 1 ||
           (dst_batch_elems % m == 0 && dst_batch1_elems % m == 0 && dst_batch2_elems % m == 0);
  }
};

struct TileGrid {
  unsigned x, y, z;  // blocks along the column tiles (x), the row tiles (y), the batch (z)
};

inline TileGrid tile_grid(std::int64_t tiles_y, std::int64_t tiles_x, std::int64_t batch = 1) {
  constexpr std::int64_t kMaxX = 0x7fffffff, kMaxY = 65535, kMaxZ = 65535;
  return {static_cast<unsigned>(std::min(tiles_x, kMaxX)),
          static_cast<unsigned>(std::min(tiles_y, kMaxY)),
          static_cast<unsigned>(std::min(batch, kMaxZ))};
}

// The launch order of tiles. Tile n of a tiles_r x tiles_c grid, in groups of `group` tile
// rows: group g holds tile rows [g*group, g*group + group); inside it, tile n walks down a
// column of the group first, then to the next column:
//   g = n / (group * tiles_c), k = n % (group * tiles_c), rows_in_g = min(group, tiles_r - g*group)
//   tile (g*group + k % rows_in_g, k / rows_in_g)
// So the tiles in flight at once (consecutive n) form a block of about group x (in_flight /
// group) tiles: each input row band is read in runs of in_flight/group tiles and each output
// row band is written in runs of `group` tiles, instead of whole input rows and single tiles
// of output. group = 1 is row-major order. A bijection of [0, tiles_r * tiles_c).
// I: std::int64_t, or std::uint32_t where the tile count fits (fewer instructions).
template <class I>
struct TileAt {
  I r, c;
};
template <class I>
TMAKIT_HD TileAt<I> grouped_tile(I n, I tiles_r, I tiles_c, I group) {
  if (group <= 1) return {n / tiles_c, n % tiles_c};
  const I band = group * tiles_c, g = n / band, k = n % band;
  const I rows_in_g = tiles_r - g * group < group ? tiles_r - g * group : group;
  return {g * group + k % rows_in_g, k / rows_in_g};
}
inline constexpr int kTileGroup = TMAKIT_TILE_GROUP;

}  // namespace tmakit
