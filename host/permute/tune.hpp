// permute()'s tuning (host/permute/tune.cpp): the wisdom key of a permutation, and `auto`'s
// step before its rules. Host compiler only.
#pragma once
#include <string>
#include <vector>
#include <host/device.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::detail {

// The wisdom key: everything that changes which technique can run or wins (the reduced problem
// with its strides, the element size, the operands' common alignment up to 16 bytes, whether TMA
// may run, the device's capability and policy).
std::string permute_problem_key(const PermuteReduction& r, int elem_bytes, const void* src,
                                const void* dst, bool allow_tma, const DeviceCaps& caps);

// permute()'s `auto` on checked arguments (r: their reduction): the technique wisdom holds for
// the problem, else in measure mode (default_tuning()) a tune_permute on the call's operands.
// *ran: whether the call ran here (the Status is then its outcome); false leaves the call to the
// rules (no wisdom, heuristic mode, a stream being captured, or a failed measurement).
Status permute_auto_tuned(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                          const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout,
                          const TransposeOptions& options, const PermuteReduction& r, bool* ran);

}  // namespace tmakit::detail
