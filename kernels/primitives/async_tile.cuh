// The kernel of async_copy and async_roofline (kernels/async/): cp.async loads of 128-byte
// lines into a 128B-swizzled tile ring, then the transpose (Transpose = true) or the lines
// stored back (false). See kernels/async/async_copy.cu for the design and the coordinates.
#pragma once
#include <algorithm>
#include <cuda/pipeline>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

#ifndef TMAKIT_ASYNC_STAGES
#define TMAKIT_ASYNC_STAGES 3
#endif

namespace tmakit::async_tile {

constexpr std::uint32_t kThreads = 64;  // one V x V chunk block of the 128-byte strip each
constexpr std::uint32_t kStages = TMAKIT_ASYNC_STAGES;
constexpr int kMode = kSwizzle128B;    // the shared layout (applied by our own offsets)
constexpr std::uint32_t kAlign = 128;  // bank pattern repeats every 128 bytes

template <int E>
constexpr std::uint32_t kSide = 128 / E;
template <int E>
constexpr std::uint32_t kTileBytes = kSide<E> * 128;
template <int E>
constexpr std::uint32_t smem_bytes() {
  return kAlign + kStages * kTileBytes<E>;
}

struct TileRef {
  std::int64_t b, row0, col0;
};

template <int E>
__device__ __forceinline__ TileRef tile_at(std::int64_t n, std::int64_t per, std::uint32_t tiles_y,
                                           std::uint32_t tiles_x) {
  using U = std::uint32_t;
  const TileAt<U> t = grouped_tile<U>(U(n % per), tiles_y, tiles_x, U(kTileGroup));
  return {n / per, std::int64_t(t.r) * kSide<E>, std::int64_t(t.c) * kSide<E>};
}

template <int E, bool Transpose>
__global__ void __launch_bounds__(kThreads)
    async_copy_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                      std::int64_t rows, std::int64_t cols, BatchStrides st) {
  constexpr std::uint32_t T = kSide<E>;
  constexpr int V = 16 / E;
  extern __shared__ unsigned char async_copy_smem[];
  unsigned char* ring = tma::align_smem<unsigned char>(async_copy_smem, kAlign);
  const std::uint32_t tid = threadIdx.x;
  const std::int64_t tiles_y = ceil_div(rows, T), tiles_x = ceil_div(cols, T);
  const std::int64_t per = tiles_y * tiles_x, tiles = st.batch * per;
  if (per > 0xffffffffLL) __trap();  // 32-bit tile math (the host never launches this)
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();

  // This thread's chunks of tile n into stage s: one commit group, empty past the last tile.
  auto issue = [&](std::int64_t n, std::uint32_t s) {
    pipe.producer_acquire();
    if (n < tiles) {
      const TileRef t = tile_at<E>(n, per, std::uint32_t(tiles_y), std::uint32_t(tiles_x));
      const unsigned char* base =
          src + (t.b * st.src_batch_elems + t.row0 * st.src_ld_elems + t.col0) * E;
      unsigned char* stage = ring + s * kTileBytes<E>;
#pragma unroll
      for (std::uint32_t q = tid; q < T * 8; q += kThreads) {
        const std::uint32_t line = q / 8, k = q % 8;
        if (t.row0 + line < rows && t.col0 + k * V < cols)
          cuda::memcpy_async(stage + tma_tile_offset(line, k * 16, T, kMode),
                             base + (std::int64_t(line) * st.src_ld_elems + k * V) * E,
                             cuda::aligned_size_t<16>(16), pipe);
      }
    }
    pipe.producer_commit();
  };

  const std::int64_t stride = gridDim.x;
  std::int64_t n = blockIdx.x;
  for (std::uint32_t s = 0; s + 1 < kStages; ++s) issue(n + s * stride, s);
  for (std::uint32_t it = 0; n < tiles; n += stride, ++it) {
    // The stage the previous tile used is free (every thread passed the barrier below).
    issue(n + (kStages - 1) * stride, (it + kStages - 1) % kStages);
    pipe.consumer_wait();  // this thread's chunks of tile n have landed...
    __syncthreads();       // ...and everyone's
    const unsigned char* in = ring + (it % kStages) * kTileBytes<E>;
    const TileRef t = tile_at<E>(n, per, std::uint32_t(tiles_y), std::uint32_t(tiles_x));
    if constexpr (Transpose) {
      // tma_load's step: block (r0, c0) of the tile -> registers -> transposed -> V output
      // chunks: dst row col0 + c0 + j, columns row0 + r0 .. + V - 1 (the first n inside).
      const tma::BlockCoords<E, T> at(tid);
      Chunk16 x[V], y[V];
      tma::load_chunks<E, kMode, T>(in, at.r0, at.c0 * E, x);
      transpose_chunks<E>(x, y);
      const std::int64_t out_col = t.row0 + at.r0;
      const int nv = static_cast<int>(rows - out_col < V ? rows - out_col : V);
#pragma unroll
      for (int j = 0; j < V; ++j) {
        const std::int64_t out_row = t.col0 + at.c0 + j;
        if (nv > 0 && out_row < cols)
          tma::store_chunk_global<E>(
              dst + (t.b * st.dst_batch_elems + out_row * st.dst_ld_elems + out_col) * E, y[j], nv);
      }
    } else {
#pragma unroll
      for (std::uint32_t q = tid; q < T * 8; q += kThreads) {
        const std::uint32_t line = q / 8, k = q % 8;
        if (t.row0 + line < rows && t.col0 + k * V < cols)
          *reinterpret_cast<uint4*>(
              dst +
              (t.b * st.dst_batch_elems + (t.row0 + line) * st.dst_ld_elems + t.col0 + k * V) * E) =
              *reinterpret_cast<const uint4*>(in + tma_tile_offset(line, k * 16, T, kMode));
      }
    }
    pipe.consumer_release();
    __syncthreads();  // the stage is refilled by the next iteration's issue
  }
}

// A persistent grid: as many CTAs as are resident at once (occupancy, asked once per
// instantiation), at most one per tile.
template <int E, bool Transpose>
inline cudaError_t launch(const kernels::LaunchArgs& a) {
  auto* kernel = async_copy_kernel<E, Transpose>;
  constexpr std::uint32_t kSmem = smem_bytes<E>();
  static const int per_sm = [&] {
    int n = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, kSmem) != cudaSuccess)
      n = 1;
    return std::max(n, 1);
  }();
  const std::int64_t tiles =
      a.strides.batch * ceil_div(a.rows, kSide<E>) * ceil_div(a.cols, kSide<E>);
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>(tiles, static_cast<std::int64_t>(a.sm_count) * per_sm));
  return launch_with_smem(kernel, dim3(grid), dim3(kThreads), kSmem, a.stream,
                          static_cast<const unsigned char*>(a.src),
                          static_cast<unsigned char*>(a.dst), a.rows, a.cols, a.strides);
}

}  // namespace tmakit::async_tile
