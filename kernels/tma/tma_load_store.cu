// tma_load_store: the first TMA transpose. Over the classic shared-tile ladder it replaces
// both global sides with the Tensor Memory Accelerator: one thread issues a TMA load of a
// T x T tile (T = 128 / elem_bytes, one 128-byte line per row) into swizzled shared memory;
// the CTA transposes it in shared memory with 16-byte accesses on both sides (V x V blocks
// transposed in registers, diagonal block order: no bank conflicts); after the proxy fence one
// thread TMA-stores the transposed tile. TMA does every address and every edge: loads past
// the matrix are zero-filled, stores past it are clipped, no index arithmetic per element.
// Swizzle mode (none, 32B, 64B, 128B) and barrier style are axes.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 64;  // one thread per V x V block of a 128-byte strip

template <int E>
constexpr std::uint32_t kSide = 128 / E;  // tile side in elements

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + 2 * tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

template <int E, int Mode, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads)
    tma_load_store_kernel(const __grid_constant__ CUtensorMap src_map,
                          const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  extern __shared__ unsigned char tma_load_store_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_load_store_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<Style> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, &dst_map);

  std::uint32_t phase = 0;
  for_each_tile(
      batch, ceil_div(rows, T), ceil_div(cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        const auto row0 = static_cast<std::int32_t>(ty * T),
                   col0 = static_cast<std::int32_t>(tx * T);
        const auto z = static_cast<std::int32_t>(b);  // the matrix: the maps' outermost coordinate
        if (tid == 0) {
          full.arrive_expect_tx(kBytes);
          tma::load_tile<E, Mode, T, T>(in, &src_map, row0, col0, z, full.handle());
        }
        full.wait({0, phase++, kBytes});
        tma::transpose_tile<E, Mode, T, T, kThreads>(in, out, tid);
        tma::store_out_tile(tid == 0, [&] {  // dst tile at (col0, row0): T lines of T elements
          tma::store_tile<E, Mode, T, T>(&dst_map, col0, row0, z, rows, out);
        });
      });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_load_store(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  p.src = tile_map_plan(128 / a.elem_bytes, a.swizzle, a.elem_bytes);
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_load_store(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    return dispatch_tma_swizzle(a.swizzle, [&](auto mode) {
      return dispatch_barrier(a.barrier, [&](auto style) {
        constexpr int E = decltype(e)::value;
        auto* kernel = tma_load_store_kernel<E, decltype(mode)::value, decltype(style)::value>;
        constexpr std::uint32_t kSmem = smem_bytes<E>();
        return launch_on_tiles(kernel, kSmem, a.strides.batch, ceil_div(a.rows, kSide<E>),
                               ceil_div(a.cols, kSide<E>), kThreads, a.stream, *a.src_map,
                               *a.dst_map, a.rows, a.cols, a.strides.batch);
      });
    });
  });
}

}  // namespace tmakit
