// tma_classes' index math (kernels/common/tma_classes.hpp), checked on the host: the class maps
// tile every row exactly once at 16-byte aligned starts and 16-byte multiple pitches, the
// transpose's shared accesses are conflict-free, and the whole kernel, replayed tile by tile on
// byte arrays (TMA boxes emulated from the maps: zero fill past a map's extent, clipping of
// stores, the 128B swizzle), gives the transpose and writes nothing outside dst's elements.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <host/bank_model.hpp>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/tma_classes.hpp>

namespace tmakit {
namespace {

// Every row r of a side belongs to class r % V, at map row r / V, and its first element sits
// at the map's 16-byte aligned start + shift: exactly the row's address.
TEST(TmaClasses, ClassMapsCoverEveryRowAtItsAddress) {
  for (int e : {1, 2, 4, 8}) {
    const int v = row_classes(e);
    for (std::int64_t pitch_elems : {1, 3, 7, 13, 16, 6789, 12345}) {
      for (std::uintptr_t base : {std::uintptr_t(0x10000), std::uintptr_t(0x10000 + 8 * e)}) {
        if (base % e != 0) continue;
        const std::int64_t rows = 37, pitch = pitch_elems * e;
        std::int64_t covered = 0;
        for (int k = 0; k < v; ++k) {
          const ClassMapAt at = class_map_at(base, pitch, rows, k, e);
          ASSERT_EQ(at.address % 16, 0u) << "e=" << e << " k=" << k;
          ASSERT_EQ((v * pitch) % 16, 0) << "a class pitch must be a 16-byte multiple";
          ASSERT_GE(at.shift_elems, 0);
          ASSERT_LT(at.shift_elems * e, 16);
          covered += at.rows;
          for (std::int64_t m = 0; m < at.rows; ++m) {
            const std::int64_t r = k + v * m;
            ASSERT_LT(r, rows);
            EXPECT_EQ(at.address + std::uintptr_t(m * v * pitch + at.shift_elems * e),
                      base + std::uintptr_t(r * pitch))
                << "e=" << e << " pitch=" << pitch << " row " << r;
          }
        }
        EXPECT_EQ(covered, rows) << "e=" << e << " pitch=" << pitch;
      }
    }
  }
}

// The tile layout: T rows at distinct 16-byte chunk slots of a 16 KB tile, and each TMA box
// (class k, 8 lines of 128 bytes at byte 1024 k) holds tile rows k, k + V, ... in order.
TEST(TmaClasses, TileRowsFillTheClassBoxes) {
  for (int e : {1, 2, 4, 8}) {
    const std::uint32_t v = row_classes(e), t_rows = 128 / e;
    std::vector<int> owner(16384, -1);
    for (std::uint32_t i = 0; i < t_rows; ++i) {
      const std::uint32_t k = i % v, m = i / v;
      for (std::uint32_t b = 0; b < 128; ++b) {
        const std::uint32_t off = class_tile_offset(i, b, e);
        ASSERT_LT(off, 16384u);
        ASSERT_EQ(owner[off], -1) << "e=" << e << " row " << i << " byte " << b;
        owner[off] = static_cast<int>(i);
        // TMA's 128B swizzle of box k's line m, byte b: chunk ^ (line mod 8) in a 1024-B box.
        const std::uint32_t tma = 1024 * k + 128 * m + ((((b >> 4) ^ (m & 7)) << 4) | (b & 15));
        ASSERT_EQ(off, tma) << "e=" << e << " row " << i << " byte " << b;
      }
    }
  }
}

// The transpose's shared accesses: thread (t = tid / 8, l = tid % 8) reads tile rows V t + u at
// chunk l and writes transposed rows V l + u at chunk t; 64 threads, two warps.
TEST(TmaClasses, TransposeAccessesAreConflictFree) {
  for (int e : {1, 2, 4, 8}) {
    const int v = row_classes(e);
    for (int warp = 0; warp < 2; ++warp)
      for (int u = 0; u < v; ++u)
        for (bool store : {false, true}) {
          WarpAccess lanes{};
          for (int lane = 0; lane < 32; ++lane) {
            const int tid = 32 * warp + lane, t = tid / 8, l = tid % 8;
            lanes[lane].active = true;
            lanes[lane].addr = store ? class_tile_offset(v * l + u, 16 * t, e)
                                     : class_tile_offset(v * t + u, 16 * l, e);
          }
          const Wavefronts w = shared_wavefronts(lanes, 16);
          EXPECT_EQ(w.actual, w.ideal) << "e=" << e << " warp " << warp << " u " << u
                                       << (store ? " store" : " load");
        }
  }
}

// A side in host memory: an arena with the matrix at byte `offset`, rows pitch_bytes apart.
struct Side {
  std::vector<unsigned char> arena;
  std::size_t offset;
  std::int64_t rows, cols, pitch_bytes;
  std::uintptr_t base() const { return 0x100000 + offset; }  // a pretend device address
  unsigned char* at(std::uintptr_t addr) { return arena.data() + (addr - 0x100000); }
};

// The kernel (kernels/tma/tma_classes.cu) on one matrix, replayed: TMA loads per class box,
// the in-shared transpose, TMA stores per class box for tiles whose rows end past the tile,
// thread stores for the others. Element size e, tile T = 128 / e.
void replay(Side& src, Side& dst, int e) {
  const int v = row_classes(e);
  const std::int64_t t_side = 128 / e, rows = src.rows, cols = src.cols;
  std::vector<unsigned char> in(16384), out(16384);
  for (std::int64_t r0 = 0; r0 < rows; r0 += t_side)
    for (std::int64_t c0 = 0; c0 < cols; c0 += t_side) {
      // Loads: box k = map k rows r0 / V + m (m < 8), columns c0 + shift .. + 127 bytes.
      for (int k = 0; k < v; ++k) {
        const ClassMapAt at = class_map_at(src.base(), src.pitch_bytes, rows, k, e);
        for (std::int64_t m = 0; m < 8; ++m)
          for (std::int64_t b = 0; b < 128; ++b) {
            const std::int64_t mr = r0 / v + m, x = (c0 + at.shift_elems) * e + b;  // bytes
            const bool inside = mr < at.rows && x < (cols + at.shift_elems) * e;
            in[1024 * k + 128 * m + ((((b >> 4) ^ (m & 7)) << 4) | (b & 15))] =
                inside ? *src.at(at.address + mr * v * src.pitch_bytes + x) : 0;
          }
      }
      // Transpose: 64 threads, V x V blocks.
      for (int tid = 0; tid < 64; ++tid) {
        const int t = tid / 8, l = tid % 8;
        Chunk16 x[16], y[16];
        for (int u = 0; u < v; ++u)
          std::memcpy(&x[u], &in[class_tile_offset(v * t + u, 16 * l, e)], 16);
        switch (e) {
          case 1:
            transpose_chunks<1>(reinterpret_cast<Chunk16(&)[16]>(x),
                                reinterpret_cast<Chunk16(&)[16]>(y));
            break;
          case 2:
            transpose_chunks<2>(reinterpret_cast<Chunk16(&)[8]>(x),
                                reinterpret_cast<Chunk16(&)[8]>(y));
            break;
          case 4:
            transpose_chunks<4>(reinterpret_cast<Chunk16(&)[4]>(x),
                                reinterpret_cast<Chunk16(&)[4]>(y));
            break;
          default:
            transpose_chunks<8>(reinterpret_cast<Chunk16(&)[2]>(x),
                                reinterpret_cast<Chunk16(&)[2]>(y));
        }
        for (int u = 0; u < v; ++u)
          std::memcpy(&out[class_tile_offset(v * l + u, 16 * t, e)], &y[u], 16);
      }
      if (r0 + t_side <= rows) {
        // Stores: box k to dst map k rows c0 / V + m, columns r0 + shift..; clipped at the
        // map's extent (dst rows: cols; row length: rows + shift).
        for (int k = 0; k < v; ++k) {
          const ClassMapAt at = class_map_at(dst.base(), dst.pitch_bytes, cols, k, e);
          for (std::int64_t m = 0; m < 8; ++m)
            for (std::int64_t b = 0; b < 128; ++b) {
              const std::int64_t mr = c0 / v + m, x = (r0 + at.shift_elems) * e + b;
              if (mr >= at.rows || x >= (rows + at.shift_elems) * e) continue;
              *dst.at(at.address + mr * v * dst.pitch_bytes + x) =
                  out[1024 * k + 128 * m + ((((b >> 4) ^ (m & 7)) << 4) | (b & 15))];
            }
        }
      } else {
        // Thread stores: dst rows c0 + j < cols, elements r0 .. rows - 1.
        for (std::int64_t j = 0; j < std::min(t_side, cols - c0); ++j)
          for (std::int64_t i = 0; i < rows - r0; ++i)
            std::memcpy(dst.at(dst.base() + (c0 + j) * dst.pitch_bytes + (r0 + i) * e),
                        &out[class_tile_offset(static_cast<std::uint32_t>(j),
                                               static_cast<std::uint32_t>(i * e), e)],
                        e);
      }
    }
}

Side make_side(std::int64_t rows, std::int64_t cols, std::int64_t pitch_elems, int e,
               std::size_t offset, unsigned char fill) {
  Side s;
  s.offset = offset;
  s.rows = rows;
  s.cols = cols;
  s.pitch_bytes = pitch_elems * e;
  s.arena.assign(offset + rows * s.pitch_bytes + 64, fill);
  return s;
}

TEST(TmaClasses, ReplayedKernelTransposesOddShapes) {
  struct Case {
    std::int64_t rows, cols, src_pad, dst_pad;
    std::size_t src_off, dst_off;
  };
  const Case cases[] = {
      {300, 200, 0, 0, 0, 0},   {257, 131, 0, 0, 3, 5},   {129, 385, 3, 1, 8, 1},
      {16, 16, 0, 0, 0, 0},     {17, 19, 0, 0, 1, 2},     {128, 256, 5, 0, 16, 32},
      {1000, 33, 0, 7, 2, 14},  {45, 500, 1, 0, 0, 9},
  };
  std::mt19937 rng(7);
  for (int e : {1, 2, 4, 8})
    for (const Case& c : cases) {
      if (c.rows < row_classes(e) || c.cols < row_classes(e)) continue;
      Side src = make_side(c.rows, c.cols, c.cols + c.src_pad, e, c.src_off * e, 0);
      for (auto& b : src.arena) b = static_cast<unsigned char>(rng());
      Side dst = make_side(c.cols, c.rows, c.rows + c.dst_pad, e, c.dst_off * e, 0xA5);
      const std::vector<unsigned char> before = dst.arena;
      replay(src, dst, e);
      std::vector<unsigned char> want = before;
      for (std::int64_t r = 0; r < c.rows; ++r)
        for (std::int64_t q = 0; q < c.cols; ++q)
          std::memcpy(&want[dst.offset + q * dst.pitch_bytes + r * e],
                      src.at(src.base() + r * src.pitch_bytes + q * e), e);
      std::size_t bad = 0, first = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (want[i] != dst.arena[i] && bad++ == 0) first = i;
      EXPECT_EQ(bad, 0u) << "e=" << e << " " << c.rows << "x" << c.cols << " pads " << c.src_pad
                         << "/" << c.dst_pad << " offsets " << c.src_off << "/" << c.dst_off
                         << ": first wrong byte " << first;
    }
}

}  // namespace
}  // namespace tmakit
