// tma_store: TMA on the write side only (Colfax's "TMA store" variant). Each thread reads a
// V x V block of the source with V 16-byte LDG, transposes it in registers and writes V chunks
// into a swizzled shared tile (diagonal block order: conflict-free); after the proxy fence one
// thread TMA-stores the tile, which clips at the matrix edge. No mbarrier: nothing is loaded
// asynchronously. Swizzle mode is an axis.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 64;

template <int E>
constexpr std::uint32_t kSide = 128 / E;

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + tma::kTileBytes<E, kSide<E>, kSide<E>>;
}

template <int E, int Mode>
__global__ void __launch_bounds__(kThreads)
    tma_store_kernel(const unsigned char* __restrict__ src,
                     const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                     std::int64_t cols, BatchStrides st) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t T = kSide<E>;
  constexpr int V = tma::kChunkElems<E>;
  extern __shared__ unsigned char tma_store_smem[];
  unsigned char* out = tma::align_smem<unsigned char>(tma_store_smem, 1024);
  const std::uint32_t tid = threadIdx.x;
  if (tid == 0) tma::prefetch_map(&dst_map);

  for_each_tile(
      st.batch, ceil_div(rows, T), ceil_div(cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        const std::int64_t row0 = ty * T, col0 = tx * T;
        const tma::BlockCoords<E, T> at(tid);
        // x[i] = source row row0 + r0 + i, columns col0 + c0 .. + V - 1 of matrix b (zeros
        // outside): at b*src_batch + (row0 + r0 + i)*src_ld + col0 + c0 elements.
        const std::int64_t in_col = col0 + at.c0;
        const int n = static_cast<int>(cols - in_col < V ? cols - in_col : V);
        Chunk16 x[V], y[V];
#pragma unroll
        for (int i = 0; i < V; ++i) {
          const std::int64_t in_row = row0 + at.r0 + i;
          x[i] =
              (n > 0 && in_row < rows)
                  ? tma::load_chunk_global<E>(
                        src + (b * st.src_batch_elems + in_row * st.src_ld_elems + in_col) * E, n)
                  : Chunk16{};
        }
        transpose_chunks<E>(x, y);
        tma::store_chunks<E, Mode, T>(out, at.c0, at.r0 * E, y);
        tma::fence_proxy_async_smem();
        __syncthreads();
        if (tid == 0) {
          tma::store_tile<E, Mode, T, T>(&dst_map, static_cast<std::int32_t>(col0),
                                         static_cast<std::int32_t>(row0),
                                         static_cast<std::int32_t>(b), rows, out);
          tma::store_commit();
          tma::store_wait_read<0>();
        }
        __syncthreads();  // `out` is rewritten for the next tile
      });
#else
  __trap();
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_store(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  p.dst = tile_map_plan(128 / a.elem_bytes, a.swizzle, a.elem_bytes);
  p.src_vec16 = true;
  return p;
}

cudaError_t kernels::launch_tma_store(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    return dispatch_tma_swizzle(a.swizzle, [&](auto mode) {
      constexpr int E = decltype(e)::value;
      auto* kernel = tma_store_kernel<E, decltype(mode)::value>;
      constexpr std::uint32_t kSmem = smem_bytes<E>();
      return launch_on_tiles(kernel, kSmem, a.strides.batch, ceil_div(a.rows, kSide<E>),
                             ceil_div(a.cols, kSide<E>), kThreads, a.stream,
                             static_cast<const unsigned char*>(a.src), *a.dst_map, a.rows, a.cols,
                             a.strides);
    });
  });
}

}  // namespace tmakit
