// TMA shared-memory swizzle functions on shared-memory BYTE addresses, one definition for the
// kernels, the tests and the host bank model. Mode values equal CUtensorMapSwizzle.
//
// The 32B/64B/128B modes permute the 16-byte chunks of each 128-byte shared-memory line by
// XOR-ing the chunk index (address bits 6:4) with the line index (bits 9:7) masked to the span:
//     phys(A) = A ^ (((A >> 7) & mask) << 4)      mask: 32B = 1, 64B = 3, 128B = 7
// It is a function of the ABSOLUTE shared address (checked bit-exact on an H100, ../TMA.md §2),
// so a tile aligned to the repeat period (256 / 512 / 1024 bytes) can use offsets from its
// start. The sm_100 ATOM modes are included for the host model; Hopper rejects them.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

inline constexpr int kSwizzleNone = 0, kSwizzle32B = 1, kSwizzle64B = 2, kSwizzle128B = 3,
                     kSwizzle128BAtom32B = 4, kSwizzle128BAtom32BFlip8B = 5,
                     kSwizzle128BAtom64B = 6;

// XOR mask applied to the 16-byte chunk index: 0, 1, 3, 7 for none, 32B, 64B, 128B.
TMAKIT_HD constexpr std::uint32_t tma_swizzle_mask(int mode) {
  return mode == kSwizzle32B ? 1u : mode == kSwizzle64B ? 3u : mode == kSwizzle128B ? 7u : 0u;
}

// The swizzle mode for a span given in bytes (0 = none, 32, 64, 128), as the API takes it.
TMAKIT_HD constexpr int tma_swizzle_mode_from_bytes(int bytes) {
  return bytes == 32    ? kSwizzle32B
         : bytes == 64  ? kSwizzle64B
         : bytes == 128 ? kSwizzle128B
                        : kSwizzleNone;
}

// Largest inner box, in bytes, the mode allows (0 = no limit for none).
TMAKIT_HD constexpr std::uint32_t tma_swizzle_span_bytes(int mode) {
  return mode == kSwizzle32B ? 32u : mode == kSwizzle64B ? 64u : mode == kSwizzleNone ? 0u : 128u;
}

// Bytes after which the pattern repeats: 256, 512, 1024 (none: 0, no pattern). Align swizzled
// tiles to this so buffer-relative offsets equal absolute ones.
TMAKIT_HD constexpr std::uint32_t tma_swizzle_period_bytes(int mode) {
  return mode == kSwizzle32B                                                ? 256u
         : mode == kSwizzle64B                                              ? 512u
         : mode == kSwizzle128B                                             ? 1024u
         : mode == kSwizzle128BAtom32B || mode == kSwizzle128BAtom32BFlip8B ? 512u
         : mode == kSwizzle128BAtom64B                                      ? 256u
                                                                            : 0u;
}

// Physical byte address of logical byte address `addr` under `mode`.
TMAKIT_HD constexpr std::uint32_t tma_swizzle(std::uint32_t addr, int mode) {
  switch (mode) {
    case kSwizzle32B:
    case kSwizzle64B:
    case kSwizzle128B:
      return addr ^ (((addr >> 7) & tma_swizzle_mask(mode)) << 4);
    case kSwizzle128BAtom32B:  // 32-byte granules: bits 6:5 ^= bits 8:7
      return addr ^ (((addr >> 7) & 3u) << 5);
    case kSwizzle128BAtom64B:  // 64-byte halves: bit 6 ^= bit 7
      return addr ^ (((addr >> 7) & 1u) << 6);
    case kSwizzle128BAtom32BFlip8B: {  // as ATOM_32B, plus the 8-byte halves of each 16 bytes
      const std::uint32_t a = addr ^ (((addr >> 7) & 3u) << 5);  // swapped on odd 128-B lines
      return a ^ (((addr >> 7) & 1u) << 3);
    }
    default:
      return addr;
  }
}

// The Programming Guide's int4 8x8 example in these terms: an 8x8 matrix of 16-byte elements
// is 8 lines of 128 bytes, element (row i, col j) at byte i*128 + j*16. Under 128B swizzle its
// 16-byte chunk j moves to j ^ (i % 8): the guide's `swiz_j = (i % 8) ^ j`.
TMAKIT_HD constexpr int int4_8x8_swizzled_col(int row, int col) {
  return (row % 8) ^ col;
}

}  // namespace tmakit
