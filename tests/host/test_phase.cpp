// tma_phase's index math (kernels/common/phase.hpp), checked on the host: the whole kernel is
// emulated over a byte array standing for global memory, with TMA's load and store replayed
// from the phase maps' geometry (base, row stride, inner extent, rows) exactly as the host
// encodes them (host/tma_dispatch.cpp). For odd pitches, misaligned bases, strided sides and
// batches it checks: every map base is 16-byte aligned and every map pitch a 16-byte multiple;
// no box ever leaves its map (nothing is clipped, zero-filled, or stored past a row's end);
// every box element is the matrix element the tile needs; the result is the transpose, with
// nothing outside the destination's elements written; and the shared-memory accesses of every
// quarter-warp hit 8 different 16-byte bank groups.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/phase.hpp>

namespace tmakit {
namespace {

struct Call {
  std::int64_t rows, cols;
  int e;
  std::int64_t batch = 1, src_ld = 0, dst_ld = 0, src_bs = 0, dst_bs = 0;  // 0: dense
  int src_mis = 0, dst_mis = 0;  // bytes past a 16-byte boundary (multiples of e)
};

std::string name(const Call& c) {
  return std::to_string(c.batch) + "x" + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
         " e" + std::to_string(c.e) + " ld " + std::to_string(c.src_ld) + "/" +
         std::to_string(c.dst_ld) + " bs " + std::to_string(c.src_bs) + "/" +
         std::to_string(c.dst_bs) + " mis " + std::to_string(c.src_mis) + "/" +
         std::to_string(c.dst_mis);
}

constexpr unsigned char kPoison = 0xCD;

// A 16-byte aligned byte array with `mis` bytes before the matrix.
struct Buffer {
  std::vector<unsigned char> raw;
  unsigned char* p = nullptr;
  Buffer(std::size_t bytes, int mis) : raw(bytes + 64, kPoison) {
    auto a = reinterpret_cast<std::uintptr_t>(raw.data());
    p = raw.data() + ((16 - a % 16) % 16) + static_cast<std::size_t>(mis);
  }
};

// One side's maps, as the host builds them.
struct Side {
  std::vector<PhaseMapGeometry> maps;
  std::int64_t batch_stride_bytes;
  const unsigned char* lo;  // the side's first and one-past-last byte (for bounds)
  const unsigned char* hi;
};

Side side_of(const unsigned char* p, std::int64_t rows, std::int64_t cols, std::int64_t ld,
             std::int64_t bs, std::int64_t batch, int e) {
  Side s;
  for (std::uint32_t j = 0; j < phase_count(e); ++j)
    s.maps.push_back(phase_map_geometry(reinterpret_cast<std::uintptr_t>(p), rows, cols, ld, e, j));
  s.batch_stride_bytes = bs * e;
  s.lo = p;
  s.hi = p + ((batch - 1) * bs + (rows - 1) * ld + cols) * e;
  return s;
}

// The address of box element (x + i, y + l) of map `m`, matrix z; fails the test (returns null)
// when the box leaves the map.
unsigned char* box_addr(const Side& s, std::uint32_t m, std::int64_t x, std::int64_t y,
                        std::int64_t z, int e, int* errors) {
  const PhaseMapGeometry& g = s.maps[m];
  if (x < 0 || y < 0 || static_cast<std::uint64_t>(x) >= g.row_elems ||
      static_cast<std::uint64_t>(y) >= g.map_rows) {
    ++*errors;
    return nullptr;
  }
  return reinterpret_cast<unsigned char*>(g.base + z * s.batch_stride_bytes +
                                          y * g.row_stride_bytes + x * e);
}

// Deliberate plan errors, to show the emulation catches them.
enum class Break { kNone, kNoEdgeMove, kNoShift, kWrongMap };

// Emulates tma_phase_kernel<e> on `c`; returns the number of failed checks (0: all held).
int emulate(Call c, std::string* why, Break brk = Break::kNone) {
  const int e = c.e;
  if (c.src_ld == 0) c.src_ld = c.cols;
  if (c.dst_ld == 0) c.dst_ld = c.rows;
  if (c.src_bs == 0) c.src_bs = c.rows * c.src_ld;
  if (c.dst_bs == 0) c.dst_bs = c.cols * c.dst_ld;
  const std::uint32_t v = phase_count(e), t = phase_tile_elems(e);
  Buffer src(static_cast<std::size_t>(c.batch * c.src_bs * e), c.src_mis);
  Buffer dst(static_cast<std::size_t>(c.batch * c.dst_bs * e), c.dst_mis);
  auto src_at = [&](std::int64_t b, std::int64_t r, std::int64_t col) {
    return src.p + (b * c.src_bs + r * c.src_ld + col) * e;
  };
  auto dst_at = [&](std::int64_t b, std::int64_t r, std::int64_t col) {
    return dst.p + (b * c.dst_bs + r * c.dst_ld + col) * e;
  };
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t r = 0; r < c.rows; ++r)
      for (std::int64_t col = 0; col < c.cols; ++col)
        for (int k = 0; k < e; ++k)  // never the poison byte
          src_at(b, r, col)[k] = static_cast<unsigned char>((b * 7 + r * 131 + col * 17 + k) % 251);
  const Side s = side_of(src.p, c.rows, c.cols, c.src_ld, c.src_bs, c.batch, e);
  const Side d = side_of(dst.p, c.cols, c.rows, c.dst_ld, c.dst_bs, c.batch, e);
  int errors = 0;
  for (const Side* side : {&s, &d})
    for (const PhaseMapGeometry& g : side->maps)
      errors += g.base % 16 != 0 || g.row_stride_bytes % 16 != 0 ||
                (c.batch > 1 && side->batch_stride_bytes % 16 != 0) || g.map_rows == 0;
  if (errors != 0) *why = "a map base, pitch or batch stride is not 16-byte aligned";

  std::vector<unsigned char> in(v * 1024), out(v * 1024);
  const std::int64_t tiles_y = (c.rows + t - 1) / t, tiles_x = (c.cols + t - 1) / t;
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t ty = 0; ty < tiles_y; ++ty)
      for (std::int64_t tx = 0; tx < tiles_x; ++tx) {
        const bool unmoved = brk == Break::kNoEdgeMove;
        const std::int64_t row0 = unmoved ? ty * t : phase_tile_origin(ty, c.rows, t),
                           col0 = unmoved ? tx * t : phase_tile_origin(tx, c.cols, t);
        std::memset(in.data(), 0xEE, in.size());
        // TMA loads: box p = 8 lines of T elements, line l = map row box.y + l, written with
        // the 128B swizzle (chunk k of box line l at chunk k ^ l, l = shared line mod 8).
        for (std::uint32_t p = 0; p < v; ++p) {
          PhaseBox box = phase_box(row0, p, v);
          if (brk == Break::kWrongMap) box.map = (box.map + 1) % v;
          const std::int64_t x = col0 + (brk == Break::kNoShift ? 0 : s.maps[box.map].shift_elems);
          for (std::uint32_t l = 0; l < 8; ++l)
            for (std::uint32_t i = 0; i < t; ++i) {
              const unsigned char* g = box_addr(s, box.map, x + i, box.y + l, b, e, &errors);
              if (g == nullptr) {
                *why = "a load box leaves its map";
                continue;
              }
              // The element the tile needs: row row0 + p + l V, column col0 + i.
              if (g != src_at(b, row0 + p + l * v, col0 + i)) {
                ++errors;
                *why = "a load box element is not the tile's element";
              }
              const std::uint32_t byte = i * e;
              std::memcpy(&in[phase_chunk_offset(p * 8 + l, byte / 16) + byte % 16], g, e);
            }
        }
        // The CTA's transpose, thread by thread, and its quarter-warps' bank groups.
        for (std::uint32_t tid = 0; tid < 64; ++tid) {
          const std::uint32_t q = tid % 8, k = tid / 8;
          Chunk16 xs[16], ys[16];
          for (std::uint32_t i = 0; i < v; ++i)
            std::memcpy(&xs[i], &in[phase_chunk_offset(i * 8 + q, k)], 16);
          switch (e) {
            case 1:
              transpose_chunks<1>(xs, ys);
              break;
            case 2:
              transpose_chunks<2>(reinterpret_cast<Chunk16(&)[8]>(xs),
                                  reinterpret_cast<Chunk16(&)[8]>(ys));
              break;
            case 4:
              transpose_chunks<4>(reinterpret_cast<Chunk16(&)[4]>(xs),
                                  reinterpret_cast<Chunk16(&)[4]>(ys));
              break;
            default:
              transpose_chunks<8>(reinterpret_cast<Chunk16(&)[2]>(xs),
                                  reinterpret_cast<Chunk16(&)[2]>(ys));
              break;
          }
          for (std::uint32_t j = 0; j < v; ++j)
            std::memcpy(&out[phase_chunk_offset(j * 8 + k, q)], &ys[j], 16);
        }
        if (b == 0 && ty == 0 && tx == 0)
          for (std::uint32_t quarter = 0; quarter < 8; ++quarter)
            for (std::uint32_t i = 0; i < v; ++i) {
              unsigned load_groups = 0, store_groups = 0;
              for (std::uint32_t lane = 0; lane < 8; ++lane) {
                const std::uint32_t tid = quarter * 8 + lane, q = tid % 8, k = tid / 8;
                load_groups |= 1u << ((phase_chunk_offset(i * 8 + q, k) / 16) % 8);
                store_groups |= 1u << ((phase_chunk_offset(i * 8 + k, q) / 16) % 8);
              }
              if (load_groups != 0xFF || store_groups != 0xFF) {
                ++errors;
                *why = "a quarter-warp's shared accesses share a bank group";
              }
            }
        // TMA stores: box p = out lines p, p + V, ... (dst rows col0 + p + l V), T elements
        // from column row0.
        for (std::uint32_t p = 0; p < v; ++p) {
          const PhaseBox box = phase_box(col0, p, v);
          const std::int64_t x = row0 + d.maps[box.map].shift_elems;
          for (std::uint32_t l = 0; l < 8; ++l)
            for (std::uint32_t i = 0; i < t; ++i) {
              unsigned char* g = box_addr(d, box.map, x + i, box.y + l, b, e, &errors);
              if (g == nullptr) {
                *why = "a store box leaves its map";
                continue;
              }
              if (g != dst_at(b, col0 + p + l * v, row0 + i)) {
                ++errors;
                *why = "a store box element is not the tile's element";
                continue;
              }
              const std::uint32_t byte = i * e;
              std::memcpy(g, &out[phase_chunk_offset(p * 8 + l, byte / 16) + byte % 16], e);
            }
        }
      }
  // The result, and the bytes around and between dst's elements.
  std::int64_t wrong = 0, outside = 0;
  std::vector<bool> is_elem(dst.raw.size(), false);
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t r = 0; r < c.rows; ++r)
      for (std::int64_t col = 0; col < c.cols; ++col) {
        const unsigned char* o = dst_at(b, col, r);
        wrong += std::memcmp(o, src_at(b, r, col), e) != 0;
        for (int k = 0; k < e; ++k)
          is_elem[static_cast<std::size_t>(o + k - dst.raw.data())] = true;
      }
  for (std::size_t i = 0; i < dst.raw.size(); ++i) outside += !is_elem[i] && dst.raw[i] != kPoison;
  if (wrong != 0) *why = std::to_string(wrong) + " dst elements wrong";
  if (outside != 0) *why = std::to_string(outside) + " bytes outside dst's elements written";
  return errors + static_cast<int>(wrong != 0) + static_cast<int>(outside != 0);
}

TEST(Phase, GeometryOfAnOddPitch) {
  // 1-byte rows of 6789 bytes from a 16-byte aligned base: map j starts at the boundary below
  // row j (j * 6789 = 16 * (j * 424) + 5 j), its rows 16 * 6789 apart.
  const PhaseMapGeometry g = phase_map_geometry(0x1000, 12345, 6789, 6789, 1, 3);
  EXPECT_EQ(g.base, 0x1000u + 3u * 6789u - (3u * 6789u) % 16u);
  EXPECT_EQ(g.shift_elems, static_cast<std::int32_t>((3 * 6789) % 16));
  EXPECT_EQ(g.row_elems, 6789u + g.shift_elems);
  EXPECT_EQ(g.map_rows, (12345u - 3u + 15u) / 16u);
  EXPECT_EQ(g.row_stride_bytes, 16u * 6789u);
  // 2-byte elements: 8 phases, shifts in whole elements.
  const PhaseMapGeometry h = phase_map_geometry(0x1006, 100, 999, 1001, 2, 5);
  EXPECT_EQ(h.base % 16, 0u);
  EXPECT_EQ(h.base + 2u * h.shift_elems, 0x1006u + 5u * 1001u * 2u);
  EXPECT_EQ(h.row_stride_bytes, 8u * 1001u * 2u);
  // Edge tiles move back: a side of 300 in tiles of 128 starts them at 0, 128, 172.
  EXPECT_EQ(phase_tile_origin(0, 300, 128), 0);
  EXPECT_EQ(phase_tile_origin(1, 300, 128), 128);
  EXPECT_EQ(phase_tile_origin(2, 300, 128), 172);
  EXPECT_EQ(phase_tile_origin(0, 128, 128), 0);
}

TEST(Phase, EmulatedKernelTransposesOddPitchesMisalignedBasesAndBatches) {
  std::vector<Call> calls;
  for (int e : {1, 2, 4, 8}) {
    const std::int64_t t = 128 / e;
    for (auto [r, c] : {std::pair<std::int64_t, std::int64_t>{t, t},
                        {t + 1, 2 * t + 3},
                        {3 * t - 1, t + 5},
                        {2 * t + 7, 2 * t + 9}})
      for (int mis : {0, e, 7 * e % 16, 16 - e}) {
        calls.push_back({r, c, e, 1, 0, 0, 0, 0, mis, (mis * 3) % 16 / e * e});
        // strided: odd leading dimensions on both sides
        calls.push_back({r, c, e, 1, c + 3, r + 5, 0, 0, mis, 0});
      }
    // batches whose strides are 16-byte multiples (the host refuses others), odd pitches
    auto r16 = [e](std::int64_t elems) { return (elems * e + 15) / 16 * 16 / e + 16 / e; };
    calls.push_back(
        {t + 3, t + 1, e, 3, t + 1, t + 3, r16((t + 3) * (t + 1)), r16((t + 1) * (t + 3)), 0, e});
    calls.push_back(
        {2 * t, t + 9, e, 2, 0, 0, r16(2 * t * (t + 9)), r16((t + 9) * 2 * t), 16 - e, 0});
  }
  for (Call& c : calls) {
    std::string why;
    EXPECT_EQ(emulate(c, &why), 0) << name(c) << ": " << why;
  }
}

// The emulation can fail: each deliberate plan error is caught on an odd 1- and 2-byte call.
TEST(Phase, EmulationCatchesABrokenPlan) {
  for (int e : {1, 2}) {
    const Call c{300 / e, 333 / e, e, 1, 0, 0, 0, 0, e, 0};
    for (Break brk : {Break::kNoEdgeMove, Break::kNoShift, Break::kWrongMap}) {
      std::string why;
      EXPECT_GT(emulate(c, &why, brk), 0) << name(c) << " break " << static_cast<int>(brk);
    }
    std::string why;
    EXPECT_EQ(emulate(c, &why), 0) << name(c) << ": " << why;
  }
}

}  // namespace
}  // namespace tmakit
