// The shared-memory bank model on patterns with known answers, then on the techniques'
// own index functions (the replay uses kernels/common, as the kernels do).
#include <string>
#include <gtest/gtest.h>
#include <host/bank_model.hpp>

namespace tmakit {
namespace {

WarpAccess strided(std::uint32_t stride_bytes, int active = 32) {
  WarpAccess w{};
  for (int l = 0; l < active; ++l) w[l] = {true, static_cast<std::uint32_t>(l) * stride_bytes};
  return w;
}

TEST(BankModel, KnownPatterns) {
  EXPECT_EQ(shared_wavefronts(strided(4), 4).actual, 1);     // stride-1 words
  EXPECT_EQ(shared_wavefronts(strided(128), 4).actual, 32);  // a 32-word column
  EXPECT_EQ(shared_wavefronts(strided(132), 4).actual, 1);   // the 33-word padded column
  EXPECT_EQ(shared_wavefronts(strided(256), 4).actual, 32);  // 64-word rows: still one bank
  EXPECT_EQ(shared_wavefronts(strided(0), 4).actual, 1);     // one word for all: broadcast
  EXPECT_EQ(shared_wavefronts(strided(8), 4).actual, 2);     // every other word: 2-way
  // 8-byte accesses are served per half-warp, 16-byte per quarter-warp.
  EXPECT_EQ(shared_wavefronts(strided(8), 8).actual, 2);
  EXPECT_EQ(shared_wavefronts(strided(8), 8).ideal, 2);
  EXPECT_EQ(shared_wavefronts(strided(16), 16).actual, 4);
  EXPECT_EQ(shared_wavefronts(strided(16), 16).ideal, 4);
  EXPECT_EQ(shared_wavefronts(strided(128, 8), 16).actual, 8);  // 8 lanes, one bank group
  EXPECT_EQ(shared_wavefronts(strided(1), 1).actual, 1);        // bytes of one word
}

double site(const std::vector<AccessReport>& r, bool store) {
  for (const AccessReport& a : r)
    if (a.is_store == store) return a.per_request();
  ADD_FAILURE() << "no " << (store ? "store" : "load") << " site";
  return -1;
}

std::vector<AccessReport> report(const std::string& token, int e, int sw = 0) {
  std::string why;
  std::vector<AccessReport> r = technique_bank_report(token, e, sw, &why);
  EXPECT_FALSE(r.empty()) << token << ": " << why;
  return r;
}

TEST(BankModel, ClassicLadderFourByte) {
  EXPECT_EQ(site(report("smem", 4), true), 1.0);
  EXPECT_EQ(site(report("smem", 4), false), 32.0);  // the textbook 32-way conflict
  EXPECT_EQ(site(report("smem_padded", 4), false), 1.0);
  EXPECT_EQ(site(report("smem_xor", 4), true), 1.0);  // the seed's XOR swizzle
  EXPECT_EQ(site(report("smem_xor", 4), false), 1.0);
}

TEST(BankModel, ProgrammingGuideInt4Example) {
  EXPECT_EQ(site(report("int4_8x8", 16, 0), true), 8.0);  // 8-way on every column store
  EXPECT_EQ(site(report("int4_8x8", 16, 0), false), 1.0);
  EXPECT_EQ(site(report("int4_8x8", 16, 128), true), 1.0);
  EXPECT_EQ(site(report("int4_8x8", 16, 128), false), 1.0);
}

TEST(BankModel, TmaTileIsIdealWithoutSwizzleAnd128B) {
  for (int e : {1, 2, 4, 8})
    for (int sw : {0, 128}) {
      const auto r = report("tma_load_store", e, sw);
      for (const AccessReport& a : r)
        EXPECT_EQ(a.wavefronts, a.ideal) << e << "B sw" << sw << " " << a.site;
    }
  const auto r32 = report("tma_load_store", 4, 32);
  EXPECT_GT(site(r32, false), 4.0);  // 32B swizzle: conflicts beyond the 4 quarter-warps
}

TEST(BankModel, TechniquesWithoutASharedTransposeSayWhy) {
  std::string why;
  EXPECT_TRUE(technique_bank_report("copy", 4, 0, &why).empty());
  EXPECT_NE(why.find("no shared-memory transpose"), std::string::npos) << why;
}

}  // namespace
}  // namespace tmakit
