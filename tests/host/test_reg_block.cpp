// reg_permute's index math (kernels/common/reg_block.hpp), checked on the host: the in-register
// permutation equals the transpose of a K x V block by its definition; the whole kernel,
// emulated on the host with the same functions over byte arrays standing for global memory,
// transposes batches and pitched operands exactly and writes nothing outside the destination;
// and the plan takes exactly the calls whose 16-byte rules hold.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <kernels/common/reg_block.hpp>
#include <tests/support/emulated_call.hpp>

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

// Emulates reg_permute_kernel block by block: the loads and stores at reg_block_at's offsets,
// the permutation by reg_src_byte. "" when dst equals the transpose and nothing else is written.
std::string emulate(Call c) {
  const RegPlan p = plan_of(c);
  if (p.form == RegForm::kNone) return std::string("no plan: ") + p.why_not;
  const int e = c.e, k = p.k;
  test::EmuMemory mem(c);
  const std::int64_t src_bytes = mem.src_bytes, dst_bytes = mem.dst_bytes;
  std::vector<unsigned char> chunk(16 * k);
  const std::vector<unsigned char>& src = mem.src;
  const bool wide = p.form == RegForm::kWide;
  for (std::int64_t b = 0; b < p.blocks; ++b) {
    const RegBlockAt at = reg_block_at(p, b);
    for (int x = 0; x < k; ++x) {  // load chunk x
      const std::int64_t a = wide ? at.strided + x * p.strided_ld_bytes : at.dense + 16 * x;
      if (a % 16 != 0 || a < 0 || a + 16 > src_bytes)
        return "load out of place at block " + std::to_string(b);
      for (int i = 0; i < 16; ++i) chunk[16 * x + i] = src[a + i];
    }
    for (int q = 0; q < k; ++q) {  // store chunk q
      const std::int64_t a = wide ? at.dense + 16 * q : at.strided + q * p.strided_ld_bytes;
      if (a % 16 != 0 || a < 0 || a + 16 > dst_bytes)
        return "store out of place at block " + std::to_string(b);
      for (int i = 0; i < 16; ++i) {
        const RegByte s = reg_src_byte(p.form, k, e, q, i);
        mem.store(a + i, chunk[16 * s.chunk + s.byte]);
      }
    }
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
  EXPECT_EQ(why({8, 4096 + 1, 2}), "long side not a whole number of 16-byte chunks");
  EXPECT_EQ(why({8, 4096 + 8, 2}), ok);
  EXPECT_EQ(why({8, 4096, 2}, 2, 0), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 2}, 0, 8), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 2, 1, 4100}), "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({8, 4096, 2, 1, 4104}), ok);
  EXPECT_EQ(why({8, 4096, 2, 1, 0, 9}),
            "no short side of 2..32 with dense lines on the other operand");
  EXPECT_EQ(why({8, 4096, 2, 3, 0, 0, 8 * 4096 + 4}),
            "a base, pitch or batch stride not a multiple of 16 bytes");
  EXPECT_EQ(why({4096, 8, 2, 3, 0, 0, 0, 8 * 4096 + 8}), ok);
  EXPECT_EQ(why({4096, 8, 2, 1, 0, 4100}),
            "a base, pitch or batch stride not a multiple of 16 bytes");
}

TEST(RegBlock, ThreadsKeepEightChunksInFlight) {
  for (int k = kRegMinK; k <= kRegMaxK; ++k) {
    EXPECT_GE(reg_blocks_per_thread(k) * k, 8) << k;
    EXPECT_LT((reg_blocks_per_thread(k) - 1) * k, 8) << k;
  }
}

}  // namespace
}  // namespace tmakit
