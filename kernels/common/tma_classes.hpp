// The index math of tma_classes (kernels/tma/tma_classes.cu), host and device, so the host
// tests replay it: the row classes a side is split into, each class's tensor map, and where a
// tile row sits in shared memory.
//
// A tensor map's row pitch must be a multiple of 16 bytes and its base 16-byte aligned, so a
// matrix whose rows are not 16-byte multiples (12345 x 6789 bytes) has no tensor map. Its rows
// taken V = 16 / E apart do: rows k, k + V, k + 2V, ... (class k) are V * pitch bytes apart, a
// multiple of 16 whatever the pitch. Class k's map starts at the 16-byte boundary at or below
// its first row, A_k = (base + k * pitch) & ~15, and its rows start shift_k = (base + k * pitch
// - A_k) / E elements into the map's rows: element (r, c) of the matrix, r = k + V m, is
// element (m, shift_k + c) of map k. Box coordinates need no alignment, so a box of class k at
// (m0, shift_k + c0) is exactly rows k + V m0.. of the matrix from column c0.
//
// Tile: T = 128 / E rows x T columns (128 bytes each way, 16 KB at every E). Tile rows r0..,
// r0 a multiple of T (so of V): its rows of class k are tile rows k + V m, m = 0..7, one box of
// 8 lines x 128 bytes (1 KB, one 128B-swizzle period) per class, box k at byte 1024 k. Tile row
// i = V t + u is therefore line L(i) = 8 u + t (u = i mod V, t = i / V), and with the 128B
// swizzle its 16-byte chunk c sits at chunk c ^ (L mod 8) = c ^ t. The transposed tile (T rows
// of dst, c0.. also a multiple of T) is laid out the same way, so its boxes store by class too.
// Transpose by V x V blocks: thread (t, l), t = row group, l = chunk column, reads chunk l of
// lines 8u + t (u = 0..V-1: tile rows Vt + u) at chunk position l ^ t, and writes chunk t of
// lines 8u' + l (dst rows Vl + u') at position t ^ l. A quarter-warp (one t, l = 0..7) touches 8
// distinct positions on both sides: no bank conflicts (tests/host/test_tma_classes.cpp).
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

// Row classes of a side of E-byte elements (V = 16 / E): 16, 8, 4, 2 at 1, 2, 4, 8 bytes.
inline constexpr int kMaxRowClasses = 16;
TMAKIT_HD constexpr int row_classes(int elem_bytes) {
  return 16 / elem_bytes;
}

// Class k's map of a side whose matrix starts at `base` (a multiple of E), rows `pitch_bytes`
// apart, `rows` rows: its 16-byte aligned start, the element shift of its rows, its row count.
struct ClassMapAt {
  std::uintptr_t address;
  int shift_elems;
  std::int64_t rows;
};
TMAKIT_HD ClassMapAt class_map_at(std::uintptr_t base, std::int64_t pitch_bytes,
                                         std::int64_t rows, int k, int elem_bytes) {
  const int v = row_classes(elem_bytes);
  const std::uintptr_t first = base + static_cast<std::uintptr_t>(k * pitch_bytes);
  const std::uintptr_t a = first & ~std::uintptr_t(15);
  return {a, static_cast<int>(first - a) / elem_bytes, rows > k ? (rows - k + v - 1) / v : 0};
}

// Shared-memory line of tile row i (see the header): 8 (i mod V) + i / V.
TMAKIT_HD constexpr std::uint32_t class_line(std::uint32_t i, int elem_bytes) {
  const std::uint32_t v = static_cast<std::uint32_t>(row_classes(elem_bytes));
  return 8u * (i % v) + i / v;
}

// Byte offset of byte `col_bytes` (0..127) of tile row i, from the 1024-aligned tile base,
// 128B swizzle (chunk c of line L at chunk c ^ (L mod 8)).
TMAKIT_HD constexpr std::uint32_t class_tile_offset(std::uint32_t i, std::uint32_t col_bytes,
                                                    int elem_bytes) {
  const std::uint32_t line = class_line(i, elem_bytes);
  return 128u * line + ((((col_bytes >> 4) ^ (line & 7u)) << 4) | (col_bytes & 15u));
}

}  // namespace tmakit
