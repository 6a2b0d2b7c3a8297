// reg_permute's index math (kernels/common/reg_block.hpp), checked on the host: the in-register
// permutation equals the transpose of a K x V block by its definition; the whole kernel,
// emulated on the host with the same functions over byte arrays standing for global memory,
// transposes batches and pitched operands exactly and writes nothing outside the destination;
// and the plan takes exactly the calls whose 16-byte rules hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <kernels/common/reg_block.hpp>
#include <tests/support/emulated_call.hpp>
#include <tests/support/sweep.hpp>

namespace tmakit {
namespace {

// The block's permutation (reg_src_byte) against the transpose written out directly:
//   kWide: input chunk r holds block element (r, c) at byte c*E; the output run holds it at
//          element c*K + r.
//   kTall: the input run holds block element (row j, column c) at element j*K + c; output
//          chunk c holds it at byte j*E.
TEST(RegBlock, PermutationIsTheBlockTranspose) {
  for (RegForm f : {RegForm::kWide, RegForm::kTall})
    for (int e : {1, 2, 4, 8})
      for (int k = kRegMinK; k <= kRegMaxK; ++k) {
        const int v = 16 / e;
        std::vector<int> expect(16 * k, -1);  // output byte -> input byte (chunk * 16 + byte)
        for (int a = 0; a < k; ++a)           // kWide: row r; kTall: column c
          for (int b = 0; b < v; ++b)         // kWide: column c; kTall: row j
            for (int x = 0; x < e; ++x) {
              if (f == RegForm::kWide)
                expect[(b * k + a) * e + x] = a * 16 + b * e + x;
              else
                expect[a * 16 + b * e + x] = (b * k + a) * e + x;
            }
        for (int q = 0; q < k; ++q)
          for (int p = 0; p < 16; ++p) {
            const RegByte s = reg_src_byte(f, k, e, q, p);
            ASSERT_EQ(s.chunk * 16 + s.byte, expect[q * 16 + p])
                << (f == RegForm::kWide ? "wide" : "tall") << " e" << e << " k" << k << " q" << q
                << " p" << p;
          }
      }
}

using Call = test::EmuCall;

RegPlan plan_of(Call& c, std::uintptr_t src = 0, std::uintptr_t dst = 0) {
  c.fill_dense();
  return reg_plan(c.rows, c.cols, c.e, c.batch, c.src_ld, c.dst_ld, c.src_bs, c.dst_bs, src, dst);
}

// The kernel's stores of one block: chunk q of the permuted block (reg_src_byte over `chunk`,
// the block's K loaded chunks) at kWide's dense run (only up to reg_dense_bytes) or kTall's
// line q. false where a store is misaligned or leaves dst.
bool store_block(test::EmuMemory& mem, const RegPlan& p, int e, const RegBlockAt& at,
                 const std::vector<unsigned char>& chunk) {
  const bool wide = p.form == RegForm::kWide;
  const std::int64_t run_bytes = wide ? reg_dense_bytes(p, e, at.j) : 16 * p.k;
  for (int q = 0; q < p.k; ++q) {
    const std::int64_t a = wide ? at.dense + 16 * q : at.strided + q * p.strided_ld_bytes;
    const std::int64_t n = std::min<std::int64_t>(16, run_bytes - 16 * q);  // bytes stored
    if (n <= 0) continue;
    if (a % 16 != 0 || a < 0 || a + n > mem.dst_bytes) return false;
    for (int i = 0; i < n; ++i) {
      const RegByte s = reg_src_byte(p.form, p.k, e, q, i);
      mem.store(a + i, chunk[16 * s.chunk + s.byte]);
    }
  }
  return true;
}

// Emulates reg_permute_kernel block by block: the loads and stores at reg_block_at's offsets,
// the permutation by reg_src_byte. "" when dst equals the transpose and nothing else is written.
// Realigned plans (kWide): each line's 16 bytes from any address, bytes outside the operand's
// span (strided_span_bytes, which must be the operand's) read as zeros as the kernel's load_vec
// does; each dense run stored only up to reg_dense_bytes.
std::string emulate(Call c, std::uintptr_t src_base = 0) {
  const RegPlan p = plan_of(c, src_base);
  if (p.form == RegForm::kNone) return std::string("no plan: ") + p.why_not;
  const int e = c.e, k = p.k;
  test::EmuMemory mem(c);
  const std::int64_t src_bytes = mem.src_bytes;
  if (p.realign && (p.form != RegForm::kWide || p.strided_span_bytes != src_bytes))
    return "realigned plan with the wrong form or span";
  std::vector<unsigned char> chunk(16 * k);
  const std::vector<unsigned char>& src = mem.src;
  const bool wide = p.form == RegForm::kWide;
  for (std::int64_t b = 0; b < p.blocks; ++b) {
    const RegBlockAt at = reg_block_at(p, b);
    for (int x = 0; x < k; ++x) {  // load chunk x
      const std::int64_t a = wide ? at.strided + x * p.strided_ld_bytes : at.dense + 16 * x;
      if (p.realign) {
        for (int i = 0; i < 16; ++i)
          chunk[16 * x + i] = a + i >= 0 && a + i < src_bytes ? src[a + i] : 0;
        continue;
      }
      if (a % 16 != 0 || a < 0 || a + 16 > src_bytes)
        return "load out of place at block " + std::to_string(b);
      for (int i = 0; i < 16; ++i) chunk[16 * x + i] = src[a + i];
    }
    if (!store_block(mem, p, e, at, chunk))
      return "store out of place at block " + std::to_string(b);
  }
  return mem.check_transpose(c);
}

TEST(RegBlock, EmulatedKernelTransposesExactly) {
  std::vector<Call> calls;
  for (int e : {1, 2, 4, 8}) {
    const std::int64_t v = 16 / e;
    for (std::int64_t k : {2, 3, 7, 16, 31, 32}) {
      calls.push_back({k, 48 * v, e});  // kWide
      calls.push_back({48 * v, k, e});  // kTall
    }
    calls.push_back({16, 3 * v, e, 5});                                  // a batch, kWide
    calls.push_back({32, 32 / v * v, e, 7});                             // batch of squares
    calls.push_back({5 * v, 9, e, 3});                                   // a batch, kTall
    calls.push_back({7, 4 * v, e, 3, 6 * v, 0, 44 * v, 40 * v});         // pitched src, gaps
    calls.push_back({4 * v, 6, e, 2, 0, 5 * v, 30 * v, 7 * 5 * v + v});  // pitched dst, gaps
  }
  for (const Call& c : calls) {
    Call cc = c;
    EXPECT_EQ(emulate(cc), "") << c.batch << "x" << c.rows << "x" << c.cols << " e" << c.e;
  }
}

// Realigned reads (kWide at 1 B whose src lines break the 16-byte rules): odd long sides (each
// matrix's last block a tail), odd pitches and batch strides, and src bases off 16 bytes, at
// every K form (blocks per thread 4 / 2 / 1, odd and even K, 32). At 2-8 B the same calls get
// no plan (smem_flat runs them).
TEST(RegBlock, EmulatedRealignedKernelTransposesExactly) {
  int planned = 0;
  for (int e : {1, 2, 4, 8}) {
    const std::int64_t v = 16 / e;
    for (std::int64_t k : {2, 3, 7, 12, 16, 31, 32}) {
      std::vector<std::pair<Call, std::uintptr_t>> calls = {
          {{k, 40 * v + 1, e}, 0},                           // one element past whole chunks
          {{k, 40 * v + v - 1, e}, 0},                       // one short of them
          {{k, 40 * v, e, 1, 40 * v + 1}, 0},                // an odd pitch
          {{k, 33 * v, e}, std::uintptr_t(e)},               // src off 16 bytes
          {{k, 40 * v + 3 % v, e, 3, 0, 0, 0, 0}, 0},        // a batch (dense side may break)
          {{k, 48 * v, e, 2, 0, 0, k * 48 * v + 1, 0}, 0}};  // an odd src batch stride
      for (auto& [c, base] : calls) {
        Call cc = c;
        const RegPlan p = plan_of(cc, base);
        if (e > 1) {
          EXPECT_EQ(p.form, RegForm::kNone) << k << "x" << c.cols << " e" << e;
          continue;
        }
        if (p.form == RegForm::kNone) {  // only where the dense side breaks its rules
          EXPECT_TRUE(c.batch > 1 && k * cc.cols * e % 16 != 0)
              << k << "x" << c.cols << " e" << e << ": " << p.why_not;
          continue;
        }
        EXPECT_TRUE(p.realign) << k << "x" << c.cols << " e" << e;
        planned += p.realign;
        EXPECT_EQ(emulate(c, base), "")
            << c.batch << "x" << c.rows << "x" << c.cols << " e" << e << " base " << base;
      }
    }
  }
  EXPECT_GT(planned, 30);
}

TEST(RegBlock, PlanTakesOnlyCallsItsChunksFit) {
  Call wide{16, 4000000, 2}, tall{4000000, 7, 1}, both{8, 12, 4, 100};
  EXPECT_EQ(plan_of(wide).form, RegForm::kWide);
  EXPECT_EQ(wide.rows, plan_of(wide).k);
  EXPECT_EQ(plan_of(wide).blocks, 4000000 / 8);
  EXPECT_EQ(plan_of(tall).form, RegForm::kTall);
  EXPECT_EQ(plan_of(both).form, RegForm::kWide);  // both fit: the smaller short side (8 rows)
  Call both_t{12, 8, 4, 100};
  EXPECT_EQ(plan_of(both_t).form, RegForm::kTall);
  EXPECT_EQ(plan_of(both_t).k, 8);

  auto why = [](Call c, std::uintptr_t s = 0, std::uintptr_t d = 0) {
    const RegPlan p = plan_of(c, s, d);
    return p.form == RegForm::kNone ? std::string(p.why_not) : std::string("planned");
  };
  const std::string ok = "planned";
  EXPECT_EQ(why({1, 4096, 1}), "no short side of 2..32 with dense lines on the other operand");
  EXPECT_EQ(why({33, 4096, 1}), "no short side of 2..32 with dense lines on the other operand");
  EXPECT_EQ(why({8, 4096, 16}), "element size not 1, 2, 4 or 8 bytes");
  // kWide reads a src that breaks the 16-byte rules through realigned vectors (realign).
  auto realigned = [](Call c, std::uintptr_t s = 0) { return plan_of(c, s).realign; };
  // kWide at 1 B reads a src that breaks the 16-byte rules through realigned vectors.
  EXPECT_EQ(why({8, 4096 + 1, 1}), ok);
  EXPECT_TRUE(realigned({8, 4096 + 1, 1}));
  Call odd_n{8, 4096 + 3, 1};
  EXPECT_EQ(plan_of(odd_n).tail_elems, 3);
  EXPECT_EQ(why({8, 4096 + 16, 1}), ok);
  EXPECT_FALSE(realigned({8, 4096 + 16, 1}));
  EXPECT_EQ(why({8, 4096, 1}, 1, 0), ok);
  EXPECT_TRUE(realigned({8, 4096, 1}, 1));
  EXPECT_EQ(why({8, 4096, 1}, 0, 8), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 1, 1, 4100}), ok);
  EXPECT_TRUE(realigned({8, 4096, 1, 1, 4100}));
  EXPECT_EQ(why({8, 4096, 1, 1, 4112}), ok);
  EXPECT_FALSE(realigned({8, 4096, 1, 1, 4112}));
  EXPECT_EQ(why({8, 4096, 1, 3, 0, 0, 8 * 4096 + 4}), ok);
  // ... but not at 2-8 B, nor with under 32 blocks per matrix, nor a dense side off 16 bytes,
  // nor kTall.
  EXPECT_EQ(why({8, 4096 + 1, 2}), "long side not a whole number of 16-byte chunks");
  EXPECT_EQ(why({8, 4096, 2}, 2, 0), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 2, 1, 4100}), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 2, 1, 4104}), ok);
  EXPECT_EQ(why({8, 4096, 2, 1, 0, 9}),
            "no short side of 2..32 with dense lines on the other operand");
  EXPECT_EQ(why({8, 4096, 2, 3, 0, 0, 8 * 4096 + 4}),
            "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 31 * 16 - 1, 1}),
            "long side not a whole number of 16-byte chunks (and under 32 of them)");
  EXPECT_EQ(why({8, 32 * 16 - 1, 1}), ok);
  EXPECT_EQ(why({7, 4096 + 1, 1, 3}), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({4096 + 1, 8, 1}), "long side not a whole number of 16-byte chunks");
  EXPECT_EQ(why({4096, 8, 2, 3, 0, 0, 0, 8 * 4096 + 8}), ok);
  EXPECT_EQ(why({4096, 8, 2, 1, 0, 4100}),
            "a base, pitch or batch stride not a multiple of 16 bytes");
}

// The realigned kernel's lane -> block map (reg_realign_block): live lanes cover every block of
// every matrix once, and each live lane's next lane holds the next block of the same matrix
// (the vector its shuffle takes), at batch and block counts around whole warps of 30.
TEST(RegBlock, RealignedWarpsCoverEveryBlockOnceWithTheirNeighbours) {
  for (std::int64_t batch : {1, 3, 7})
    for (std::int64_t cols : {32 * 16 + 1, 30 * 16 * 2 - 1, 30 * 16 * 2 + 5, 61 * 16 - 3}) {
      Call c{16, cols, 1, batch};  // 16 rows at 1 B: dense batch strides of 16-byte multiples
      const RegPlan p = plan_of(c);
      ASSERT_TRUE(p.realign) << batch << "x16x" << cols;
      std::vector<int> seen(p.blocks, 0);
      for (std::int64_t w = 0; w < p.realign_warps + 1; ++w)
        for (int lane = 0; lane < 32; ++lane) {
          const RegRealignAt r = reg_realign_block(p, w, lane);
          if (!r.live) continue;
          ASSERT_LT(w, p.realign_warps);
          ASSERT_TRUE(r.m >= 0 && r.m < batch && r.j >= 0 && r.j < p.blocks_per_matrix);
          ++seen[r.m * p.blocks_per_matrix + r.j];
          const RegRealignAt next = reg_realign_block(p, w, lane + 1);
          EXPECT_TRUE(lane + 1 < 32 && next.m == r.m && next.j == r.j + 1) << w << " " << lane;
          EXPECT_EQ(reg_realign_at(p, next).strided, reg_realign_at(p, r).strided + 16);
        }
      for (std::int64_t b = 0; b < p.blocks; ++b)
        ASSERT_EQ(seen[b], 1) << batch << "x16x" << cols << " block " << b;
    }
}

// The realigned kernel's data path, warp by warp as reg_permute_kernel<..., R = true> runs it
// (load_realigned): every lane of warp w (reg_realign_block, live or not) loads the aligned
// vector under each of its K lines, a vector wholly inside the operand's span as it is, one that
// crosses the span's ends element by element with zeros outside (load_edge); a live lane's line
// is bytes s..s+15 of its vector and the next lane's (the shuffle; lane 31 gets its own), s the
// line's address mod 16; live lanes store their dense run up to reg_dense_bytes. Unlike
// emulate(), no line is read from its own address: a next lane that held a different line
// would show. "" when dst is the transpose and nothing else is written.
std::string emulate_realigned_warps(Call c, std::uintptr_t src_base) {
  const RegPlan p = plan_of(c, src_base);
  if (p.form != RegForm::kWide || !p.realign) return "not a realigned plan";
  const int k = p.k;
  test::EmuMemory mem(c);
  const std::int64_t lo = static_cast<std::int64_t>(src_base), hi = lo + p.strided_span_bytes;
  if (p.strided_span_bytes != mem.src_bytes) return "strided_span_bytes is not the operand's";
  auto byte_at = [&](std::int64_t a) -> unsigned char {  // absolute address; zeros outside
    return a >= lo && a < hi ? mem.src[a - lo] : 0;
  };
  std::vector<unsigned char> vec(32 * 16 * k), chunk(16 * k);
  for (std::int64_t w = 0; w < p.realign_warps; ++w) {
    RegRealignAt r[32];
    RegBlockAt at[32];
    for (int lane = 0; lane < 32; ++lane) {  // every lane loads
      r[lane] = reg_realign_block(p, w, lane);
      at[lane] = reg_realign_at(p, r[lane]);
      for (int x = 0; x < k; ++x) {
        const std::int64_t v0 = (lo + at[lane].strided + x * p.strided_ld_bytes) & ~15LL;
        for (int i = 0; i < 16; ++i) vec[(lane * k + x) * 16 + i] = byte_at(v0 + i);
      }
    }
    for (int lane = 0; lane < 32; ++lane) {
      if (!r[lane].live) continue;
      const int next = lane < 31 ? lane + 1 : lane;
      for (int x = 0; x < k; ++x) {
        const int s = static_cast<int>((lo + at[lane].strided + x * p.strided_ld_bytes) & 15);
        for (int i = 0; i < 16; ++i) {
          const int t = s + i;  // byte t of {own vector, next lane's}
          chunk[16 * x + i] =
              t < 16 ? vec[(lane * k + x) * 16 + t] : vec[(next * k + x) * 16 + (t - 16)];
        }
      }
      if (!store_block(mem, p, 1, at[lane], chunk))
        return "store out of place at warp " + std::to_string(w) + " lane " + std::to_string(lane);
    }
  }
  return mem.check_transpose(c);
}

// A seeded sweep of the class the realigned reads take (k x N at 1 B, k in 2..32, at least 32
// blocks per matrix, src lines off the 16-byte rules by their length, pitch, batch stride or
// base; dst dense with batch strides of 16-byte multiples, gaps included), through both
// emulations: the index math (emulate) and the warp data path (emulate_realigned_warps).
TEST(RegBlock, SweptRealignedCallsTransposeExactly) {
  test::SweepPicker pick;  // kSweepSeed
  int realigned = 0;
  for (int t = 0; t < 400; ++t) {
    Call c{pick(2, 32), pick(31 * 16 + 1, 2600), 1};
    if (pick(0, 2) == 0) c.batch = pick(2, 4);
    if (pick(0, 1)) c.src_ld = c.cols + pick(0, 40);
    const std::int64_t src_ld = c.src_ld ? c.src_ld : c.cols;
    if (c.batch > 1 && pick(0, 1)) c.src_bs = c.rows * src_ld + pick(0, 35);
    if (c.batch > 1) c.dst_bs = (c.rows * c.cols + 15) / 16 * 16 + 16 * pick(0, 2);
    const std::uintptr_t base = pick(0, 3) == 0 ? 0 : static_cast<std::uintptr_t>(pick(0, 15));
    Call cc = c;
    const RegPlan p = plan_of(cc, base);
    const std::string what = std::to_string(c.batch) + "x" + std::to_string(c.rows) + "x" +
                             std::to_string(c.cols) + " ld " + std::to_string(c.src_ld) + " bs " +
                             std::to_string(c.src_bs) + "/" + std::to_string(c.dst_bs) + " base " +
                             std::to_string(base);
    ASSERT_EQ(p.form, RegForm::kWide) << what << ": " << p.why_not;
    EXPECT_EQ(emulate(c, base), "") << what;
    if (!p.realign) continue;  // every 16-byte rule held: the aligned loads, checked above
    ++realigned;
    EXPECT_EQ(emulate_realigned_warps(c, base), "") << what;
  }
  EXPECT_GT(realigned, 300);
}

TEST(RegBlock, ThreadsKeepEightChunksInFlight) {
  for (int k = kRegMinK; k <= kRegMaxK; ++k) {
    EXPECT_GE(reg_blocks_per_thread(k) * k, 8) << k;
    EXPECT_LT((reg_blocks_per_thread(k) - 1) * k, 8) << k;
  }
}

}  // namespace
}  // namespace tmakit
