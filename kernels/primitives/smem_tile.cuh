// The 32x32 shared-memory tile transpose with 32x8 threads (Harris; Vitamin-CUDA), written
// once and parameterised by the shared layout. `smem`, `smem_padded` and `smem_xor` differ
// only in Layout (kernels/common/smem_layouts.hpp).
//
// Coordinates: the tile side N = Layout::kN (32, or 64 for `smem_wide`); the tile at (r0, c0)
// covers input rows r0..r0+N-1 and columns c0..c0+N-1. Thread (tx, ty), tx = 0..31,
// ty = 0..7, handles tile rows ty+j (j = 0, 8, .., N-8) and columns tx+i (i = 0, 32, .., N-32):
//   load : tile(ty+j, tx+i)  <- in[r0+ty+j][c0+tx+i]   a warp reads 32 consecutive elements
//   store: out[c0+ty+j][r0+tx+i] <- tile(tx+i, ty+j)   a warp writes 32 consecutive elements
// (in[r][c] sits at r*src_ld + c of its matrix, out[i][j] at i*dst_ld + j; matrix b of the
// batch at b*src_batch and b*dst_batch.) N = 32 is the classic kernel (4 elements per
// thread); N = 64 gives each thread 16.
#pragma once
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {

inline constexpr int kSmemTile = 32;     // classic tile side in elements; threadIdx.x extent
inline constexpr int kSmemTileRows = 8;  // threadIdx.y extent: 32x8 = 256 threads

template <class T, class Layout, int L2B, bool Batches>
__device__ __forceinline__ void smem_tile_body(const T* __restrict__ src_base,
                                               T* __restrict__ dst_base, std::int64_t rows,
                                               std::int64_t cols, const BatchStrides& st) {
  constexpr int N = Layout::kN;
  static_assert(N % kSmemTile == 0, "the 32x8 kernel needs a tile side that is a multiple of 32");
  __shared__ T tile[Layout::kElems];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t tiles_y = ceil_div(rows, N), tiles_x = ceil_div(cols, N);

  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;

  for_each_matrix_tile<false, Batches>(
      st, tiles_y, tiles_x,
      [&](std::int64_t src_off, std::int64_t dst_off, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + src_off;
        T* dst = dst_base + dst_off;
        const std::int64_t r0 = tile_y * N, c0 = tile_x * N;
        const bool full = r0 + N <= rows && c0 + N <= cols;
        if constexpr (L2B != 0) {
          // Hinted (L2B, the launcher's choice): every load first, each with .L2::<L2B>B and
          // predicated on the bounds (0 outside), then the shared stores. The hinted load is an
          // asm with a memory clobber, so one written between the shared stores (the paths
          // below) would not be hoisted above them (a measured loss of 3-10 points).
          constexpr int J = N / kSmemTileRows, I = N / kSmemTile;
          T v[J][I];
#pragma unroll
          for (int j = 0; j < J; ++j)
#pragma unroll
            for (int i = 0; i < I; ++i) {
              const std::int64_t r = r0 + ty + j * kSmemTileRows, c = c0 + tx + i * kSmemTile;
              v[j][i] = full || (r < rows && c < cols) ? ld_nc_l2<L2B>(&src[r * lds + c]) : T{};
            }
#pragma unroll
          for (int j = 0; j < J; ++j)
#pragma unroll
            for (int i = 0; i < I; ++i)
              tile[Layout::index(ty + j * kSmemTileRows, tx + i * kSmemTile)] = v[j][i];
        } else if (full) {  // fast path: no bounds checks
#pragma unroll
          for (int j = 0; j < N; j += kSmemTileRows)
#pragma unroll
            for (int i = 0; i < N; i += kSmemTile)
              tile[Layout::index(ty + j, tx + i)] = src[(r0 + ty + j) * lds + (c0 + tx + i)];
        } else {  // edge path: the tile hangs over the last row or column
#pragma unroll
          for (int j = 0; j < N; j += kSmemTileRows)
#pragma unroll
            for (int i = 0; i < N; i += kSmemTile)
              if (r0 + ty + j < rows && c0 + tx + i < cols)
                tile[Layout::index(ty + j, tx + i)] = src[(r0 + ty + j) * lds + (c0 + tx + i)];
        }
        __syncthreads();
        if (full) {
#pragma unroll
          for (int j = 0; j < N; j += kSmemTileRows)
#pragma unroll
            for (int i = 0; i < N; i += kSmemTile)
              dst[(c0 + ty + j) * ldd + (r0 + tx + i)] = tile[Layout::index(tx + i, ty + j)];
        } else {
#pragma unroll
          for (int j = 0; j < N; j += kSmemTileRows)
#pragma unroll
            for (int i = 0; i < N; i += kSmemTile)
              if (c0 + ty + j < cols && r0 + tx + i < rows)
                dst[(c0 + ty + j) * ldd + (r0 + tx + i)] = tile[Layout::index(tx + i, ty + j)];
        }
        __syncthreads();  // the next tile overwrites `tile`
      });
}

template <class T, class Layout, int L2B = 0>
__global__ void __launch_bounds__(kSmemTile* kSmemTileRows)
    smem_tile_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                     std::int64_t cols, BatchStrides st) {
  smem_tile_body<T, Layout, L2B, false>(src_base, dst_base, rows, cols, st);
}

// A batch of several dimensions (BatchStrides::batch_n0): its registers held to what the one-
// dimension kernel uses (at most 48 for the 64 x 64 tile up to 4 bytes, 64 at 8 bytes, 32 for the
// 32 x 32 tiles). Left free, ptxas gave the hinted 64 x 64 form 64 at 1-4 bytes: fewer warps
// resident and a slower walk over the same DRAM bytes (ncu; docs/perf-guide.md section 4.13).
template <class T, class Layout, int L2B = 0>
__global__ void __launch_bounds__(kSmemTile* kSmemTileRows,
                                  Layout::kN >= 64 ? (sizeof(T) >= 8 ? 4 : 5) : 8)
    smem_tile_batches_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base,
                             std::int64_t rows, std::int64_t cols, BatchStrides st) {
  smem_tile_body<T, Layout, L2B, true>(src_base, dst_base, rows, cols, st);
}

// L2B != 0: the hinted form above (.L2::<L2B>B), which the launchers choose per technique and
// element size on Hopper (kernels::l2_hint_pays), where it was measured (smem_wide.cu,
// smem_xor.cu, smem_padded.cu).
template <class T, class Layout, int L2B = 0>
cudaError_t launch_smem_tile(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                             const BatchStrides& st, cudaStream_t stream) {
  constexpr int N = Layout::kN;
  const TileGrid g = tile_grid(ceil_div(rows, N), ceil_div(cols, N), st.batch);
  auto* kernel = st.has_batch_dims() ? smem_tile_batches_kernel<T, Layout, L2B>
                                     : smem_tile_kernel<T, Layout, L2B>;
  kernel<<<dim3(g.x, g.y, g.z), dim3(kSmemTile, kSmemTileRows), 0, stream>>>(
      static_cast<const T*>(src), static_cast<T*>(dst), rows, cols, st);
  return cudaGetLastError();
}

}  // namespace tmakit
