// The shared-memory tile transpose with 16-byte global accesses on both sides (Vitamin-CUDA's
// float4 kernels, generalised to any element size), parameterised by the shared layout:
// `vec_padded` and `vec_swizzled` differ only in Layout. Shared memory is accessed one element
// at a time (the unpack/pack the article describes).
//
// Coordinates: a tile is N x N elements, N = kVecTileSide<T> (64 for 1- and 2-byte elements so
// a tile row is at least 4 vectors, 32 otherwise). W = 16 / sizeof(T) elements per vector,
// VPR = N / W vectors per tile row. 256 threads; vector id v = tid + k*256:
//   load : tile row  r = v / VPR, vector cv = v % VPR  <- in[r0+r][c0+cv*W .. +W-1]
//   store: out row  oc = v / VPR, vector cv = v % VPR  -> out[c0+oc][r0+cv*W .. +W-1], whose
//          element k is tile(cv*W+k, oc): a column of the tile read as a row of the output.
// Consecutive lanes take consecutive vectors of one row, so every warp access is coalesced.
// (in[r][c] sits at r*src_ld + c of its matrix, out[i][j] at i*dst_ld + j; matrix b of the
// batch at b*src_batch and b*dst_batch.)
//
// The vector path of a side needs a 16-byte aligned base pointer, a row pitch (ld) and a
// batch stride that are multiples of 16 bytes, and a row length (input side: cols, output
// side: rows) that is a whole number of vectors; then a vector is entirely inside or entirely
// outside the matrix. Otherwise that side takes the scalar path (VecIn/VecOut false):
// same tile, one element per access, still coalesced, bounds-checked per element.
#pragma once
#include <cstdint>
#include <kernels/common/elem.hpp>
#include <kernels/common/grid.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/vec.cuh>

namespace tmakit {

template <class T>
inline constexpr int kVecTileSide = sizeof(T) <= 2 ? 64 : 32;
inline constexpr int kVecTileThreads = 256;

template <class T, class Layout, bool VecIn, bool VecOut, bool Batches>
__global__ void __launch_bounds__(kVecTileThreads)
    vec_tile_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                    std::int64_t cols, BatchStrides st) {
  constexpr int N = Layout::kN, W = kElemsPerVec<T>, VPR = N / W, kVecs = N * VPR;
  static_assert(N % W == 0 && kVecs % kVecTileThreads == 0, "tile must split into vectors");
  __shared__ T tile[Layout::kElems];
  const int tid = threadIdx.x;
  const std::int64_t tiles_y = ceil_div(rows, N), tiles_x = ceil_div(cols, N);

  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;

  for_each_matrix_tile<false, Batches>(
      st, tiles_y, tiles_x,
      [&](std::int64_t src_off, std::int64_t dst_off, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + src_off;
        T* dst = dst_base + dst_off;
        const std::int64_t r0 = tile_y * N, c0 = tile_x * N;
        if constexpr (VecIn) {
#pragma unroll
          for (int v = tid; v < kVecs; v += kVecTileThreads) {
            const int r = v / VPR, c = (v % VPR) * W;
            if (r0 + r < rows && c0 + c < cols) {
              const Vec16<T> x = load_vec16(src + (r0 + r) * lds + (c0 + c));
#pragma unroll
              for (int k = 0; k < W; ++k) tile[Layout::index(r, c + k)] = x.e[k];
            }
          }
        } else {
#pragma unroll 4
          for (int i = tid; i < N * N; i += kVecTileThreads) {
            const int r = i / N, c = i % N;
            if (r0 + r < rows && c0 + c < cols)
              tile[Layout::index(r, c)] = src[(r0 + r) * lds + (c0 + c)];
          }
        }
        __syncthreads();
        if constexpr (VecOut) {
#pragma unroll
          for (int v = tid; v < kVecs; v += kVecTileThreads) {
            const int oc = v / VPR, orr = (v % VPR) * W;  // output row oc, output col orr (in tile)
            if (c0 + oc < cols && r0 + orr < rows) {
              Vec16<T> x;
#pragma unroll
              for (int k = 0; k < W; ++k) x.e[k] = tile[Layout::index(orr + k, oc)];
              store_vec16(dst + (c0 + oc) * ldd + (r0 + orr), x);
            }
          }
        } else {
#pragma unroll 4
          for (int i = tid; i < N * N; i += kVecTileThreads) {
            const int oc = i / N, orr = i % N;
            if (c0 + oc < cols && r0 + orr < rows)
              dst[(c0 + oc) * ldd + (r0 + orr)] = tile[Layout::index(orr, oc)];
          }
        }
        __syncthreads();
      });
}

template <class T, template <int> class Layout>
cudaError_t launch_vec_tile(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                            const BatchStrides& st, cudaStream_t stream) {
  using L = Layout<kVecTileSide<T>>;
  constexpr int W = kElemsPerVec<T>;
  const bool vec_in = is_aligned(src, kVecBytes) && cols % W == 0 && st.src_ld_elems % W == 0 &&
                      st.src_batches_multiple_of(W);
  const bool vec_out = is_aligned(dst, kVecBytes) && rows % W == 0 && st.dst_ld_elems % W == 0 &&
                       st.dst_batches_multiple_of(W);
  const TileGrid g = tile_grid(ceil_div(rows, L::kN), ceil_div(cols, L::kN), st.batch);
  const dim3 grid(g.x, g.y, g.z), block(kVecTileThreads);
  const T* s = static_cast<const T*>(src);
  T* d = static_cast<T*>(dst);
  auto go = [&](auto batches) {
    constexpr bool B = decltype(batches)::value;
    if (vec_in && vec_out)
      vec_tile_kernel<T, L, true, true, B><<<grid, block, 0, stream>>>(s, d, rows, cols, st);
    else if (vec_in)
      vec_tile_kernel<T, L, true, false, B><<<grid, block, 0, stream>>>(s, d, rows, cols, st);
    else if (vec_out)
      vec_tile_kernel<T, L, false, true, B><<<grid, block, 0, stream>>>(s, d, rows, cols, st);
    else
      vec_tile_kernel<T, L, false, false, B><<<grid, block, 0, stream>>>(s, d, rows, cols, st);
    return cudaGetLastError();
  };
  if (st.has_batch_dims()) return go(std::true_type{});
  return go(std::false_type{});
}

}  // namespace tmakit
