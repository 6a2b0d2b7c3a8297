// tma_accumulate: transpose-accumulate, dst = alpha * src^T + beta * dst, with all three streams
// on the TMA unit. It is tma_wide (2T x 2T tile, T = 128 / E: 256-byte row segments each way,
// column-major tile order, evict_last on the source loads) whose output tile is first loaded
// from dst by TMA, on the same mbarrier as the source tile: both tiles' DRAM latency is one
// wait, and no thread holds a dst element in a register while it waits. Each thread then
// transposes its V x V chunk block from the source tile, combines it with the dst chunks at
// the block's place in the output tile (alpha v + beta old in the type's arithmetic,
// kernels/primitives/epilogue.cuh) and writes them back there; one TMA store writes the tile.
// Against tma_reduce (beta = 1 only, the add done by the TMA unit at the L2: 75-81% of the
// three-stream roofline on 16384^2 2 B), any alpha and beta, and f64. beta = 0 loads no dst.
// TMA's rules (16-byte aligned operands and pitches) hold or the host falls back to
// smem_accumulate with the reason.
//
// Coordinates: tile (row0, col0) of matrix z, T x T; the source tile is T lines (rows row0..)
// of T elements; the output tile is T lines (dst rows col0.., = source columns) of T elements
// (dst columns row0..), loaded from and stored to dst at (x = row0, y = col0, z) in the same
// boxes, so chunk (line c, byte 16k) of the output tile is dst[col0 + c][row0 + 16k / E ..].
// Thread block (r0, c0) (BlockCoords): source lines r0..r0+V-1, chunk c0*E -> output lines
// c0..c0+V-1, chunk r0*E.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/epilogue.cuh>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 256;  // one V x V chunk block each (4 strips of 64)
constexpr int kMode = kSwizzle128B;

template <int E>
constexpr std::uint32_t kSide = tma_wide_side(E);  // kernels/common/tma_tile.hpp

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + 2 * tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

template <class Epi>
__global__ void __launch_bounds__(kThreads)
    tma_accumulate_kernel(const __grid_constant__ CUtensorMap src_map,
                          const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                          std::int64_t cols, std::int64_t batch, Epi epi) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr int E = sizeof(typename Epi::Bits), V = tma::kChunkElems<E>;
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  constexpr std::uint32_t kLoadBytes = Epi::kReadsDst ? 2 * kBytes : kBytes;
  constexpr std::uint32_t kStrip = 128 / E, kBlocks = (T / kStrip) * (T / kStrip) * 64;
  static_assert(kBlocks == kThreads, "one chunk block per thread");
  extern __shared__ unsigned char tma_accumulate_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_accumulate_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, &dst_map);

  std::uint32_t phase = 0;
  const tma::BlockCoords<E, T, kMode> at(tid);
  for_each_tile<true>(  // column-major, as tma_wide
      batch, ceil_div(rows, T), ceil_div(cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        const auto row0 = static_cast<std::int32_t>(ty * T),
                   col0 = static_cast<std::int32_t>(tx * T);
        const auto z = static_cast<std::int32_t>(b);
        if (tid == 0) {
          full.arrive_expect_tx(kLoadBytes);
          tma::load_tile<E, kMode, T, T, tma::L2Hint::kEvictLast>(in, &src_map, row0, col0, z,
                                                                  full.handle());
          if constexpr (Epi::kReadsDst)  // the output tile's dst lines col0.., columns row0..
            tma::load_tile<E, kMode, T, T>(out, &dst_map, col0, row0, z, full.handle());
        }
        full.wait({0, phase++, kLoadBytes});
        Chunk16 x[V], y[V];
        tma::load_chunks<E, kMode, T>(in, at.r0, at.c0 * E, x);
        transpose_chunks<E>(x, y);
#pragma unroll
        for (int j = 0; j < V; ++j) {  // output line c0 + j, chunk at byte r0 * E
          uint4* p =
              reinterpret_cast<uint4*>(out + tma_tile_offset(at.c0 + j, at.r0 * E, T, kMode));
          *p = epi.combine_chunk(*reinterpret_cast<const uint4*>(&y[j]), epi.load_chunk(p));
        }
        // boxes past the end of a dst row skipped, the rest clipped by TMA
        tma::store_out_tile(
            tid == 0, [&] { tma::store_tile<E, kMode, T, T>(&dst_map, col0, row0, z, rows, out); });
      });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_accumulate(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = kMode;
  p.src = tile_map_plan(static_cast<int>(tma_wide_side(a.elem_bytes)), kMode, a.elem_bytes);
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_accumulate(const LaunchArgs& a) {
  return dispatch_axpby(a.num_type, a.alpha, a.beta, [&](auto epi) {
    using Epi = decltype(epi);
    constexpr int E = sizeof(typename Epi::Bits);
    return launch_on_tiles(tma_accumulate_kernel<Epi>, smem_bytes<E>(), a.strides.batch,
                           ceil_div(a.rows, kSide<E>), ceil_div(a.cols, kSide<E>), kThreads,
                           a.stream, *a.src_map, *a.dst_map, a.rows, a.cols, a.strides.batch, epi);
  });
}

}  // namespace tmakit
