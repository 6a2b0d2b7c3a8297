// The variant registry: every technique (transposes and permutations), what it needs, and its
// launcher. One table a kind; the CLI, the tests, the benchmarks and the dispatcher all iterate
// it (see host/transpose/registry.cpp).
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

// The permutation techniques (permute(), host/permute/): kind kPermute, launched by permute()
// on its reduced problem (permute_transpose has no launcher: permute() hands it to transpose()).
struct PermuteDef {
  VariantInfo info;
  kernels::PermuteLauncher launch = nullptr;
};
const std::vector<PermuteDef>& permute_registry();
const PermuteDef* find_permute_def(const std::string& token);

}  // namespace tmakit
