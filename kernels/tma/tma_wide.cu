// tma_wide: tma_load_store with the three changes that measured faster (each lever's
// figure in docs/perf-guide.md section 6), each on its own first:
//   1. a 2T x 2T tile (T = 128 / elem_bytes): two boxes side by side each way, so every global
//      row segment a CTA reads or writes is 256 bytes instead of 128 (the tile is four
//      128-byte strips, 64 threads each, conflict-free as in tma_load_store);
//   2. column-major tile order: consecutive CTAs walk down a tile column, so the transposed
//      tiles they store at the same moment fill one output row band, not 128 or 256 bytes
//      of as many bands;
//   3. the loads carry an L2 evict_last policy (cuda::access_property::persisting, through
//      .L2::cache_hint).
// Why the store side is the lever: the same kernel without the in-shared transpose runs at the
// same speed, while storing the loaded tile back untransposed run 98% of memcpy; the cost
// is where the transposed tiles land, not the shared-memory work. Swizzle (none, 128B) and
// barrier style are axes.
// 16-byte elements (docs/perf-guide.md): every row is then a 16-byte multiple, so this is the
// TMA path for 16-byte elements at any shape. The tile is 32 x 32 (512-byte rows: a 16 x 16
// tile would keep only 4 KB moving per CTA), the maps hold pairs of 8-byte words (TMA has no
// 16-byte type), and with 128B a quarter-warp takes one row group (tile_chunk_block): the
// diagonal order would put its 8 lanes on one bank group when a block is a single chunk.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 256;  // 64 per 128-byte strip, four strips

template <int E>
constexpr std::uint32_t kSide = tma_wide_side(E);  // kernels/common/tma_tile.hpp

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + 2 * tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

template <int E, int Mode, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads)
    tma_wide_kernel(const __grid_constant__ CUtensorMap src_map,
                    const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                    std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  extern __shared__ unsigned char tma_wide_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_wide_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<Style> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, &dst_map);

  std::uint32_t phase = 0;
  for_each_tile<true>(  // column-major: consecutive CTAs take tiles (ty, tx), (ty + 1, tx), ...
      batch, ceil_div(rows, T), ceil_div(cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        // Source rows row0.., columns col0.. of matrix z; its transpose lands at dst rows
        // col0.., columns row0..
        const auto row0 = static_cast<std::int32_t>(ty * T),
                   col0 = static_cast<std::int32_t>(tx * T);
        const auto z = static_cast<std::int32_t>(b);
        if (tid == 0) {
          full.arrive_expect_tx(kBytes);
          tma::load_tile<E, Mode, T, T, tma::L2Hint::kEvictLast>(in, &src_map, row0, col0, z,
                                                                 full.handle());
        }
        full.wait({0, phase++, kBytes});
        tma::transpose_tile<E, Mode, T, T, kThreads>(in, out, tid);
        // dst tile at (col0, row0): T lines of T elements, boxes past the end of a dst row
        // skipped, the rest clipped by TMA
        tma::store_out_tile(
            tid == 0, [&] { tma::store_tile<E, Mode, T, T>(&dst_map, col0, row0, z, rows, out); });
      });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_wide(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  p.src = tile_map_plan(static_cast<int>(tma_wide_side(a.elem_bytes)), a.swizzle, a.elem_bytes);
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_wide(const LaunchArgs& a) {
  return dispatch_tma_elem_16(a.elem_bytes, [&](auto e) {
    return dispatch_tma_swizzle(a.swizzle, [&](auto mode) {
      return dispatch_barrier(a.barrier, [&](auto style) {
        constexpr int E = decltype(e)::value;
        auto* kernel = tma_wide_kernel<E, decltype(mode)::value, decltype(style)::value>;
        constexpr std::uint32_t kSmem = smem_bytes<E>();
        return launch_on_tiles(kernel, kSmem, a.strides.batch, ceil_div(a.rows, kSide<E>),
                               ceil_div(a.cols, kSide<E>), kThreads, a.stream, *a.src_map,
                               *a.dst_map, a.rows, a.cols, a.strides.batch);
      });
    });
  });
}

}  // namespace tmakit
