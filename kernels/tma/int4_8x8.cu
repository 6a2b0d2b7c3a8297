// int4_8x8: the CUDA Programming Guide's TMA swizzle example ("Matrix Transpose", its Figures 27
// and 28): an 8x8 matrix of int4 (16-byte elements, one 128-byte line per row) loaded by TMA
// with SWIZZLE_128B, transposed in shared memory by 8 threads, stored back by TMA. Reproduced
// as the guide writes it (cuda::barrier with the arrival-token pattern, cde:: bulk-tensor
// calls, the swizzled index formulas), and without the swizzle, where every column store is an
// 8-way bank conflict. Generalised only in that each CTA takes one 8x8 tile of a larger matrix
// (grid-stride), with separate source and destination maps, and that the maps are 3-D (the
// outermost coordinate picks the matrix of a batch), so the bulk-tensor calls are the _3d
// forms. The guide's index math lives in
// kernels/common/swizzle.hpp (int4_8x8_swizzled_col) for the bank model.
#include <kernels/common/grid.hpp>
#include <kernels/common/swizzle.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_launch.cuh>

namespace tmakit {
namespace {

constexpr int kN = 8;             // 8x8 int4 tile
constexpr int kThreads = 8;       // the guide's <<<1, 8>>>
constexpr int kWordsPerElem = 4;  // the maps see int32 words: a row is 32 words (128 bytes)

// Column of element (i, j) in shared memory: the guide's swiz_j_idx = (i % 8) ^ j under 128B
// swizzle, j itself without.
template <int Mode>
__device__ __forceinline__ int smem_col(int i, int j) {
  return Mode == kSwizzle128B ? int4_8x8_swizzled_col(i, j) : j;
}

template <int Mode, BarrierStyle Style>
__global__ void __launch_bounds__(kThreads)
    int4_8x8_kernel(const __grid_constant__ CUtensorMap src_map,
                    const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                    std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  namespace cde = cuda::device::experimental;
  // With the 128-byte swizzle mode the buffers must be 1024-byte aligned (the guide).
  __shared__ alignas(1024) int4 smem_buffer[kN][kN];
  __shared__ alignas(1024) int4 smem_buffer_tr[kN][kN];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ tma::block_barrier bar;
  __shared__ std::uint64_t raw_bar;

  if (threadIdx.x == 0) {
    if constexpr (Style == BarrierStyle::kCudaBarrier) {
      tma::init_block_barrier(&bar, blockDim.x);  // every thread arrives
    } else {
      tma::mbar_init(&raw_bar, 1);  // only the issuing thread arrives
    }
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();

  std::uint32_t phase = 0;
  for_each_tile(
      batch, ceil_div(rows, kN), ceil_div(cols, kN),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        // In int32 words: the tile's source box starts at (x = tx*8*4, y = ty*8) of matrix z = b,
        // its transposed destination box at (x = ty*8*4, y = tx*8). The host checked that the
        // word coordinates fit in 32 bits.
        const auto sx = static_cast<int>(tx * kN * kWordsPerElem), sy = static_cast<int>(ty * kN);
        const auto dx = static_cast<int>(ty * kN * kWordsPerElem), dy = static_cast<int>(tx * kN);
        const auto z = static_cast<int>(b);
        if constexpr (Style == BarrierStyle::kCudaBarrier) {  // the guide, verbatim
          tma::block_barrier::arrival_token token;
          if (threadIdx.x == 0) {
            cde::cp_async_bulk_tensor_3d_global_to_shared(&smem_buffer, &src_map, sx, sy, z, bar);
            token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(smem_buffer));
          } else {
            token = bar.arrive();
          }
          bar.wait(std::move(token));
        } else {  // the same with raw cuda::ptx mbarrier calls
          if (threadIdx.x == 0) {
            tma::mbar_arrive_expect_tx(&raw_bar, sizeof(smem_buffer));
            tma::load_3d(&smem_buffer, &src_map, sx, sy, z, &raw_bar);
          }
          tma::mbar_wait(&raw_bar, {0, phase++, static_cast<std::uint32_t>(sizeof(smem_buffer))});
        }

        // Thread j reads row i of the tile and writes it to column i of the transpose.
        for (int sidx_j = threadIdx.x; sidx_j < kN; sidx_j += blockDim.x) {
          for (int sidx_i = 0; sidx_i < kN; ++sidx_i) {
            const int swiz_j_idx = smem_col<Mode>(sidx_i, sidx_j);
            const int swiz_i_idx_tr = smem_col<Mode>(sidx_j, sidx_i);
            smem_buffer_tr[sidx_j][swiz_i_idx_tr] = smem_buffer[sidx_i][swiz_j_idx];
          }
        }

        // Wait for shared memory writes to be visible to the TMA engine.
        cde::fence_proxy_async_shared_cta();
        __syncthreads();
        if (threadIdx.x == 0) {  // the store 'unswizzles' the data
          cde::cp_async_bulk_tensor_3d_shared_to_global(&dst_map, dx, dy, z, &smem_buffer_tr);
          cde::cp_async_bulk_commit_group();
          cde::cp_async_bulk_wait_group_read<0>();
        }
        __syncthreads();  // both buffers are reused by the next tile
      });
  if constexpr (Style == BarrierStyle::kCudaBarrier) {
    if (threadIdx.x == 0) (&bar)->~barrier();  // destroy the barrier (mbarrier.inval)
  }
#else
  __trap();
#endif
}

}  // namespace

kernels::TmaPlan kernels::plan_int4_8x8(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = a.swizzle;
  p.src = {true, kN, kN * kWordsPerElem, 4};
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_int4_8x8(const LaunchArgs& a) {
  if (a.elem_bytes != 16) return cudaErrorInvalidValue;
  auto go = [&](auto kernel) {
    const TileGrid g = tile_grid(ceil_div(a.rows, kN), ceil_div(a.cols, kN), a.strides.batch);
    kernel<<<dim3(g.x, g.y, g.z), kThreads, 0, a.stream>>>(*a.src_map, *a.dst_map, a.rows, a.cols,
                                                           a.strides.batch);
    return cudaGetLastError();
  };
  const bool swz = a.swizzle == kSwizzle128B;
  if (!swz && a.swizzle != kSwizzleNone) return cudaErrorInvalidValue;
  return dispatch_barrier(a.barrier, [&](auto style) {
    constexpr BarrierStyle S = decltype(style)::value;
    return swz ? go(int4_8x8_kernel<kSwizzle128B, S>) : go(int4_8x8_kernel<kSwizzleNone, S>);
  });
}

}  // namespace tmakit
