// Shape lists shared by the benchmark and `tmakit tune`: the benchmark presets (quick, full,
// probe) and the --shapes syntax ([CLASS:]ROWSxCOLS or BATCHxROWSxCOLS, comma-separated).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tmakit::cli {

struct Shape {
  const char* cls;  // square, odd, skinny, batched
  std::int64_t batch, rows, cols;
  std::string name() const {
    return (batch > 1 ? std::to_string(batch) + "x" : std::string()) + std::to_string(rows) + "x" +
           std::to_string(cols);
  }
};

// A preset's shapes (empty for an unknown name).
std::vector<Shape> preset_shapes(const std::string& preset);

// --shapes=LIST: comma-separated [CLASS:]ROWSxCOLS or BATCHxROWSxCOLS. Without a class:
// batched for three numbers, skinny where a side is at most 32, odd where neither side is a
// multiple of 16 (no row a 16-byte multiple at 1 B), else square. Empty, with *why on a bad item.
std::vector<Shape> parse_shapes(const std::string& list, std::string* why);

// The random survey: `count` (shape, element size) cells drawn with `seed`, the classes in
// turn (square, odd, skinny, batched), element sizes 1-16 bytes, one operand at most
// `max_bytes`, none a shape a preset names. The same seed gives the same cells everywhere.
struct SurveyCell {
  Shape shape;
  int elem_bytes;
};
std::vector<SurveyCell> survey_cells(int count, unsigned seed,
                                     std::int64_t max_bytes = std::int64_t{128} << 20);

// The decider's surveys (docs/plans.md), two distributions that share no parameterisation, so
// that one judges a ranking fitted to the other on shapes it never saw:
//  - "train": the data the tuning tables are made of. Operand bytes log-uniform from 256 KB to
//    1 GB; six shape families in turn: 16-element-multiple sides, sides of any length (either
//    side's rows may or may not be 16-byte multiples), a short side log-uniform in 1-192, a
//    short side uniform in 1-40, batches of matrices with sides log-uniform in 2-700, batches of
//    matrices with sides multiples of 8 from 16 to 512; aspect ratios log-uniform up to 64:1.
//  - "heldout": the judge, the classes tmakit is judged on as stated: operand bytes log-uniform
//  from 1 MB to
//    1 GB; square (16-element multiples) and odd (both sides odd) matrices of aspect up to 4:1,
//    skinny ones with a short side uniform in 1-128, batches of matrices with sides uniform in
//    30-300.
//  - "domain": training data on those classes with their own parameterisation (bytes from
//    512 KB, aspect up to 8:1, a short side uniform in 1-160, batches of sides log-uniform in
//    20-400): denser where "train" is thin (short sides of 33-128, batches of 90-300), to be
//    judged on a held-out seed the tables have not seen.
//  - "channels": training data for batches of skinny matrices (activation layout changes:
//    batches of 2-64 of C x HW or HW x C, C log-uniform in 3-512, 1 MB to 1 GB).
//  - "channels_aligned": the same with C and HW rounded up to whole 16 bytes (a network's
//    channel counts and spatial sizes): the cells of that class the TMA techniques can run.
//  - "permute": the transposes that permutations reduce to (permute() runs them through
//    transpose()'s decider): random permutations drawn as random_permutations() draws them, 1-256
//    MB, each kept where it reduces to a transpose of dense operands (rows x cols in a batch, at
//    the reduction's element size, which whole rows of up to 16 bytes widen).
//  - "skinny": one k x N or N x k matrix, k log-uniform in 2-600, 4-512 MB: short rows of any
//    length, where the other distributions draw few cells.
// Element sizes 1-16 bytes uniform in all. The same (dist, seed, count) gives the same cells.
std::vector<SurveyCell> decider_survey_cells(const std::string& dist, int count, unsigned seed);

// The permute preset's random set (bench/permute_rows.cpp): rank 3-6, elements of 1, 2, 4, 8 or 16
// bytes, every extent 2-600 (log-uniform, so small and odd ones are common), min_bytes-max_bytes
// in all, a permutation that does not reduce to a copy; draws outside the size range are redrawn,
// and so are those that reduce to fewer than min_reduced_rank dimensions (0: any; 6 gives the
// rank-6 cases alone). The same (count, seed, range, min_reduced_rank) gives the same
// permutations everywhere.
struct PermutationCell {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  int elem_bytes;
};
std::vector<PermutationCell> random_permutations(int count, unsigned seed, double min_bytes,
                                                 double max_bytes, int min_reduced_rank = 0);
// The permute preset's named cases (bench/permute_rows.cpp runs them before the random set in
// every process; tmakit permute-cases --named lists them): the layouts docs/permute.md times,
// attention both ways, the qkv split, ViT heads, NCHW <-> NHWC at 1, 2 and 4 B, NCDHW -> NDHWC,
// pixel shuffle, reversals of ranks 3-5, odd extents, small tensors and row permutations; `label`
// is the benchmark name's part ("attention_bshd_to_bhsd", "small_41302", ...).
struct NamedPermutation {
  std::string label;
  PermutationCell cell;
};
std::vector<NamedPermutation> named_permutations();
// A permutation's part of the permute preset's benchmark names (bench/permute_rows.cpp):
// "eE/LABEL/EXTENTS/PERM/", extents joined by 'x', the permutation by '.'; tmakit permute-cases
// prints the same names.
std::string permutation_case_name(int elem_bytes, const std::string& label,
                                  const std::vector<std::int64_t>& extents,
                                  const std::vector<int>& perm);

// A class of the tile form for the transposes' matrix rule (DevicePolicy::
// permute_transpose_min_matrix_bytes): rank 4-5 permutations, elements of 1-16 bytes, min_bytes-
// max_bytes in all, whose reduction is a tile (src's contiguous dimension moves) of rank 5 or less
// with a matrix, src's contiguous extent x dst's x the element size, of min_matrix_bytes-
// max_matrix_bytes (log-uniform), both its sides at least min_side_bytes[size] (1, 2, 4, 8, 16
// bytes: the sides the transposes need), the other extents 2-600. The same arguments give the
// same permutations; a range nothing meets gives fewer than count.
std::vector<PermutationCell> matrix_permutations(int count, unsigned seed, double min_bytes,
                                                 double max_bytes, double min_matrix_bytes,
                                                 double max_matrix_bytes,
                                                 const int (&min_side_bytes)[5]);

}  // namespace tmakit::cli
