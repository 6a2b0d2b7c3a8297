// tma_reduce: transpose-accumulate with beta = 1, dst += alpha * src^T, where the TMA store
// does the accumulation. It is tma_load_store (TMA load into a 128B-swizzled tile, 16-byte
// in-shared transpose, proxy fence) whose store is cp.reduce.async.bulk.tensor .add: the TMA
// unit reads dst, adds the tile and writes it back, so the SMs never load dst at all (the
// LDG/STG path, smem_accumulate, reads every dst element into registers first). The add is in
// the dst map's data type (f16, bf16, f32, s32: the .add types TMA reduces), so alpha * src
// is rounded to the type in shared memory first and the add rounds again: for alpha = 1 the
// result is dst + src rounded once, as smem_accumulate computes it; otherwise the two may
// differ in the last bit (no difference when the arithmetic is exact). Not for f64 (no .add
// for 64-bit floats) or beta != 1: those fall back to smem_accumulate with the reason.
//
// Coordinates: tile (row0, col0) of matrix z, T x T (T = 128 / E); loaded as T lines of
// 128 bytes, transposed so line c holds input column col0 + c; reduced into dst at
// (x = row0, y = col0, z), clipped at dst's edges like a store.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/num.cuh>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr std::uint32_t kThreads = 64;
constexpr int kMode = kSwizzle128B;

template <int E>
constexpr std::uint32_t kSide = 128 / E;

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + 2 * tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

// Element k of a 16-byte chunk scaled by alpha, in N's arithmetic.
template <NumType N>
__device__ __forceinline__ void scale_chunk(Chunk16& c, typename Num<N>::Scalar alpha) {
  using Bits = typename Num<N>::Bits;
  Bits* e = reinterpret_cast<Bits*>(&c);
#pragma unroll
  for (int k = 0; k < int(16 / sizeof(Bits)); ++k) e[k] = num_scale<N>(e[k], alpha);
}

template <NumType N, bool Scale>
__global__ void __launch_bounds__(kThreads)
    tma_reduce_kernel(const __grid_constant__ CUtensorMap src_map,
                      const __grid_constant__ CUtensorMap dst_map, std::int64_t rows,
                      std::int64_t cols, std::int64_t batch, typename Num<N>::Scalar alpha) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr int E = num_type_bytes(N);
  constexpr int V = tma::kChunkElems<E>;
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  extern __shared__ unsigned char tma_reduce_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_reduce_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, &dst_map);

  std::uint32_t phase = 0;
  for_each_tile(batch, ceil_div(rows, T), ceil_div(cols, T),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const auto row0 = static_cast<std::int32_t>(ty * T),
                             col0 = static_cast<std::int32_t>(tx * T);
                  const auto z = static_cast<std::int32_t>(b);
                  if (tid == 0) {
                    full.arrive_expect_tx(kBytes);
                    tma::load_tile<E, kMode, T, T>(in, &src_map, row0, col0, z, full.handle());
                  }
                  full.wait({0, phase++, kBytes});
                  // transpose_tile (tma_tile.cuh) with the scale between the two halves: one
                  // V x V block per thread (64 threads, one 128-byte strip).
                  const tma::BlockCoords<E, T> at(tid);
                  Chunk16 x[V], y[V];
                  tma::load_chunks<E, kMode, T>(in, at.r0, at.c0 * E, x);
                  transpose_chunks<E>(x, y);
                  if constexpr (Scale) {
#pragma unroll
                    for (int j = 0; j < V; ++j) scale_chunk<N>(y[j], alpha);
                  }
                  tma::store_chunks<E, kMode, T>(out, at.c0, at.r0 * E, y);
                  // dst tile at (x = row0, y = col0): T lines of T elements, added at the L2
                  tma::store_out_tile(tid == 0,
                                      [&] { tma::reduce_add_3d(&dst_map, row0, col0, z, out); });
                });
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

// The dst map's data type: what the reduce adds in.
int reduce_data_type(NumType n) {
  switch (n) {
    case NumType::kF16:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case NumType::kBF16:
      return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case NumType::kF32:
      return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    case NumType::kI32:
      return CU_TENSOR_MAP_DATA_TYPE_INT32;
    default:
      return -1;
  }
}

template <NumType N>
cudaError_t launch(const kernels::LaunchArgs& a) {
  constexpr int E = num_type_bytes(N);
  const Scalars<N> sc = Scalars<N>::make(a.alpha, a.beta);
  auto* kernel = a.alpha == 1.0 ? tma_reduce_kernel<N, false> : tma_reduce_kernel<N, true>;
  return launch_on_tiles(kernel, smem_bytes<E>(), a.strides.batch, ceil_div(a.rows, kSide<E>),
                         ceil_div(a.cols, kSide<E>), kThreads, a.stream, *a.src_map, *a.dst_map,
                         a.rows, a.cols, a.strides.batch, sc.alpha);
}

}  // namespace

// The host checks the rest (beta == 1, a type TMA adds in) before it plans.
kernels::TmaPlan kernels::plan_tma_reduce(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = kMode;
  p.src = tile_map_plan(128 / a.elem_bytes, kMode, a.elem_bytes);
  p.dst = p.src;
  p.dst.data_type = reduce_data_type(a.num_type);
  return p;
}

cudaError_t kernels::launch_tma_reduce(const LaunchArgs& a) {
  return dispatch_num_type(a.num_type, [&](auto n) {
    constexpr NumType N = decltype(n)::value;
    if constexpr (N == NumType::kF64)
      return cudaErrorInvalidValue;  // no TMA .add for f64: the host falls back before this
    else
      return launch<N>(a);
  });
}

}  // namespace tmakit
