// Index math of tma_phase (kernels/tma/tma_phase.cu), host and device: TMA over rows of any byte
// length. A tensor map's row pitch must be a multiple of 16 bytes and its base 16-byte aligned,
// so a matrix whose rows are, say, 6789 bytes apart has no 2-D map. But rows j, j + V, j + 2V,
// ... (V = 16 / elem_bytes) are V * pitch apart, a multiple of 16; and they all start at the same
// offset inside a 16-byte granule. So V maps per side ("phases"), map j over rows j, j + V, ...
// from the 16-byte boundary at or below row j's start, its rows `shift_j` elements longer than
// the matrix's, cover the matrix: element (r, c) is element (c + shift_j, r / V) of map
// j = r mod V. A box of map j starts at x = c + shift_j, anywhere in a granule (TMA coordinates
// need no alignment; the TMA store writes exactly the box there, tests/sm90/
// test_tma_store_rows.cpp, TmaStoreShifted).
//
// Tiles are T = 8V lines of 128 bytes (T x T elements). Tile line r (matrix line origin + r)
// belongs to phase p = r mod V; the V lines of a phase, p, p + V, ..., p + 7V, are one 8-line box
// of map (origin + p) mod V, which TMA writes as 1024 bytes with the 128B swizzle. So shared line
// s = p * 8 + r / V holds tile line r, and its 16-byte chunk k sits at chunk k ^ (s mod 8).
//
// Edges: a TMA store box that crosses a row's end writes on to the row's next 16-byte boundary
// (docs/tensor-maps.md): with odd rows, that is the next row's first bytes. So no box may cross
// an end: the last tile along each side is moved back to end exactly at the side's end,
// overlapping its neighbour (both write the same values there), and tma_phase needs both sides
// >= T. No box is ever clipped or zero-filled.
//
// Transposing: block (q, k) of a tile is tile lines qV..qV+V-1, chunk column k (elements
// kV..kV+V-1). Its V chunks are shared lines i * 8 + q (i = 0..V-1), all of swizzle phase q:
// chunk k ^ q. Transposed, they are out-tile lines kV + j, at shared lines j * 8 + k, chunk
// q ^ k. Thread slot t takes q = t mod 8, k = t / 8: the 8 lanes of a quarter-warp share k and
// differ in q, so they touch 8 different chunk columns on both sides (no bank conflicts).
#pragma once
#include <cstdint>
#include <cuda.h>  // CUtensorMap (a plain struct)
#include <kernels/common/arch.hpp>

namespace tmakit {

inline constexpr int kPhaseMax = 16;  // V at 1-byte elements

// V: phases per side, and elements per 16-byte chunk.
TMAKIT_HD constexpr std::uint32_t phase_count(int elem_bytes) {
  return 16u / static_cast<std::uint32_t>(elem_bytes);
}
// T: tile side in elements (128 bytes).
TMAKIT_HD constexpr std::uint32_t phase_tile_elems(int elem_bytes) {
  return 128u / static_cast<std::uint32_t>(elem_bytes);
}

// The encoded maps of one call (host/tma_dispatch.cpp builds them), a kernel parameter.
struct PhaseMapSet {
  CUtensorMap src[kPhaseMax];  // map j: src rows j, j + V, ... (dims: cols + shift, rows, batch)
  CUtensorMap dst[kPhaseMax];  // map j: dst rows j, j + V, ... (dst is cols x rows)
  std::int32_t src_shift_elems[kPhaseMax];  // where row j starts inside map j's rows
  std::int32_t dst_shift_elems[kPhaseMax];
};

// Host: where map j of one side starts and how large it is. The side: `rows` rows of `cols`
// elements of elem_bytes, rows ld_elems apart, from `address`.
struct PhaseMapGeometry {
  std::uintptr_t base = 0;             // the 16-byte boundary at or below row j's first byte
  std::int32_t shift_elems = 0;        // row j's first element inside the map's row
  std::uint64_t row_elems = 0;         // the map's inner extent: cols + shift_elems
  std::uint64_t map_rows = 0;          // rows j, j + V, ... below `rows`
  std::uint64_t row_stride_bytes = 0;  // V * pitch, a multiple of 16
};

TMAKIT_HD constexpr PhaseMapGeometry phase_map_geometry(std::uintptr_t address, std::int64_t rows,
                                                        std::int64_t cols, std::int64_t ld_elems,
                                                        int elem_bytes, std::uint32_t j) {
  const std::uint32_t v = phase_count(elem_bytes);
  const auto e = static_cast<std::uintptr_t>(elem_bytes);
  const std::uintptr_t start =
      address + static_cast<std::uintptr_t>(j) * static_cast<std::uintptr_t>(ld_elems) * e;
  PhaseMapGeometry g;
  g.base = start & ~std::uintptr_t{15};
  g.shift_elems = static_cast<std::int32_t>((start - g.base) / e);
  g.row_elems = static_cast<std::uint64_t>(cols) + static_cast<std::uint64_t>(g.shift_elems);
  g.map_rows = rows > static_cast<std::int64_t>(j)
                   ? static_cast<std::uint64_t>((rows - static_cast<std::int64_t>(j) + v - 1) / v)
                   : 0;
  g.row_stride_bytes = static_cast<std::uint64_t>(ld_elems) * e * v;
  return g;
}

// Tile t's first line along a side of n >= tile lines: t * tile, the last tile moved back to
// end at n.
TMAKIT_HD constexpr std::int64_t phase_tile_origin(std::int64_t t, std::int64_t n,
                                                   std::int64_t tile) {
  return t * tile + tile <= n ? t * tile : n - tile;
}

// The box of phase p for a tile whose first line is `origin`: map (origin + p) mod V, map row
// (origin + p) / V (its rows are j, j + V, ...).
struct PhaseBox {
  std::uint32_t map;
  std::int32_t y;
};
TMAKIT_HD constexpr PhaseBox phase_box(std::int64_t origin, std::uint32_t p, std::uint32_t v) {
  const std::int64_t line = origin + p;
  return {static_cast<std::uint32_t>(line % v), static_cast<std::int32_t>(line / v)};
}

// Shared line of tile line r, and the byte offset of chunk k of shared line s (128B swizzle,
// 1024-aligned tile).
TMAKIT_HD constexpr std::uint32_t phase_line(std::uint32_t r, std::uint32_t v) {
  return (r % v) * 8u + r / v;
}
TMAKIT_HD constexpr std::uint32_t phase_chunk_offset(std::uint32_t s, std::uint32_t k) {
  return s * 128u + ((k ^ (s % 8u)) * 16u);
}

}  // namespace tmakit
