// The realign family's index math (kernels/common/realign.hpp), checked on the host:
// smem_realign's phase-2 walk covers every block once, its shared accesses take the ideal
// wavefronts (the stride rule of the kernel file's header), and a realigned chunk is the bytes
// it claims; reg_realign's register-to-OUT writes and phase-3 reads take the ideal wavefronts.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <utility>

#include <host/tools/bank_model.hpp>
#include <kernels/common/realign.hpp>

namespace tmakit {
namespace {

template <int E>
void check_walk() {
  using S = RealignTile<E>;
  std::set<std::pair<int, int>> seen;
  for (int b = 0; b < S::kBlocks; ++b) {
    const RealignBlock at = realign_block<E>(b);
    ASSERT_GE(at.p, 0);
    ASSERT_LT(at.p, S::kRows / S::kBlock) << "E=" << E << " b=" << b;
    ASSERT_GE(at.q, 0);
    ASSERT_LT(at.q, S::kUnitsPerRow) << "E=" << E << " b=" << b;
    seen.insert({at.p, at.q});
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(S::kBlocks)) << "E=" << E;
}

TEST(Realign, PhaseTwoWalkCoversEveryBlockOnce) {
  check_walk<1>();
  check_walk<2>();
  check_walk<4>();
  check_walk<8>();
}

// Every warp of phase 2: read u (kBlock word reads) and write c (kBlock word writes), against
// the ideal wavefront count of its width.
template <int E>
void check_banks() {
  using S = RealignTile<E>;
  for (int w0 = 0; w0 < S::kBlocks; w0 += 32) {
    for (int u = 0; u < S::kBlock; ++u) {
      WarpAccess rd{}, wr{};
      for (int lane = 0; lane < 32; ++lane) {
        const RealignBlock at = realign_block<E>(w0 + lane);
        rd[lane] = {true, static_cast<std::uint32_t>((at.p * S::kBlock + u) * S::kInStride +
                                                     S::kUnit * at.q)};
        wr[lane] = {
            true, static_cast<std::uint32_t>(
                      S::kInBytes + realign_out_offset<E>(at.q * S::kBlock + u, S::kUnit * at.p))};
      }
      const Wavefronts r = shared_wavefronts(rd, S::kUnit), w = shared_wavefronts(wr, S::kUnit);
      ASSERT_EQ(r.actual, r.ideal) << "E=" << E << " reads, warp at block " << w0;
      ASSERT_EQ(w.actual, w.ideal) << "E=" << E << " writes, warp at block " << w0;
    }
  }
}

TEST(Realign, PhaseTwoIsConflictFree) {
  check_banks<1>();
  check_banks<2>();
  check_banks<4>();
  check_banks<8>();
}

// Phase 3: item it = tid + 256 n reads chunk (o0 / 16 + k) of OUT row j = it / kChunks, k =
// it % kChunks, o0 = kPad * E - m for the row's sector offset m: each quarter-warp (8 lanes,
// one wavefront for 16-byte accesses) must hit 8 distinct chunk positions, for every m.
template <int E>
void check_phase3_banks() {
  using S = RealignTile<E>;
  for (int m = 0; m < 32; m += E)
    for (int it0 = 0; it0 < S::kCols * S::kChunks; it0 += 32) {
      WarpAccess rd{};
      for (int lane = 0; lane < 32; ++lane) {
        const int it = it0 + lane, j = it / S::kChunks, k = it % S::kChunks;
        const int o0 = S::kPad * E - m;
        rd[lane] = {true, static_cast<std::uint32_t>(
                              S::kInBytes + realign_out_offset<E>(j, (o0 & ~15) + 16 * k))};
      }
      const Wavefronts r = shared_wavefronts(rd, 16);
      ASSERT_EQ(r.actual, r.ideal) << "E=" << E << " m=" << m << " items at " << it0;
    }
}

TEST(Realign, PhaseThreeReadsAreConflictFree) {
  check_phase3_banks<1>();
  check_phase3_banks<2>();
  check_phase3_banks<4>();
  check_phase3_banks<8>();
}

// A swizzle is a permutation of each OUT row's bytes: none leaves the row, no two share a
// place. offset(row, x): where byte x of OUT row `row` lies.
template <class Offset>
void check_row_permutation(int rows, int stride, Offset offset, int elem_bytes) {
  for (int row = 0; row < rows; ++row) {
    std::set<int> at;
    for (int x = 0; x < stride; ++x) {
      const int off = offset(row, x);
      ASSERT_GE(off, row * stride) << "E=" << elem_bytes << " row " << row;
      ASSERT_LT(off, (row + 1) * stride) << "E=" << elem_bytes << " row " << row;
      at.insert(off);
    }
    ASSERT_EQ(at.size(), static_cast<std::size_t>(stride)) << "E=" << elem_bytes;
  }
}

// check(std::integral_constant<int, E>) for E = 1, 2, 4, 8.
template <class Check>
void for_each_elem_bytes(Check check) {
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
  check(std::integral_constant<int, 4>{});
  check(std::integral_constant<int, 8>{});
}

TEST(Realign, OutSwizzleStaysInItsRow) {
  for_each_elem_bytes([](auto e) {
    constexpr int E = decltype(e)::value;
    using S = RealignTile<E>;
    check_row_permutation(S::kCols, S::kOutStride, realign_out_offset<E>, E);
  });
}

TEST(Realign, ChunkIsTheShiftedBytes) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    std::uint8_t bytes[32];
    std::uint32_t w[8];
    for (int i = 0; i < 32; ++i) bytes[i] = static_cast<std::uint8_t>(rng());
    for (int i = 0; i < 8; ++i)
      w[i] = bytes[4 * i] | bytes[4 * i + 1] << 8 | bytes[4 * i + 2] << 16 |
             std::uint32_t(bytes[4 * i + 3]) << 24;
    for (int s = 0; s < 16; ++s) {
      std::uint32_t out[4], out2[4];
      realign_chunk(w, s, out);
      realign_chunk<true>(w, s, out2);  // the two-level word select (reg_realign)
      for (int i = 0; i < 16; ++i) {
        ASSERT_EQ((out[i / 4] >> (8 * (i % 4))) & 0xFFu, bytes[s + i]) << "s=" << s << " i=" << i;
        ASSERT_EQ((out2[i / 4] >> (8 * (i % 4))) & 0xFFu, bytes[s + i]) << "s=" << s << " i=" << i;
      }
    }
  }
}

TEST(Realign, TileFitsAndOwnsWholeSectors) {
  auto check = [](auto s) {
    using S = decltype(s);
    constexpr int E = 128 / S::kCols;
    EXPECT_EQ(S::kCols * E, 128);              // one 128-byte input row segment
    EXPECT_EQ(S::kOwned * E % 32, 0);          // owned ranges are whole sectors
    EXPECT_GE(S::kPad, 32 / E);                // covers any shift of an output row
    EXPECT_EQ(S::kInStride % 8, 0);            // phase 1 stores 8- or 16-byte halves
    EXPECT_EQ(S::kOutStride % 128, 0);         // whole swizzle groups of 8 chunks
    EXPECT_LE(S::kSmemBytes, 227 * 1024 / 4);  // at least 4 blocks per SM
  };
  check(RealignTile<1>{});
  check(RealignTile<2>{});
  check(RealignTile<4>{});
  check(RealignTile<8>{});
}

// reg_realign's phase 1 writes: lane (g, k) of warp w in pass n holds tile rows i0..i0+3, i0 =
// 128n + 16w + 4g, and writes its transposed block to OUT rows 16k/E + e at bytes E*i0..
// (kernels/classic/reg_realign.cu, transpose_to_out): one instruction per (e, piece), 4E bytes
// per lane (two 16-byte pieces at 8 B). Each must take the ideal wavefronts.
template <int E>
void check_reg_phase1_banks() {
  using S = RegRealignTile<E>;
  constexpr int kWidth = E == 8 ? 16 : 4 * E;  // bytes per lane per store instruction
  constexpr int kPieces = 4 * E / kWidth;
  for (int n = 0; n < S::kRows / 128; ++n)
    for (int w = 0; w < 8; ++w)
      for (int e = 0; e < 16 / E; ++e)
        for (int piece = 0; piece < kPieces; ++piece) {
          WarpAccess wr{};
          std::set<int> rows;
          for (int lane = 0; lane < 32; ++lane) {
            const int k = lane & 7, g = lane >> 3, i0 = 128 * n + 16 * w + 4 * g;
            const int j = 16 / E * k + e;
            rows.insert(j);
            wr[lane] = {true, static_cast<std::uint32_t>(
                                  reg_realign_out_offset<E>(j, E * i0 + kWidth * piece))};
          }
          ASSERT_EQ(rows.size(), 8u);
          const Wavefronts r = shared_wavefronts(wr, kWidth);
          ASSERT_EQ(r.actual, r.ideal) << "E=" << E << " n=" << n << " w=" << w << " e=" << e;
        }
}

TEST(Realign, RegPhaseOneWritesAreConflictFree) {
  check_reg_phase1_banks<1>();
  check_reg_phase1_banks<2>();
  check_reg_phase1_banks<4>();
  check_reg_phase1_banks<8>();
}

// reg_realign's phase 3: item it = tid + 256n, OUT row j = it / kSlots, chunk k = it % kSlots
// (idle at k >= (kRows - pad) * E / 16), reads chunk (o0 & ~15) / 16 + k, o0 = pad * E - m,
// unpadded (m = 0) and padded at every sector offset m; where o0 is not on 16 bytes every active
// lane also reads the next chunk (2026-11-26: no shuffle from the neighbour). Ideal wavefronts
// for each, and every read inside its OUT row.
template <int E>
void check_reg_phase3_banks() {
  using S = RegRealignTile<E>;
  for (int pad : {0, S::kPad})
    for (int m = 0; m < (pad ? 32 : 1); m += E)  // unpadded: every output row on a sector
      for (int it0 = 0; it0 < S::kItems; it0 += 32) {
        const int chunks = (S::kRows - pad) * E / 16;
        WarpAccess rd{}, rx{};
        for (int lane = 0; lane < 32; ++lane) {
          const int it = it0 + lane, j = it / S::kSlots, k = it % S::kSlots;
          const int o0 = pad * E - m, xb = (o0 & ~15) + 16 * k;
          const bool active = k < chunks;
          const bool extra = active && (o0 & 15) != 0;
          if (active)  // inside the row (idle slots read nothing)
            ASSERT_LE(xb + 16 + (extra ? 16 : 0), S::kOutStride) << "E=" << E << " m=" << m;
          rd[lane] = {active, static_cast<std::uint32_t>(reg_realign_out_offset<E>(j, xb))};
          rx[lane] = {extra, static_cast<std::uint32_t>(reg_realign_out_offset<E>(j, xb + 16))};
        }
        const Wavefronts r = shared_wavefronts(rd, 16), x = shared_wavefronts(rx, 16);
        ASSERT_EQ(r.actual, r.ideal) << "E=" << E << " m=" << m << " items at " << it0;
        ASSERT_EQ(x.actual, x.ideal) << "E=" << E << " m=" << m << " items at " << it0;
      }
}

TEST(Realign, RegPhaseThreeReadsAreConflictFree) {
  check_reg_phase3_banks<1>();
  check_reg_phase3_banks<2>();
  check_reg_phase3_banks<4>();
  check_reg_phase3_banks<8>();
}

TEST(Realign, RegTileFitsAndOwnsWholeSectors) {
  for_each_elem_bytes([](auto e) {
    constexpr int E = decltype(e)::value;
    using S = RegRealignTile<E>;
    EXPECT_EQ(S::kCols * E, 128);
    EXPECT_EQ(S::kOwned * E % 32, 0);
    EXPECT_GE(S::kPad * E, 32);    // covers any sector offset, and o0 = kPad * E - m >= 1
    EXPECT_EQ(S::kRows % 128, 0);  // whole passes of 8 warps x 16 rows
    EXPECT_EQ(S::kItems % 256, 0);
    EXPECT_LE(S::kSmemBytes, 227 * 1024 / 5);  // the 5 blocks per SM of its launch bounds
    check_row_permutation(S::kCols, S::kOutStride, reg_realign_out_offset<E>, E);
  });
}

}  // namespace
}  // namespace tmakit
