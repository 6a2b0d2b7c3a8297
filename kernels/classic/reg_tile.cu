// reg_tile: reg_permute's registers for batches of small square-ish matrices, with a block
// small enough that every SM is full. reg_permute keeps a short side (up to 32) whole in one
// thread: on a batch of 32 x 32 matrices at 1 B that is 32 chunks (188 registers) and only two
// threads per matrix, so 16384 matrices ran on 32768 threads at 11% warps active and 76-84% of
// memcpy, and at 2 B lost to cuTENSOR (0.91-0.96; docs/perf-guide.md and 16).
// Here a thread transposes one square block of B x B elements whose rows are one aligned
// W-byte access each (kernels/common/reg_tile.hpp: 8 x 8 bytes at 1 B with 8-byte accesses,
// 8 x 8 / 4 x 4 / 2 x 2 elements with 16-byte ones at 2 / 4 / 8 B):
//   load:      B rows of the block, one LDG.64 / LDG.128 each;
//   transpose: in registers (1 B: three PRMT per output word; 2 B: one; 4-8 B: moves);
//   store:     B rows of the transposed block, one STG each.
// No shared memory, no barrier, about 30 registers: a 32 x 32 1-byte matrix is 16 threads.
// The block order (bands of 32 / W block rows walked column by column) makes each warp read
// runs of src rows and write whole 32-byte sectors of dst rows. Calls the blocks cannot take
// (a side not a multiple of B, an unaligned base, pitch or batch stride) run smem_flat.
#include <cstdint>
#include <type_traits>
#include <kernels/common/reg_tile.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;

// One block row: W bytes in registers.
template <int E>
using RowOf = typename std::conditional<E == 1, uint2, uint4>::type;

template <int E>
__device__ __forceinline__ void transpose_block(const RowOf<E> (&x)[reg_tile_side(E)],
                                                RowOf<E> (&y)[reg_tile_side(E)]) {
  constexpr int B = reg_tile_side(E);
  if constexpr (E == 1) {
    Row8 a[8], b[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) a[i] = {x[i].x, x[i].y};
    transpose_8x8_bytes(a, b);
#pragma unroll
    for (int j = 0; j < 8; ++j) y[j] = make_uint2(b[j].lo, b[j].hi);
  } else {
    Chunk16 a[B], b[B];
#pragma unroll
    for (int i = 0; i < B; ++i) a[i] = {{x[i].x, x[i].y, x[i].z, x[i].w}};
    transpose_chunks<E>(a, b);
#pragma unroll
    for (int j = 0; j < B; ++j) y[j] = make_uint4(b[j].w[0], b[j].w[1], b[j].w[2], b[j].w[3]);
  }
}

// Thread t of the grid takes blocks n = t, t + threads, ... (one in all but huge calls).
// Batches: a batch of several dimensions (a permutation's tile form), matrix m found through
// BatchStrides::offsets_of; a kernel of its own, so the one-dimension batch keeps its registers.
template <int E, int L2B, bool Batches>
__global__ void __launch_bounds__(kThreads)
    reg_tile_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                    RegTilePlan p, BatchStrides st) {
  constexpr int B = reg_tile_side(E), W = reg_tile_access_bytes(E);
  constexpr std::uint32_t H = reg_tile_band(E);
  using Row = RowOf<E>;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * kThreads;
  for (std::uint64_t n = std::uint64_t(blockIdx.x) * kThreads + threadIdx.x; n < p.blocks;
       n += stride) {
    const RegTileAt at = reg_tile_at(p, n, H);
    // Matrix m's first element in bytes: m times the batch stride, or (Batches) the sum over
    // its coordinates (b0, b1, b2) of coordinate times stride.
    std::int64_t sm = std::int64_t(at.m) * p.src_bs_bytes, dm = std::int64_t(at.m) * p.dst_bs_bytes;
    if constexpr (Batches) {
      st.offsets_of<true>(static_cast<std::int64_t>(at.m), &sm, &dm);
      sm *= E;
      dm *= E;
    }
    // Block (bi, bj) of matrix m: src rows bi B + i at bytes bj W; dst rows bj B + j at bi W.
    const unsigned char* s =
        src + sm + std::int64_t(at.bi) * B * p.src_ld_bytes + std::int64_t(at.bj) * W;
    unsigned char* d =
        dst + dm + std::int64_t(at.bj) * B * p.dst_ld_bytes + std::int64_t(at.bi) * W;
    Row x[B], y[B];
#pragma unroll
    for (int i = 0; i < B; ++i)
      x[i] = ld_nc_l2<L2B>(reinterpret_cast<const Row*>(s + i * p.src_ld_bytes));
    transpose_block<E>(x, y);
#pragma unroll
    for (int j = 0; j < B; ++j) *reinterpret_cast<Row*>(d + j * p.dst_ld_bytes) = y[j];
  }
}

}  // namespace

cudaError_t kernels::launch_reg_tile(const LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  const RegTilePlan p = reg_tile_plan(a.rows, a.cols, a.elem_bytes, st,
                                      reinterpret_cast<std::uintptr_t>(a.src),
                                      reinterpret_cast<std::uintptr_t>(a.dst));
  // A batch of several dimensions the blocks cannot take runs smem_xor, which walks any such
  // batch (smem_flat takes one dimension).
  if (!p.ok) return st.has_batch_dims() ? launch_smem_xor(a) : launch_smem_flat(a);
  const std::uint64_t ctas = (p.blocks + kThreads - 1) / kThreads;
  const dim3 grid(static_cast<unsigned>(ctas < 0x7fffffffu ? ctas : 0x7fffffffu));
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    // Hopper, 1-2 B: loads with .L2::128B, which fetches the rest of a short source row's line
    // ahead; at 4-8 B it did not pay, and source rows of 64 bytes or of under 32 lost with it on
    // both GPUs (measured at 64 x 64 and 8 x 8, not a model; docs/perf-guide.md section 6).
    const bool rows_pay = p.src_ld_bytes >= 32 && p.src_ld_bytes != 64;
    const bool hint = sizeof(t) <= 2 && rows_pay && kernels::l2_hint_pays(a);
    return with_l2_hint<128>(hint, [&](auto l2b) {
      auto go = [&](auto batches) {
        reg_tile_kernel<sizeof(t), decltype(l2b)::value, decltype(batches)::value>
            <<<grid, kThreads, 0, a.stream>>>(static_cast<const unsigned char*>(a.src),
                                              static_cast<unsigned char*>(a.dst), p, st);
        return cudaGetLastError();
      };
      return st.has_batch_dims() ? go(std::true_type{}) : go(std::false_type{});
    });
  });
}

}  // namespace tmakit
