// reg_realign's tile work after the loads, shared by reg_realign (kernels/classic/, registers
// from global loads) and async_realign (kernels/async/, the same registers read from a cp.async
// staging ring): phase 1's in-register transpose of a lane's 4-row x 16-byte block into OUT, and
// phase 3, OUT -> the owned whole sectors of the output rows. The coordinates and bank analysis
// are in kernels/classic/reg_realign.cu; RegRealignTile (kernels/common/realign.hpp) holds the
// tile's shape.
#pragma once
#include <cstdint>
#include <kernels/common/realign.hpp>
#include <kernels/primitives/realign_io.cuh>

namespace tmakit::rr {

constexpr int kThreads = 256;  // 8 warps: 2 passes of 8 x 16 rows make the 256-row tile
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

// Phase 3 of one tile: OUT -> the owned output sectors of rows c0.. of matrix dst.
template <int E>
__device__ __forceinline__ void reg_realign_phase3(const unsigned char* out, int tid, Addr dst,
                                                   std::int64_t r0, std::int64_t c0,
                                                   std::int64_t rows, std::int64_t cols,
                                                   std::int64_t ldd, int pad) {
  using S = RegRealignTile<E>;
  // Item it = tid + 256n: OUT row j = it / kSlots, chunk k = it % kSlots of its owned range
  // (idle when k >= chunks = owned * E / 16), the bytes at o0 + 16k .. + 15 of OUT row j, o0 =
  // pad * E - sh(j) * E. The lane reads the aligned chunk holding byte o0 + 16k, takes the next one
  // from its neighbour (the row's last chunk and the warp's last lane read it), funnel-shifts by o0
  // % 16.
  constexpr int kRounds = S::kItems / kThreads, kRound = 2;
  static_assert(S::kItems % kThreads == 0 && kRounds % kRound == 0, "whole rounds");
  static_assert(kThreads % S::kSlots == 0 || S::kSlots % kThreads == 0, "rows step by items");
  const int lane = tid & 31;
  const int owned = S::kRows - pad, chunks = owned * E / 16;
  // Every chunk of the tile inside the matrix: its first owned element r0 - sh >= r0 - pad >=
  // 0, its last r0 - sh + owned - 1 < rows, every output row < cols.
  const bool whole = r0 >= pad && r0 + owned <= rows && c0 + S::kCols <= cols;
#pragma unroll 1
  for (int n0 = 0; n0 < kRounds; n0 += kRound) {
    uint4 cv[kRound], cx[kRound];
    Addr d[kRound];
    int k[kRound], j[kRound];
#pragma unroll
    for (int n = 0; n < kRound; ++n) {
      const int it = tid + kThreads * (n0 + n);
      j[n] = it / S::kSlots;
      k[n] = it % S::kSlots;
      d[n] = dst + Addr(((c0 + j[n]) * ldd + r0) * E);  // out[c0 + j][r0]
      const int m = static_cast<int>(d[n] & 31);        // sh(j) * E
      const int o0 = pad * E - m;                       // 32 - m >= 1, or 0 (aligned)
      const int xb = (o0 & ~15) + 16 * k[n];
      const bool active = k[n] < chunks;
      const bool last = k[n] == chunks - 1 || lane == 31;
      cv[n] = active ? *reinterpret_cast<const uint4*>(out + reg_realign_out_offset<E>(j[n], xb))
                     : make_uint4(0, 0, 0, 0);
      cx[n] = active && last && (o0 & 15) != 0
                  ? *reinterpret_cast<const uint4*>(out + reg_realign_out_offset<E>(j[n], xb + 16))
                  : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int n = 0; n < kRound; ++n) {
      const int m = static_cast<int>(d[n] & 31);
      std::uint32_t vv[4];
      realign_with_next(cv[n], cx[n], k[n] == chunks - 1 || lane == 31, (pad * E - m) & 15, vv);
      if (k[n] >= chunks) continue;
      const Addr g = d[n] - Addr(m) + Addr(16 * k[n]);       // 16-byte aligned
      const std::int64_t e0 = r0 - m / E + k[n] * (16 / E);  // first element of the chunk
      store_out_chunk<E>(g, vv, whole, c0 + j[n], cols, e0, rows);
    }
  }
}

}  // namespace tmakit::rr
