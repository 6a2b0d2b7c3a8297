// Every TMA technique x swizzle mode x barrier style x element size x shape, bit for bit with
// poison and guard bands (tests/support/harness.hpp). Each call must say what ran: the TMA
// technique itself where both row pitches are multiples of 16 bytes, else its classic fallback
// with a reason naming the tensor-map rule. Plus the fallback switches, on the H100 itself.
#include <cstdlib>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/device.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/wisdom.hpp>
#include <tests/support/ranking.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/scoped_env.hpp>
#include <tmakit/plan.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

struct TmaCase {
  std::string variant;
  int swizzle_bytes;
  TmaBarrier barrier;
  int elem_bytes;
};

std::string case_name(const TmaCase& c) {
  return c.variant + "_sw" + std::to_string(c.swizzle_bytes) + "_" + to_string(c.barrier) + "_" +
         std::to_string(c.elem_bytes) + "B";
}

void PrintTo(const TmaCase& c, std::ostream* os) {
  *os << case_name(c);
}

std::vector<TmaCase> tma_cases() {
  std::vector<TmaCase> cases;
  for (const VariantInfo& v : variants()) {
    if (!v.uses_tma || v.kind == VariantKind::kAccumulate) continue;  // test_accumulate.cpp
    std::vector<TmaBarrier> barriers = {TmaBarrier::kDefault};
    if (v.barrier_axis) barriers = {TmaBarrier::kPtx, TmaBarrier::kCudaBarrier};
    for (int sw : v.swizzle_axis_bytes)
      for (TmaBarrier b : barriers)
        for (int e : {1, 2, 4, 8, 16})
          if (v.supports_elem_bytes(e)) cases.push_back({v.token, sw, b, e});
  }
  return cases;
}

// The foundation's shapes plus shapes whose pitches suit TMA for every element size (all
// multiples of 16) but not any tile: TMA's zero-fill and clipping do the edges.
std::vector<test::Shape> tma_shapes() {
  std::vector<test::Shape> s = test::standard_shapes();
  for (test::Shape extra : {test::Shape{16, 16}, test::Shape{16, 4096}, test::Shape{4096, 16},
                            test::Shape{48, 80}, test::Shape{1040, 2000}, test::Shape{4112, 2064}})
    s.push_back(extra);
  return s;
}

bool tma_can_run(std::int64_t rows, std::int64_t cols, int elem_bytes) {
  return (rows * elem_bytes) % 16 == 0 && (cols * elem_bytes) % 16 == 0;
}

class TmaTranspose : public ::testing::TestWithParam<TmaCase> {};

TEST_P(TmaTranspose, MatchesReferenceAndSaysWhatRan) {
  TMAKIT_NEED_GPU(90);
  const TmaCase& c = GetParam();
  const VariantInfo* info = find_variant(c.variant);
  ASSERT_NE(info, nullptr);
  TransposeOptions opt;
  opt.variant = c.variant;
  opt.swizzle_bytes = c.swizzle_bytes;
  opt.barrier = c.barrier;
  const bool copy = info->kind == VariantKind::kCopy;
  // A build without sm_90 code (tests/sm90/test_build_code.cpp) must fall back on every shape,
  // with that reason.
  const std::string no_tma = tma_unavailable_reason();
  int tma_runs = 0;
  for (const test::Shape& s : tma_shapes()) {
    Status st;
    const std::string err = test::check_transpose(
        s.rows, s.cols, c.elem_bytes, copy, 0, [&](const void* src, void* dst) {
          st = transpose(src, dst, s.rows, s.cols, c.elem_bytes, opt);
          return st;
        });
    const std::string where =
        case_name(c) + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols);
    EXPECT_EQ(err, "") << where;
    if (!no_tma.empty()) {
      EXPECT_EQ(st.variant, test::next_runnable(s.rows, s.cols, c.elem_bytes, opt)) << where;
      EXPECT_EQ(st.fallback_reason, no_tma) << where;
    } else if (tma_can_run(s.rows, s.cols, c.elem_bytes)) {
      EXPECT_EQ(st.variant, c.variant) << where << ": fell back: " << st.fallback_reason;
      EXPECT_EQ(st.fallback_reason, "") << where;
      ++tma_runs;
    } else {
      EXPECT_EQ(st.variant, test::next_runnable(s.rows, s.cols, c.elem_bytes, opt)) << where;
      // A tensor map's stride_multiple_16 rule, or the same rule for a 16-byte vector side.
      EXPECT_NE(st.fallback_reason.find("multiple of 16"), std::string::npos)
          << where << ": reason '" << st.fallback_reason << "'";
    }
  }
  if (no_tma.empty()) EXPECT_GE(tma_runs, 6) << "too few shapes exercised the TMA path";
}

INSTANTIATE_TEST_SUITE_P(Registry, TmaTranspose, ::testing::ValuesIn(tma_cases()),
                         [](const ::testing::TestParamInfo<TmaCase>& p) {
                           return case_name(p.param);
                         });

// --- Fallbacks on an sm_90 device ------------------------------------------------------------

// Sets an environment variable for one scope.
std::string run_auto(std::int64_t rows, std::int64_t cols, int e, const TransposeOptions& opt,
                     Status* st) {
  return test::check_transpose(rows, cols, e, false, 0, [&](const void* src, void* dst) {
    *st = transpose(src, dst, rows, cols, e, opt);
    return *st;
  });
}

// Where `auto` prefers a TMA technique (the decider ranks one first: host/transpose/decider.hpp)
// it runs it when it can; with TMA switched off it runs the ranking's first technique that can
// run the call without the TMA unit, and says why.
TEST(TmaFallback, AutoUsesTmaWhenItCanAndSaysWhyNot) {
  TMAKIT_NEED_GPU(90);
  GpuKey gpu;
  ASSERT_TRUE(current_gpu_key(&gpu).ok());
  DeviceCaps caps;
  ASSERT_TRUE(current_device_caps(&caps).ok());
  int tma_cells = 0;
  for (const auto& [rows, cols] : {std::pair<std::int64_t, std::int64_t>{1040, 2000},
                                   {2048, 2048},
                                   {4096, 4096},
                                   {8192, 2048}})
    for (int e : {1, 2, 4, 8}) {
      Problem problem;
      problem.elem_bytes = e;
      problem.rows = rows;
      problem.cols = cols;
      const Ranking rank = rank_techniques(gpu.name, caps.dram_gbps, problem);
      ASSERT_FALSE(rank.ranked.empty());
      const VariantInfo* preferred = find_variant(rank.ranked[0].first);
      ASSERT_NE(preferred, nullptr);
      const std::string where = std::to_string(rows) + "x" + std::to_string(cols) + " " +
                                std::to_string(e) + " B (table first: " + preferred->token + ")";
      Status st;
      EXPECT_EQ(run_auto(rows, cols, e, {}, &st), "") << where;
      EXPECT_EQ(st.variant, preferred->token) << where;
      EXPECT_EQ(st.fallback_reason, "") << where;
      if (!preferred->uses_tma) continue;
      ++tma_cells;
      std::string classic;  // the ranking's first technique that runs without the TMA unit
      {
        test::ScopedEnv env("TMAKIT_DISABLE_TMA", "1");
        classic = test::next_runnable(rows, cols, e, {});
        ASSERT_NE(classic, "") << where;
        EXPECT_FALSE(find_variant(classic)->uses_tma) << where << ": " << classic;
        EXPECT_EQ(run_auto(rows, cols, e, {}, &st), "") << where;
        EXPECT_EQ(st.variant, classic) << where;
        EXPECT_EQ(st.fallback_reason, "TMA disabled by TMAKIT_DISABLE_TMA=1") << where;
      }
      TransposeOptions off;
      off.allow_tma = false;
      EXPECT_EQ(run_auto(rows, cols, e, off, &st), "") << where;
      EXPECT_EQ(st.variant, classic) << where;
      EXPECT_EQ(st.fallback_reason, "TMA disabled by TransposeOptions::allow_tma = false") << where;
    }
  EXPECT_GT(tma_cells, 0) << "auto never prefers TMA: the fallback path is untested";
}

TEST(TmaFallback, OptionForcesTheClassicPathForEveryTmaTechnique) {
  TMAKIT_NEED_GPU(90);
  for (const VariantInfo& v : variants()) {
    if (!v.uses_tma || v.kind == VariantKind::kAccumulate) continue;  // test_accumulate.cpp
    const int e = v.supports_elem_bytes(4) ? 4 : 16;
    TransposeOptions opt;
    opt.variant = v.token;
    opt.allow_tma = false;
    Status st;
    const bool copy = v.kind == VariantKind::kCopy;
    EXPECT_EQ(test::check_transpose(64, 48, e, copy, 0,
                                    [&](const void* src, void* dst) {
                                      st = transpose(src, dst, 64, 48, e, opt);
                                      return st;
                                    }),
              "")
        << v.token;
    EXPECT_EQ(st.variant, test::next_runnable(64, 48, e, opt)) << v.token;
    EXPECT_EQ(st.fallback_reason, "TMA disabled by TransposeOptions::allow_tma = false");
  }
}

TEST(TmaFallback, PitchNotAMultipleOf16BytesFallsBackAndSaysWhich) {
  TMAKIT_NEED_GPU(90);
  TransposeOptions opt;
  opt.variant = "tma_pipeline";
  Status st;
  auto run = [&](std::int64_t rows, std::int64_t cols) {
    return test::check_transpose(rows, cols, 4, false, 0, [&](const void* src, void* dst) {
      st = transpose(src, dst, rows, cols, 4, opt);
      return st;
    });
  };
  // 4-byte elements, 1001 columns: the source pitch is 4004 bytes.
  EXPECT_EQ(run(64, 1001), "");
  EXPECT_EQ(st.variant, test::next_runnable(64, 1001, 4, opt));
  EXPECT_NE(st.fallback_reason.find("src tensor map"), std::string::npos) << st.fallback_reason;
  EXPECT_NE(st.fallback_reason.find("4004"), std::string::npos) << st.fallback_reason;
  EXPECT_NE(st.fallback_reason.find("stride_multiple_16"), std::string::npos) << st.fallback_reason;
  // 1001 rows: now the destination pitch (4004 bytes) breaks the rule.
  EXPECT_EQ(run(1001, 64), "");
  EXPECT_NE(st.fallback_reason.find("dst tensor map"), std::string::npos) << st.fallback_reason;
  // `auto` with 1-byte elements prefers TMA for 16-byte rows only: with 1001-byte rows it picks
  // a classic technique itself (TMA never ran in its table's odd cells), so there is nothing
  // to fall back from.
  EXPECT_EQ(run_auto(64, 1001, 1, {}, &st), "");
  Plan plan;
  ASSERT_TRUE(make_plan(&plan, 64, 1001, 1).ok());
  EXPECT_EQ(st.variant, plan.variant());
  EXPECT_FALSE(find_variant(st.variant)->uses_tma) << st.variant;
  EXPECT_EQ(st.fallback_reason, "");
}

TEST(TmaFallback, MisalignedPointerFallsBack) {
  TMAKIT_NEED_GPU(90);
  TransposeOptions opt;
  opt.variant = "tma_load_store";
  Status st;
  const std::string err =
      test::check_transpose(64, 64, 4, false, 4, [&](const void* src, void* dst) {
        st = transpose(src, dst, 64, 64, 4, opt);
        return st;
      });
  EXPECT_EQ(err, "");
  EXPECT_FALSE(find_variant(st.variant)->uses_tma) << st.variant;
  EXPECT_NE(st.fallback_reason.find("address_align_16"), std::string::npos) << st.fallback_reason;
}

}  // namespace
}  // namespace tmakit
