// tma_load: TMA on the read side only. One thread TMA-loads a T x T tile (T = 128 / elem_bytes)
// into swizzled shared memory, as tma_load_store does; each thread then reads a V x V block
// with V 16-byte shared loads (diagonal block order: conflict-free), transposes it in
// registers, and writes its V output chunks straight to global memory with 16-byte STG: no
// second shared buffer, no proxy fence, but the stores' addresses and edges are the kernel's
// job again. Swizzle mode and barrier style are axes.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 64;

template <int E>
constexpr std::uint32_t kSide = 128 / E;

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

template <int E, int Mode, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads)
    tma_load_kernel(const __grid_constant__ CUtensorMap src_map, unsigned char* __restrict__ dst,
                    std::int64_t rows, std::int64_t cols, BatchStrides st) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  constexpr int V = tma::kChunkElems<E>;
  extern __shared__ unsigned char tma_load_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_load_smem, 1024);
  tma::TxBarrier<Style> full(in + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, nullptr);  // the dst side is plain stores

  std::uint32_t phase = 0;
  for_each_tile(st.batch, ceil_div(rows, T), ceil_div(cols, T),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const std::int64_t row0 = ty * T, col0 = tx * T;
                  if (tid == 0) {
                    full.arrive_expect_tx(kBytes);
                    tma::load_tile<E, Mode, T, T>(in, &src_map, static_cast<std::int32_t>(row0),
                                                  static_cast<std::int32_t>(col0),
                                                  static_cast<std::int32_t>(b), full.handle());
                  }
                  full.wait({0, phase++, kBytes});
                  const tma::BlockCoords<E, T> at(tid);  // 64 threads, 64 blocks
                  Chunk16 x[V], y[V];
                  tma::load_chunks<E, Mode, T>(in, at.r0, at.c0 * E, x);
                  transpose_chunks<E>(x, y);
                  // y[j] = dst row col0 + c0 + j, dst columns row0 + r0 .. + V - 1 of matrix b: at
                  // b*dst_batch + (col0 + c0 + j)*dst_ld + row0 + r0 elements.
                  const std::int64_t out_col = row0 + at.r0;
                  const int n = static_cast<int>(rows - out_col < V ? rows - out_col : V);
#pragma unroll
                  for (int j = 0; j < V; ++j) {
                    const std::int64_t out_row = col0 + at.c0 + j;
                    if (n > 0 && out_row < cols)
                      tma::store_chunk_global<E>(
                          dst + (b * st.dst_batch_elems + out_row * st.dst_ld_elems + out_col) * E,
                          y[j], n);
                  }
                  __syncthreads();  // `in` is reloaded for the next tile
                });
#else
  __trap();
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_load(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  p.src = tile_map_plan(128 / a.elem_bytes, a.swizzle, a.elem_bytes);
  p.dst_vec16 = true;
  return p;
}

cudaError_t kernels::launch_tma_load(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    return dispatch_tma_swizzle(a.swizzle, [&](auto mode) {
      return dispatch_barrier(a.barrier, [&](auto style) {
        constexpr int E = decltype(e)::value;
        auto* kernel = tma_load_kernel<E, decltype(mode)::value, decltype(style)::value>;
        constexpr std::uint32_t kSmem = smem_bytes<E>();
        return launch_on_tiles(kernel, kSmem, a.strides.batch, ceil_div(a.rows, kSide<E>),
                               ceil_div(a.cols, kSide<E>), kThreads, a.stream, *a.src_map,
                               static_cast<unsigned char*>(a.dst), a.rows, a.cols, a.strides);
      });
    });
  });
}

}  // namespace tmakit
