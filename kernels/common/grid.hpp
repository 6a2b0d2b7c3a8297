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
struct BatchStrides {
  std::int64_t batch = 1;
  std::int64_t src_ld_elems = 0, dst_ld_elems = 0;
  std::int64_t src_batch_elems = 0, dst_batch_elems = 0;
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
