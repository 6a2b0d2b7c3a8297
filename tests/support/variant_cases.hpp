// The parameter list of the registry-wide GPU tests: every registered technique x every
// element size it supports, printed and named "<token>_<E>B".
#pragma once
#include <ostream>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tmakit/tmakit.hpp>

namespace tmakit::test {

struct VariantCase {
  std::string variant;
  int elem_bytes;
};

inline void PrintTo(const VariantCase& c, std::ostream* os) {
  *os << c.variant << "/" << c.elem_bytes << "B";
}

inline std::vector<VariantCase> all_variant_cases() {
  std::vector<VariantCase> cases;
  for (const VariantInfo& v : variants())
    for (int e : {1, 2, 4, 8, 16})
      if (v.kind != VariantKind::kAccumulate && v.supports_elem_bytes(e))  // accumulate:
        cases.push_back({v.token, e});  // tests/gpu/test_accumulate.cpp
  return cases;
}

inline std::string variant_case_name(const ::testing::TestParamInfo<VariantCase>& p) {
  return p.param.variant + "_" + std::to_string(p.param.elem_bytes) + "B";
}

}  // namespace tmakit::test
