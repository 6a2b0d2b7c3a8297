// The 32x32 shared-memory tile transpose with 32x8 threads (Harris; Vitamin-CUDA), written
// once and parameterised by the shared layout. `smem`, `smem_padded` and `smem_xor` differ
// only in Layout (kernels/common/smem_layouts.hpp).
//
// Coordinates: the tile at (r0, c0) covers input rows r0..r0+31 and columns c0..c0+31.
// Thread (tx, ty), tx = 0..31, ty = 0..7, handles tile rows ty, ty+8, ty+16, ty+24:
//   load : tile(ty+j, tx)  <- in[r0+ty+j][c0+tx]   a warp reads 32 consecutive input elements
//   store: out[c0+ty+j][r0+tx] <- tile(tx, ty+j)   a warp writes 32 consecutive output elements
// (out is cols x rows, so out[i][j] sits at i*rows + j.)
#pragma once
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {

inline constexpr int kSmemTile = 32;     // tile side in elements
inline constexpr int kSmemTileRows = 8;  // threadIdx.y extent: 32x8 = 256 threads

template <class T, class Layout>
__global__ void __launch_bounds__(kSmemTile* kSmemTileRows)
    smem_tile_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t rows,
                     std::int64_t cols) {
  static_assert(Layout::kN == kSmemTile, "the 32x8 kernel needs a 32x32 tile");
  __shared__ T tile[Layout::kElems];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_y = ceil_div(rows, kSmemTile), tiles_x = ceil_div(cols, kSmemTile);

  for_each_tile(tiles_y, tiles_x, [&](std::int64_t tile_y, std::int64_t tile_x) {
    const std::int64_t r0 = tile_y * kSmemTile, c0 = tile_x * kSmemTile;
    const bool full = r0 + kSmemTile <= rows && c0 + kSmemTile <= cols;
    if (full) {  // fast path: no bounds checks
#pragma unroll
      for (int j = 0; j < kSmemTile; j += kSmemTileRows)
        tile[Layout::index(ty + j, tx)] = src[(r0 + ty + j) * cols + (c0 + tx)];
    } else {  // edge path: the tile hangs over the last row or column
#pragma unroll
      for (int j = 0; j < kSmemTile; j += kSmemTileRows)
        if (r0 + ty + j < rows && c0 + tx < cols)
          tile[Layout::index(ty + j, tx)] = src[(r0 + ty + j) * cols + (c0 + tx)];
    }
    __syncthreads();
    if (full) {
#pragma unroll
      for (int j = 0; j < kSmemTile; j += kSmemTileRows)
        dst[(c0 + ty + j) * rows + (r0 + tx)] = tile[Layout::index(tx, ty + j)];
    } else {
#pragma unroll
      for (int j = 0; j < kSmemTile; j += kSmemTileRows)
        if (c0 + ty + j < cols && r0 + tx < rows)
          dst[(c0 + ty + j) * rows + (r0 + tx)] = tile[Layout::index(tx, ty + j)];
    }
    __syncthreads();  // the next tile overwrites `tile`
  });
}

template <class T, class Layout>
cudaError_t launch_smem_tile(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                             cudaStream_t stream) {
  const TileGrid g = tile_grid(ceil_div(rows, kSmemTile), ceil_div(cols, kSmemTile));
  smem_tile_kernel<T, Layout><<<dim3(g.x, g.y), dim3(kSmemTile, kSmemTileRows), 0, stream>>>(
      static_cast<const T*>(src), static_cast<T*>(dst), rows, cols);
  return cudaGetLastError();
}

}  // namespace tmakit
