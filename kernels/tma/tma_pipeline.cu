// tma_pipeline: tma_load_store made persistent and pipelined. A grid of a few CTAs per SM
// walks the tiles (tile n, n + gridDim.x, ...); each CTA keeps a ring of kStages shared input
// stages, one mbarrier per stage. One thread keeps the next kStages - 1 tiles' TMA loads in
// flight while the CTA transposes the current one (16-byte shared accesses, conflict-free)
// into one of two output buffers and TMA-stores it; a store is retired with a bulk group
// (wait_group.read) before its buffer is written again. One __syncthreads per tile. Tiles are
// larger than tma_load_store's (16 KB) so each CTA has enough bytes moving. Swizzle mode and
// barrier style are axes.
//
// Ring bookkeeping: the CTA's it-th tile uses stage s = it % kStages; its barrier completes
// once per use, so the wait is for phase it / kStages (on its parity). A batch of matrices is
// one list of tiles: tile n is tile n % per of matrix n / per (per = tiles of one matrix).
#include <algorithm>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

// A configuration: tile R x C elements, ring stages, CTAs per SM.
template <std::uint32_t R, std::uint32_t C, std::uint32_t S, std::uint32_t K>
struct Pipe {
  static constexpr std::uint32_t kRows = R, kCols = C, kStages = S, kCtasPerSm = K;
};

// Per element size: 16 KB tiles, 4 stages, 2 CTAs per SM: the other tile sizes, stage counts
// and CTAs per SM tried were no faster (docs/perf-guide.md 4.10).
template <int E>
struct PipeConfig;
template <>
struct PipeConfig<1> : Pipe<128, 128, 4, 2> {};
template <>
struct PipeConfig<2> : Pipe<64, 128, 4, 2> {};
template <>
struct PipeConfig<4> : Pipe<64, 64, 4, 2> {};
template <>
struct PipeConfig<8> : Pipe<32, 64, 4, 2> {};

template <int E, class Cfg>
constexpr std::uint32_t kThreads = std::min<std::uint32_t>(256, (Cfg::kRows * E / 128) *
                                                                    (Cfg::kCols * E / 128) * 64);

template <int E, class Cfg>
constexpr std::uint32_t kTileBytes = tma::kTileBytes<E, Cfg::kRows, Cfg::kCols>;

constexpr std::uint32_t kOutBuffers = 2;

template <int E, class Cfg>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + (Cfg::kStages + kOutBuffers) * kTileBytes<E, Cfg> + 8 * Cfg::kStages;
}

template <int E, class Cfg, int Mode, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads<E, Cfg>)
    tma_pipeline_kernel(const __grid_constant__ CUtensorMap src_map,
                        const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                        std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t R = Cfg::kRows, C = Cfg::kCols, S = Cfg::kStages,
                          kBytes = kTileBytes<E, Cfg>;
  extern __shared__ unsigned char tma_pipeline_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_pipeline_smem, 1024);  // S stages
  unsigned char* out = in + S * kBytes;                                         // 2 buffers
  unsigned char* bars = out + kOutBuffers * kBytes;                             // S barriers
  auto full = [&](std::uint32_t s) { return tma::TxBarrier<Style>(bars + 8 * s); };

  const std::uint32_t tid = threadIdx.x;
  const std::int64_t tiles_r = ceil_div(rows, R), tiles_c = ceil_div(cols, C),
                     per = tiles_r * tiles_c, tiles = batch * per;
  // Tile n covers source rows t.r * R.., columns t.c * C.. of matrix z = n / per (t: the
  // launch order of grouped_tile inside the matrix). TMA coordinates are 32-bit (the host
  // refuses larger shapes), so the in-matrix math is too.
  using U = std::uint32_t;
  struct Tile {
    TileAt<U> t;
    std::int32_t z;
  };
  auto tile_at = [&](std::int64_t n) {
    const std::int64_t z = batch == 1 ? 0 : n / per;
    return Tile{grouped_tile<U>(U(n - z * per), U(tiles_r), U(tiles_c), U(kTileGroup)),
                static_cast<std::int32_t>(z)};
  };
  auto issue_load = [&](std::int64_t n, std::uint32_t s) {
    auto bar = full(s);
    bar.arrive_expect_tx(kBytes);
    const Tile at = tile_at(n);
    tma::load_tile<E, Mode, R, C>(in + s * kBytes, &src_map, static_cast<std::int32_t>(at.t.r * R),
                                  static_cast<std::int32_t>(at.t.c * C), at.z, bar.handle());
  };

  if (tid == 0) {
    tma::prefetch_map(&src_map);
    tma::prefetch_map(&dst_map);
    for (std::uint32_t s = 0; s < S; ++s) full(s).init(1);
    tma::fence_proxy_async_smem();
    for (std::uint32_t s = 0; s < S; ++s) {  // prologue: fill the ring
      const std::int64_t n = blockIdx.x + static_cast<std::int64_t>(s) * gridDim.x;
      if (n < tiles) issue_load(n, s);
    }
  }
  __syncthreads();

  std::uint32_t it = 0;
  for (std::int64_t n = blockIdx.x; n < tiles; n += gridDim.x, ++it) {
    const std::uint32_t s = it % S;
    unsigned char* ob = out + (it % kOutBuffers) * kBytes;
    full(s).wait({s, it / S, kBytes});
    tma::transpose_tile<E, Mode, R, C, kThreads<E, Cfg>>(in + s * kBytes, ob, tid);
    tma::fence_proxy_async_smem();
    // The previous tile's store must have finished reading its buffer before the next tile
    // (which writes that buffer) starts; the barrier below publishes it to every thread.
    if (tid == 0) tma::store_wait_read<0>();
    __syncthreads();
    if (tid == 0) {
      const Tile at = tile_at(n);
      tma::store_tile<E, Mode, R, C>(&dst_map, static_cast<std::int32_t>(at.t.c * C),
                                     static_cast<std::int32_t>(at.t.r * R), at.z, rows, ob);
      tma::store_commit();
      const std::int64_t next = n + static_cast<std::int64_t>(S) * gridDim.x;
      if (next < tiles) issue_load(next, s);  // stage s was consumed by every thread
    }
  }
  if (tid == 0) tma::store_wait_read<0>();  // shared memory must outlive the last store's reads
#else
  __trap();
#endif
}

template <int E, class Cfg, int Mode, BarrierStyle Style>
cudaError_t launch_config(const kernels::LaunchArgs& a) {
  auto* kernel = tma_pipeline_kernel<E, Cfg, Mode, Style>;
  constexpr std::uint32_t kSmem = smem_bytes<E, Cfg>();
  const std::int64_t tiles =
      a.strides.batch * ceil_div(a.rows, Cfg::kRows) * ceil_div(a.cols, Cfg::kCols);
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>(tiles, static_cast<std::int64_t>(a.sm_count) * Cfg::kCtasPerSm));
  return launch_with_smem(kernel, dim3(grid), dim3(kThreads<E, Cfg>), kSmem, a.stream, *a.src_map,
                          *a.dst_map, a.rows, a.cols, a.strides.batch);
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_pipeline(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    using Cfg = PipeConfig<decltype(e)::value>;
    p.src = tile_map_plan(static_cast<int>(Cfg::kRows), a.swizzle, a.elem_bytes);
    p.dst = tile_map_plan(static_cast<int>(Cfg::kCols), a.swizzle, a.elem_bytes);
    return cudaSuccess;
  });
  return p;
}

cudaError_t kernels::launch_tma_pipeline(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return dispatch_tma_swizzle(a.swizzle, [&](auto mode) {
      return dispatch_barrier(a.barrier, [&](auto style) {
        return launch_config<E, PipeConfig<E>, decltype(mode)::value, decltype(style)::value>(a);
      });
    });
  });
}

}  // namespace tmakit
