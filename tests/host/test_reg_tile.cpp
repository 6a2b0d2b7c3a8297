// reg_tile's index math (kernels/common/reg_tile.hpp), checked on the host: the 8 x 8 byte
// transpose against its definition; the block order visits every block of a call once and
// gives each group of H lanes one block column of one band (whole 32-byte dst sectors); the
// whole kernel, emulated over byte arrays standing for global memory, transposes batches and
// pitched operands exactly and writes nothing else; and the plan takes exactly the calls whose
// rules hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <kernels/common/reg_tile.hpp>
#include <tests/support/emulated_call.hpp>
#include <tests/support/sweep.hpp>

namespace tmakit {
namespace {

TEST(RegTile, EightByEightBytesTranspose) {
  for (int seed = 0; seed < 50; ++seed) {
    unsigned char in[8][8];
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        in[i][j] = static_cast<unsigned char>(seed * 131 + i * 37 + j * 11 + i * j);
    Row8 x[8], y[8];
    for (int i = 0; i < 8; ++i) {
      x[i].lo = in[i][0] | in[i][1] << 8 | in[i][2] << 16 | std::uint32_t(in[i][3]) << 24;
      x[i].hi = in[i][4] | in[i][5] << 8 | in[i][6] << 16 | std::uint32_t(in[i][7]) << 24;
    }
    transpose_8x8_bytes(x, y);
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) {
        const std::uint32_t w = i < 4 ? y[j].lo : y[j].hi;
        ASSERT_EQ((w >> (8 * (i % 4))) & 0xFFu, in[i][j])
            << "seed " << seed << " (" << i << ", " << j << ")";
      }
  }
}

using Call = test::EmuCall;

RegTilePlan plan_of(Call& c, std::uintptr_t src = 0, std::uintptr_t dst = 0) {
  c.fill_dense();
  return reg_tile_plan(c.rows, c.cols, c.e, c.batch, c.src_ld, c.dst_ld, c.src_bs, c.dst_bs, src,
                       dst);
}

TEST(RegTile, OrderVisitsEveryBlockOnceAndFillsSectors) {
  for (int e : {1, 2, 4, 8})
    for (std::int64_t nbi : {1, 2, 3, 4, 5, 9, 16})
      for (std::int64_t nbj : {1, 3, 4, 8, 13})
        for (std::int64_t batch : {1, 3}) {
          const std::int64_t b = reg_tile_side(e);
          Call c{nbi * b, nbj * b, e, batch};
          const RegTilePlan p = plan_of(c);
          ASSERT_TRUE(p.ok);
          ASSERT_EQ(p.blocks, std::uint64_t(batch * nbi * nbj));
          const auto h = static_cast<std::uint32_t>(reg_tile_band(e));
          std::set<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> seen;
          for (std::uint64_t n = 0; n < p.blocks; ++n) {
            const RegTileAt at = reg_tile_at(p, n, h);
            ASSERT_LT(at.bi, p.nbi);
            ASSERT_LT(at.bj, p.nbj);
            ASSERT_LT(at.m, std::uint64_t(batch));
            ASSERT_TRUE(seen.insert({at.m, at.bi, at.bj}).second) << "block visited twice";
          }
          // In a full band, lanes n .. n + h - 1 (n a multiple of h) share m and bj and take
          // the band's h block rows in order: together h * W = 32 bytes of each dst row.
          if (nbi % h == 0)
            for (std::uint64_t n = 0; n < p.blocks; n += h) {
              const RegTileAt first = reg_tile_at(p, n, h);
              ASSERT_EQ(first.bi % h, 0u);
              for (std::uint32_t k = 1; k < h; ++k) {
                const RegTileAt at = reg_tile_at(p, n + k, h);
                ASSERT_EQ(at.m, first.m);
                ASSERT_EQ(at.bj, first.bj);
                ASSERT_EQ(at.bi, first.bi + k);
              }
            }
        }
}

// Emulates reg_tile_kernel block by block: B loads of W bytes at the kernel's addresses, the
// block transposed by the same functions, B stores. "" when dst equals the transpose and
// nothing else is written.
std::string emulate(Call c) {
  const RegTilePlan p = plan_of(c);
  if (!p.ok) return std::string("no plan: ") + p.why_not;
  const int e = c.e, B = reg_tile_side(e), W = reg_tile_access_bytes(e);
  const auto h = static_cast<std::uint32_t>(reg_tile_band(e));
  test::EmuMemory mem(c);
  const std::int64_t src_bytes = mem.src_bytes, dst_bytes = mem.dst_bytes;
  const std::vector<unsigned char>& src = mem.src;
  for (std::uint64_t n = 0; n < p.blocks; ++n) {
    const RegTileAt at = reg_tile_at(p, n, h);
    const std::int64_t s = std::int64_t(at.m) * p.src_bs_bytes +
                           std::int64_t(at.bi) * B * p.src_ld_bytes + std::int64_t(at.bj) * W;
    const std::int64_t d = std::int64_t(at.m) * p.dst_bs_bytes +
                           std::int64_t(at.bj) * B * p.dst_ld_bytes + std::int64_t(at.bi) * W;
    unsigned char rows_in[16][16], rows_out[16][16];
    for (int i = 0; i < B; ++i) {
      const std::int64_t a = s + i * p.src_ld_bytes;
      if (a % W != 0 || a < 0 || a + W > src_bytes)
        return "load out of place at block " + std::to_string(n);
      for (int x = 0; x < W; ++x) rows_in[i][x] = src[a + x];
    }
    auto word = [](const unsigned char* b) {
      return b[0] | b[1] << 8 | b[2] << 16 | std::uint32_t(b[3]) << 24;
    };
    auto unword = [](std::uint32_t w, unsigned char* b) {
      for (int x = 0; x < 4; ++x) b[x] = static_cast<unsigned char>(w >> (8 * x));
    };
    if (e == 1) {
      Row8 x[8], y[8];
      for (int i = 0; i < 8; ++i) x[i] = {word(rows_in[i]), word(rows_in[i] + 4)};
      transpose_8x8_bytes(x, y);
      for (int j = 0; j < 8; ++j) {
        unword(y[j].lo, rows_out[j]);
        unword(y[j].hi, rows_out[j] + 4);
      }
    } else {
      Chunk16 x[8], y[8];
      for (int i = 0; i < B; ++i)
        for (int k = 0; k < 4; ++k) x[i].w[k] = word(rows_in[i] + 4 * k);
      if (e == 2)
        transpose_chunks<2>(reinterpret_cast<Chunk16(&)[8]>(x), reinterpret_cast<Chunk16(&)[8]>(y));
      if (e == 4)
        transpose_chunks<4>(reinterpret_cast<Chunk16(&)[4]>(x), reinterpret_cast<Chunk16(&)[4]>(y));
      if (e == 8)
        transpose_chunks<8>(reinterpret_cast<Chunk16(&)[2]>(x), reinterpret_cast<Chunk16(&)[2]>(y));
      for (int j = 0; j < B; ++j)
        for (int k = 0; k < 4; ++k) unword(y[j].w[k], rows_out[j] + 4 * k);
    }
    for (int j = 0; j < B; ++j) {
      const std::int64_t a = d + j * p.dst_ld_bytes;
      if (a % W != 0 || a < 0 || a + W > dst_bytes)
        return "store out of place at block " + std::to_string(n);
      for (int x = 0; x < W; ++x) {
        mem.store(a + x, rows_out[j][x]);
      }
    }
  }
  return mem.check_transpose(c);
}

TEST(RegTile, EmulatedKernelTransposesExactly) {
  std::vector<Call> calls;
  for (int e : {1, 2, 4, 8}) {
    const std::int64_t b = reg_tile_side(e), w = reg_tile_access_bytes(e) / e;  // w: W in elements
    calls.push_back({32, 32, e, 5});        // the batch it is for
    calls.push_back({5 * b, 3 * b, e, 4});  // a short band, narrow matrices
    calls.push_back({b, 9 * b, e, 2});      // one block row
    calls.push_back({13 * b, b, e});        // one block column
    calls.push_back(
        {6 * b, 4 * b, e, 3, 4 * b + w, 0, (6 * b + 1) * (4 * b + w), 0});  // pitched src
    calls.push_back({4 * b, 2 * b, e, 2, 0, 4 * b + 2 * w, 0, 2 * b * (4 * b + 2 * w) + w});  // dst
  }
  for (const Call& c : calls) {
    Call cc = c;
    EXPECT_EQ(emulate(cc), "") << c.batch << "x" << c.rows << "x" << c.cols << " e" << c.e;
  }
}

// A seeded sweep of the calls reg_tile takes: sides of 1..40 blocks, batches of 1..60, pitches
// and batch strides padded by whole block rows (W bytes) or by any element count; a planned call
// transposes exactly, and a refused one breaks a rule the plan names.
TEST(RegTile, SweptCallsTransposeExactly) {
  test::SweepPicker pick;  // kSweepSeed
  const int sizes[] = {1, 2, 4, 8};
  int planned = 0;
  for (int t = 0; t < 400; ++t) {
    const int e = sizes[pick(0, 3)];
    const std::int64_t b = reg_tile_side(e), w = reg_tile_access_bytes(e) / e;
    Call c{b * pick(1, 40), b * pick(1, 40), e, pick(1, 60)};
    if (c.rows * c.cols * c.batch > 400000) c.batch = 1;
    const bool any = pick(0, 3) == 0;  // pads of any element count (the plan may refuse)
    auto pad = [&] { return any ? pick(0, 9) : w * pick(0, 3); };
    if (pick(0, 1)) {
      c.src_ld = c.cols + pad();
      c.dst_ld = c.rows + pad();
      if (c.batch > 1) {
        c.src_bs = c.rows * c.src_ld + pad();
        c.dst_bs = c.cols * c.dst_ld + pad();
      }
    }
    Call cc = c;
    const RegTilePlan p = plan_of(cc);
    const std::string what = std::to_string(c.batch) + "x" + std::to_string(c.rows) + "x" +
                             std::to_string(c.cols) + " e" + std::to_string(e) + " ld " +
                             std::to_string(c.src_ld) + "/" + std::to_string(c.dst_ld) + " bs " +
                             std::to_string(c.src_bs) + "/" + std::to_string(c.dst_bs);
    if (!p.ok) {
      EXPECT_TRUE(any) << what << ": " << p.why_not;  // whole block rows always fit
      continue;
    }
    ++planned;
    EXPECT_EQ(emulate(c), "") << what;
  }
  EXPECT_GT(planned, 250);
}

TEST(RegTile, PlanTakesOnlyCallsItsBlocksFit) {
  auto why = [](Call c, std::uintptr_t s = 0, std::uintptr_t d = 0) {
    const RegTilePlan p = plan_of(c, s, d);
    return p.ok ? std::string("planned") : std::string(p.why_not);
  };
  const std::string ok = "planned",
                    sides =
                        "a side not a whole number of blocks (8 elements at "
                        "1-2 B, 4 at 4 B, 2 at 8 B)",
                    align = "a base, pitch or batch stride not a multiple of the block's row bytes";
  EXPECT_EQ(why({32, 32, 1, 16384}), ok);
  EXPECT_EQ(why({32, 32, 16}), "element size not 1, 2, 4 or 8 bytes");
  EXPECT_EQ(why({97, 75, 2, 3000}), sides);
  EXPECT_EQ(why({32, 36, 1}), sides);
  EXPECT_EQ(why({32, 36, 4}), ok);           // 4 B: blocks of 4
  EXPECT_EQ(why({30, 36, 8}), ok);           // 8 B: blocks of 2
  EXPECT_EQ(why({32, 32, 1}, 4, 0), align);  // 1 B: 8-byte rows
  EXPECT_EQ(why({32, 32, 1}, 8, 24), ok);
  EXPECT_EQ(why({32, 32, 2}, 8, 0), align);   // 2 B: 16-byte rows
  EXPECT_EQ(why({32, 32, 1, 1, 36}), align);  // src pitch 36 bytes
  EXPECT_EQ(why({32, 32, 1, 1, 40}), ok);
  EXPECT_EQ(why({32, 32, 2, 1, 0, 36}), align);              // dst pitch 72 bytes
  EXPECT_EQ(why({32, 32, 2, 3, 0, 0, 32 * 32 + 4}), align);  // batch stride
  EXPECT_EQ(why({32, 32, 2, 3, 0, 0, 32 * 32 + 8}), ok);
  EXPECT_EQ(why({0, 32, 2}), "an empty call");
  // A batch of several dimensions (a permutation's tile form): each further stride aligned too.
  auto several = [](int e, std::int64_t s1, std::int64_t d1, std::int64_t s2, std::int64_t d2) {
    BatchStrides st;
    st.batch = 5 * 3 * 2;
    st.batch_n0 = 5;
    st.batch_n1 = 3;
    st.src_ld_elems = st.dst_ld_elems = 64;
    st.src_batch_elems = st.dst_batch_elems = 64 * 64;
    st.src_batch1_elems = s1;
    st.dst_batch1_elems = d1;
    st.src_batch2_elems = s2;
    st.dst_batch2_elems = d2;
    return reg_tile_plan(64, 64, e, st.batch, st.src_ld_elems, st.dst_ld_elems, st.src_batch_elems,
                         st.dst_batch_elems, 0, 0, reg_tile_batch_strides_bytes_or(st, e))
        .ok;
  };
  EXPECT_TRUE(several(2, 8 * 4096, 8 * 4096, 24 * 4096, 24 * 4096));
  EXPECT_FALSE(several(2, 8 * 4096 + 4, 8 * 4096, 24 * 4096, 24 * 4096));  // 8 bytes off
  EXPECT_FALSE(several(2, 8 * 4096, 8 * 4096, 24 * 4096, 24 * 4096 + 2));
  EXPECT_TRUE(several(1, 8, 16, 24, 32));   // 1 B: 8-byte rows
  EXPECT_FALSE(several(1, 8, 16, 24, 36));  // 36 bytes
  EXPECT_TRUE(several(8, 2, 4, 6, 8));      // 8 B: every stride a 16-byte multiple
  EXPECT_FALSE(several(8, 2, 4, 7, 8));
  BatchStrides one;  // one dimension: nothing more to check
  one.src_batch1_elems = 3;
  EXPECT_EQ(reg_tile_batch_strides_bytes_or(one, 2), 0);
}

}  // namespace
}  // namespace tmakit
