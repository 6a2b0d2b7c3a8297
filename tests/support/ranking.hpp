// The one decider's invariant, as the tests check it: a plan runs the first technique of its
// ranking (Plan::ranking()) that can run the call. next_runnable() finds that technique by
// asking each entry in turn for a plan of itself (allow_fallback = false), never by a table.
#pragma once
#include <cstdint>
#include <string>
#include <tmakit/plan.hpp>

namespace tmakit::test {

// The first entry of the ranking of make(plan, opt), other than opt.variant, that make() turns
// into a plan of itself with allow_fallback = false (TMA axes back to their defaults); "" when
// there is none or the first plan cannot be made.
template <class Make>
std::string first_runnable_of_ranking(const TransposeOptions& opt, Make make) {
  Plan plan;
  if (!make(&plan, opt).ok()) return "";
  for (const std::string& token : plan.ranking()) {
    if (token == opt.variant) continue;
    TransposeOptions o = opt;
    o.variant = token;
    o.allow_fallback = false;
    o.swizzle_bytes = -1;
    o.barrier = TmaBarrier::kDefault;
    Plan p;
    if (make(&p, o).ok() && p.fallback_reason().empty()) return token;
  }
  return "";
}

// The technique a transpose of `opt` runs when opt.variant (a named technique, or "auto")
// cannot run it.
inline std::string next_runnable(std::int64_t rows, std::int64_t cols, int elem_bytes,
                                 const TransposeOptions& opt, const MatrixLayout& layout = {}) {
  return first_runnable_of_ranking(opt, [&](Plan* p, const TransposeOptions& o) {
    return make_plan(p, rows, cols, elem_bytes, layout, o);
  });
}

// The same for a transpose-accumulate call.
inline std::string next_runnable_accumulate(std::int64_t rows, std::int64_t cols, DataType type,
                                            double alpha, double beta,
                                            const TransposeOptions& opt) {
  return first_runnable_of_ranking(opt, [&](Plan* p, const TransposeOptions& o) {
    return make_accumulate_plan(p, rows, cols, type, alpha, beta, {}, o);
  });
}

}  // namespace tmakit::test
