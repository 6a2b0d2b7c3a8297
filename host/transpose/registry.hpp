// The variant registry: every technique, what it needs, and its launcher. One table; the CLI,
// the tests, the benchmarks and the dispatcher all iterate it (see host/transpose/registry.cpp).
#pragma once
#include <vector>
#include <kernels/launchers.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {

struct VariantDef {
  VariantInfo info;
  kernels::Launcher launch = nullptr;
  kernels::Planner plan = nullptr;  // TMA techniques: the tensor maps they need
};

const std::vector<VariantDef>& registry();
const VariantDef* find_variant_def(const std::string& token);

}  // namespace tmakit
