// The index math of smem_realign (kernels/classic/smem_realign.cu), host and device, so the
// host tests check it: the tile's shape and shared strides, the phase-2 block walk, and the
// byte realignment of a 16-byte chunk.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

// The tile of E-byte elements. Input side: kRows rows of one 128-byte row segment (kCols
// elements); tile row i <-> input row r0 - kPad + i. Output side: each of the kCols output
// rows owns kOwned elements (kOwned * E bytes: whole 32-byte sectors); its owned range starts
// up to 32 / E - 1 <= kPad elements above r0, hence the kPad extra rows.
//   IN : kRows rows of 128 bytes, row stride kInStride bytes  (tile row i, input column c)
//   OUT: kCols rows of kRows * E bytes, stride kOutStride      (input column c, tile row i),
//        16-byte chunks XOR-swizzled within groups of 8 (realign_out_offset)
// Banks (derivation in smem_realign.cu; tests/host/test_realign.cpp counts them): kInStride =
// 8E mod 32E bytes puts phase 2's word reads on 32 distinct banks (E <= 4; E = 8: 160 bytes,
// per half-warp); OUT rows are whole 128-byte groups and the chunk swizzle spreads phase 2's
// writes (8 rows, one chunk each) over the 8 chunk positions; phase 3 reads whole chunks, 8
// consecutive lanes on 8 consecutive chunks of one row: distinct positions after the XOR.
template <int E>
struct RealignTile {
  static_assert(E == 1 || E == 2 || E == 4 || E == 8, "1, 2, 4 or 8-byte elements");
  static constexpr int kCols = 128 / E;
  static constexpr int kOwned = 128;
  static constexpr int kPad = 32;
  static constexpr int kRows = kOwned + kPad;
  static constexpr int kInStride = 128 + (E < 8 ? 8 * E : 32);
  static constexpr int kOutStride = (kRows * E + 127) / 128 * 128;
  static constexpr int kInBytes = kRows * kInStride;
  static constexpr int kOutBytes = kCols * kOutStride;
  static constexpr int kSmemBytes = kInBytes + kOutBytes;
  // Phase 2 moves units of kUnit bytes (a word; two for E = 8) in blocks of kBlock rows x one
  // unit: kBlock x kBlock elements (4x4 bytes, 2x2 halves, 1 word, 1 double word).
  static constexpr int kUnit = E < 8 ? 4 : 8;
  static constexpr int kBlock = E < 4 ? 4 / E : 1;
  static constexpr int kUnitsPerRow = 128 / kUnit;
  static constexpr int kBlocks = kRows / kBlock * kUnitsPerRow;
  // Phase 3: 16-byte chunks per owned output row.
  static constexpr int kChunks = kOwned * E / 16;
  // OUT's chunk swizzle: row R's chunk x sits at chunk x ^ (((R / kBlock) * kSwz) & 7).
  static constexpr int kSwz = E == 8 ? 2 : 1;
  static_assert(kRows % (4 * kBlock) == 0 && kInBytes % 16 == 0, "walks and alignment");
};

// Phase-2 block b (0 <= b < kBlocks): tile rows p*kBlock.. of unit column q. A warp (32
// consecutive b) takes 4 block rows x 8 unit columns (E <= 4) or 8 x 4 (E = 8), so its reads
// span 4 rows and its writes 8 output rows (and the other way round for E = 8):
//   E <= 4: b = q%8 | (p%4) << 3 | (q/8) << 5 | (p/4) << 7
//   E = 8 : b = q%4 | (p%8) << 2 | (q/4) << 5 | (p/8) << 7
struct RealignBlock {
  int p, q;
};
template <int E>
TMAKIT_HD RealignBlock realign_block(int b) {
  if constexpr (E < 8)
    return {((b >> 3) & 3) + 4 * (b >> 7), (b & 7) + 8 * ((b >> 5) & 3)};
  else
    return {((b >> 2) & 7) + 8 * (b >> 7), (b & 3) + 4 * ((b >> 5) & 3)};
}

// Byte x of OUT row `row` (chunk x / 16 swizzled), from the start of OUT.
template <int E>
TMAKIT_HD int realign_out_offset(int row, int x) {
  using S = RealignTile<E>;
  const int f = ((row / S::kBlock) * S::kSwz) & 7;
  return row * S::kOutStride + ((((x >> 4) ^ f)) << 4) + (x & 15);
}

// reg_realign's tile (kernels/classic/reg_realign.cu): smem_realign's sector ownership without
// the IN tile. kRows tile rows (tile row i <-> input row r0 - kPad + i) of one 128-byte input
// row segment (kCols elements); a lane holds 4 tile rows x 16 bytes, transposes them in
// registers into 16 / E OUT rows x 4E bytes, and writes those to OUT:
//   OUT: kCols rows of kRows * E bytes (input column c, tile row i), 16-byte chunks XOR-
//        swizzled within groups of 8 by the writing lane's chunk k = j * E / 16
//        (reg_realign_out_offset).
// kPad = 32 / E rows is the most an output row's owned range starts above r0 (its sector
// offset); kOwned = kRows - kPad, whole 32-byte sectors at every E. A call whose output rows
// all start on sectors needs no pad and owns all kRows rows.
template <int E>
struct RegRealignTile {
  static_assert(E == 1 || E == 2 || E == 4 || E == 8, "1, 2, 4 or 8-byte elements");
  static constexpr int kCols = 128 / E;
  static constexpr int kPad = 32 / E;
  static constexpr int kRows = 256;  // 2 passes of 8 warps x 16 rows (4 row groups of 4)
  static constexpr int kOwned = kRows - kPad;
  static constexpr int kOutStride = kRows * E;  // whole 128-byte groups
  static constexpr int kSmemBytes = kCols * kOutStride;
  // Phase 3 walks each OUT row in kSlots 16-byte chunk slots (the chunks of an unpadded row,
  // whole quarter-warps), so 8 consecutive lanes read 8 consecutive chunks of one row: distinct
  // positions after the XOR. Slots past the row's owned chunks ((kRows - pad) * E / 16) idle.
  static constexpr int kSlots = kRows * E / 16;
  static constexpr int kItems = kCols * kSlots;
  static_assert(kOwned * E % 32 == 0 && kOutStride % 128 == 0, "whole sectors and groups");
};

// Byte x of reg_realign's OUT row j, from the start of OUT: chunk x / 16 XOR (j * E / 16) % 8.
template <int E>
TMAKIT_HD int reg_realign_out_offset(int j, int x) {
  const int f = ((j * E) >> 4) & 7;
  return j * RegRealignTile<E>::kOutStride + (((x >> 4) ^ f) << 4) + (x & 15);
}

// Bytes sh..sh+3 of the 8-byte value {hi:lo}, sh = 0..3 (SHF.R: the funnel shift).
TMAKIT_HD std::uint32_t funnel_bytes(std::uint32_t lo, std::uint32_t hi, int sh) {
#if TMAKIT_DEVICE_PASS
  return __funnelshift_r(lo, hi, 8 * sh);
#else
  return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(hi) << 32) | lo) >> (8 * sh));
#endif
}

// Bytes s..s+15 of the 32 bytes held as words w[0..7] (s = 0..15): the chunk that starts s
// bytes into an aligned 16-byte vector pair. The word offset s/4 is chosen with selects, not
// a register index (which would put w in local memory): TwoLevel = false picks each of the 5
// words among 4 (nested selects), true moves by 2 words on bit 1 of s/4, then by 1 on bit 0
// (6 + 5 selects; docs/perf-guide.md).
template <bool TwoLevel = false>
TMAKIT_HD void realign_chunk(const std::uint32_t (&w)[8], int s, std::uint32_t (&out)[4]) {
  const int q = s >> 2, sh = s & 3;
  std::uint32_t y[5];
  if constexpr (TwoLevel) {
    std::uint32_t t[6];
#pragma unroll
    for (int j = 0; j < 6; ++j) t[j] = (q & 2) != 0 ? w[j + 2] : w[j];
#pragma unroll
    for (int j = 0; j < 5; ++j) y[j] = (q & 1) != 0 ? t[j + 1] : t[j];
  } else {
#pragma unroll
    for (int j = 0; j < 5; ++j)
      y[j] = q == 0 ? w[j] : q == 1 ? w[j + 1] : q == 2 ? w[j + 2] : w[j + 3];
  }
#pragma unroll
  for (int j = 0; j < 4; ++j) out[j] = funnel_bytes(y[j], y[j + 1], sh);
}

}  // namespace tmakit
