// The TMA tile techniques' index math, on the host: the in-register chunk transpose, the tile
// offsets (a bijection onto the tile's bytes) and the claim that the diagonal block order is
// free of shared-memory bank conflicts for 16-byte accesses without a swizzle and with 128B.
#include <array>
#include <cstring>
#include <set>
#include <gtest/gtest.h>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/tma_tile.hpp>

namespace tmakit {
namespace {

template <int E>
void check_chunk_transpose() {
  constexpr int V = 16 / E;
  Chunk16 in[V], out[V];
  unsigned char* b = reinterpret_cast<unsigned char*>(in);
  for (int i = 0; i < 16 * V; ++i) b[i] = static_cast<unsigned char>(i * 7 + 3);
  transpose_chunks<E>(in, out);
  for (int i = 0; i < V; ++i)
    for (int j = 0; j < V; ++j)
      EXPECT_EQ(std::memcmp(reinterpret_cast<const unsigned char*>(&out[j]) + i * E,
                            reinterpret_cast<const unsigned char*>(&in[i]) + j * E, E),
                0)
          << E << "-byte element (" << i << ", " << j << ")";
}

TEST(ChunkTranspose, EveryElementSize) {
  check_chunk_transpose<1>();
  check_chunk_transpose<2>();
  check_chunk_transpose<4>();
  check_chunk_transpose<8>();
}

TEST(TmaTile, OffsetIsABijectionOntoTheTile) {
  for (int mode : {kSwizzleNone, kSwizzle32B, kSwizzle64B, kSwizzle128B})
    for (std::uint32_t rows : {8u, 16u, 64u, 256u})
      for (std::uint32_t width : {128u, 256u}) {
        std::set<std::uint32_t> seen;
        for (std::uint32_t r = 0; r < rows; ++r)
          for (std::uint32_t c = 0; c < width; ++c) {
            const std::uint32_t o = tma_tile_offset(r, c, rows, mode);
            EXPECT_LT(o, rows * width);
            seen.insert(o);
          }
        EXPECT_EQ(seen.size(), rows * width) << "mode " << mode << " rows " << rows;
      }
}

TEST(TmaTile, BoxGeometryFollowsTheSwizzleSpan) {
  EXPECT_EQ(tma_tile_box_cols(kSwizzle128B, 4), 32u);
  EXPECT_EQ(tma_tile_box_cols(kSwizzle64B, 2), 32u);
  EXPECT_EQ(tma_tile_box_cols(kSwizzle32B, 8), 4u);
  EXPECT_EQ(tma_tile_box_cols(kSwizzleNone, 1), 128u);
  // Box b starts at b * rows * span: the second 32-byte box of a 16-line tile at byte 512.
  EXPECT_EQ(tma_tile_offset(0, 32, 16, kSwizzle32B), 512u);
}

TEST(TmaTile, DiagonalSlotsCoverEveryBlockOnce) {
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  for (std::uint32_t s = 0; s < 64; ++s) {
    const ChunkBlock b = diagonal_chunk_block(s);
    seen.insert({b.k, b.q});
  }
  EXPECT_EQ(seen.size(), 64u);
}

// Distinct 16-byte bank groups (address bits 6:4) among the 8 lanes of each quarter-warp for
// every one of the V accesses of a block: 1 wavefront per quarter-warp, no conflict.
int worst_ways(int elem_bytes, int mode, bool transposed_side) {
  const std::uint32_t v = 16 / elem_bytes, strip = 128 / elem_bytes;
  int worst = 1;
  for (std::uint32_t quarter = 0; quarter < 8; ++quarter)
    for (std::uint32_t i = 0; i < v; ++i) {
      std::array<int, 8> groups{};
      for (std::uint32_t lane = 0; lane < 8; ++lane) {
        const ChunkBlock b = tile_chunk_block(quarter * 8 + lane, elem_bytes, mode);
        const std::uint32_t r0 = b.q * v, c0 = b.k * v;
        // Load side: line r0 + i, chunk at c0 * E. Store side: line c0 + i, chunk at r0 * E.
        const std::uint32_t o = transposed_side
                                    ? tma_tile_offset(c0 + i, r0 * elem_bytes, strip, mode)
                                    : tma_tile_offset(r0 + i, c0 * elem_bytes, strip, mode);
        ++groups[(o >> 4) & 7u];
      }
      for (int g : groups) worst = std::max(worst, g);
    }
  return worst;
}

TEST(TmaTile, DiagonalOrderIsConflictFreeWithoutSwizzleAndWith128B) {
  for (int e : {1, 2, 4, 8, 16})
    for (int mode : {kSwizzleNone, kSwizzle128B})
      for (bool side : {false, true})
        EXPECT_EQ(worst_ways(e, mode, side), 1)
            << e << "-byte elements, mode " << mode << (side ? " store side" : " load side");
}

// The model must be able to see a conflict: with 32B swizzle a 128-byte line holds four
// 32-byte box rows, so a quarter-warp's 8 row reads share 2 bank groups; and 16-byte elements
// with 128B in the diagonal order (what tile_chunk_block avoids) share one.
TEST(TmaTile, ThirtyTwoByteSwizzleConflictsAreVisible) {
  EXPECT_GT(worst_ways(4, kSwizzle32B, false), 1);
  int worst = 1;
  for (std::uint32_t quarter = 0; quarter < 8; ++quarter) {
    std::array<int, 8> groups{};
    for (std::uint32_t lane = 0; lane < 8; ++lane) {
      const ChunkBlock b = diagonal_chunk_block(quarter * 8 + lane);
      ++groups[(tma_tile_offset(b.q, b.k * 16, 8, kSwizzle128B) >> 4) & 7u];
    }
    for (int g : groups) worst = std::max(worst, g);
  }
  EXPECT_GT(worst, 1);
}

}  // namespace
}  // namespace tmakit
