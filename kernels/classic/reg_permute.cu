// reg_permute: smem_flat without shared memory. smem_flat moves a skinny matrix or a batch of
// small ones in whole 16-byte chunks on both global sides, but it builds every destination
// chunk element by element from shared memory: at 1-2 bytes that is one LDS and one PRMT per
// element, and the gather's bank conflicts on top. Under ncu (H100, 16 x 4000000, 2 B) it ran
// at 60% issue active for 77% of DRAM peak, where cuTENSOR's tensor_permute_vec (no shared
// memory, 79 registers) reached 81% at 14% issue active (docs/perf-guide.md).
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
// loads measured slower, docs/perf-guide.md). Calls the block cannot take (a short
// side outside 2..32, lines not whole chunks, 16-byte rules broken) run smem_flat.
//
// Realigned reads (RegPlan::realign): k x N whose src lines break the 16-byte rules
// (N * E not a multiple of 16, as in 12 x 1000003 at 1 B; a misaligned src or pitch) ran
// smem_flat at 69-89% of memcpy on the H200 (probe) where the aligned k x N runs
// here at 88-101%. kWide keeps its block; only the strided loads and the lane -> block map
// change. Line x of block j starts at byte address a = src + strided + x * ld, s = a mod 16
// bytes past the aligned vector v0 = a - s; its chunk is bytes s..s+15 of {v0, v0 + 16}. Lane
// l + 1 holds block j + 1 of the same matrix and loads v0 + 16 as its own v0, so a shuffle
// brings it (realign_with_next, the realign family's). For that, a warp takes 30 blocks of one
// matrix (reg_realign_block): lanes 30 and 31, and lanes past the matrix's last block, only
// load. Every load is one unconditional LDG.128 of an aligned vector clamped into the operand's
// span [src, src + strided_span_bytes); a vector that the clamp moved (the first and last of the
// operand) is reloaded element by element after all loads are out (load_vec). (A first form
// gave lane 31 and matrix ends their own next vector through cp.async and called the edge load
// inside the load loop: the compiler then waited on each LDG before the next, and it ran at
// 43-74% of memcpy; docs/perf-guide.md.) A matrix's last block with tail_elems < V
// elements stores its dense run only up to its end (store_upto).
#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <kernels/common/reg_block.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/realign_io.cuh>

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

// Bytes 0..n-1 (n < 16) of v at a (16-byte aligned): 8, 4, 2 and 1-byte stores by the bits of n.
// Not inlined: it runs once per matrix (its last block's last chunk), and inlined at each of a
// kernel's K stores it grew the library by megabytes.
__device__ __noinline__ void store_part(unsigned char* a, const uint4& v, int n) {
  auto word = [&](int i) { return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w; };
  int o = 0;  // bytes stored so far
  if (n & 8) {
    *reinterpret_cast<uint2*>(a) = make_uint2(v.x, v.y);
    o = 8;
  }
  if (n & 4) {
    *reinterpret_cast<unsigned*>(a + o) = word(o / 4);
    o += 4;
  }
  if (n & 2) {
    *reinterpret_cast<unsigned short*>(a + o) =
        static_cast<unsigned short>(word(o / 4) >> (8 * (o % 4)));
    o += 2;
  }
  if (n & 1) a[o] = static_cast<unsigned char>(word(o / 4) >> (8 * (o % 4)));
}

// store16, or with R (a dense run that may end inside the chunk, the last block's tail) only
// the bytes before `end`.
template <bool R>
__device__ __forceinline__ void store_upto(unsigned char* a, const uint4& v,
                                           const unsigned char* end) {
  if constexpr (!R) {
    store16(a, v);
  } else {
    if (a + 16 <= end)
      store16(a, v);
    else if (a < end)
      store_part(a, v, static_cast<int>(end - a));
  }
}

// kWide's dense side in whole 32-byte sectors. Lanes 2i and 2i + 1 own blocks b_e = b & ~1 and
// b_o = b | 1 (b's parity is the lane's), whose dst runs (K chunks each) follow each
// other. One lane writing its own K chunks puts each 16-byte store alone in its sector (one
// instruction's lanes sit 16K bytes apart): measured at 45-57% of memcpy from 7 x N to 32 x N.
// Instead each store instruction has the pair write one 32-byte-aligned chunk pair, the even
// lane the first chunk, the odd lane the second, and a shuffle hands each lane the chunk of
// the other's block that it writes:
//   even K: for q = 0, 2, ..: run e chunks (q, q+1), then run o chunks (q, q+1);
//           the even lane sends its chunk q + 1, the odd lane its chunk q;
//   odd K:  run e starts a sector (b_e even, 16K * b_e a multiple of 32), run o starts 16 bytes
//           into one: for j = 0 .. (K - 3) / 2: run e chunks (2j, 2j+1), then run o chunks
//           (2j+1, 2j+2), both lanes swapping chunk 2j + 1; last, run e chunk K - 1 with run
//           chunk 0, each lane its own.
// A lane whose block is past the end still permutes (zeros) and shuffles; a store goes out
// only where the run it writes belongs to a block of the call.
// The pair: odd (the lane's parity), ae / ao (blocks b_e and b_o's offsets), e_ok / o_ok (the
// block belongs to the call). R: a matrix's last block may hold a tail (its dense run ends at
// reg_dense_bytes).
template <int K, int E, bool R>
__device__ __forceinline__ void store_wide_pairs(const uint4 (&in)[K], unsigned char* dst,
                                                 const RegPlan& p, bool odd, const RegBlockAt& ae,
                                                 const RegBlockAt& ao, bool e_ok, bool o_ok) {
  constexpr RegForm F = RegForm::kWide;
  unsigned char* const re = dst + ae.dense + 16 * odd;  // + the lane's half
  unsigned char* const ro = dst + ao.dense + 16 * odd;
  const unsigned char* end_e = nullptr;  // the runs' ends (R only)
  const unsigned char* end_o = nullptr;
  if constexpr (R) {
    end_e = dst + ae.dense + reg_dense_bytes(p, E, ae.j);
    end_o = dst + ao.dense + reg_dense_bytes(p, E, ao.j);
  }
  if constexpr (K % 2 == 0) {
#pragma unroll
    for (int q = 0; q < K; q += 2) {
      const uint4 c0 = out_chunk<F, K, E>(in, q), c1 = out_chunk<F, K, E>(in, q + 1);
      const uint4 r = shfl_xor1(pick(odd, c0, c1));  // even gets the odd's q, odd the even's q+1
      if (e_ok) store_upto<R>(re + 16 * q, pick(odd, r, c0), end_e);
      if (o_ok) store_upto<R>(ro + 16 * q, pick(odd, c1, r), end_o);
    }
  } else {
#pragma unroll
    for (int j = 0; j + 2 < K; j += 2) {  // j: the chunk pair's first chunk, 2j above
      const uint4 r = shfl_xor1(out_chunk<F, K, E>(in, j + 1));
      if (e_ok) store_upto<R>(re + 16 * j, pick(odd, r, out_chunk<F, K, E>(in, j)), end_e);
      if (o_ok)
        store_upto<R>(ro + 16 * (j + 1), pick(odd, out_chunk<F, K, E>(in, j + 2), r), end_o);
    }
    if (odd ? o_ok : e_ok)
      store_upto<R>(odd ? ro - 16 : re + 16 * (K - 1),
                    odd ? out_chunk<F, K, E>(in, 0) : out_chunk<F, K, E>(in, K - 1),
                    odd ? end_o : end_e);
  }
}

// The aligned vector at v0 where it lies partly outside [lo, hi) (load_vec's element-wise
// path; not inlined, for the size reason above: a call's first and last vectors only).
template <int E>
__device__ __noinline__ uint4 load_edge(std::uintptr_t v0, std::uintptr_t lo, std::uintptr_t hi) {
  return load_vec<E>(v0, lo, hi);
}

// The realigned loads (R, kWide): in[u][x] = the 16 bytes of line x of the lane's block u
// (at[u]: reg_realign_block's; zeros outside the operand), as described at the top of this file.
template <int K, int E, int U>
__device__ __forceinline__ void load_realigned(const unsigned char* src, const RegPlan& p,
                                               const RegBlockAt (&at)[U], uint4 (&in)[U][K]) {
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(src), hi = lo + p.strided_span_bytes;
  // The aligned vectors wholly inside [lo, hi): from first to last (the plan's >= 32 blocks
  // make the span longer than 32 bytes).
  const std::uintptr_t first = (lo + 15) & ~std::uintptr_t(15),
                       last = (hi & ~std::uintptr_t(15)) - 16;
  const std::int64_t ld = p.strided_ld_bytes;
  bool edge = false;  // some vector of the lane was clamped
#pragma unroll
  for (int u = 0; u < U; ++u) {
#pragma unroll
    for (int x = 0; x < K; ++x) {
      const std::uintptr_t v0 = (lo + at[u].strided + x * ld) & ~std::uintptr_t(15);
      const std::uintptr_t c = v0 < first ? first : v0 > last ? last : v0;
      edge |= c != v0;
      in[u][x] = __ldg(reinterpret_cast<const uint4*>(c));
    }
  }
  if (edge) {  // the operand's first or last vector: element by element
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int x = 0; x < K; ++x) {
        const std::uintptr_t v0 = (lo + at[u].strided + x * ld) & ~std::uintptr_t(15);
        if (v0 < first || v0 > last) in[u][x] = load_edge<E>(v0, lo, hi);
      }
    }
  }
#pragma unroll
  for (int u = 0; u < U; ++u) {
#pragma unroll
    for (int x = 0; x < K; ++x) {
      const int sh = static_cast<int>((lo + at[u].strided + x * ld) & 15);
      std::uint32_t w[4];
      realign_with_next(in[u][x], in[u][x], false, sh, w);
      in[u][x] = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
}

// R: realigned reads (kWide only).
template <class T, RegForm F, int K, int L2B, bool R>
__global__ void __launch_bounds__(kThreads)
    reg_permute_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                       RegPlan p) {
  constexpr int E = sizeof(T), U = reg_blocks_per_thread(K);
  constexpr bool kWide = F == RegForm::kWide;
  static_assert(kWide || !R, "realigned reads are kWide's");
  const std::int64_t ld = p.strided_ld_bytes;
  const std::int64_t b0 = std::int64_t(blockIdx.x) * U * kThreads + threadIdx.x;
  uint4 in[U][K];
  // R: the lane's block u and its pair's (reg_realign_block: warp (CTA * U + u) * 4 + warp of
  // the CTA, 30 blocks of one matrix per warp).
  const int lane = threadIdx.x % 32;
  RegBlockAt at[U], pe[U], po[U];
  bool pe_ok[U], po_ok[U];
  // Load: kWide reads its strided side (chunk x: src row x), kTall its dense run (chunk x:
  // bytes 16x.. of the V src rows).
  if constexpr (R) {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t w =
          (std::int64_t(blockIdx.x) * U + u) * (kThreads / 32) + threadIdx.x / 32;
      const RegRealignAt e = reg_realign_block(p, w, lane & ~1),
                         o = reg_realign_block(p, w, lane | 1);
      pe[u] = reg_realign_at(p, e);
      po[u] = reg_realign_at(p, o);
      pe_ok[u] = e.live;
      po_ok[u] = o.live;
      at[u] = lane & 1 ? po[u] : pe[u];
    }
    load_realigned<K, E, U>(src, p, at, in);
  } else {
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::int64_t b = b0 + std::int64_t(u) * kThreads;
      if (b >= p.blocks) {
        if constexpr (kWide)  // still permuted for the pair stores' shuffles
          for (int x = 0; x < K; ++x) in[u][x] = make_uint4(0, 0, 0, 0);
        continue;
      }
      const RegBlockAt a0 = reg_block_at(p, b);
#pragma unroll
      for (int x = 0; x < K; ++x) {
        const unsigned char* a = kWide ? src + a0.strided + x * ld : src + a0.dense + 16 * x;
        in[u][x] = ld_nc_l2<L2B>(reinterpret_cast<const uint4*>(a));
      }
    }
  }
  // Permute and store: kWide its dense run in chunk pairs, kTall its strided side (chunk q:
  // dst row q, 512 contiguous bytes per warp instruction).
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const std::int64_t b = b0 + std::int64_t(u) * kThreads;
    if constexpr (R) {
      store_wide_pairs<K, E, R>(in[u], dst, p, lane & 1, pe[u], po[u], pe_ok[u], po_ok[u]);
    } else if constexpr (kWide) {
      const std::int64_t be = b & ~std::int64_t(1), bo = b | 1;
      store_wide_pairs<K, E, R>(in[u], dst, p, b & 1, reg_block_at(p, be), reg_block_at(p, bo),
                                be < p.blocks, bo < p.blocks);
    } else {
      if (b >= p.blocks) continue;
      unsigned char* const a = dst + reg_block_at(p, b).strided;
#pragma unroll
      for (int q = 0; q < K; ++q) store16(a + q * ld, out_chunk<F, K, E>(in[u], q));
    }
  }
}

// The kernel of p.k among K..KMax (cudaErrorInvalidValue: not among them).
template <class T, RegForm F, int K, int KMax>
cudaError_t launch_k(const kernels::LaunchArgs& a, const RegPlan& p) {
  if constexpr (K > KMax) {
    return cudaErrorInvalidValue;
  } else {
    if (p.k != K) return launch_k<T, F, K + 1, KMax>(a, p);
    constexpr int U = reg_blocks_per_thread(K);
    const std::int64_t per_cta = std::int64_t(U) * kThreads;
    const dim3 grid(static_cast<unsigned>((p.blocks + per_cta - 1) / per_cta));
    // Hopper, kTall with k >= 7: loads with .L2::256B (6-9 points on both GPUs); N x 2, N x 4
    // and kWide (k x N) lost a little with it and keep the plain load (docs/perf-guide.md section
    // 6).
    const auto* src = static_cast<const unsigned char*>(a.src);
    auto* dst = static_cast<unsigned char*>(a.dst);
    if constexpr (F == RegForm::kWide && sizeof(T) == 1) {  // the plan realigns at 1 B only
      if (p.realign) {  // one warp per 30 blocks (reg_realign_block)
        const std::int64_t per_cta_warps = std::int64_t(U) * (kThreads / 32);
        const dim3 rgrid(
            static_cast<unsigned>((p.realign_warps + per_cta_warps - 1) / per_cta_warps));
        reg_permute_kernel<T, F, K, 0, true><<<rgrid, kThreads, 0, a.stream>>>(src, dst, p);
        return cudaGetLastError();
      }
    }
    const bool hint = F == RegForm::kTall && K >= 7 && kernels::l2_hint_pays(a);
    return with_l2_hint<256>(hint, [&](auto l2b) {
      reg_permute_kernel<T, F, K, decltype(l2b)::value, false>
          <<<grid, kThreads, 0, a.stream>>>(src, dst, p);
      return cudaGetLastError();
    });
  }
}

}  // namespace

// The kernels in parts, one per (element size, form, range of K): all of them in one translation
// unit made this file the build's critical path (one nvcc run several times longer than any
// other). CMake compiles the file once per part with TMAKIT_REG_PERMUTE_PART set
// (CMakeLists.txt), so a parallel build takes them side by side; part 0 also holds the launcher.
// Without TMAKIT_REG_PERMUTE_PART this one file holds every part.
namespace reg_permute_parts {

// Part n: element size kSizes[n / 6], form kWide or kTall (n / 3 % 2), K in kRanges[n % 3].
inline constexpr int kParts = 24;
inline constexpr int kRangeLo[3] = {kRegMinK, 11, 20}, kRangeHi[3] = {10, 19, kRegMaxK};
template <int N>
using PartType = std::conditional_t<
    N / 6 == 0, std::uint8_t,
    std::conditional_t<N / 6 == 1, std::uint16_t,
                       std::conditional_t<N / 6 == 2, std::uint32_t, std::uint64_t>>>;
template <int N>
inline constexpr RegForm kPartForm = N / 3 % 2 == 0 ? RegForm::kWide : RegForm::kTall;

template <int N>
cudaError_t launch_part(const kernels::LaunchArgs& a, const RegPlan& p) {
  return launch_k<PartType<N>, kPartForm<N>, kRangeLo[N % 3], kRangeHi[N % 3]>(a, p);
}

#ifdef TMAKIT_REG_PERMUTE_PART
// This compile instantiates its own part only; the others come from their own objects.
template cudaError_t launch_part<TMAKIT_REG_PERMUTE_PART>(const kernels::LaunchArgs&,
                                                          const RegPlan&);
#define TMAKIT_REG_PERMUTE_EXTERN(N) \
  extern template cudaError_t launch_part<N>(const kernels::LaunchArgs&, const RegPlan&);
#else
#define TMAKIT_REG_PERMUTE_EXTERN(N)
#endif

}  // namespace reg_permute_parts

#if !defined(TMAKIT_REG_PERMUTE_PART) || TMAKIT_REG_PERMUTE_PART == 0
namespace reg_permute_parts {
TMAKIT_REG_PERMUTE_EXTERN(1)
TMAKIT_REG_PERMUTE_EXTERN(2)
TMAKIT_REG_PERMUTE_EXTERN(3)
TMAKIT_REG_PERMUTE_EXTERN(4)
TMAKIT_REG_PERMUTE_EXTERN(5)
TMAKIT_REG_PERMUTE_EXTERN(6)
TMAKIT_REG_PERMUTE_EXTERN(7)
TMAKIT_REG_PERMUTE_EXTERN(8)
TMAKIT_REG_PERMUTE_EXTERN(9)
TMAKIT_REG_PERMUTE_EXTERN(10)
TMAKIT_REG_PERMUTE_EXTERN(11)
TMAKIT_REG_PERMUTE_EXTERN(12)
TMAKIT_REG_PERMUTE_EXTERN(13)
TMAKIT_REG_PERMUTE_EXTERN(14)
TMAKIT_REG_PERMUTE_EXTERN(15)
TMAKIT_REG_PERMUTE_EXTERN(16)
TMAKIT_REG_PERMUTE_EXTERN(17)
TMAKIT_REG_PERMUTE_EXTERN(18)
TMAKIT_REG_PERMUTE_EXTERN(19)
TMAKIT_REG_PERMUTE_EXTERN(20)
TMAKIT_REG_PERMUTE_EXTERN(21)
TMAKIT_REG_PERMUTE_EXTERN(22)
TMAKIT_REG_PERMUTE_EXTERN(23)

template <int... N>
constexpr auto part_table(std::integer_sequence<int, N...>) {
  using Part = cudaError_t (*)(const kernels::LaunchArgs&, const RegPlan&);
  return std::array<Part, sizeof...(N)>{&launch_part<N>...};
}
}  // namespace reg_permute_parts

cudaError_t kernels::launch_reg_permute(const LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  const RegPlan p =
      reg_plan(a.rows, a.cols, a.elem_bytes, st.batch, st.src_ld_elems, st.dst_ld_elems,
               st.src_batch_elems, st.dst_batch_elems, reinterpret_cast<std::uintptr_t>(a.src),
               reinterpret_cast<std::uintptr_t>(a.dst));
  if (p.form == RegForm::kNone || p.blocks == 0) return launch_smem_flat(a);
  if (p.blocks > std::int64_t(0x7fffffff) * kThreads) return launch_smem_flat(a);
  using namespace reg_permute_parts;
  static constexpr auto kTable = part_table(std::make_integer_sequence<int, kParts>{});
  const int size = a.elem_bytes == 1   ? 0
                   : a.elem_bytes == 2 ? 1
                   : a.elem_bytes == 4 ? 2
                   : a.elem_bytes == 8 ? 3
                                       : -1;
  const int range = p.k <= kRangeHi[0] ? 0 : p.k <= kRangeHi[1] ? 1 : 2;
  if (size < 0 || p.k < kRegMinK || p.k > kRegMaxK) return cudaErrorInvalidValue;
  return kTable[6 * size + 3 * (p.form == RegForm::kTall ? 1 : 0) + range](a, p);
}
#endif
#undef TMAKIT_REG_PERMUTE_EXTERN

}  // namespace tmakit
