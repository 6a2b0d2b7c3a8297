// tma_phase: tma_load_store for rows of any byte length (issue 16). Every other TMA technique
// needs rows that are 16-byte multiples (a map's pitch must be), so odd shapes at 1-2 B fell to
// smem_realign, which realigns 16-byte vectors in registers and runs out of instruction issue
// and load latency (71-79% of memcpy on the H100, docs/perf-notes.md session 9). Here TMA does
// the global side whatever the pitch: each side is V = 16 / elem_bytes tensor maps, map j over
// rows j, j + V, ... (a 16-byte multiple apart) from the 16-byte boundary below row j, and a
// box starts wherever the row does inside its granule (kernels/common/phase.hpp). A T x T tile
// (128-byte lines) is V loads of 8 lines, one per phase, transposed in shared memory by 64
// threads (V x V blocks in registers, no bank conflicts), and V stores of 8 lines. The last
// tile of each side is moved back to end at the side's end, so no box is clipped: a TMA store
// that crosses an odd row's end would write into the next row.
#include <kernels/common/grid.hpp>
#include <kernels/common/phase.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 64;     // one thread per V x V block (8 x 8 blocks a tile)
constexpr std::uint32_t kBoxBytes = 1024;  // 8 lines of 128 bytes: one phase of a tile

template <int E>
constexpr std::uint32_t kTileBytes = phase_count(E) * kBoxBytes;  // T lines of 128 bytes

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + 2 * kTileBytes<E> + 8;
}

template <int E>
__global__ void __launch_bounds__(kThreads)
    tma_phase_kernel(const __grid_constant__ PhaseMapSet maps, std::int64_t rows, std::int64_t cols,
                     std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t V = phase_count(E), T = phase_tile_elems(E), kBytes = kTileBytes<E>;
  extern __shared__ unsigned char tma_phase_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_phase_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  if (tid == 0) {
    full.init(1);
    tma::fence_proxy_async_smem();  // the async proxy must see the initialised barrier
  }
  __syncthreads();
  // This thread's block: tile lines qV..qV+V-1 (row group q), chunk column k.
  const std::uint32_t q = tid % 8, k = tid / 8;

  std::uint32_t phase = 0;
  for_each_tile<true>(
      batch, ceil_div(rows, T), ceil_div(cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        // The tile: src rows row0..row0+T-1, columns col0..col0+T-1 (the last ones moved back).
        const std::int64_t row0 = phase_tile_origin(ty, rows, T),
                           col0 = phase_tile_origin(tx, cols, T);
        const auto z = static_cast<std::int32_t>(b);
        if (tid == 0) {
          full.arrive_expect_tx(kBytes);
#pragma unroll
          for (std::uint32_t p = 0; p < V; ++p) {  // src lines row0 + p, row0 + p + V, ...
            const PhaseBox box = phase_box(row0, p, V);
            tma::load_3d(in + p * kBoxBytes, &maps.src[box.map],
                         static_cast<std::int32_t>(col0) + maps.src_shift_elems[box.map], box.y, z,
                         full.handle());
          }
        }
        full.wait({0, phase++, kBytes});
        {
          Chunk16 x[V], y[V];
#pragma unroll
          for (std::uint32_t i = 0; i < V; ++i)  // tile line qV + i = shared line i * 8 + q
            *reinterpret_cast<uint4*>(&x[i]) =
                *reinterpret_cast<const uint4*>(in + phase_chunk_offset(i * 8 + q, k));
          transpose_chunks<E>(x, y);
#pragma unroll
          for (std::uint32_t j = 0; j < V; ++j)  // out line kV + j = shared line j * 8 + k
            *reinterpret_cast<uint4*>(out + phase_chunk_offset(j * 8 + k, q)) =
                *reinterpret_cast<const uint4*>(&y[j]);
        }
        tma::fence_proxy_async_smem();  // our shared writes -> visible to the TMA stores
        __syncthreads();
        if (tid == 0) {  // dst rows col0 + p, col0 + p + V, ..., columns row0..row0+T-1
#pragma unroll
          for (std::uint32_t p = 0; p < V; ++p) {
            const PhaseBox box = phase_box(col0, p, V);
            tma::store_3d(&maps.dst[box.map],
                          static_cast<std::int32_t>(row0) + maps.dst_shift_elems[box.map], box.y, z,
                          out + p * kBoxBytes);
          }
          tma::store_commit();
          tma::store_wait_read<0>();  // `out` (and `in`, via the barrier below) free again
        }
        __syncthreads();
      });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_phase(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = kSwizzle128B;
  p.phase_maps = true;
  p.src = {true, 8, static_cast<int>(phase_tile_elems(a.elem_bytes)), a.elem_bytes};
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_phase(const LaunchArgs& a) {
  if (a.phase_maps == nullptr) return cudaErrorInvalidValue;
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    constexpr std::uint32_t T = phase_tile_elems(E);
    return launch_on_tiles(tma_phase_kernel<E>, smem_bytes<E>(), a.strides.batch,
                           ceil_div(a.rows, T), ceil_div(a.cols, T), kThreads, a.stream,
                           *a.phase_maps, a.rows, a.cols, a.strides.batch);
  });
}

}  // namespace tmakit
