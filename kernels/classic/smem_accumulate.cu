// smem_accumulate: transpose-accumulate, dst = alpha * src^T + beta * dst, the other half of
// what cuBLAS geam does, on the LDG/STG ladder. It is smem_wide (64x64 XOR-swizzled tile,
// 32x8 threads, 16 elements each) whose store side becomes a read-modify-write: each thread
// reads the dst element it is about to write (the same coalesced row segment), and writes
// alpha * tile + beta * dst in the element type's arithmetic (kernels/primitives/num.cuh).
// beta == 0 never reads dst (BLAS semantics: NaN or garbage in dst does not propagate).
// Every type (f16, bf16, f32, f64, i32), any alpha and beta, any shape, layout and alignment:
// the path every accumulate call can take (tma_reduce falls back to it).
//
// The dst stream's latency overlaps the source's instead of following the tile's barrier (read
// after it, it doubled each tile's wait: 48% of warps active, 29 long-scoreboard stalls per
// issue on the odd 4 B cell, docs/perf-guide.md "Transpose-accumulate"):
//  - 2 and 4 B: before its source loads, the block asks the L2 for the tile's dst sectors
//    (prefetch.global.L2, kernels/primitives/prefetch_l2.cuh); the reads after the barrier hit
//    the L2. 64 registers, 4 blocks per SM.
//  - 8 B: each thread reads its 16 dst elements into registers before its source loads (the
//    prefetch ran 16384^2 at 77% against 90% this way: 8 B values kept 4 blocks per SM only by
//    spilling). 80 registers, 3 blocks per SM.
//
// Coordinates (smem_tile.cuh): tile (r0, c0); thread (tx, ty) loads tile(ty+j, tx+i) <-
// in[r0+ty+j][c0+tx+i] and stores out[c0+ty+j][r0+tx+i] = f(tile(tx+i, ty+j),
// out[c0+ty+j][r0+tx+i]), i = 0, 32; j = 0, 8, .., 56.
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/num.cuh>
#include <kernels/primitives/prefetch_l2.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kN = 64, kTx = 32, kTy = 8;
using Layout = XorLayout<kN>;

// Whether type N's dst elements go to registers before the source loads (else L2 prefetch).
template <NumType N>
inline constexpr bool kDstInRegisters = sizeof(typename Num<N>::Bits) == 8;

template <NumType N, bool BetaZero>
__global__ void __launch_bounds__(kTx* kTy, kDstInRegisters<N> ? 3 : 4)
    smem_accumulate_kernel(const typename Num<N>::Bits* __restrict__ src_base,
                           typename Num<N>::Bits* __restrict__ dst_base, std::int64_t rows,
                           std::int64_t cols, BatchStrides st, Scalars<N> sc) {
  using T = typename Num<N>::Bits;
  __shared__ T tile[Layout::kElems];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  for_each_tile(
      st.batch, ceil_div(rows, kN), ceil_div(cols, kN),
      [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + b * st.src_batch_elems;
        T* dst = dst_base + b * st.dst_batch_elems;
        const std::int64_t r0 = tile_y * kN, c0 = tile_x * kN;
        const bool full = r0 + kN <= rows && c0 + kN <= cols;
        // This thread's 16 dst elements out[c0+ty+j][r0+tx+i], all read before any arithmetic.
        T old[kN / kTy][kN / kTx];
        auto read_dst = [&] {
#pragma unroll
          for (int j = 0; j < kN; j += kTy)
#pragma unroll
            for (int i = 0; i < kN; i += kTx)
              if (full || (c0 + ty + j < cols && r0 + tx + i < rows))
                old[j / kTy][i / kTx] = dst[(c0 + ty + j) * ldd + (r0 + tx + i)];
        };
        if constexpr (!BetaZero && kDstInRegisters<N>) {
          read_dst();
        } else if constexpr (!BetaZero) {
          // The tile's dst rows c0 .. c0 + h - 1, bytes [r0, r0 + w) of each, in 32-byte sectors.
          const int w_elems = int(rows - r0 < kN ? rows - r0 : kN);
          const int h = int(cols - c0 < kN ? cols - c0 : kN);
          prefetch_l2_ranges(reinterpret_cast<std::uintptr_t>(dst + c0 * ldd + r0),
                             ldd * std::int64_t(sizeof(T)), h, w_elems * int(sizeof(T)),
                             l2_sectors_max(kN * int(sizeof(T))), ty * kTx + tx, kTx * kTy);
        }
#pragma unroll
        for (int j = 0; j < kN; j += kTy)
#pragma unroll
          for (int i = 0; i < kN; i += kTx)
            if (full || (r0 + ty + j < rows && c0 + tx + i < cols))
              tile[Layout::index(ty + j, tx + i)] = src[(r0 + ty + j) * lds + (c0 + tx + i)];
        __syncthreads();
        if constexpr (!BetaZero && !kDstInRegisters<N>) read_dst();
#pragma unroll
        for (int j = 0; j < kN; j += kTy)
#pragma unroll
          for (int i = 0; i < kN; i += kTx)
            if (full || (c0 + ty + j < cols && r0 + tx + i < rows))
              dst[(c0 + ty + j) * ldd + (r0 + tx + i)] = num_axpby<N, BetaZero>(
                  tile[Layout::index(tx + i, ty + j)], BetaZero ? T{} : old[j / kTy][i / kTx], sc);
        __syncthreads();  // the next tile overwrites `tile`
      });
}

template <NumType N>
cudaError_t launch(const kernels::LaunchArgs& a) {
  using T = typename Num<N>::Bits;
  const TileGrid g = tile_grid(ceil_div(a.rows, kN), ceil_div(a.cols, kN), a.strides.batch);
  const dim3 grid(g.x, g.y, g.z), block(kTx, kTy);
  const Scalars<N> sc = Scalars<N>::make(a.alpha, a.beta);
  const T* s = static_cast<const T*>(a.src);
  T* d = static_cast<T*>(a.dst);
  if (a.beta == 0.0)
    smem_accumulate_kernel<N, true>
        <<<grid, block, 0, a.stream>>>(s, d, a.rows, a.cols, a.strides, sc);
  else
    smem_accumulate_kernel<N, false>
        <<<grid, block, 0, a.stream>>>(s, d, a.rows, a.cols, a.strides, sc);
  return cudaGetLastError();
}

}  // namespace

cudaError_t kernels::launch_smem_accumulate(const LaunchArgs& a) {
  return dispatch_num_type(a.num_type, [&](auto n) { return launch<decltype(n)::value>(a); });
}

}  // namespace tmakit
