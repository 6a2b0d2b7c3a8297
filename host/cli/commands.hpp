// The CLI's subcommands; each returns the process exit code.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tmakit::cli {

struct TableOptions {
  std::int64_t rows = 8192;
  std::int64_t cols = 8192;
  int elem_bytes = 4;
  std::string variant;  // empty: every registered variant
  int iters = 20;
  bool json = false;
  // TMA axes: one value for every TMA technique that has the axis, or every value (--axes).
  int swizzle_bytes = -1;  // -1: each technique's default
  std::string barrier;     // "", "ptx" or "cuda_barrier"
  bool all_axes = false;   // a row per swizzle mode x barrier style
};

int run_table(const TableOptions& opt);
int run_list();
int run_tensormap(const std::vector<std::string>& args);  // tmakit tensormap ...
int run_banks(const std::vector<std::string>& args);      // tmakit banks ...
int run_tune(const std::vector<std::string>& args);       // tmakit tune ... (host/cli/plans.cpp)
int run_explain(const std::vector<std::string>& args);    // tmakit explain ...
int run_wisdom(const std::vector<std::string>& args);     // tmakit wisdom FILE
int run_rank(const std::vector<std::string>& args);       // tmakit rank ... (no GPU)
int run_permute(const std::vector<std::string>& args);  // tmakit permute ... (host/cli/permute.cpp)
int run_permute_cases(const std::vector<std::string>& args);  // tmakit permute-cases ...

}  // namespace tmakit::cli
