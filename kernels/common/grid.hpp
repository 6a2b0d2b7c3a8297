// Grid sizing shared by every tiled launcher. A matrix is cut into tiles_y x tiles_x tiles;
// the grid covers them with at most 2^31-1 blocks in x and 65535 in y, and the kernels walk
// the remainder with a 2-D grid-stride loop (kernels/primitives/tile_loop.cuh). So any shape
// whose element count fits in 64 bits can be launched.
#pragma once
#include <algorithm>
#include <cstdint>

namespace tmakit {

inline constexpr std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

struct TileGrid {
  unsigned x, y;  // blocks along the column tiles (x) and the row tiles (y)
};

inline TileGrid tile_grid(std::int64_t tiles_y, std::int64_t tiles_x) {
  constexpr std::int64_t kMaxX = 0x7fffffff, kMaxY = 65535;
  return {static_cast<unsigned>(std::min(tiles_x, kMaxX)),
          static_cast<unsigned>(std::min(tiles_y, kMaxY))};
}

}  // namespace tmakit
