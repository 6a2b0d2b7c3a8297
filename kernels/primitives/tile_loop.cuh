// Grid-stride walk over the tiles of a batch of matrices. Matrix b = blockIdx.z,
// blockIdx.z + gridDim.z, ...; inside it, the block with linear index
// k = blockIdx.y * gridDim.x + blockIdx.x takes tiles n = k, k + blocks, ... in the launch
// order of grouped_tile (kernels/common/grid.hpp), or with ColumnMajor in column-major order:
// tile n = (n % tiles_y, n / tiles_y), so consecutive blocks walk down a tile column (their
// transposed tiles fill one output row band). The trip counts are the same for every thread
// of a block, so a __syncthreads() inside the body is safe.
#pragma once
#include <cstdint>
#include <kernels/common/grid.hpp>

namespace tmakit {

// body(b, tile_y, tile_x) for every tile of every matrix b of the batch.
template <bool ColumnMajor = false, class Body>
__device__ __forceinline__ void for_each_tile(std::int64_t batch, std::int64_t tiles_y,
                                              std::int64_t tiles_x, Body&& body) {
  // 32-bit tile math: far fewer instructions than 64-bit division (a call that makes ptxas
  // spill). Tiles are at least 8 x 8 elements (int4_8x8), so 2^32 tiles of one matrix would be
  // a 4 TiB matrix; a grid of that many is refused here rather than walked wrongly.
  using U = std::uint32_t;
  const std::int64_t tiles = tiles_y * tiles_x;
  if (tiles > 0xffffffffLL) __trap();
  const std::int64_t blocks = std::int64_t(gridDim.x) * gridDim.y;
  for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z)
    for (std::int64_t n = std::int64_t(blockIdx.y) * gridDim.x + blockIdx.x; n < tiles;
         n += blocks) {
      const TileAt<U> t = ColumnMajor
                              ? TileAt<U>{U(n) % U(tiles_y), U(n) / U(tiles_y)}
                              : grouped_tile<U>(U(n), U(tiles_y), U(tiles_x), U(kTileGroup));
      body(b, std::int64_t(t.r), std::int64_t(t.c));
    }
}

// for_each_tile with each matrix found once, before its tiles: body(src_off, dst_off, tile_y,
// tile_x), matrix b's first elements (BatchStrides::offsets_of; Batches: a batch of up to three
// dimensions).
template <bool ColumnMajor = false, bool Batches = false, class Body>
__device__ __forceinline__ void for_each_matrix_tile(const BatchStrides& st, std::int64_t tiles_y,
                                                     std::int64_t tiles_x, Body&& body) {
  using U = std::uint32_t;
  const std::int64_t tiles = tiles_y * tiles_x;
  if (tiles > 0xffffffffLL) __trap();
  const std::int64_t blocks = std::int64_t(gridDim.x) * gridDim.y;
  for (std::int64_t b = blockIdx.z; b < st.batch; b += gridDim.z) {
    std::int64_t src_off, dst_off;
    st.offsets_of<Batches>(b, &src_off, &dst_off);
    for (std::int64_t n = std::int64_t(blockIdx.y) * gridDim.x + blockIdx.x; n < tiles;
         n += blocks) {
      const TileAt<U> t = ColumnMajor
                              ? TileAt<U>{U(n) % U(tiles_y), U(n) / U(tiles_y)}
                              : grouped_tile<U>(U(n), U(tiles_y), U(tiles_x), U(kTileGroup));
      body(src_off, dst_off, std::int64_t(t.r), std::int64_t(t.c));
    }
  }
}

}  // namespace tmakit
