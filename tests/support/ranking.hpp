// The one decider's invariant, as the tests check it: a plan runs the first technique of its
// ranking (Plan::ranking()) that can run the call. next_runnable() finds that technique by
// asking each entry in turn for a plan of itself (allow_fallback = false), never by a table.
#pragma once
#include <cstdint>
#include <string>
#include <tmakit/plan.hpp>

namespace tmakit::test {

// The technique a call of `opt` runs when opt.variant (a named technique, or "auto") cannot
// run it: the first entry of the plan's ranking, other than opt.variant, that makes a plan of
// itself with these options (TMA axes back to their defaults). "" when the plan cannot be made.
inline std::string next_runnable(std::int64_t rows, std::int64_t cols, int elem_bytes,
                                 const TransposeOptions& opt, const MatrixLayout& layout = {}) {
  Plan plan;
  if (!make_plan(&plan, rows, cols, elem_bytes, layout, opt).ok()) return "";
  for (const std::string& token : plan.ranking()) {
    if (token == opt.variant) continue;
    TransposeOptions o = opt;
    o.variant = token;
    o.allow_fallback = false;
    o.swizzle_bytes = -1;
    o.barrier = TmaBarrier::kDefault;
    Plan p;
    if (make_plan(&p, rows, cols, elem_bytes, layout, o).ok() && p.fallback_reason().empty())
      return token;
  }
  return "";
}

// The same for a transpose-accumulate call.
inline std::string next_runnable_accumulate(std::int64_t rows, std::int64_t cols, DataType type,
                                            double alpha, double beta,
                                            const TransposeOptions& opt) {
  Plan plan;
  if (!make_accumulate_plan(&plan, rows, cols, type, alpha, beta, {}, opt).ok()) return "";
  for (const std::string& token : plan.ranking()) {
    if (token == opt.variant) continue;
    TransposeOptions o = opt;
    o.variant = token;
    o.allow_fallback = false;
    o.swizzle_bytes = -1;
    o.barrier = TmaBarrier::kDefault;
    Plan p;
    if (make_accumulate_plan(&p, rows, cols, type, alpha, beta, {}, o).ok() &&
        p.fallback_reason().empty())
      return token;
  }
  return "";
}

}  // namespace tmakit::test
