// Permutation arguments -> the checked, reduced problem (host/permute/reduce.cpp) and the
// kernels' geometry for it. Host compiler only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <kernels/common/permute_geometry.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::detail {

// A checked call: the caller's dimensions with both operands' strides resolved (dense
// defaults filled in), per src dimension.
struct PermuteProblem {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  std::vector<std::int64_t> src_strides;  // per src dimension, elements
  std::vector<std::int64_t> dst_strides;  // per src dimension: its stride in dst, elements
  int elem_bytes = 0;
  std::int64_t src_span_bytes = 0, dst_span_bytes = 0;  // first to one past the last element
  std::int64_t tensor_bytes() const {  // the elements' bytes (not the spans: strides aside)
    std::int64_t n = elem_bytes;
    for (std::int64_t e : extents) n *= e;
    return n;
  }
};

// "(a, b, c)": extents, a permutation or strides in messages and wisdom keys.
template <class T>
std::string list(const std::vector<T>& v) {
  std::string s = "(";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

// Every argument rule, with the message permute() returns.
Status check_permute_args(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteProblem* out);

// Every check of a call before anything touches the device, in permute()'s order: null
// operands, the arguments (check_permute_args), operands aligned to their elements, no overlap.
Status check_permute_call(const void* src, const void* dst,
                          const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteProblem* out);

// The reduction of a checked problem (see tmakit/permute.hpp).
PermuteReduction reduce(const PermuteProblem& p);

// The kernels' walk of a reduction (kernels/launchers.hpp, PermuteArgs): i = the dimension with
// the smallest src stride, j = the one with the smallest dst stride among the others, the rest a
// batch ordered by dst stride. Empty string, or why it cannot (more than 3 batch dimensions).
std::string permute_geometry(const PermuteReduction& r, PermuteGeometry* g);

// A row permutation whose rows are 2-16 bytes, a power of two and two elements or more, as the
// same permutation of elements that size: the rows' dimension dropped, every other stride
// divided by its extent. The call's terms (src order; dst strides per dst dimension, as
// PermuteLayout takes them). Empty string, or why not.
struct PermuteWidened {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  PermuteLayout layout;
  int elem_bytes = 0;
};
std::string widen_rows(const PermuteReduction& r, int elem_bytes, PermuteWidened* out);

// A reduction of rank 6-8, which the kernels' walk cannot hold (two tile dimensions and three
// batch ones), as rank-5 permutations that the host runs one after another: it keeps the
// dimension contiguous in src, the one contiguous in dst and the largest others (five in all),
// and loops over the rest. The sub-permutation in permute()'s terms (src order; dst strides per
// dst dimension, as PermuteLayout takes them), and the looped dimensions with both strides.
struct PermuteSplit {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  PermuteLayout layout;
  std::vector<std::int64_t> loop_extents, loop_src, loop_dst;  // elements
  std::int64_t launches = 1;
};
inline constexpr std::int64_t kPermuteMaxSplitLaunches = 4096;
// Empty string, or why it cannot (more than kPermuteMaxSplitLaunches sub-permutations).
std::string split_permutation(const PermuteReduction& r, PermuteSplit* out);

}  // namespace tmakit::detail
