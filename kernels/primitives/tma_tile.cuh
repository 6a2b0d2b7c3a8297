// Device side of the TMA tile techniques: issue a tile's boxes, move V x V chunk blocks
// between shared memory and registers, transpose a whole tile in shared memory. The index
// math is kernels/common/tma_tile.hpp; tiles must start at a 1024-byte aligned shared address.
//
// Coordinates: a tile of R x C elements at (row0, col0) of a row-major matrix. Loaded, it is
// R lines (the matrix rows) of C elements, as C / W boxes of W = span / E columns. Its
// transpose is C lines of R elements, as R / W boxes: line c holds column col0 + c.
#pragma once
#include <cstdint>
#include <cuda.h>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/tma_tile.hpp>
#include <kernels/primitives/tma.cuh>

namespace tmakit::tma {

template <int E>
inline constexpr int kChunkElems = 16 / E;  // V: elements per 16-byte chunk

// Map elements per tile element (tma_map_type_bytes: 2 at 16-byte elements, else 1).
template <int E>
inline constexpr int kMapElemsPerElem = E / tma_map_type_bytes(E);

// Shared-memory bytes of an R x C tile of E-byte elements.
template <int E, std::uint32_t R, std::uint32_t C>
inline constexpr std::uint32_t kTileBytes = R* C* E;

// One thread: the C / W loads of a tile of matrix z into `smem`, each crediting `bar` with its
// box bytes, with L2 eviction policy H for the lines read (kNone: no hint).
// The caller has already called arrive_expect_tx(kTileBytes) (boxes partly or wholly out of
// bounds still deliver full box bytes, zero-filled).
// Z: std::int32_t (a rank-3 map) or BatchCoords (rank 5, no L2 hint).
template <int E, int Mode, std::uint32_t R, std::uint32_t C, L2Hint H = L2Hint::kNone,
          class Z = std::int32_t>
__device__ __forceinline__ void load_tile(unsigned char* smem, const CUtensorMap* map,
                                          std::int32_t row0, std::int32_t col0, Z z,
                                          std::uint64_t* bar) {
  constexpr std::uint32_t kW = tma_tile_box_cols(Mode, E), kSpan = tma_tile_span_bytes(Mode);
  static_assert(C % kW == 0 && R % 8 == 0, "tile = whole boxes, 8-line aligned");
#pragma unroll
  for (std::uint32_t b = 0; b < C / kW; ++b) {
    const std::int32_t x = (col0 + static_cast<std::int32_t>(b * kW)) * kMapElemsPerElem<E>;
    if constexpr (H == L2Hint::kNone)
      load_box(smem + b * R * kSpan, map, x, row0, z, bar);
    else
      load_3d_hint(smem + b * R * kSpan, map, x, row0, z, bar, l2_policy<H>());
  }
}

// One thread: the R / W stores of a transposed tile (C lines of R elements) to `map` at
// (row0, col0) of destination matrix z. Boxes starting at or past `dst_cols` are skipped (they
// would be clipped entirely); coordinates are never negative.
template <int E, int Mode, std::uint32_t R, std::uint32_t C, class Z = std::int32_t>
__device__ __forceinline__ void store_tile(const CUtensorMap* map, std::int32_t row0,
                                           std::int32_t col0, Z z, std::int64_t dst_cols,
                                           const unsigned char* smem) {
  constexpr std::uint32_t kW = tma_tile_box_cols(Mode, E), kSpan = tma_tile_span_bytes(Mode);
  static_assert(R % kW == 0 && C % 8 == 0, "tile = whole boxes, 8-line aligned");
#pragma unroll
  for (std::uint32_t b = 0; b < R / kW; ++b) {
    const std::int32_t x = col0 + static_cast<std::int32_t>(b * kW);
    if (x < dst_cols) store_box(map, x * kMapElemsPerElem<E>, row0, z, smem + b * C * kSpan);
  }
}

// V consecutive lines row0.. of a tile with `Lines` lines, the chunk at byte col_bytes of each.
template <int E, int Mode, std::uint32_t Lines>
__device__ __forceinline__ void load_chunks(const unsigned char* tile, std::uint32_t row0,
                                            std::uint32_t col_bytes, Chunk16 (&x)[kChunkElems<E>]) {
#pragma unroll
  for (int i = 0; i < kChunkElems<E>; ++i)
    *reinterpret_cast<uint4*>(&x[i]) =
        *reinterpret_cast<const uint4*>(tile + tma_tile_offset(row0 + i, col_bytes, Lines, Mode));
}

template <int E, int Mode, std::uint32_t Lines>
__device__ __forceinline__ void store_chunks(unsigned char* tile, std::uint32_t row0,
                                             std::uint32_t col_bytes,
                                             const Chunk16 (&y)[kChunkElems<E>]) {
#pragma unroll
  for (int j = 0; j < kChunkElems<E>; ++j)
    *reinterpret_cast<uint4*>(tile + tma_tile_offset(row0 + j, col_bytes, Lines, Mode)) =
        *reinterpret_cast<const uint4*>(&y[j]);
}

// Where chunk block `slot` of an R x C tile sits: the strip (128 bytes wide, 8V rows tall)
// and the diagonal (k, q) inside it. Rows r0..r0+V-1, columns c0..c0+V-1 of the tile.
template <int E, std::uint32_t C, int Mode = kSwizzleNone>
struct BlockCoords {
  std::uint32_t r0, c0;
  __device__ __forceinline__ explicit BlockCoords(std::uint32_t slot) {
    constexpr std::uint32_t kStrip = 128 / E;  // strip side in elements (8 chunks = 8V rows)
    const std::uint32_t strip = slot / 64, strip_row = strip / (C / kStrip),
                        strip_col = strip % (C / kStrip);
    const ChunkBlock b = tile_chunk_block(slot % 64, E, Mode);
    r0 = strip_row * kStrip + b.q * kChunkElems<E>;
    c0 = strip_col * kStrip + b.k * kChunkElems<E>;
  }
};

// All of an R x C tile's blocks, Threads threads: in (R lines) -> registers -> transposed
// -> out (C lines). Conflict-free shared accesses for no swizzle and 128B (see tma_tile.hpp).
template <int E, int Mode, std::uint32_t R, std::uint32_t C, std::uint32_t Threads>
__device__ __forceinline__ void transpose_tile(const unsigned char* in, unsigned char* out,
                                               std::uint32_t tid) {
  constexpr std::uint32_t kStrip = 128 / E, kBlocks = (R / kStrip) * (C / kStrip) * 64;
  static_assert(R % kStrip == 0 && C % kStrip == 0, "tile = whole 128-byte strips");
#pragma unroll
  for (std::uint32_t slot = tid; slot < kBlocks; slot += Threads) {
    const BlockCoords<E, C, Mode> at(slot);
    Chunk16 x[kChunkElems<E>], y[kChunkElems<E>];
    load_chunks<E, Mode, R>(in, at.r0, at.c0 * E, x);
    transpose_chunks<E>(x, y);
    store_chunks<E, Mode, C>(out, at.c0, at.r0 * E, y);
  }
}

}  // namespace tmakit::tma

namespace tmakit::tma {

// The global side of tma_load / tma_store: one chunk of V elements at `p`, of which the first
// n (0 < n <= V) are inside the matrix. Full chunks move as one 16-byte access (the host
// checked the pointer, the pitch and the batch stride are 16-byte aligned); partial ones
// element by element.
template <int E>
__device__ __forceinline__ void store_chunk_global(unsigned char* p, const Chunk16& y, int n) {
  using T = typename ElemOf<E>::type;
  if (n == kChunkElems<E>) {
    *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&y);
  } else {
#pragma unroll
    for (int i = 0; i < kChunkElems<E>; ++i)  // constant indices: y stays in registers
      if (i < n) reinterpret_cast<T*>(p)[i] = reinterpret_cast<const T*>(&y)[i];
  }
}

template <int E>
__device__ __forceinline__ Chunk16 load_chunk_global(const unsigned char* p, int n) {
  using T = typename ElemOf<E>::type;
  Chunk16 x{};
  if (n == kChunkElems<E>) {
    *reinterpret_cast<uint4*>(&x) = __ldg(reinterpret_cast<const uint4*>(p));
  } else {
#pragma unroll
    for (int i = 0; i < kChunkElems<E>; ++i)
      if (i < n) reinterpret_cast<T*>(&x)[i] = reinterpret_cast<const T*>(p)[i];
  }
  return x;
}

}  // namespace tmakit::tma
