// tma_copy: TMA's own roofline, no transpose. One thread loads a 256-line box of 128-byte lines
// into shared memory and stores it back out at the same coordinates; the other rung every TMA
// transpose is measured against, next to the LDG/STG `copy`. Barrier style is an axis.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 32;
constexpr std::uint32_t kRows = 256;  // box lines: the largest box extent TMA allows

template <int E>
constexpr std::uint32_t kCols = 128 / E;  // one 128-byte line per row

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + tma::kTileBytes<E, kRows, kCols<E>> + 8;
}

template <int E, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads)
    tma_copy_kernel(const __grid_constant__ CUtensorMap src_map,
                    const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                    std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t kBytes = tma::kTileBytes<E, kRows, kCols<E>>;
  extern __shared__ unsigned char tma_copy_smem[];
  unsigned char* buf = tma::align_smem<unsigned char>(tma_copy_smem, 1024);
  tma::TxBarrier<Style> full(buf + kBytes);
  const bool leader = threadIdx.x == 0;
  tma::open_tile_cta(full, leader, nullptr, nullptr);
  std::uint32_t phase = 0;
  for_each_tile(batch, ceil_div(rows, kRows), ceil_div(cols, kCols<E>),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const auto row0 = static_cast<std::int32_t>(ty * kRows);
                  const auto col0 = static_cast<std::int32_t>(tx * kCols<E>);
                  const auto z = static_cast<std::int32_t>(b);
                  if (leader) {
                    full.arrive_expect_tx(kBytes);
                    tma::load_tile<E, kSwizzleNone, kRows, kCols<E>>(buf, &src_map, row0, col0, z,
                                                                     full.handle());
                  }
                  full.wait({0, phase++, kBytes});
                  if (leader) {
                    tma::store_3d(&dst_map, col0, row0, z,
                                  buf);  // same box, same place: clipped at edges
                    tma::store_commit();
                    tma::store_wait_read<0>();  // buf is reused by the next tile
                  }
                  __syncwarp();
                });
#else
  __trap();
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_copy(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = kSwizzleNone;
  p.src = {true, static_cast<int>(kRows), 128 / a.elem_bytes, a.elem_bytes};
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_copy(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    return dispatch_barrier(a.barrier, [&](auto style) {
      constexpr int E = decltype(e)::value;
      auto* kernel = tma_copy_kernel<E, decltype(style)::value>;
      constexpr std::uint32_t kSmem = smem_bytes<E>();
      return launch_on_tiles(kernel, kSmem, a.strides.batch, ceil_div(a.rows, kRows),
                             ceil_div(a.cols, kCols<E>), kThreads, a.stream, *a.src_map, *a.dst_map,
                             a.rows, a.cols, a.strides.batch);
    });
  });
}

}  // namespace tmakit
