// The kernel of bulk_copy and bulk_roofline (kernels/async/): 1-D cp.async.bulk loads of row
// segments into shared memory, then the unswizzled in-shared transpose and 1-D bulk stores of
// the transposed lines (Transpose = true), or the loaded lines stored back (false). See
// kernels/async/bulk_copy.cu for the design and the coordinates.
#pragma once
#include <algorithm>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit::bulk_tile {

constexpr std::uint32_t kThreads = 64;
constexpr std::uint32_t kAlign = 128;

// The roofline's tile (experiment knobs, docs/perf-guide.md): lines of
// TMAKIT_BULK_LINE_BYTES (a multiple of 16), TMAKIT_BULK_LINES of them.
#ifndef TMAKIT_BULK_LINE_BYTES
#define TMAKIT_BULK_LINE_BYTES 1024
#endif
#ifndef TMAKIT_BULK_LINES
#define TMAKIT_BULK_LINES 32
#endif

// Transpose: T x T tiles of 128-byte lines. Roofline: 32 lines of 1024 bytes.
template <int E, bool Transpose>
struct Geometry {
  static constexpr std::uint32_t kLineBytes = Transpose ? 128 : TMAKIT_BULK_LINE_BYTES;
  static constexpr std::uint32_t kLines = Transpose ? 128 / E : TMAKIT_BULK_LINES;
  static constexpr std::uint32_t kCols = kLineBytes / E;  // tile columns, elements
  static constexpr std::uint32_t kBytes = kLines * kLineBytes;
  static constexpr std::uint32_t kSmem = kAlign + (Transpose ? 2 : 1) * kBytes + 8;
};

template <int E, bool Transpose>
__global__ void __launch_bounds__(kThreads)
    bulk_copy_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                     std::int64_t rows, std::int64_t cols, BatchStrides st) {
#if TMAKIT_DEVICE_HAS_TMA
  using G = Geometry<E, Transpose>;
  extern __shared__ unsigned char bulk_copy_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(bulk_copy_smem, kAlign);
  unsigned char* out = in + G::kBytes;  // Transpose only
  tma::TxBarrier<BarrierStyle::kPtx> full(in + (Transpose ? 2 : 1) * G::kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, nullptr, nullptr);  // plain addresses: no maps

  std::uint32_t phase = 0;
  for_each_tile(
      st.batch, ceil_div(rows, G::kLines), ceil_div(cols, G::kCols),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        const std::int64_t row0 = ty * G::kLines, col0 = tx * G::kCols;
        const auto lines =
            static_cast<std::uint32_t>(std::min<std::int64_t>(G::kLines, rows - row0));
        const auto line_bytes =
            static_cast<std::uint32_t>(std::min<std::int64_t>(G::kLineBytes, (cols - col0) * E));
        const std::uint32_t bytes = lines * line_bytes;
        if (tid < 32) {
          if (tid == 0) full.arrive_expect_tx(bytes);  // before any copy can complete
          __syncwarp();
          const unsigned char* s =
              src + (b * st.src_batch_elems + row0 * st.src_ld_elems + col0) * E;
          for (std::uint32_t l = tid; l < lines; l += 32)
            tma::bulk_load(in + l * G::kLineBytes, s + std::int64_t(l) * st.src_ld_elems * E,
                           line_bytes, full.handle());
        }
        full.wait({0, phase++, bytes});
        if constexpr (Transpose) {
          tma::transpose_tile<E, kSwizzleNone, G::kLines, G::kLines, kThreads>(in, out, tid);
          tma::fence_proxy_async_smem();  // our shared writes -> visible to the bulk stores
          __syncthreads();
          if (tid < 32) {
            const auto out_lines =
                static_cast<std::uint32_t>(std::min<std::int64_t>(G::kLines, cols - col0));
            const auto out_bytes =
                static_cast<std::uint32_t>(std::min<std::int64_t>(128, (rows - row0) * E));
            unsigned char* d = dst + (b * st.dst_batch_elems + col0 * st.dst_ld_elems + row0) * E;
            for (std::uint32_t c = tid; c < out_lines; c += 32)
              tma::bulk_store(d + std::int64_t(c) * st.dst_ld_elems * E, out + c * 128, out_bytes);
            tma::store_commit();
            tma::store_wait_read<0>();  // `out` (and `in`, after the barrier) free again
          }
        } else if (tid < 32) {
          unsigned char* d = dst + (b * st.dst_batch_elems + row0 * st.dst_ld_elems + col0) * E;
          for (std::uint32_t l = tid; l < lines; l += 32)
            tma::bulk_store(d + std::int64_t(l) * st.dst_ld_elems * E, in + l * G::kLineBytes,
                            line_bytes);
          tma::store_commit();
          tma::store_wait_read<0>();
        }
        __syncthreads();
      });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

template <int E, bool Transpose>
inline cudaError_t launch(const kernels::LaunchArgs& a) {
  using G = Geometry<E, Transpose>;
  return launch_on_tiles(bulk_copy_kernel<E, Transpose>, G::kSmem, a.strides.batch,
                         ceil_div(a.rows, G::kLines), ceil_div(a.cols, G::kCols), kThreads,
                         a.stream, static_cast<const unsigned char*>(a.src),
                         static_cast<unsigned char*>(a.dst), a.rows, a.cols, a.strides);
}

}  // namespace tmakit::bulk_tile
