// reg_realign: smem_realign with its transpose in registers and no input tile. smem_realign
// moves every byte through shared memory twice (realigned rows into IN, IN -> OUT in 4x4-byte
// blocks, OUT -> global) and pads each 128-row tile with 32 rows it loads only to cover output
// sector offsets: at odd 1-2 B it runs 58-79% of memcpy, issue- and MIO-bound at half
// occupancy (docs/perf-guide.md). Here a lane loads a 4-row x 16-byte
// block, realigns and transposes it in registers and writes it straight to OUT, so half the
// shared traffic and phase 2's address math go, and the tile is 256 rows with a pad of 32 / E:
//   phase 1  lane (g, k) of warp w, pass n: tile rows i0 + u, i0 = 128n + 16w + 4g, u = 0..3,
//            bytes 16k..16k+15 of each row's 128-byte segment: the aligned vectors covering
//            them (vector k; the next one loaded by the lane itself, or at 1 B above 24 MiB by
//            shuffle, lane k = 7 loading it: kOwnNext below), funnel-shifted by the row's byte
//            offset (smem_realign's phase 1, four rows per lane);
//            transposed in registers into OUT rows j = 16k/E + e (e = 0..16/E-1; input column
//            c0 + j), bytes E*i0 .. E*i0 + 4E - 1 (tile rows i0..i0+3):
//              1 B: 4x4 bytes by PRMT -> 16 STS.32; 2 B: 2x2 halves -> 8 STS.64;
//              4 B: 4 STS.128; 8 B: 2 x 2 STS.128;
//   phase 3  each output row writes its owned whole sectors with STG.128, each chunk realigned
//            by a funnel shift of two chunks read from OUT, in slots of whole quarter-warps per
//            row (fewer instructions than smem_realign's shuffles; below).
// Coordinates (RegRealignTile<E>, kernels/common/realign.hpp): pad = kPad when output rows
// are shifted (some out[c][0] not on a 32-byte sector), else 0; owned = kRows - pad. Tile
// (tile_y, tile_x) covers input columns c0 = tile_x * kCols .. + kCols - 1 and tile rows i <->
// input rows rb + i, rb = r0 - pad, r0 = tile_y * owned. Output row c0 + j owns elements
// [r0 - sh(j), r0 - sh(j) + owned) with sh(j) = (address of out[c0+j][r0] mod 32) / E (0 when
// pad = 0): OUT bytes from o0 = pad * E - sh(j) * E. An aligned call thus owns all 256 rows
// (512 rows are 2 tiles, not 3).
// Banks (4-byte words, bank = word mod 32). Phase 1 writes: one instruction of a warp writes
// OUT rows 16k/E + e for k = 0..7 (8 rows) at chunk E*i0/16 (+1 at 8 B); the swizzle XORs it
// with k (= j * E / 16), so the 8 rows land on 8 distinct chunk positions: the ideal
// wavefronts for the width. Phase 3 reads as smem_realign's: 8 consecutive chunks of one row
// per quarter-warp. tests/host/test_realign.cpp counts both.
// Measured (docs/perf-guide.md, % of memcpy against smem_realign in the same run,
// H100 | H200): odd 1 B 12345x6789 75.9 / 71.5 | 64.7 / 59.3, 6789x12345 74.1 / 71.0 | 63.9 /
// 59.0, 3001x4999 80.4 / 80.9 | 72.1 / 72.4; odd 2 B 76.6 / 79.6 | 65.9 / 63.9. The shared
// traffic was not the limit: ncu has it latency-bound on its global loads (long-scoreboard
// stalls 8.2 per issue, MIO throttle 0.02), at about the same instruction count. Batches of
// small matrices lose (the tile is 256 rows): `auto` runs it for large odd matrices at 1-2 B
// on both GPUs (host/transpose/transpose.cpp).
#include <cstdint>
#include <type_traits>
#include <kernels/common/grid.hpp>
#include <kernels/common/realign.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/realign_io.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;
using Addr = std::uintptr_t;

// 16-byte chunk x (a byte offset, multiple of 16) of OUT row j.
template <int E>
__device__ __forceinline__ void store_chunk(unsigned char* out, int j, int x, std::uint32_t a,
                                            std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  *reinterpret_cast<uint4*>(out + reg_realign_out_offset<E>(j, x)) = make_uint4(a, b, c, d);
}

// Phase 1's transpose and store: c[u][q] = word q of bytes 16k..16k+15 of tile row i0 + u.
template <int E>
__device__ __forceinline__ void transpose_to_out(const std::uint32_t (&c)[4][4], unsigned char* out,
                                                 int k, int i0) {
  constexpr int kStride = RegRealignTile<E>::kOutStride;
  if constexpr (E == 1) {
    // OUT row 16k + 4q + r, byte i0 + u = byte r of c[u][q]. All 16 rows share the swizzle
    // (f = k), so one base address and immediate offsets.
    unsigned char* base = out + reg_realign_out_offset<1>(16 * k, i0);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const std::uint32_t lo01 = __byte_perm(c[0][q], c[1][q], 0x5140u);  // 0.0 1.0 0.1 1.1
      const std::uint32_t hi01 = __byte_perm(c[0][q], c[1][q], 0x7362u);  // 0.2 1.2 0.3 1.3
      const std::uint32_t lo23 = __byte_perm(c[2][q], c[3][q], 0x5140u);
      const std::uint32_t hi23 = __byte_perm(c[2][q], c[3][q], 0x7362u);
      const std::uint32_t t[4] = {
          __byte_perm(lo01, lo23, 0x5410u), __byte_perm(lo01, lo23, 0x7632u),
          __byte_perm(hi01, hi23, 0x5410u), __byte_perm(hi01, hi23, 0x7632u)};
#pragma unroll
      for (int r = 0; r < 4; ++r)
        *reinterpret_cast<std::uint32_t*>(base + (4 * q + r) * kStride) = t[r];
    }
  } else if constexpr (E == 2) {
    // OUT row 8k + 2q + h, bytes 2*i0 .. + 7 = half h of c[0..3][q].
    unsigned char* base = out + reg_realign_out_offset<2>(8 * k, 2 * i0);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      *reinterpret_cast<uint2*>(base + (2 * q) * kStride) = make_uint2(
          __byte_perm(c[0][q], c[1][q], 0x5410u), __byte_perm(c[2][q], c[3][q], 0x5410u));
      *reinterpret_cast<uint2*>(base + (2 * q + 1) * kStride) = make_uint2(
          __byte_perm(c[0][q], c[1][q], 0x7632u), __byte_perm(c[2][q], c[3][q], 0x7632u));
    }
  } else if constexpr (E == 4) {
    // OUT row 4k + q, bytes 4*i0 .. + 15 = word q of c[0..3].
    unsigned char* base = out + reg_realign_out_offset<4>(4 * k, 4 * i0);
#pragma unroll
    for (int q = 0; q < 4; ++q)
      *reinterpret_cast<uint4*>(base + q * kStride) =
          make_uint4(c[0][q], c[1][q], c[2][q], c[3][q]);
  } else {
    // OUT row 2k + e, bytes 8*i0 .. + 31 = element e (words 2e, 2e+1) of c[0..3]: two chunks.
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      store_chunk<8>(out, 2 * k + e, 8 * i0, c[0][2 * e], c[0][2 * e + 1], c[1][2 * e],
                     c[1][2 * e + 1]);
      store_chunk<8>(out, 2 * k + e, 8 * i0 + 16, c[2][2 * e], c[2][2 * e + 1], c[3][2 * e],
                     c[3][2 * e + 1]);
    }
  }
}

// Phase 3 of one tile: OUT -> the owned output sectors of rows c0.. of matrix dst. Item n of the
// thread: OUT row j = j0 + n * kRowStep (j0 = tid / kSlots), chunk slot k = tid % kSlots of its
// owned range (the same slot for every n; idle when k >= chunks = owned * E / 16): the bytes at
// o0 + 16k .. + 15 of OUT row j, o0 = pad * E - sh(j) * E. The lane reads the aligned chunk
// holding byte o0 + 16k and the next one (only when o0 % 16 != 0: then pad = kPad, o0 <= 31 and
// k <= chunks - 1 = kRows * E / 16 - 3, so the next chunk ends by byte 16 + 16 * (chunks + 1) =
// kRows * E: inside the row) and funnel-shifts them by o0 % 16. Its global address advances by
// kRowStep * ldd * E bytes from item to item.
// A measured change (docs/perf-guide.md) cut this phase's instructions: before, the next chunk
// came from the neighbouring lane by four shuffles, each item recomputed its 64-bit address, and
// the realignment's word select was a 4-way one (realign_chunk<false>). ncu, H200, 12345x6789 1 B:
// 39.1 -> 33.0 M warp instructions, 66.1 -> 57.3 us.
template <int E, class Whole>
__device__ __forceinline__ void reg_realign_phase3(const unsigned char* out, int tid, Addr dst,
                                                   std::int64_t r0, std::int64_t c0,
                                                   std::int64_t rows, std::int64_t cols,
                                                   std::int64_t ldd, int pad, Whole whole_c) {
  using S = RegRealignTile<E>;
  constexpr int kRounds = S::kItems / kThreads, kRound = 2;
  constexpr int kRowStep = kThreads / S::kSlots;
  static_assert(S::kItems % kThreads == 0 && kRounds % kRound == 0, "whole rounds");
  static_assert(kThreads % S::kSlots == 0, "a thread keeps its chunk slot");
  const int owned = S::kRows - pad, chunks = owned * E / 16;
  const int k = tid % S::kSlots, j0 = tid / S::kSlots;
  const Addr d0 = dst + Addr(((c0 + j0) * ldd + r0) * E);  // out[c0 + j0][r0]
  const Addr d_step = Addr(kRowStep * ldd * E);
  const bool whole = whole_c;  // every chunk of the tile inside the matrix (a constant or not)
  if (k >= chunks) return;     // idle slot in every item (k is fixed); no barrier follows inside
#pragma unroll 1
  for (int n0 = 0; n0 < kRounds; n0 += kRound) {
    uint4 cv[kRound], cx[kRound];
#pragma unroll
    for (int n = 0; n < kRound; ++n) {
      const int j = j0 + kRowStep * (n0 + n);
      const Addr d = d0 + Addr(n0 + n) * d_step;
      const int m = static_cast<int>(d & 31);  // sh(j) * E
      const int o0 = pad * E - m;              // 32 - m >= 1, or 0 (aligned)
      const int xb = (o0 & ~15) + 16 * k;
      cv[n] = *reinterpret_cast<const uint4*>(out + reg_realign_out_offset<E>(j, xb));
      cx[n] = (o0 & 15) != 0
                  ? *reinterpret_cast<const uint4*>(out + reg_realign_out_offset<E>(j, xb + 16))
                  : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int n = 0; n < kRound; ++n) {
      const int j = j0 + kRowStep * (n0 + n);
      const Addr d = d0 + Addr(n0 + n) * d_step;
      const int m = static_cast<int>(d & 31);
      const std::uint32_t w[8] = {cv[n].x, cv[n].y, cv[n].z, cv[n].w,
                                  cx[n].x, cx[n].y, cx[n].z, cx[n].w};
      std::uint32_t vv[4];
      realign_chunk<true>(w, (pad * E - m) & 15, vv);
      const Addr g = d - Addr(m) + Addr(16 * k);          // 16-byte aligned
      const std::int64_t e0 = r0 - m / E + k * (16 / E);  // first element of the chunk
      store_out_chunk<E>(g, vv, whole, c0 + j, cols, e0, rows);
    }
  }
}

// Phase 1's next vector (kOwnNext): each lane loads the vector after its own (a second LDG.128
// whose lines the first one brings to L1) instead of taking it from the neighbouring lane by
// four shuffles and a select, with lane k = 7 loading it for the group. Measured
// (docs/perf-guide.md; H200, % of memcpy, mean of two rounds, shuffles -> own loads): ncu at odd
// 12345x6789 1 B 33.0 -> 24.4 M warp instructions in the same time (58.6 -> 58.4 us), L2 read
// sectors +7%, long-scoreboard stalls 4.6 -> 11.1 per issue: the large 1 B shapes wait on
// DRAM, and there own loads ran lower (12345x6789 77.7 -> 76.9, 6789x12345 76.6 -> 74.7, 9999^2
// 76.1 -> 74.5); at 1 B on 15-17 MB matrices (the L2 holds them and their output) they ran
// higher (4097x4095 88.0 -> 94.3, 3001x4999 77.7 -> 81.9, 20001x777 84.4 -> 91.5, 777x20001
// 70.4 -> 71.7); at 2 B +3.3 to +7.6 on all 8 odd shapes, at 4 B +0.6 to +4.0, at 8 B -1.3 to
// +3.1 (6 of 8 higher). Hence 1 B keeps the shuffles above 24 MiB, between the sizes measured
// (kernels::kRealignOwnNextMaxBytes1B).

// 5 blocks per SM (<= 48 registers; 32 KB of shared memory each). Measured on the H100 at odd
// 1-2 B (docs/perf-guide.md; % of memcpy against 5 blocks): 4 blocks (64
// registers) ran 0.8-5.2 points lower on five of the six large odd cells (3001x4999 2 B 2.5
// higher), 6 blocks (40 registers, spilling) 12-15 lower; both passes' loads in flight at 3
// blocks ran 1-12 points below one pass at a time at 4 blocks.
template <int E, int L2B, bool kOwnNext>
__global__ void __launch_bounds__(kThreads, 5)
    reg_realign_kernel(const unsigned char* __restrict__ src_base,
                       unsigned char* __restrict__ dst_base, std::int64_t rows, std::int64_t cols,
                       BatchStrides st, int pad) {
  using S = RegRealignTile<E>;
  constexpr int kPasses = S::kRows / (kThreads / 2);  // 16 rows per warp, 128 per pass
  extern __shared__ __align__(16) unsigned char reg_realign_smem[];
  unsigned char* out = reg_realign_smem;
  const int tid = threadIdx.x, k = tid & 7, g = (tid >> 3) & 3, w = tid >> 5;
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  const int owned = S::kRows - pad;
  const std::int64_t tiles_y = ceil_div(rows + pad, owned);
  const std::int64_t tiles_x = ceil_div(cols, S::kCols);

  for_each_tile(
      st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
        const Addr src = reinterpret_cast<Addr>(src_base) + Addr(b * st.src_batch_elems * E);
        const Addr dst = reinterpret_cast<Addr>(dst_base) + Addr(b * st.dst_batch_elems * E);
        const Addr lo = src, hi = src + Addr(((rows - 1) * lds + cols) * E);  // the matrix's span
        const std::int64_t r0 = tile_y * owned, c0 = tile_x * S::kCols, rb = r0 - pad;
        // Row i's segment starts at a(i) = src + ((rb + i) * lds + c0) * E; the lane's first
        // row in pass 0 is i = 16w + 4g.
        const Addr a0 = src + Addr(((rb + 16 * w + 4 * g) * lds + c0) * E);
        const Addr row_step = Addr(lds * E), pass_step = Addr(128 * lds * E);
        const Addr first_vec = (src + Addr((rb * lds + c0) * E)) & ~Addr(15);
        const Addr last_vec = (src + Addr(((rb + S::kRows - 1) * lds + c0) * E)) & ~Addr(15);
        // Interior: every loaded row inside the matrix, every vector inside its span.
        const bool interior =
            rb >= 0 && rb + S::kRows <= rows && first_vec >= lo && last_vec + 144 <= hi;
        // Pass n's loads (v, x, shift) and its realign, transpose and store. interior_c is
        // `interior`, as a std::integral_constant where the tile's copy is specialised.
        auto load_pass = [&](auto interior_c, int n, uint4(&v)[4], uint4(&x)[4], int(&shift)[4]) {
          const bool interior_v = interior_c;
          const int i0 = 128 * n + 16 * w + 4 * g;
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            const Addr a = a0 + n * pass_step + u * row_step, A = a & ~Addr(15);
            shift[u] = static_cast<int>(a - A);
            const std::int64_t r = rb + i0 + u;
            const bool row_ok = interior_v || (r >= 0 && r < rows);
            if (interior_v) {
              const uint4* pv = reinterpret_cast<const uint4*>(A) + k;
              v[u] = ld_nc_l2<L2B>(pv);
              if constexpr (kOwnNext)
                x[u] = ld_nc_l2<L2B>(pv + 1);
              else
                x[u] = k == 7 && shift[u] != 0 ? ld_nc_l2<L2B>(pv + 1) : make_uint4(0, 0, 0, 0);
            } else {
              v[u] = row_ok ? load_vec<E>(A + 16 * k, lo, hi) : make_uint4(0, 0, 0, 0);
              if constexpr (kOwnNext)
                x[u] = row_ok ? load_vec<E>(A + 16 * k + 16, lo, hi) : make_uint4(0, 0, 0, 0);
              else
                x[u] = row_ok && k == 7 && shift[u] != 0 ? load_vec<E>(A + 128, lo, hi)
                                                         : make_uint4(0, 0, 0, 0);
            }
          }
        };
        auto store_pass = [&](int n, const uint4(&v)[4], const uint4(&x)[4], const int(&shift)[4]) {
          std::uint32_t c[4][4];
#pragma unroll
          for (int u = 0; u < 4; ++u) {
            // Bytes 16k..16k+15 of row i0+u: from the lane's two vectors (kOwnNext), or its
            // vector and the next lane's, where lane k = 7 (the next lane holds another row)
            // uses its extra vector.
            if constexpr (kOwnNext) {
              const std::uint32_t wv[8] = {v[u].x, v[u].y, v[u].z, v[u].w,
                                           x[u].x, x[u].y, x[u].z, x[u].w};
              realign_chunk<true>(wv, shift[u], c[u]);
            } else {
              realign_with_next<true>(v[u], x[u], k == 7, shift[u], c[u]);
            }
          }
          transpose_to_out<E>(c, out, k, 128 * n + 16 * w + 4 * g);
        };
        auto phase1 = [&](auto interior_c) {
#pragma unroll 1
          for (int n = 0; n < kPasses; ++n) {
            uint4 v[4], x[4];
            int shift[4];
            load_pass(interior_c, n, v, x, shift);
            store_pass(n, v, x, shift);
          }
        };
        // Every chunk of the tile inside the matrix: its first owned element r0 - sh >= r0 - pad
        // >= 0, its last r0 - sh + owned - 1 < rows, every output row < cols.
        auto whole = [&] { return r0 >= pad && r0 + owned <= rows && c0 + S::kCols <= cols; };
        if constexpr (kOwnNext) {
          // Interior and whole tiles run copies of the phases without edge checks.
          if (interior)
            phase1(std::true_type{});
          else
            phase1(std::false_type{});
          __syncthreads();
          if (whole())
            reg_realign_phase3<E>(out, tid, dst, r0, c0, rows, cols, ldd, pad, std::true_type{});
          else
            reg_realign_phase3<E>(out, tid, dst, r0, c0, rows, cols, ldd, pad, std::false_type{});
        } else {
          // One copy, the checks at run time: at 1 B on large matrices the copies ran lower.
          phase1(interior);
          __syncthreads();
          reg_realign_phase3<E>(out, tid, dst, r0, c0, rows, cols, ldd, pad, whole());
        }
        __syncthreads();  // OUT is read before the next tile's phase 1 rewrites it
      });
}

template <int E>
cudaError_t launch_reg_realign_e(const kernels::LaunchArgs& a) {
  using S = RegRealignTile<E>;
  const BatchStrides& st = a.strides;
  const int pad = dst_rows_on_sectors<E>(a.dst, st) ? 0 : S::kPad;
  const TileGrid g =
      tile_grid(ceil_div(a.rows + pad, S::kRows - pad), ceil_div(a.cols, S::kCols), st.batch);
  // Hopper: loads with .L2::256B, 1.5-2.6 points at odd 1-2 B on both GPUs (.L2::128B gained
  // less; docs/perf-guide.md section 6).
  // Each lane loads its own next vector (kOwnNext) at 2-8 B, and at 1 B up to
  // kRealignOwnNextMaxBytes1B of matrix; else lane 7 alone loads one and the rest shuffle.
  const bool own_next = E > 1 || a.rows * a.cols * st.batch <= kernels::kRealignOwnNextMaxBytes1B;
  return with_l2_hint<256>(kernels::l2_hint_pays(a), [&](auto l2b) {
    constexpr int kL2B = decltype(l2b)::value;
    auto launch = [&](auto kernel) {
      return launch_with_smem(kernel, dim3(g.x, g.y, g.z), dim3(kThreads),
                              static_cast<std::uint32_t>(S::kSmemBytes), a.stream,
                              static_cast<const unsigned char*>(a.src),
                              static_cast<unsigned char*>(a.dst), a.rows, a.cols, st, pad);
    };
    if constexpr (E > 1)
      return launch(reg_realign_kernel<E, kL2B, true>);
    else
      return own_next ? launch(reg_realign_kernel<E, kL2B, true>)
                      : launch(reg_realign_kernel<E, kL2B, false>);
  });
}

}  // namespace

cudaError_t kernels::launch_reg_realign(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes,
                            [&](auto t) { return launch_reg_realign_e<sizeof(t)>(a); });
}

}  // namespace tmakit
