// Transposing a V x V block of elements held as V 16-byte chunks in registers (V = 16 /
// elem_bytes): chunk i is row i of the block, and afterwards chunk j is column j. This is what
// lets a transpose use 16-byte accesses on BOTH sides of shared memory: a thread loads V row
// chunks, permutes them here, and stores V column chunks.
//   16-byte elements: 1x1, nothing to do.   8-byte elements: 2x2, word moves only.     4-byte: 4x4
//   words, moves only. 2-byte: 8x8 halves, one PRMT per output word.   1-byte: 16x16 bytes as 4x4
//   blocks of 4x4 bytes, 8 PRMT per block (two stages: interleave pairs, then pairs of pairs).
// Host and device (host: a byte-permute emulation), so host tests check it exhaustively.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

struct alignas(16) Chunk16 {
  std::uint32_t w[4];
};

// PRMT: byte i of the result is byte (sel >> 4i) & 7 of the 8-byte value {hi:lo} = {b:a}.
TMAKIT_HD std::uint32_t byte_perm(std::uint32_t a, std::uint32_t b, std::uint32_t sel) {
#if TMAKIT_DEVICE_PASS
  return __byte_perm(a, b, sel);
#else
  const std::uint64_t v = (static_cast<std::uint64_t>(b) << 32) | a;
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<std::uint32_t>((v >> (8 * ((sel >> (4 * i)) & 7u))) & 0xFFu) << (8 * i);
  return r;
#endif
}

// A 4 x 4 byte transpose in 8 PRMT (two stages: interleave pairs, then pairs of pairs): t[s] is
// byte s of a, b, c, d, in that order.
TMAKIT_HD void transpose_bytes_4x4(std::uint32_t a, std::uint32_t b, std::uint32_t c,
                                   std::uint32_t d, std::uint32_t (&t)[4]) {
  const std::uint32_t ab_lo = byte_perm(a, b, 0x5140u);  // a0 b0 a1 b1
  const std::uint32_t ab_hi = byte_perm(a, b, 0x7362u);  // a2 b2 a3 b3
  const std::uint32_t cd_lo = byte_perm(c, d, 0x5140u);
  const std::uint32_t cd_hi = byte_perm(c, d, 0x7362u);
  t[0] = byte_perm(ab_lo, cd_lo, 0x5410u);  // a0 b0 c0 d0
  t[1] = byte_perm(ab_lo, cd_lo, 0x7632u);  // a1 b1 c1 d1
  t[2] = byte_perm(ab_hi, cd_hi, 0x5410u);
  t[3] = byte_perm(ab_hi, cd_hi, 0x7632u);
}

template <int ElemBytes>
TMAKIT_HD void transpose_chunks(const Chunk16 (&in)[16 / ElemBytes],
                                Chunk16 (&out)[16 / ElemBytes]) {
  static_assert(
      ElemBytes == 1 || ElemBytes == 2 || ElemBytes == 4 || ElemBytes == 8 || ElemBytes == 16,
      "1/2/4/8/16");
  if constexpr (ElemBytes == 16) {  // a 1 x 1 block: the chunk is the element
    out[0] = in[0];
  } else if constexpr (ElemBytes == 8) {  // element j of chunk i = words 2j, 2j+1
#pragma unroll
    for (int j = 0; j < 2; ++j)
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        out[j].w[2 * i] = in[i].w[2 * j];
        out[j].w[2 * i + 1] = in[i].w[2 * j + 1];
      }
  } else if constexpr (ElemBytes == 4) {
#pragma unroll
    for (int j = 0; j < 4; ++j)
#pragma unroll
      for (int i = 0; i < 4; ++i) out[j].w[i] = in[i].w[j];
  } else if constexpr (ElemBytes == 2) {
    // out[j] word m = (in[2m] half j, in[2m+1] half j); half j sits in word j/2.
#pragma unroll
    for (int j = 0; j < 8; ++j)
#pragma unroll
      for (int m = 0; m < 4; ++m)
        out[j].w[m] =
            byte_perm(in[2 * m].w[j / 2], in[2 * m + 1].w[j / 2], (j % 2 == 0) ? 0x5410u : 0x7632u);
  } else {
    // out[j] byte i = in[i] byte j. Block (m, c): rows 4m..4m+3, word column c. Its 4x4 byte
    // transpose gives out[4c + s].w[m] for s = 0..3.
#pragma unroll
    for (int m = 0; m < 4; ++m)
#pragma unroll
      for (int c = 0; c < 4; ++c) {
        std::uint32_t t[4];
        transpose_bytes_4x4(in[4 * m].w[c], in[4 * m + 1].w[c], in[4 * m + 2].w[c],
                            in[4 * m + 3].w[c], t);
#pragma unroll
        for (int s = 0; s < 4; ++s) out[4 * c + s].w[m] = t[s];
      }
  }
}

}  // namespace tmakit
