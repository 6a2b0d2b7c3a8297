// reg_permute: smem_flat without shared memory. smem_flat moves a skinny matrix or a batch of
// small ones in whole 16-byte chunks on both global sides, but it builds every destination
// chunk element by element from shared memory: at 1-2 bytes that is one LDS and one PRMT per
// element, and the gather's bank conflicts on top. Under ncu (H100, 16 x 4000000, 2 B) it ran
// at 60% issue active for 77% of DRAM peak, where cuTENSOR's tensor_permute_vec (no shared
// memory, 79 registers) reached 81% at 14% issue active (docs/perf-notes.md, session 11).
//
// Here a thread owns a block of K x V elements (K: the short side, 2..32, whole; V = 16 / E
// columns of the long side), which is K 16-byte chunks on each global side
// (kernels/common/reg_block.hpp):
//   load:    K chunks, each one LDG.128;
//   permute: in registers, every output word from the input words by compile-time indices
//            (K is a template parameter): a move at 4-8 B, one PRMT per word at 2 B, three at 1 B;
//   store:   K chunks, each one STG.128.
// Consecutive lanes own consecutive blocks, so the strided side (one line per chunk) reads or
// writes 32 x 16 = 512 contiguous bytes of a line per instruction, and the dense side's 16K bytes
// per lane follow each other. kWide writes its dense side in whole 32-byte sectors, a lane pair
// per sector (store_wide_pairs); kTall reads its dense side lane by lane (the pair form of the
// loads measured slower, docs/perf-notes.md session 12). Calls the block cannot take (a short
// side outside 2..32, lines not whole chunks, 16-byte rules broken) run smem_flat.
#include <cstdint>
#include <kernels/common/reg_block.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 128;

__device__ __forceinline__ unsigned word_of(const uint4& c, int i) {
  return i == 0 ? c.x : i == 1 ? c.y : i == 2 ? c.z : c.w;
}

// Word i (0 .. 4K - 1) of a thread's K input chunks; i is a constant once the loops unroll.
template <int K>
__device__ __forceinline__ unsigned in_word(const uint4 (&in)[K], int i) {
  return word_of(in[i / 4], i % 4);
}
template <int K>
__device__ __forceinline__ unsigned src_word(const uint4 (&in)[K], RegByte s) {
  return in_word(in, s.chunk * 4 + s.byte / 4);
}

// Output chunk q of the block, word by word from reg_src_byte. __byte_perm(x, y, sel): byte n
// of the result is byte sel_n of {y:x} (y's bytes numbered 4-7).
template <RegForm F, int K, int E>
__device__ __forceinline__ uint4 out_chunk(const uint4 (&in)[K], int q) {
  unsigned w[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) {
    if constexpr (E >= 4) {
      w[t] = src_word(in, reg_src_byte(F, K, E, q, 4 * t));
    } else if constexpr (E == 2) {
      const RegByte a = reg_src_byte(F, K, E, q, 4 * t), b = reg_src_byte(F, K, E, q, 4 * t + 2);
      const unsigned ab = a.byte % 4, bb = b.byte % 4 + 4;
      w[t] = __byte_perm(src_word(in, a), src_word(in, b),
                         ab | (ab + 1) << 4 | bb << 8 | (bb + 1) << 12);
    } else {
      RegByte s[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) s[i] = reg_src_byte(F, K, E, q, 4 * t + i);
      const unsigned lo = __byte_perm(src_word(in, s[0]), src_word(in, s[1]),
                                      s[0].byte % 4 | (s[1].byte % 4 + 4) << 4);
      const unsigned hi = __byte_perm(src_word(in, s[2]), src_word(in, s[3]),
                                      s[2].byte % 4 | (s[3].byte % 4 + 4) << 4);
      w[t] = __byte_perm(lo, hi, 0x5410);
    }
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

__device__ __forceinline__ uint4 shfl_xor1(const uint4& v) {
  return make_uint4(__shfl_xor_sync(0xffffffffu, v.x, 1), __shfl_xor_sync(0xffffffffu, v.y, 1),
                    __shfl_xor_sync(0xffffffffu, v.z, 1), __shfl_xor_sync(0xffffffffu, v.w, 1));
}
__device__ __forceinline__ uint4 pick(bool first, const uint4& a, const uint4& b) {
  return first ? a : b;
}
__device__ __forceinline__ void store16(unsigned char* a, const uint4& v) {
  *reinterpret_cast<uint4*>(a) = v;
}

// kWide's dense side in whole 32-byte sectors. Lanes 2i and 2i + 1 own blocks b_e = b & ~1 and
// b_o = b | 1 (b's parity is the lane's), whose dst runs e and o (K chunks each) follow each
// other. One lane writing its own K chunks puts each 16-byte store alone in its sector (one
// instruction's lanes sit 16K bytes apart): measured at 45-57% of memcpy from 7 x N to 32 x N.
// Instead each store instruction has the pair write one 32-byte-aligned chunk pair, the even
// lane the first chunk, the odd lane the second, and a shuffle hands each lane the chunk of
// the other's block that it writes:
//   even K: for q = 0, 2, ..: run e chunks (q, q+1), then run o chunks (q, q+1);
//           the even lane sends its chunk q + 1, the odd lane its chunk q;
//   odd K:  run e starts a sector (b_e even, 16K * b_e a multiple of 32), run o starts 16 bytes
//           into one: for j = 0 .. (K - 3) / 2: run e chunks (2j, 2j+1), then run o chunks
//           (2j+1, 2j+2), both lanes swapping chunk 2j + 1; last, run e chunk K - 1 with run o
//           chunk 0, each lane its own.
// A lane whose block is past the end still permutes (zeros) and shuffles; a store goes out
// only where the run it writes belongs to a block of the call.
template <int K, int E>
__device__ __forceinline__ void store_wide_pairs(const uint4 (&in)[K], unsigned char* dst,
                                                 const RegPlan& p, std::int64_t b) {
  constexpr RegForm F = RegForm::kWide;
  const bool odd = b & 1;
  const std::int64_t be = b & ~std::int64_t(1), bo = b | 1;
  const bool e_ok = be < p.blocks, o_ok = bo < p.blocks;
  unsigned char* const re = dst + reg_block_at(p, be).dense + 16 * odd;  // + the lane's half
  unsigned char* const ro = dst + reg_block_at(p, bo).dense + 16 * odd;
  if constexpr (K % 2 == 0) {
#pragma unroll
    for (int q = 0; q < K; q += 2) {
      const uint4 c0 = out_chunk<F, K, E>(in, q), c1 = out_chunk<F, K, E>(in, q + 1);
      const uint4 r = shfl_xor1(pick(odd, c0, c1));  // even gets the odd's q, odd the even's q+1
      if (e_ok) store16(re + 16 * q, pick(odd, r, c0));
      if (o_ok) store16(ro + 16 * q, pick(odd, c1, r));
    }
  } else {
#pragma unroll
    for (int j = 0; j + 2 < K; j += 2) {  // j: the chunk pair's first chunk, 2j above
      const uint4 r = shfl_xor1(out_chunk<F, K, E>(in, j + 1));
      if (e_ok) store16(re + 16 * j, pick(odd, r, out_chunk<F, K, E>(in, j)));
      if (o_ok) store16(ro + 16 * (j + 1), pick(odd, out_chunk<F, K, E>(in, j + 2), r));
    }
    if (odd ? o_ok : e_ok)
      store16(odd ? ro - 16 : re + 16 * (K - 1),
              odd ? out_chunk<F, K, E>(in, 0) : out_chunk<F, K, E>(in, K - 1));
  }
}

// One thread: U blocks (reg_blocks_per_thread), b = (CTA * U + u) * kThreads + thread, so the
// lanes of a warp own consecutive blocks.
template <class T, RegForm F, int K, int L2B>
__global__ void __launch_bounds__(kThreads)
    reg_permute_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                       RegPlan p) {
  constexpr int E = sizeof(T), U = reg_blocks_per_thread(K);
  constexpr bool kWide = F == RegForm::kWide;
  const std::int64_t ld = p.strided_ld_bytes;
  const std::int64_t b0 = std::int64_t(blockIdx.x) * U * kThreads + threadIdx.x;
  uint4 in[U][K];
  // Load: kWide reads its strided side (chunk x: src row x), kTall its dense run (chunk x:
  // bytes 16x.. of the V src rows).
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::int64_t b = b0 + std::int64_t(u) * kThreads;
    if (b >= p.blocks) {
      if constexpr (kWide)  // still permuted for the pair stores' shuffles
        for (int x = 0; x < K; ++x) in[u][x] = make_uint4(0, 0, 0, 0);
      continue;
    }
    const RegBlockAt at = reg_block_at(p, b);
#pragma unroll
    for (int x = 0; x < K; ++x) {
      const unsigned char* a = kWide ? src + at.strided + x * ld : src + at.dense + 16 * x;
      in[u][x] = ld_nc_l2<L2B>(reinterpret_cast<const uint4*>(a));
    }
  }
  // Permute and store: kWide its dense run in chunk pairs, kTall its strided side (chunk q:
  // dst row q, 512 contiguous bytes per warp instruction).
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::int64_t b = b0 + std::int64_t(u) * kThreads;
    if constexpr (kWide) {
      store_wide_pairs<K, E>(in[u], dst, p, b);
    } else {
      if (b >= p.blocks) continue;
      unsigned char* const a = dst + reg_block_at(p, b).strided;
#pragma unroll
      for (int q = 0; q < K; ++q) store16(a + q * ld, out_chunk<F, K, E>(in[u], q));
    }
  }
}

template <class T, RegForm F, int K = kRegMinK>
cudaError_t launch_k(const kernels::LaunchArgs& a, const RegPlan& p) {
  if constexpr (K > kRegMaxK) {
    return cudaErrorInvalidValue;
  } else {
    if (p.k != K) return launch_k<T, F, K + 1>(a, p);
    constexpr int U = reg_blocks_per_thread(K);
    const std::int64_t per_cta = std::int64_t(U) * kThreads;
    const dim3 grid(static_cast<unsigned>((p.blocks + per_cta - 1) / per_cta));
    // Hopper, kTall with k >= 7: loads with .L2::256B (% of memcpy, two runs each). H200
    // (session 26): 4000000x16 1 / 2 / 4 / 8 B 84.5 / 82.9 / 80.8 / 81.5 -> +7.3 / +7.0 / +7.9 /
    // +8.1, 4000000x32 +7.1 to +7.5, 4000000x7 +1.0 to +5.0; 4000000x2 / x4 and kWide (k x N)
    // -0.3 to -3.1, so they keep the plain load. H100 (session 27): 4000000x16 89.7 / 88.9 /
    // 88.9 / 88.9 -> +9.4 / +7.4 / +6.6 / +6.6, 4000000x32 +7.5 to +8.3, 4000000x7 +1.8 to +4.2,
    // 2097152x9 +3.3 to +5.0 (probe, one run each).
    const bool hint = F == RegForm::kTall && K >= 7 && kernels::l2_hint_pays(a);
    return with_l2_hint<256>(hint, [&](auto l2b) {
      reg_permute_kernel<T, F, K, decltype(l2b)::value><<<grid, kThreads, 0, a.stream>>>(
          static_cast<const unsigned char*>(a.src), static_cast<unsigned char*>(a.dst), p);
      return cudaGetLastError();
    });
  }
}

template <class T>
cudaError_t launch_reg(const kernels::LaunchArgs& a, const RegPlan& p) {
  return p.form == RegForm::kWide ? launch_k<T, RegForm::kWide>(a, p)
                                  : launch_k<T, RegForm::kTall>(a, p);
}

}  // namespace

cudaError_t kernels::launch_reg_permute(const LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  const RegPlan p =
      reg_plan(a.rows, a.cols, a.elem_bytes, st.batch, st.src_ld_elems, st.dst_ld_elems,
               st.src_batch_elems, st.dst_batch_elems, reinterpret_cast<std::uintptr_t>(a.src),
               reinterpret_cast<std::uintptr_t>(a.dst));
  if (p.form == RegForm::kNone || p.blocks == 0) return launch_smem_flat(a);
  if (p.blocks > std::int64_t(0x7fffffff) * kThreads) return launch_smem_flat(a);
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) { return launch_reg<decltype(t)>(a, p); });
}

}  // namespace tmakit
