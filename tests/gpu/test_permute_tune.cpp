// permute()'s tuning on the device (host/permute/tune.cpp): tune_permute times every technique
// that can run a call and keeps the fastest as wisdom, with dst correct and padding untouched;
// `auto` then runs what the wisdom names (and its rules where the named technique cannot run the
// call); in measure mode (set_default_tuning) a new permutation is measured once and saved to the
// file TMAKIT_WISDOM names.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/gpu.hpp>
#include <tests/support/permute_check.hpp>
#include <tests/support/scoped_env.hpp>
#include <tmakit/permute.hpp>
#include <tmakit/plan.hpp>

namespace tmakit {
namespace {

using Ext = std::vector<std::int64_t>;

struct TuneCase {
  const char* what;
  Ext n;
  std::vector<int> p;
  int e;
  PermuteLayout lay;
};

TransposeOptions as_named(const std::string& token) {
  TransposeOptions o;
  o.variant = token;
  return o;
}

// One case of each form, strided dst with padding among them.
std::vector<TuneCase> tune_cases() {
  return {
      {"tile, odd extents", {8, 9, 10, 11, 12}, {4, 1, 3, 0, 2}, 4, {}},
      {"tile, 16-byte strides (permute_tma runs)", {24, 40, 56, 72}, {3, 2, 1, 0}, 2, {}},
      {"rows", {64, 30, 8, 32}, {1, 0, 2, 3}, 4, {}},
      {"transpose", {4, 96, 80}, {0, 2, 1}, 4, {}},
      {"rank 6", {2, 8, 2, 2, 16, 16}, {0, 1, 4, 2, 5, 3}, 2, {}},
      {"16-byte elements", {6, 5, 7, 9}, {2, 0, 3, 1}, 16, {}},
      {"strided dst with padding",
       {5, 6, 7},
       {2, 0, 1},
       8,
       {{}, {45, 8, 1}}},  // dst (7, 5, 6): rows of 8 elements, planes of 45
  };
}

// The process's default tuning back to the heuristic and the wisdom emptied, whatever a test
// left.
struct TuningGuard {
  ~TuningGuard() {
    set_default_tuning(Tuning::kHeuristic);
    clear_wisdom();
  }
};

// The permutation record's line of exported wisdom (empty: none).
std::string permute_record(const std::string& wisdom) {
  std::istringstream in(wisdom);
  for (std::string line; std::getline(in, line);)
    if (line.find("\tproblem=permute ") != std::string::npos) return line;
  return {};
}

TEST(PermuteTune, TimesEveryTechniqueAndKeepsTheFastest) {
  TMAKIT_NEED_GPU(75);
  TuningGuard guard;
  for (const TuneCase& c : tune_cases()) {
    SCOPED_TRACE(c.what);
    clear_wisdom();
    PermuteTuning t;
    const test::PermuteRun r =
        test::check_permute_call(c.n, c.p, c.e, c.lay, [&](const void* s, void* d) {
          return tune_permute(s, d, c.n, c.p, c.e, c.lay, {}, &t, 2);
        });
    ASSERT_TRUE(r.error.empty()) << r.error;
    ASSERT_FALSE(t.timings.empty());
    EXPECT_EQ(t.variant, t.timings[0].first);
    EXPECT_EQ(t.measured_us, t.timings[0].second);
    EXPECT_GT(t.measured_us, 0);
    std::set<std::string> tokens;
    for (std::size_t i = 0; i < t.timings.size(); ++i) {
      tokens.insert(t.timings[i].first);
      if (i > 0) EXPECT_LE(t.timings[i - 1].second, t.timings[i].second);
    }
    EXPECT_EQ(tokens.size(), t.timings.size()) << "a candidate timed twice";
    EXPECT_EQ(tokens.count("permute_tile"), 1u) << "permute_tile runs every permutation";
    EXPECT_GE(t.timings.size(), 2u);
    const std::string record = permute_record(export_wisdom());
    ASSERT_FALSE(record.empty()) << export_wisdom();
    EXPECT_NE(record.find("\tvariant=" + t.variant + "\t"), std::string::npos) << record;
    // auto now runs what the wisdom names, on other operands of the same alignment: what the
    // technique reports when named (permute_transpose: the transpose() technique it ran).
    const test::PermuteRun named = test::check_permute(c.n, c.p, c.e, c.lay, as_named(t.variant));
    ASSERT_TRUE(named.error.empty()) << named.error;
    EXPECT_EQ(r.status.variant, named.status.variant);
    const test::PermuteRun again = test::check_permute(c.n, c.p, c.e, c.lay, {});
    ASSERT_TRUE(again.error.empty()) << again.error;
    EXPECT_EQ(again.status.variant, named.status.variant);
  }
}

// Wisdom that names another candidate than the fastest is followed; one naming a technique
// that cannot run the call leaves it to the rules.
TEST(PermuteTune, AutoRunsWhatTheWisdomNames) {
  TMAKIT_NEED_GPU(75);
  TuningGuard guard;
  for (const TuneCase& c : tune_cases()) {
    SCOPED_TRACE(c.what);
    clear_wisdom();
    const test::PermuteRun ruled = test::check_permute(c.n, c.p, c.e, c.lay, {});
    ASSERT_TRUE(ruled.error.empty()) << ruled.error;
    PermuteTuning t;
    const test::PermuteRun tuned =
        test::check_permute_call(c.n, c.p, c.e, c.lay, [&](const void* s, void* d) {
          return tune_permute(s, d, c.n, c.p, c.e, c.lay, {}, &t, 1);
        });
    ASSERT_TRUE(tuned.error.empty()) << tuned.error;
    const std::string record = permute_record(export_wisdom());
    ASSERT_FALSE(record.empty());
    // Another candidate than the rules' pick (timed, so it can run the call).
    std::string other;
    for (const auto& [token, us] : t.timings)
      if (token != ruled.status.variant && other.empty()) other = token;
    ASSERT_FALSE(other.empty()) << "one candidate only";
    for (const std::string& named : {other, std::string("permute_tma")}) {
      std::string line = record;
      const std::size_t at = line.find("\tvariant=");
      line.replace(at, line.find('\t', at + 1) - at, "\tvariant=" + named);
      clear_wisdom();
      ASSERT_TRUE(import_wisdom("tmakit-wisdom 1\n" + line + "\nend 1\n", "edited").ok());
      const test::PermuteRun r = test::check_permute(c.n, c.p, c.e, c.lay, {});
      ASSERT_TRUE(r.error.empty()) << named << ": " << r.error;
      bool can_run = false;
      for (const auto& [token, us] : t.timings) can_run = can_run || token == named;
      // permute_tma where it cannot run (odd strides, 16-byte elements): auto's rules.
      const std::string want =
          can_run ? test::check_permute(c.n, c.p, c.e, c.lay, as_named(named)).status.variant
                  : ruled.status.variant;
      EXPECT_EQ(r.status.variant, want) << named;
    }
  }
}

TEST(PermuteTune, MeasureModeMeasuresEachPermutationOnce) {
  TMAKIT_NEED_GPU(75);
  TuningGuard guard;
  clear_wisdom();
  const std::string path = ::testing::TempDir() + "tmakit_permute_measure.wisdom";
  std::remove(path.c_str());
  test::ScopedEnv env("TMAKIT_WISDOM", path.c_str());
  ASSERT_TRUE(set_default_tuning(Tuning::kMeasure).ok());
  const TuneCase c = tune_cases()[0];
  const test::PermuteRun first = test::check_permute(c.n, c.p, c.e, c.lay, {});
  ASSERT_TRUE(first.error.empty()) << first.error;
  const std::string wisdom = export_wisdom();
  const std::string record = permute_record(wisdom);
  ASSERT_FALSE(record.empty()) << "the first call did not measure: " << wisdom;
  const test::PermuteRun second = test::check_permute(c.n, c.p, c.e, c.lay, {});
  ASSERT_TRUE(second.error.empty()) << second.error;
  EXPECT_EQ(second.status.variant, first.status.variant);
  EXPECT_EQ(export_wisdom(), wisdom) << "the second call measured again";
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("problem=permute e4"), std::string::npos) << "not saved to " << path;
  std::remove(path.c_str());
}

TEST(PermuteTune, BadCallsAreRefused) {
  TMAKIT_NEED_GPU(75);
  PermuteTuning t;
  TransposeOptions named;
  named.variant = "permute_tile";
  void* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 1 << 12), cudaSuccess);
  char* b = static_cast<char*>(d);
  const Status not_auto = tune_permute(b, b + 2048, {4, 8}, {1, 0}, 4, {}, named, &t);
  EXPECT_EQ(not_auto.code, StatusCode::kInvalidArgument);
  EXPECT_NE(not_auto.message.find("must be \"auto\""), std::string::npos) << not_auto.message;
  const Status overlap = tune_permute(b, b + 64, {4, 8}, {1, 0}, 4, {}, {}, &t);
  EXPECT_EQ(overlap.code, StatusCode::kInvalidArgument) << overlap.message;
  const Status bad_perm = tune_permute(b, b + 2048, {4, 8}, {0, 0}, 4, {}, {}, &t);
  EXPECT_EQ(bad_perm.code, StatusCode::kInvalidArgument) << bad_perm.message;
  EXPECT_FALSE(tune_permute(b, b + 2048, {4, 8}, {1, 0}, 4, {}, {}, nullptr).ok());
  EXPECT_FALSE(tune_permute(b, b + 2048, {4, 8}, {1, 0}, 4, {}, {}, &t, 0).ok());
  cudaFree(d);
}

}  // namespace
}  // namespace tmakit
