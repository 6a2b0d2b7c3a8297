// Index math of the TMA tile techniques, host and device (the bank model replays it on the
// host). A tile is held in shared memory the way TMA writes it: as boxes side by side along
// the inner dimension, each box `rows` lines of `span` bytes (the swizzle span; 128 without a
// swizzle), box b starting at byte b * rows * span, every byte address passed through the
// swizzle. A box region is rows * span bytes, a multiple of the swizzle period whenever rows
// is a multiple of 8, so offsets from a 1024-aligned tile base equal absolute addresses.
//
// The in-shared transpose works on 16-byte chunks. A 128-byte-wide strip of a tile is 8 chunk
// columns (k) by 8 row groups (q) of V = 16 / elem_bytes rows: 64 sub-blocks of V x V
// elements, one per thread slot. Slot s = 8 t + l (t = quarter-warp, l = lane in it) takes
//     k = l,   q = (l + t) mod 8                                       ("diagonal" slots)
// so the 8 lanes of a quarter-warp (the unit a 16-byte shared access is served in) read 8
// different chunk columns of a row and write 8 different chunk columns of a transposed line:
// no bank conflicts on either side without a swizzle and with 128B swizzle (checked for
// every element size by tests/host/test_tma_tile.cpp).
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {

// How a kernel waits for TMA loads (an axis of every technique that loads with TMA): raw
// cuda::ptx mbarrier instructions, or libcu++'s cuda::barrier with barrier_arrive_tx.
enum class BarrierStyle : int { kPtx = 0, kCudaBarrier = 1 };

// Bytes per box line: the swizzle span, or 128 without a swizzle (TMA allows up to 256
// elements then; 128 bytes keeps one tile geometry for every mode).
TMAKIT_HD constexpr std::uint32_t tma_tile_span_bytes(int mode) {
  return mode == kSwizzleNone ? 128u : tma_swizzle_span_bytes(mode);
}

// Elements per box line for this mode and element size.
TMAKIT_HD constexpr std::uint32_t tma_tile_box_cols(int mode, int elem_bytes) {
  return tma_tile_span_bytes(mode) / static_cast<std::uint32_t>(elem_bytes);
}

// Byte offset, from a period-aligned tile base, of byte `col_bytes` of line `row` in a tile of
// `rows` lines stored as boxes of span bytes.
TMAKIT_HD constexpr std::uint32_t tma_tile_offset(std::uint32_t row, std::uint32_t col_bytes,
                                                  std::uint32_t rows, int mode) {
  const std::uint32_t span = tma_tile_span_bytes(mode);
  return tma_swizzle((col_bytes / span) * rows * span + row * span + col_bytes % span, mode);
}

// TMA has no 16-byte element type: 16-byte elements are mapped as pairs of 8-byte words, so a
// map's element is 8 bytes there and inner coordinates double (kernels/primitives/tma_tile.cuh).
TMAKIT_HD constexpr int tma_map_type_bytes(int elem_bytes) {
  return elem_bytes == 16 ? 8 : elem_bytes;
}

// tma_wide's tile side in elements: 256 bytes; 512 at 16-byte elements (docs/perf-guide.md),
// so a tile is 32 x 32 elements (16 KB), not 16 x 16 (4 KB): a CTA keeps as many bytes moving
// as at 8 B. The host's `auto` counts tiles with it.
TMAKIT_HD constexpr std::uint32_t tma_wide_side(int elem_bytes) {
  return (elem_bytes == 16 ? 512u : 256u) / static_cast<std::uint32_t>(elem_bytes);
}

struct ChunkBlock {
  std::uint32_t k;  // 16-byte chunk column within the 128-byte strip, 0..7
  std::uint32_t q;  // row group of V rows, 0..7
};

TMAKIT_HD constexpr ChunkBlock diagonal_chunk_block(std::uint32_t slot) {
  return {slot % 8u, (slot % 8u + (slot / 8u) % 8u) % 8u};
}

// The block of a slot for elem_bytes and swizzle mode. 16-byte elements (V = 1, tma_wide) with
// the 128B swizzle are the exception: a block is one chunk of one line, whose swizzled chunk
// column is k ^ (q mod 8), which the diagonal makes equal for many lanes (l ^ ((l + t) mod 8));
// there the 8 lanes of a quarter-warp share the row group q = t and take k = l, so they hit
// chunk columns l ^ t on both sides (tests/host/test_tma_tile.cpp).
TMAKIT_HD constexpr ChunkBlock tile_chunk_block(std::uint32_t slot, int elem_bytes, int mode) {
  return elem_bytes == 16 && mode == kSwizzle128B ? ChunkBlock{slot % 8u, (slot / 8u) % 8u}
                                                  : diagonal_chunk_block(slot);
}

}  // namespace tmakit
