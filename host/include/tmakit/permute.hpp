// Tensor permutations: dst = src with its dimensions reordered, like
// torch's x.permute(perm).contiguous() or cuTENSOR's cutensorPermute, for ranks 1 to 8, element
// sizes 1, 2, 4, 8, 16 bytes, dense or strided operands.
//
// Orders: extents are ROW-MAJOR, outermost dimension first, as torch writes shapes. Dimension d
// of dst is dimension perm[d] of src: dst extent d = extents[perm[d]], and
//   dst[i_perm[0]][i_perm[1]]...[i_perm[rank-1]] = src[i_0][i_1]...[i_rank-1].
// NCHW -> NHWC is perm {0, 2, 3, 1}; attention's (B, S, H, D) -> (B, H, S, D) is {0, 2, 1, 3}.
//
// Every call is first reduced (reduce_permutation): extents of 1 dropped, dimensions that stay
// adjacent and in order on both sides fused. What remains is
//   a copy, a 2-D transpose, or a batched one -> transpose() runs it (the same technique and
//       speed as calling transpose() yourself, its Status::variant names the technique);
//   whole rows of 2, 4, 8 or 16 bytes -> the same permutation of elements that size, where the
//       operands are aligned to it (the rows' dimension dropped);
//   whole rows moving (the innermost dimension stays innermost) or a transpose of two
//       dimensions inside a batch of up to three more -> the permutation techniques:
//       permute_tma (rank-5 tensor maps, sm_90) or permute_tile (LDG/STG, any GPU);
//   more dimensions (rank 6-8 after the reduction) -> permute_tile's box walk in one launch
//       where a box fits; else (or permute_tma named) rank-5 permutations of the tile and the
//       three largest other dimensions, the host looping over the rest (one launch each, on
//       options.stream; refused above 4,096 launches).
// Errors are returned like transpose()'s, before anything is launched: dst is left untouched.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include <tmakit/tmakit.hpp>

namespace tmakit {

// Strides in elements, like cuTENSOR's: src_strides_elems[k] for src dimension k,
// dst_strides_elems[d] for dst dimension d. Empty: dense (row-major). Strides must be >= 1 and
// place every element of an operand at its own address: sorted by stride, each stride exceeds
// the sum of stride x (extent - 1) over the dimensions of smaller stride (torch's x[..., ::2]
// over an odd extent, strides (73, 2) over extents (R, 37), passes).
struct PermuteLayout {
  std::vector<std::int64_t> src_strides_elems;
  std::vector<std::int64_t> dst_strides_elems;
};

// The permutation techniques (`auto` picks among them and transpose()'s techniques). Their
// rows are the permutation registry (host/permute/registry.cpp); kind is kPermute.
const std::vector<VariantInfo>& permute_variants();
const VariantInfo* find_permute_variant(const std::string& token);

// What a permutation reduces to.
enum class PermuteForm {
  kCopy,       // the dimensions keep their order: a copy (transpose() of one row)
  kTranspose,  // a 2-D transpose or a batched one: transpose() (maybe of wider elements)
  kRows,       // the innermost dimension stays innermost: whole rows move
  kTile,       // a transpose of two dimensions inside a batch of up to three more
};
const char* to_string(PermuteForm form);  // "copy", "transpose", "rows", "tile"

struct PermuteReduction {
  PermuteForm form = PermuteForm::kCopy;
  // The reduced problem: src dimensions (outermost first) after dropping extents of 1 and
  // fusing; perm over them; each dimension's stride in src and in dst, in elements.
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  std::vector<std::int64_t> src_strides_elems, dst_strides_elems;
  // kCopy and kTranspose: the transpose() call (rows x cols, a batch, leading dimensions) with
  // elements of transpose_elem_bytes (wider than the permutation's when whole rows of up to
  // 16 bytes move: (1,0,2) with a 16-byte inner dimension is a transpose of 16-byte elements).
  std::int64_t rows = 1, cols = 1;
  int transpose_elem_bytes = 0;
  MatrixLayout layout;
  std::string to_string() const;  // e.g. "rows: (8, 4096, 32, 128) (0, 2, 1, 3)"
};

// Checks the arguments (as permute() does, without operands) and reduces them.
Status reduce_permutation(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteReduction* out);

// dst = src permuted. options.variant: "auto", "permute_tma", "permute_tile", or a transpose()
// technique when the permutation reduces to a copy or a transpose. stream, synchronize,
// allow_tma and allow_fallback as for transpose() (permute_tma falls back to permute_tile and
// says why in Status::fallback_reason). swizzle_bytes and barrier must stay default.
Status permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
               const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout = {},
               const TransposeOptions& options = {});

// Tuning, as for transposes (tmakit/plan.hpp): permute()'s `auto` first looks for wisdom, a
// technique measured fastest for the same reduced problem (extents, permutation, strides, element
// size, operand alignment) on this GPU model and driver; else, when the process's default tuning
// is Tuning::kMeasure (TMAKIT_TUNING=measure, or set_default_tuning), it measures the call once
// with tune_permute and keeps the fastest as wisdom (saved to the file TMAKIT_WISDOM names, if
// any); else its rules (explain_permute). A call on a stream being captured into a graph is not
// measured. Wisdom from load_wisdom / import_wisdom holds permutation records beside transpose
// ones (`problem=permute ...`).
struct PermuteTuning {
  std::string variant;     // the fastest: a permutation technique or a transpose() technique
  double measured_us = 0;  // its median, microseconds
  std::vector<std::pair<std::string, double>> timings;  // every candidate, fastest first
};

// Times every technique that can run this call on its own operands and keeps the fastest as
// wisdom for this GPU: permute_tile, permute_tma and permute_transpose (the tile form as a batch
// of transposes, its transposes as the decider ranks them, or as measured in measure mode); for
// a copy or a transpose form, transpose()'s own pick, measured among its techniques, beside
// permute_tma and permute_tile. Each candidate runs as named with allow_fallback = false, first
// as a check that it launches, then in `rounds` shuffled rounds with the L2 flushed before each
// launch; the median is kept. dst holds the result on return (the fastest runs last), and the
// Status is that last call's (Status::variant: what ran; permute_transpose's is the transpose()
// technique it ran).
// options.variant must be "auto"; options.synchronize is ignored (tune_permute synchronizes).
Status tune_permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                    const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout,
                    const TransposeOptions& options, PermuteTuning* out, int rounds = 7);

// What permute() does with a problem, in words, with no device: the reduction; the transpose()
// call it hands a copy or transpose to; the permutation kernels' walk (tile or rows dimensions
// and batch, each with its strides); and permute_tma's two rank-5 tensor maps as describe()
// prints them (for 16-byte aligned operands), or the rule that keeps TMA off. `tmakit permute
// --explain` prints it.
std::string explain_permute(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                            int elem_bytes, const PermuteLayout& layout = {});

// The CPU reference: the same contract on host memory. Elements of dst that no element of src
// maps to (padding of a strided dst) are left as they are.
Status reference_permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                         const std::vector<int>& perm, int elem_bytes,
                         const PermuteLayout& layout = {});

}  // namespace tmakit
