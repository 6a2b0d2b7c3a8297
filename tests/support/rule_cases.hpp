// Shared by the tiled and im2col rule tests (tests/host/test_tensor_map.cpp,
// test_im2col_rules.cpp) and the driver differentials (tests/sm90): one case per rule, broken
// alone and passing at its boundary; the differential's verdict.
#pragma once
#include <cstdio>
#include <functional>
#include <set>
#include <vector>
#include <string>
#include <gtest/gtest.h>
#include <host/tensor_map/fuzz.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit::test {

template <class Spec>
struct RuleCaseOf {
  std::string rule;
  std::function<void(Spec&, int&)> fail;  // breaks exactly `rule`
  std::function<void(Spec&, int&)> pass;  // the boundary value that satisfies it
  std::string needle;                     // text the failure message must contain
  bool rank3 = false;                     // tiled cases: start from the rank-3 base
};

// Applies c.fail to `base` (valid at cc 9.0): exactly one violation, of c.rule, whose message
// holds the needle and the rule id; then c.pass: no violation of c.rule and valid.
template <class Spec>
void expect_broken_alone_and_boundary_passes(const RuleCaseOf<Spec>& c, const TensorMapRule& rule,
                                             const Spec& base) {
  const bool is_error = rule.severity == RuleSeverity::kError;
  Spec s = base;
  int cc = 90;
  ASSERT_TRUE(validate(s, cc).errors.empty()) << validate(s, cc).to_string();
  c.fail(s, cc);
  ValidationReport r = validate(s, cc);
  const auto& hits = is_error ? r.errors : r.warnings;
  ASSERT_EQ(hits.size(), 1u) << r.to_string();
  EXPECT_EQ(std::string(hits[0].rule->id), c.rule);
  EXPECT_NE(hits[0].message.find(c.needle), std::string::npos) << hits[0].message;
  EXPECT_NE(hits[0].message.find(std::string("[") + c.rule + "]"), std::string::npos)
      << hits[0].message;
  if (is_error)
    EXPECT_FALSE(r.ok());
  else
    EXPECT_TRUE(r.errors.empty()) << r.to_string();
  s = base;
  cc = 90;
  c.pass(s, cc);
  r = validate(s, cc);
  EXPECT_FALSE(r.has(c.rule)) << r.to_string();
  EXPECT_TRUE(r.ok()) << r.to_string();
}

// Every rule of `rules` has exactly one case, and no case names a rule outside it.
template <class Spec>
void expect_every_rule_covered(const std::vector<RuleCaseOf<Spec>>& cases,
                               const std::vector<TensorMapRule>& rules) {
  std::set<std::string> covered;
  for (const RuleCaseOf<Spec>& c : cases) covered.insert(c.rule);
  for (const TensorMapRule& r : rules)
    EXPECT_TRUE(covered.count(r.id)) << "no test case for rule " << r.id;
  EXPECT_EQ(covered.size(), rules.size());
}

// The differential's verdict: every case ran, enough valid specs to find false accepts, none
// found, and every stricter case explained by rules marked not driver-enforced.
inline void expect_clean_differential(const char* what, const DifferentialResult& r,
                                      std::uint64_t n, std::uint64_t min_both_accept) {
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  std::printf(
      "%s: %llu cases, both accept %llu, both reject %llu, false accepts %llu, stricter %llu\n",
      what, (unsigned long long)r.cases, (unsigned long long)r.both_accept,
      (unsigned long long)r.both_reject, (unsigned long long)r.false_accepts,
      (unsigned long long)r.stricter);
  for (const auto& [rule, count] : r.stricter_by_rule)
    std::printf("  stricter by rule %-28s %llu\n", rule.c_str(), (unsigned long long)count);
  EXPECT_EQ(r.cases, n);
  EXPECT_GT(r.both_accept, min_both_accept) << "too few valid specs drawn to find false accepts";
  EXPECT_EQ(r.false_accepts, 0u) << r.first_false_accept;
  EXPECT_EQ(r.first_unexpected_stricter, "")
      << "a rule marked driver-enforced was accepted by the driver";
}

}  // namespace tmakit::test
