// permute() on the device: every permutation of ranks 2-5 against the CPU reference for every
// element size and technique, strided operands with poisoned padding, bad calls with dst
// untouched, and the reduction to transpose() (same technique, same bytes).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/gpu.hpp>
#include <tests/support/permute_check.hpp>
#include <tests/support/scoped_env.hpp>
#include <tmakit/permute.hpp>

namespace tmakit {
namespace {

using Ext = std::vector<std::int64_t>;

TransposeOptions named(const std::string& token) {
  TransposeOptions o;
  o.variant = token;
  return o;
}

// A permutation with its strides (empty: dense), per src dimension and per dst dimension.
struct StridedCase {
  Ext n;
  std::vector<int> p;
  std::vector<std::int64_t> src, dst;
};

// auto, then every permutation technique of the registry.
std::vector<std::string> techniques() {
  std::vector<std::string> out = {"auto"};
  for (const VariantInfo& v : permute_variants()) out.push_back(v.token);
  return out;
}

// Small odd extents (no stride a multiple of 16 bytes below 16-byte elements: TMA falls back),
// one extent of 1, and 16-byte-multiple extents where permute_tma runs itself.
Ext odd_extents(int rank) {
  const Ext all = {5, 3, 7, 2, 9};
  return Ext(all.begin(), all.begin() + rank);
}
// Every extent a whole number of 16-byte units, so every stride of both operands is.
Ext aligned_extents(int rank, int e) {
  const std::int64_t u = e >= 16 ? 1 : 16 / e;  // elements per 16 bytes
  if (rank == 5) return {u, 2 * u, u, u, 3 * u};
  const Ext all = {3 * u, 2 * u, u, 3 * u};
  return Ext(all.begin(), all.begin() + rank);
}

// A random shape of `rank` dimensions for the tests that draw until explain says a walk is taken:
// extents 2..max_extent + 1 and a shuffled permutation, or false (nothing more drawn) where the
// volume exceeds max_volume elements.
bool draw_shape(std::mt19937& rng, int rank, int max_extent, std::int64_t max_volume, Ext* n,
                std::vector<int>* p) {
  n->clear();
  std::int64_t volume = 1;
  for (int k = 0; k < rank; ++k)
    n->push_back(2 + static_cast<std::int64_t>(rng() % max_extent)), volume *= n->back();
  if (volume > max_volume) return false;
  p->resize(rank);
  std::iota(p->begin(), p->end(), 0);
  std::shuffle(p->begin(), p->end(), rng);
  return true;
}

// The tables' walks at the sizes a test affords, as they ran before the registers' walk took
// 4-byte boxes without words, 8-byte tensors of up to 16 MiB, 4-8-byte boxes that fit its own and
// 2-byte boxes without src words (DevicePolicy::permute_box_registers_elements_max_bytes,
// box_registers, permute_box_registers_box_fits_min_bytes,
// permute_box_registers_src_elements_bytes): the tests that draw a tables' walk by its explain set
// it for their scope (check_under_policies keeps it).
constexpr const char* kTablesAtSmallSizes =
    "permute_box_registers_elements_max_bytes=2,permute_box_registers_small_tensor_bytes=0,"
    "permute_box_registers_src_elements_bytes=0,permute_box_registers_box_fits_min_bytes=0";
// ...and the boxes as planned for their runs, not the smaller ones a small tensor gets for the
// SMs (permute_box_min_boxes_per_sm), for the tests that draw a walk of the box so planned.
constexpr const char* kRunsBoxes = ",permute_box_min_boxes_per_sm=0";

// `auto` and permute_tile on (n, p) at e bytes under each TMAKIT_POLICY (after the one in force,
// a test's own scope or ctest's), with operands aligned and one element off, against the
// reference; `how` (its explain) goes with a failure.
void check_under_policies(const Ext& n, const std::vector<int>& p, int e,
                          std::initializer_list<const char*> policies, const std::string& how) {
  const char* outer = std::getenv("TMAKIT_POLICY");
  const std::string base = outer != nullptr ? outer : "";
  for (const char* policy : policies) {
    const std::string both = base.empty() ? policy : *policy == '\0' ? base : base + "," + policy;
    test::ScopedEnv env("TMAKIT_POLICY", both.c_str());
    for (const char* v : {"auto", "permute_tile"})
      for (std::size_t offset : {std::size_t{0}, static_cast<std::size_t>(e)}) {
        const test::PermuteRun r = test::check_permute(n, p, e, {}, named(v), offset);
        ASSERT_TRUE(r.error.empty())
            << v << " " << e << " B " << test::text(n) << " " << test::text(p) << " policy '"
            << policy << "' offset " << offset << ": " << r.error << "\n"
            << how;
      }
  }
}

// Rank 5 at 1 and 2 bytes is 6.3M / 0.8M elements: a few permutations, not all 120.
std::vector<std::vector<int>> perms_for(int rank, int e) {
  if (rank < 5 || e >= 4) return test::all_perms(rank);
  return {{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {0, 2, 1, 3, 4}, {1, 0, 4, 3, 2},
          {4, 0, 1, 2, 3}, {2, 4, 0, 3, 1}, {0, 1, 2, 4, 3}, {3, 1, 4, 0, 2}};
}

TEST(Permute, EveryPermutationOfRanks2To5OddExtents) {
  TMAKIT_NEED_GPU(75);
  int runs = 0;
  for (int rank = 2; rank <= 5; ++rank)
    for (const auto& perm : test::all_perms(rank))
      for (int e : {1, 2, 4, 8, 16})
        for (const std::string& v : techniques()) {
          const test::PermuteRun r = test::check_permute(odd_extents(rank), perm, e, {}, named(v));
          ASSERT_TRUE(r.error.empty()) << v << ": " << r.error;
          ++runs;
        }
  EXPECT_EQ(runs, (2 + 6 + 24 + 120) * 5 * static_cast<int>(techniques().size()));
}

TEST(Permute, EveryPermutationOfRanks2To5AlignedExtents) {
  TMAKIT_NEED_GPU(75);
  for (int rank = 2; rank <= 5; ++rank)
    for (int e : {1, 2, 4, 8, 16})
      for (const auto& perm : perms_for(rank, e))
        for (const std::string& v : techniques()) {
          const test::PermuteRun r =
              test::check_permute(aligned_extents(rank, e), perm, e, {}, named(v));
          ASSERT_TRUE(r.error.empty()) << v << ": " << r.error;
        }
}

TEST(Permute, ExtentsOfOneAndRankSixToEightThatFold) {
  TMAKIT_NEED_GPU(75);
  const struct {
    Ext n;
    std::vector<int> p;
  } cases[] = {
      {{1, 7, 1, 5}, {3, 2, 1, 0}},
      {{1}, {0}},
      {{1, 1, 1}, {2, 0, 1}},
      {{9}, {0}},
      {{2, 3, 4, 5, 6, 7}, {3, 4, 5, 0, 1, 2}},
      {{2, 3, 1, 5, 6, 7, 1, 3}, {7, 6, 0, 1, 2, 3, 4, 5}},
  };
  for (const auto& c : cases)
    for (int e : {1, 4, 16})
      for (const std::string& v : techniques()) {
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named(v));
        EXPECT_TRUE(r.error.empty()) << v << ": " << r.error;
      }
}

// Every permutation of ranks 6, 7 and 8 on small odd extents, against the reference: rank 6 at
// every element size, ranks 7 and 8 with the size cycling through 1-16 bytes from one
// permutation to the next (45,360 permutations; a reduction of rank 6-8 runs as permute_tile's
// box walk in one launch).
TEST(Permute, EveryPermutationOfRanks6To8OddExtents) {
  TMAKIT_NEED_GPU(75);
  const int sizes[] = {1, 2, 4, 8, 16};
  int runs = 0;
  for (int rank = 6; rank <= 8; ++rank) {
    const Ext all = {3, 5, 3, 3, 5, 3, 3, 3};
    const Ext n(all.begin(), all.begin() + rank);
    int k = 0;
    for (const auto& perm : test::all_perms(rank)) {
      const int pick = sizes[k++ % 5];
      for (int e : sizes) {
        if (rank > 6 && e != pick) continue;
        const test::PermuteRun r = test::check_permute(n, perm, e, {}, {});
        ASSERT_TRUE(r.error.empty()) << "rank " << rank << " " << e << " B: " << r.error;
        ++runs;
      }
    }
  }
  EXPECT_EQ(runs, 720 * 5 + 5040 + 40320);
}

// Rank 6-8 that does not fold: permute_tile's box walk in one launch (auto and permute_tile),
// rank-5 permutations over the outer dimensions run by the host on the same stream
// (permute_tma); every technique's output against the reference, dense and strided.
TEST(Permute, RankSixToEightThatDoesNotFold) {
  TMAKIT_NEED_GPU(75);
  const struct {
    Ext n;
    std::vector<int> p;
  } cases[] = {
      {{2, 3, 2, 3, 2, 3}, {5, 4, 3, 2, 1, 0}},
      {{2, 3, 2, 3, 2, 3, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}},
      {{3, 4, 5, 6, 7, 2, 3}, {6, 0, 5, 1, 4, 2, 3}},
      {{5, 2, 9, 3, 2, 33, 2, 7}, {1, 3, 5, 7, 0, 2, 4, 6}},
  };
  for (const auto& c : cases)
    for (int e : {1, 2, 4, 8, 16})
      for (const std::string& v : techniques()) {
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named(v));
        EXPECT_TRUE(r.error.empty()) << v << " " << e << " B: " << r.error;
      }
  // Strided: src a step-2 view, each dimension's stride one past what the inner ones reach.
  const Ext n = {2, 3, 2, 3, 2, 5};
  PermuteLayout lay;
  lay.src_strides_elems = {342, 114, 57, 19, 10, 2};
  const std::vector<int> p = {5, 4, 3, 2, 1, 0};
  for (const char* v : {"auto", "permute_tile"}) {
    const test::PermuteRun r = test::check_permute(n, p, 4, lay, named(v));
    EXPECT_TRUE(r.error.empty()) << v << ": " << r.error;
  }
}

// Strided operands: padding after every dimension on both sides, poisoned; the harness
// compares the whole span, so a write into padding fails. Plus misaligned operands.
TEST(Permute, StridedOperandsLeavePaddingUntouched) {
  TMAKIT_NEED_GPU(75);
  for (int rank = 2; rank <= 4; ++rank)
    for (const auto& perm : test::all_perms(rank))
      for (int e : {1, 2, 4, 8, 16})
        for (int pad : {1, 16}) {  // 16 elements: 16-byte multiples, TMA can run
          const Ext n = odd_extents(rank);
          PermuteLayout lay;
          lay.src_strides_elems.assign(rank, 0);
          lay.dst_strides_elems.assign(rank, 0);
          std::int64_t span = 1;
          for (int k = rank - 1; k >= 0; --k) {
            lay.src_strides_elems[k] = span;
            span = span * n[k] + pad;
          }
          span = 1;
          for (int d = rank - 1; d >= 0; --d) {
            lay.dst_strides_elems[d] = span;
            span = (span * n[perm[d]] + pad + 15) / 16 * 16;
          }
          for (const std::string& v : techniques()) {
            const test::PermuteRun r = test::check_permute(n, perm, e, lay, named(v));
            ASSERT_TRUE(r.error.empty()) << v << " pad " << pad << ": " << r.error;
          }
        }
  // Operands off 16-byte alignment (by one element).
  for (int e : {1, 2, 4, 8})
    for (const std::string& v : techniques()) {
      const test::PermuteRun r =
          test::check_permute({6, 32, 64}, {2, 0, 1}, e, {}, named(v), static_cast<std::size_t>(e));
      EXPECT_TRUE(r.error.empty()) << v << ": " << r.error;
      const test::PermuteRun rows =
          test::check_permute({6, 32, 64}, {1, 0, 2}, e, {}, named(v), static_cast<std::size_t>(e));
      EXPECT_TRUE(rows.error.empty()) << v << ": " << rows.error;
    }
}

// Views whose dimensions interleave without overlapping, as torch's slicing makes them: a step
// of 2 over an odd extent (strides (73, 2) over (R, 37): every element inside a 73-element row),
// on either side, and a stride smaller than the row an inner dimension spans. Each technique's
// output against the CPU reference, dst's untouched elements included.
TEST(Permute, InterleavedStridedViewsThatDoNotOverlap) {
  TMAKIT_NEED_GPU(75);
  const std::vector<StridedCase> cases = {
      {{50, 37}, {1, 0}, {73, 2}, {}},                    // x[..., ::2], rows of 73
      {{50, 37}, {1, 0}, {}, {101, 2}},                   // such a view as dst (37, 50)
      {{6, 50, 37}, {2, 0, 1}, {3700, 73, 2}, {}},        // 73 > 2 x 36, 3700 > 72 + 73 x 49
      {{6, 50, 37}, {1, 2, 0}, {}, {407, 11, 2}},         // dst (50, 37, 6): 11 > 2 x 5
      {{9, 8, 7, 5}, {3, 1, 0, 2}, {504, 63, 9, 2}, {}},  // 9 > 2 x 4, 63 > 8 + 9 x 6, ...
  };
  for (const StridedCase& c : cases)
    for (int e : {1, 2, 4, 8, 16}) {
      PermuteLayout lay{c.src, c.dst};
      PermuteReduction red;
      const Status ok = reduce_permutation(c.n, c.p, e, lay, &red);
      if (!ok.ok()) {
        ADD_FAILURE() << ok.message;
        continue;
      }
      for (const std::string& v : techniques()) {
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, lay, named(v));
        EXPECT_TRUE(r.error.empty()) << v << " " << e << " B: " << r.error;
      }
    }
}

// A permutation that reduces to a transpose runs transpose()'s pick for it, and the bytes are
// the same as transpose()'s.
TEST(Permute, ReductionToTransposeIsTheSameTechniqueAndOutput) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
    int e;
  };
  const Case cases[] = {
      {{16, 64, 14, 14}, {0, 2, 3, 1}, 2},  // NCHW -> NHWC
      {{16, 14, 14, 64}, {0, 3, 1, 2}, 1},  // NHWC -> NCHW
      {{300, 257}, {1, 0}, 4},
      {{33, 65, 4}, {1, 0, 2}, 4},  // 16-byte rows: 16-byte elements
      {{3, 5, 7}, {0, 1, 2}, 8},    // identity: a copy
  };
  for (const Case& c : cases) {
    PermuteReduction red;
    ASSERT_TRUE(reduce_permutation(c.n, c.p, c.e, {}, &red).ok());
    ASSERT_TRUE(red.form == PermuteForm::kTranspose || red.form == PermuteForm::kCopy)
        << red.to_string();
    const test::PermuteRun via = test::check_permute(c.n, c.p, c.e, {}, {});
    ASSERT_TRUE(via.error.empty()) << via.error;
    // transpose() directly on the reduced problem, same input bytes.
    std::int64_t elems = 1;
    for (auto x : c.n) elems *= x;
    const std::size_t bytes = static_cast<std::size_t>(elems) * c.e;
    std::vector<unsigned char> host;
    fill_index_pattern(host, elems, c.e);
    void *src = nullptr, *a = nullptr, *b = nullptr;
    ASSERT_EQ(cudaMalloc(&src, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&a, bytes), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&b, bytes), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
    const Status sp = permute(src, a, c.n, c.p, c.e);
    const Status st =
        transpose(src, b, red.rows, red.cols, red.transpose_elem_bytes, red.layout, {});
    ASSERT_TRUE(sp.ok()) << sp.message;
    ASSERT_TRUE(st.ok()) << st.message;
    EXPECT_EQ(sp.variant, st.variant) << red.to_string();
    std::vector<unsigned char> ha(bytes), hb(bytes);
    ASSERT_EQ(cudaMemcpy(ha.data(), a, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    EXPECT_EQ(ha, hb) << red.to_string();
    cudaFree(src);
    cudaFree(a);
    cudaFree(b);
  }
}

TEST(Permute, BadCallsLeaveDstUntouched) {
  TMAKIT_NEED_GPU(75);
  const std::size_t bytes = 4096;
  unsigned char *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, 0x5A, bytes), cudaSuccess);
  std::vector<unsigned char> host(bytes);
  struct Bad {
    const char* names;
    Status s;
  };
  TransposeOptions no_fallback = named("permute_tma");
  no_fallback.allow_fallback = false;
  TransposeOptions transpose_token = named("smem_padded");
  const Bad bad[] = {
      {"not a permutation", permute(src, dst, {4, 4, 4}, {0, 0, 1}, 4)},
      {"must be >= 1", permute(src, dst, {4, 0, 4}, {2, 1, 0}, 4)},
      {"overlap", permute(src, src + 4, {4, 4, 4}, {2, 1, 0}, 4)},
      {"not aligned", permute(src + 2, dst, {4, 4, 4}, {2, 1, 0}, 4)},
      {"alias", permute(src, dst, {4, 4, 4}, {2, 1, 0}, 4, {{1, 2, 16}, {}})},
      {"not device-accessible", permute(host.data(), dst, {4, 4, 4}, {2, 1, 0}, 4)},
      {"unknown variant", permute(src, dst, {4, 4, 4}, {2, 1, 0}, 4, {}, named("nope"))},
      // A transpose technique named: rows of 12 bytes are not a tile; a technique of one batch
      // dimension; a tile whose src side is strided.
      {"is a transpose() technique",
       permute(src, dst, {4, 4, 3}, {1, 0, 2}, 4, {}, transpose_token)},
      {"takes a batch of one dimension",
       permute(src, dst, {4, 4, 4}, {2, 1, 0}, 4, {}, named("smem_strip"))},
      {"cannot run as a batch of transposes",
       permute(src, dst, {4, 4, 4}, {2, 1, 0}, 4, {{32, 8, 2}, {}}, transpose_token)},
      // Odd strides: no TMA, and no fallback allowed.
      {"permute_tma cannot run", permute(src, dst, {3, 5, 7}, {2, 1, 0}, 4, {}, no_fallback)},
  };
  for (const Bad& b : bad) {
    EXPECT_FALSE(b.s.ok()) << b.names;
    EXPECT_NE(b.s.message.find(b.names), std::string::npos) << b.names << ": " << b.s.message;
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> out(bytes);
  ASSERT_EQ(cudaMemcpy(out.data(), dst, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (unsigned char x : out) ASSERT_EQ(x, 0x5A);
  cudaFree(src);
  cudaFree(dst);
}

// permute_tile's boxes in words (permute_box_words_kernel, kernels/permute/permute_tile.cu): even
// extents whose contiguous dimensions hold whole 4-16-byte words, cut into chunks with edge boxes,
// operands 0-12 bytes off 16-byte alignment (narrower words or none) and padded strides, against
// the reference with dst's padding and guard bands poisoned. The 4-byte boxes that fit the
// registers' walk stay in tables here (permute_box_registers_box_fits_min_bytes=8, before the
// policy in force, so ctest's own setting of it wins); Permute.RegistersWalkWhereTheTablesBoxFits
// runs them through registers.
TEST(Permute, BoxesInWordsEvenExtentsOffsetsAndPadding) {
  TMAKIT_NEED_GPU(75);
  const char* outer = std::getenv("TMAKIT_POLICY");
  const std::string policy = std::string("permute_box_registers_box_fits_min_bytes=8") +
                             (outer != nullptr && *outer != '\0' ? std::string(",") + outer : "");
  test::ScopedEnv scope("TMAKIT_POLICY", policy.c_str());
  const std::vector<Ext> shapes = {{12, 200},      {24, 8, 72},    {6, 100, 4, 2},
                                   {16, 3, 40, 2}, {8, 136, 3, 2}, {2, 4, 6, 8, 3}};
  int runs = 0, in_words = 0, swizzled = 0;
  for (const Ext& n : shapes) {
    const int rank = static_cast<int>(n.size());
    auto perms = test::all_perms(rank);
    if (rank == 5) perms = {{4, 3, 2, 1, 0}, {4, 1, 3, 0, 2}, {1, 4, 2, 0, 3}, {2, 0, 4, 3, 1}};
    for (const auto& perm : perms)
      for (int e : {1, 2, 4, 8}) {
        const std::string how = explain_permute(n, perm, e);
        in_words += how.find("in words") != std::string::npos;
        swizzled += how.find("swizzled") != std::string::npos;
        for (std::size_t off : {0, 4, 8, 12}) {
          if (off % e != 0) continue;
          const test::PermuteRun r =
              test::check_permute(n, perm, e, {}, named("permute_tile"), off);
          ASSERT_TRUE(r.error.empty()) << "offset " << off << ": " << r.error;
          ++runs;
        }
        PermuteLayout lay;  // src rows padded by 8 elements, dst's by 4: words of 8-16 bytes
        lay.src_strides_elems = test::dense_strides(n);
        Ext dn(rank);
        for (int d = 0; d < rank; ++d) dn[d] = n[perm[d]];
        lay.dst_strides_elems = test::dense_strides(dn);
        if (rank >= 2) {
          for (int k = 0; k + 1 < rank; ++k) lay.src_strides_elems[k] += 8 * (k + 1);
          for (int d = 0; d + 1 < rank; ++d) lay.dst_strides_elems[d] += 4 * (d + 1);
          std::int64_t span = 1;  // keep strides nested: each above the span inside it
          for (int k = rank - 1; k >= 0; --k) {
            lay.src_strides_elems[k] = std::max(lay.src_strides_elems[k], span);
            span = lay.src_strides_elems[k] * n[k];
          }
          span = 1;
          for (int d = rank - 1; d >= 0; --d) {
            lay.dst_strides_elems[d] = std::max(lay.dst_strides_elems[d], span);
            span = lay.dst_strides_elems[d] * dn[d];
          }
        }
        for (const char* v : {"auto", "permute_tile"}) {
          const test::PermuteRun r = test::check_permute(n, perm, e, lay, named(v));
          ASSERT_TRUE(r.error.empty()) << v << " padded: " << r.error;
          ++runs;
        }
      }
  }
  EXPECT_GT(runs, 1000);
  EXPECT_GT(in_words, 200);  // the word kernel planned, not only the element walk
  EXPECT_GT(swizzled, 20);   // and its swizzled shared box
}

// The box walk with several boxes a block (more boxes than the GPU keeps blocks resident): the
// pipelined and cp.async walks load box k + 1 while they store box k, and the origins come from
// three slots, so boxes cut at the tensor's edge follow whole ones and the other way round. Odd
// extents (the element walk; (37, 19, 45, 67) gathers 34 apart: its cp.async box padded), even
// ones (the walk in words), operands 16 bytes off, a padded layout. The 16-byte cases and the
// 1-2-byte element walks take the registers' walk (permute_box_reg_kernel, the default there;
// 4-8-byte boxes stay in tables here, kTablesAtSmallSizes);
// under the small-box policies below also every other size, with whole boxes and with edge boxes
// cut short.
TEST(Permute, BoxWalkManyBoxesPerBlock) {
  TMAKIT_NEED_GPU(75);
  // The box walk for every case, also the 8- and 16-byte ones whose 32-element tiles are 41-70%
  // full, which the 2-D tile takes by default (permute_tile_min_fill_pct); boxes planned under the
  // static 48 KB, whose walks the counts below name (permute_box_max_smem_bytes; larger boxes:
  // BoxesOverFortyEightKilobytes).
  test::ScopedEnv boxes(
      "TMAKIT_POLICY",
      (std::string("permute_tile_min_fill_pct=90,permute_box_max_smem_bytes=48896,") +
       kTablesAtSmallSizes)
          .c_str());
  struct Case {
    Ext n;
    std::vector<int> p;
    std::vector<int> elem_bytes;
  };
  const Case cases[] = {
      {{47, 41, 43, 61}, {3, 2, 1, 0}, {1, 2, 4, 8}},  {{23, 41, 43, 29}, {3, 2, 1, 0}, {16}},
      {{37, 19, 45, 67}, {1, 3, 0, 2}, {1, 4, 8, 16}}, {{37, 19, 45, 64}, {1, 3, 0, 2}, {16}},
      {{48, 40, 56, 36}, {3, 2, 1, 0}, {1, 2, 4}},     {{32, 48, 40, 64}, {2, 0, 3, 1}, {1}}};
  int runs = 0, padded = 0, async = 0, registers = 0;
  for (const Case& c : cases)
    for (int e : c.elem_bytes) {
      const std::string how = explain_permute(c.n, c.p, e);
      padded += how.find("a slot of padding every") != std::string::npos;
      async += how.find("by cp.async") != std::string::npos;
      registers += how.find("each thread's offsets in registers") != std::string::npos;
      for (std::size_t off : {std::size_t{0}, std::size_t{16}}) {
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named("permute_tile"), off);
        ASSERT_TRUE(r.error.empty()) << e << " B offset " << off << ": " << r.error;
        ++runs;
      }
    }
  PermuteLayout lay;  // (23, 41, 43, 29) with src rows padded to 31 and dst rows to 26
  lay.src_strides_elems = {41 * 43 * 31, 43 * 31, 31, 1};
  lay.dst_strides_elems = {43 * 41 * 26, 41 * 26, 26, 1};
  for (int e : {2, 4, 16}) {
    const test::PermuteRun r =
        test::check_permute({23, 41, 43, 29}, {3, 2, 1, 0}, e, lay, named("permute_tile"));
    ASSERT_TRUE(r.error.empty()) << e << " B padded: " << r.error;
    ++runs;
  }
  // (48, 40, 56, 36) in words at 1-2 B, its operands one element off: no words there, so the
  // registers' walk (permute_box_registers_elements_max_bytes, decided at the operands' addresses).
  for (int e : {1, 2}) {
    const test::PermuteRun r = test::check_permute({48, 40, 56, 36}, {3, 2, 1, 0}, e, {},
                                                   named("permute_tile"), std::size_t(e));
    ASSERT_TRUE(r.error.empty()) << e << " B one element off: " << r.error;
    ++runs;
  }
  // The same cases in small boxes (the policy's permute_box_target_elems at 64): several times
  // the boxes at 4-16 B, more of them cut at the tensor's edge, and in every case more than twice
  // the blocks a 132-SM GPU keeps resident (4 a SM). (At the default target (37, 19, 45, 67) at
  // 1 B is 703 boxes.) Also with two barriers a box in the cp.async walks
  // (permute_box_async_barriers=2; the default is one, a buffer refilled right after the barrier
  // that frees it, which only many boxes a block exercise).
  // And with the edge boxes cut short instead of overlapping the chunk before them
  // (permute_box_overlap_edges=0: the walks' coordinate checks). And the registers' walk at every
  // size (permute_box_registers_min_bytes=1), both ways. And the cp.async walks' first box copied
  // after the tables (permute_box_first_copies_early=0; the default copies it while they are
  // built), edge boxes cut short both ways.
  for (const char* policy : {"permute_tile_min_fill_pct=90,permute_box_target_elems=64",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_async_barriers=2",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_overlap_edges=0",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_registers_min_bytes=1",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_registers_min_bytes=1,permute_box_overlap_edges=0",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_first_copies_early=0",
                             "permute_tile_min_fill_pct=90,permute_box_target_elems=64,"
                             "permute_box_first_copies_early=0,permute_box_overlap_edges=0"}) {
    test::ScopedEnv small("TMAKIT_POLICY", policy);
    for (const Case& c : cases)
      for (int e : c.elem_bytes) {
        const std::string how = explain_permute(c.n, c.p, e);
        const std::size_t at = how.find(" boxes over ");
        ASSERT_NE(at, std::string::npos) << how;
        const std::size_t from = how.rfind(' ', at - 1) + 1;
        EXPECT_GE(std::stoll(how.substr(from, at - from)), 1200) << how;
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named("permute_tile"));
        ASSERT_TRUE(r.error.empty()) << e << " B, " << policy << ": " << r.error;
        ++runs;
      }
  }
  EXPECT_EQ(runs, 9 * 14 + 5);
  // (37, 19, 45, 67) at 1 B (registers), 4 and 8 B (cp.async), every 34; (37, 19, 45, 64) at 16 B
  // (registers, every 22; the 67's 16-byte box gathers 17 apart, odd).
  EXPECT_EQ(padded, 4);
  EXPECT_EQ(async, 5);  // every 4-8-byte element walk and the 1-byte words of (48, 40, 56, 36)
  // The 16-byte cases and the 1-2-byte element walks: (47, 41, 43, 61) at 1 and 2 B, (37, 19, 45,
  // 67) at 1 B.
  EXPECT_EQ(registers, 6);
}

// Whole rows of 2-16 bytes moved as elements of that size (widen_rows): every element size and
// row width, every permutation of rank 4 that keeps the rows (all but (2, 1, 0, 3) reduce to a
// copy or a transpose of wider elements by themselves) and two of rank 5, each technique,
// operands aligned (widened) and off by one element (rows as they are), strides that are whole
// rows (padding poisoned) and strides that are not; and with the policy off, the rows as before.
TEST(Permute, RowsOfTwoToSixteenBytesAsElements) {
  TMAKIT_NEED_GPU(75);
  int runs = 0, widened = 0;
  for (const char* policy : {"", "permute_rows_as_elements=0"}) {
    test::ScopedEnv env("TMAKIT_POLICY", policy);
    for (int e : {1, 2, 4, 8})
      for (int w = 2 * e; w <= 16; w *= 2) {
        const std::int64_t n = w / e;
        std::vector<std::pair<Ext, std::vector<int>>> calls;
        for (const auto& p3 : test::all_perms(3))
          calls.push_back({{5, 3, 7, n}, {p3[0], p3[1], p3[2], 3}});
        calls.push_back({{5, 3, 7, 4, n}, {3, 0, 2, 1, 4}});
        calls.push_back({{5, 3, 7, 4, n}, {1, 3, 0, 2, 4}});
        for (const auto& [ext, perm] : calls) {
          const std::string how = explain_permute(ext, perm, e);
          widened +=
              how.find("moved as " + std::to_string(w) + "-byte elements") != std::string::npos;
          for (const std::string& v : techniques())
            for (std::size_t offset : {std::size_t{0}, static_cast<std::size_t>(e)}) {
              const test::PermuteRun r = test::check_permute(ext, perm, e, {}, named(v), offset);
              ASSERT_TRUE(r.error.empty()) << v << " " << policy << ": " << r.error;
              ++runs;
            }
        }
        const Ext ext = {5, 3, 7, n};
        // Strided src: rows 8 apart (whole rows of n when n divides 8: widened), planes padded.
        PermuteLayout lay;
        lay.src_strides_elems = {3 * 8 * 8 + 8, 8 * 8, 8, 1};
        if (n == 16) lay.src_strides_elems = {3 * 128 + 16, 128, 16, 1};
        lay.dst_strides_elems = {3 * 5 * n + n, 5 * n, n, 1};  // dst (7, 3, 5, n), planes padded
        for (const std::string& v : techniques()) {
          const test::PermuteRun r = test::check_permute(ext, {2, 1, 0, 3}, e, lay, named(v));
          ASSERT_TRUE(r.error.empty()) << v << " strided " << policy << ": " << r.error;
          ++runs;
        }
      }
  }
  const int sizes = 4 + 3 + 2 + 1;  // (e, w) pairs
  EXPECT_EQ(runs, 2 * sizes * static_cast<int>(techniques().size()) * (8 * 2 + 1));
  EXPECT_EQ(widened, sizes * 3);  // the default policy only
}

// Src words across whole box dimensions that continue src's contiguous one (box_vector_elems,
// BoxPlan::src_runs): shapes whose innermost src extent is odd but whose run over the next whole
// dimensions is a multiple of a word, every element size, each technique, operands aligned and
// one element off (no words), dense and with padded src rows; with the policy off, the old words.
TEST(Permute, SrcWordsAcrossWholeDimensions) {
  TMAKIT_NEED_GPU(75);
  const std::vector<std::pair<Ext, std::vector<int>>> cases = {
      {{23, 20, 4, 128, 5}, {2, 0, 4, 1, 3}},
      {{7, 6, 9, 3}, {2, 0, 3, 1}},
      {{5, 12, 3, 7}, {3, 0, 2, 1}},
      {{4, 3, 5, 8, 3}, {1, 3, 4, 0, 2}}};
  int runs = 0;
  for (const char* policy : {"", "permute_box_src_runs=0"}) {
    test::ScopedEnv env("TMAKIT_POLICY", policy);
    for (const auto& [n, p] : cases)
      for (int e : {1, 2, 4, 8, 16}) {
        for (const std::string& v : techniques())
          for (std::size_t offset : {std::size_t{0}, static_cast<std::size_t>(e)}) {
            const test::PermuteRun r = test::check_permute(n, p, e, {}, named(v), offset);
            ASSERT_TRUE(r.error.empty()) << v << " " << policy << ": " << r.error;
            ++runs;
          }
        // Padded src: the two innermost dimensions whole and contiguous, the rest padded by a
        // word.
        PermuteLayout lay;
        const std::size_t r = n.size();
        lay.src_strides_elems.assign(r, 1);
        lay.src_strides_elems[r - 2] = n[r - 1];
        std::int64_t s = n[r - 1] * n[r - 2] + 16;
        for (std::size_t k = r - 2; k-- > 0;) {
          lay.src_strides_elems[k] = s;
          s = s * n[k] + 16;
        }
        const test::PermuteRun padded = test::check_permute(n, p, e, lay, named("permute_tile"));
        ASSERT_TRUE(padded.error.empty()) << "padded " << policy << ": " << padded.error;
        ++runs;
      }
  }
  EXPECT_EQ(runs, 2 * 4 * 5 * (static_cast<int>(techniques().size()) * 2 + 1));
}

// Dst words across rows of dst's contiguous box dimension (box_vector_elems, BoxPlan::dst_runs,
// box_dst_words_cross_rows; BoxPlan::narrow_dst_runs_max_bytes: 4-16-byte words at 1-2 B): random
// small shapes at 1-8 B whose explain says the stores cross rows (at 2 B some in words narrower
// than 16 bytes: the test's policy takes them at 1-2 B), each run by auto and permute_tile
// against the reference under that policy, with the registers' word walk instead of cp.async,
// with cut edges instead of overlapping ones, unswizzled, and with the rules off or narrowed to
// 1 B; both operands one element off (no words), and four named shapes (one crossing rows of two
// dimensions: 89 x 2 x 8; one at 1 B, 41-byte rows in 16-byte words).
TEST(Permute, DstWordsAcrossRows) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", (std::string(kTablesAtSmallSizes) + kRunsBoxes +
                                           ",permute_box_narrow_dst_runs_max_bytes=2")
                                              .c_str());
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases = {
      {{3, 2, 4, 5, 89, 8}, {0, 3, 2, 5, 1, 4}, 2},
      {{3, 7, 6, 5, 64}, {3, 2, 0, 4, 1}, 4},
      {{3, 5, 7, 3, 24}, {0, 2, 4, 3, 1}, 8},
      {{41, 16, 192}, {1, 2, 0}, 1}};
  std::mt19937 rng(20261130);
  int per_size[17] = {};
  for (int tries = 0; tries < 20000; ++tries) {
    const int e = 1 << (rng() % 4), rank = 3 + static_cast<int>(rng() % 3);
    if (per_size[e] >= 5) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 30, 300000, &n, &p)) continue;
    if (explain_permute(n, p, e).find("across dst rows") == std::string::npos) continue;
    cases.emplace_back(n, p, e);
    ++per_size[e];
  }
  for (int e : {1, 2, 4, 8}) EXPECT_GE(per_size[e], 3) << e << " B";
  int crossing = 0, narrow_2b = 0;
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    crossing += how.find("across dst rows") != std::string::npos;
    narrow_2b += e == 2 && (how.find("stores of 4 bytes across") != std::string::npos ||
                            how.find("stores of 8 bytes across") != std::string::npos);
    check_under_policies(
        n, p, e,
        {"", "permute_box_async=0", "permute_box_overlap_edges=0", "permute_box_swizzle_bytes=0",
         "permute_box_dst_runs=0", "permute_box_narrow_dst_runs_max_bytes=0",
         "permute_box_narrow_dst_runs_max_bytes=1"},
        how);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(crossing, static_cast<int>(cases.size()));
  EXPECT_GE(narrow_2b, 1);
}

// Single-element dst words through cp.async with each thread's dst entries in registers
// (DevicePolicy::permute_box_dst_registers, box_dst_in_registers): random shapes at 2-8 B whose
// explain says so, the word walk (src words) and the element walk (4-8 B) both drawn, each run by
// auto and permute_tile against the reference under the default, with the tables (the policy at 0),
// with cut edges, with the shared box never swizzled (permute_box_swizzle_bytes=0; the default
// swizzles the word walks' boxes whose gathers start 32 bytes apart, their slot bytes kept swizzled
// in registers) and with one block an SM (many boxes a block); aligned and one element off. Plus a
// small case of (563, 72, 217, 6) (2,1,3,0)'s kind at 4 B.
TEST(Permute, DstEntriesInRegisters) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases = {{{63, 8, 21, 6}, {2, 1, 3, 0}, 4}};
  std::mt19937 rng(20261202);
  int per_size[9] = {}, element_walks = 0;
  for (int tries = 0; tries < 20000; ++tries) {
    const int e = 2 << (rng() % 3), rank = 3 + static_cast<int>(rng() % 3);
    if (per_size[e] >= 5) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 40, 300000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, e);
    if (how.find("shared slots in registers") == std::string::npos) continue;
    element_walks += how.find("in words") == std::string::npos;
    cases.emplace_back(n, p, e);
    ++per_size[e];
  }
  for (int e : {2, 4, 8}) EXPECT_GE(per_size[e], 2) << e << " B";
  EXPECT_GE(element_walks, 2);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    EXPECT_NE(how.find("shared slots in registers"), std::string::npos) << how;
    check_under_policies(n, p, e,
                         {"", "permute_box_dst_registers=0", "permute_box_overlap_edges=0",
                          "permute_box_swizzle_bytes=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// Boxes over 12 dst entries a thread keep 24 (box_dst_register_entries,
// DevicePolicy::permute_box_dst_registers_large_max_bytes): random shapes at 4 B whose explain says
// so under the default, and at 8 B under the field at 8 (the kernels exist there; measured even, so
// not the default), both with the tables' walks at small sizes (kTablesAtSmallSizes: the word and
// the element walk drawn), each run by auto and permute_tile against the reference under that
// policy, with the field at 0 (the tables' reads), with cut edges, with the shared box never
// swizzled and with one block an SM (many boxes a block); aligned and one element off. Plus (61,
// 24, 70, 6) (2,1,3,0) at 4 B, (563, 72, 217, 6)'s kind.
TEST(Permute, DstEntriesInRegistersLargeBoxes) {
  TMAKIT_NEED_GPU(75);
  for (int e : {4, 8}) {
    // The tables' walks at small sizes too (a small 8-byte tensor takes the registers' walk).
    const std::string policy = std::string(kTablesAtSmallSizes) + kRunsBoxes +
                               (e == 8 ? ",permute_box_dst_registers_large_max_bytes=8" : "");
    test::ScopedEnv large("TMAKIT_POLICY", policy.c_str());
    std::vector<std::pair<Ext, std::vector<int>>> cases;
    if (e == 4) cases.push_back({{61, 24, 70, 6}, {2, 1, 3, 0}});
    std::mt19937 rng(20261204 + e);
    for (int tries = 0; tries < 40000 && cases.size() < 5; ++tries) {
      const int rank = 3 + static_cast<int>(rng() % 3);
      Ext n;
      std::vector<int> p;
      if (!draw_shape(rng, rank, 120, 600000, &n, &p)) continue;
      if (explain_permute(n, p, e).find("24 a thread") != std::string::npos)
        cases.push_back({n, p});
    }
    EXPECT_GE(cases.size(), 4u) << e << " B";
    for (const auto& [n, p] : cases) {
      const std::string how = explain_permute(n, p, e);
      EXPECT_NE(how.find("shared slots in registers, read from the tables once "
                         "(permute_box_dst_registers: 24 a thread"),
                std::string::npos)
          << e << " B " << test::text(n) << " " << test::text(p) << "\n"
          << how;
      check_under_policies(
          n, p, e,
          {"", "permute_box_dst_registers_large_max_bytes=0", "permute_box_overlap_edges=0",
           "permute_box_swizzle_bytes=0", "permute_box_sm_smem_bytes=1"},
          how);
      if (HasFatalFailure()) return;
    }
  }
}

// The box past the static 48 KB for its wider words (DevicePolicy::
// permute_box_past_static_for_wider_words, box_words_wider): random shapes at 4 and 8 B whose
// explain says so, plus (2, 79, 5, 6, 136) (0,2,3,4,1) at 4 B ((2, 79, 57, 26, 136)'s kind: dst's
// 79 whole, 16-byte words across its rows); each run by auto and permute_tile against the reference
// under the default, with the field at 0 (the box of 48 KB, pipelined), with cut edges and with
// one block an SM (many boxes a block); aligned and one element off.
TEST(Permute, PastStaticSmemForWiderWords) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  const char* kSaid = "past the static 48 KB for wider words";
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  if (explain_permute({2, 79, 5, 6, 136}, {0, 2, 3, 4, 1}, 4).find(kSaid) != std::string::npos)
    cases.emplace_back(Ext{2, 79, 5, 6, 136}, std::vector<int>{0, 2, 3, 4, 1}, 4);
  EXPECT_EQ(cases.size(), 1u);
  std::mt19937 rng(20261207);
  int found = 0;
  for (int tries = 0; tries < 60000 && found < 5; ++tries) {
    const int e = rng() % 2 ? 8 : 4, rank = 3 + static_cast<int>(rng() % 4);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 150, 600000, &n, &p)) continue;
    if (explain_permute(n, p, e).find(kSaid) != std::string::npos) {
      cases.emplace_back(n, p, e);
      ++found;
    }
  }
  EXPECT_GE(found, 3);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    check_under_policies(n, p, e,
                         {"", "permute_box_past_static_for_wider_words=0",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// The registers' walk where the policy's rules take a tables' box: 4-byte boxes without words
// (permute_box_registers_elements_max_bytes), 8-byte tensors of up to 16 MiB
// (permute_box_registers_small_tensor_bytes) and 2-byte boxes without src words
// (permute_box_registers_src_elements_bytes): random shapes whose explain names each rule, each
// run by auto and permute_tile against the reference under the default, with cut edges, with one
// block an SM (many boxes a block) and in tables as before the rules; aligned and one element off.
TEST(Permute, RegistersWalkByThePolicysRules) {
  TMAKIT_NEED_GPU(75);
  const char* rules[] = {"element by element on both sides (no 4-16-byte words) at 4 B",
                         "in registers: a tensor of ",
                         "load its box element by element through registers (no src word) at 2 B"};
  const int sizes[] = {4, 8, 2};
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  std::mt19937 rng(20261203);
  int per_rule[3] = {};
  for (int tries = 0; tries < 30000; ++tries) {
    const int k = static_cast<int>(rng() % 3), rank = 3 + static_cast<int>(rng() % 3);
    if (per_rule[k] >= 4) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 60, 300000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, sizes[k]);
    if (how.find(rules[k]) == std::string::npos ||
        how.find("each thread's offsets in registers") == std::string::npos)
      continue;
    cases.emplace_back(n, p, sizes[k]);
    ++per_rule[k];
  }
  for (int k = 0; k < 3; ++k) EXPECT_GE(per_rule[k], 2) << rules[k];
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    EXPECT_NE(how.find("each thread's offsets in registers"), std::string::npos) << how;
    check_under_policies(
        n, p, e,
        {"", "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1", kTablesAtSmallSizes},
        how);
    if (HasFatalFailure()) return;
  }
}

// The registers' walk where the tables' box fits its own (DevicePolicy::
// permute_box_registers_box_fits_min_bytes, 4 B; box_fits_registers, box_registers_takes): the
// suite's tensors are small, so the small tensors' rule is set off for the scope and this rule
// decides. Random 4- and 8-byte shapes of ranks 3-5 whose explain names it (at 4 B where the
// registers' walk plans a box as large and stores dst words as wide), by auto and permute_tile
// against the reference under the default, the rule off (the tables' walk), cut edges and one
// block an SM; aligned and one element off (where the dst words the rule compared may differ).
TEST(Permute, RegistersWalkWhereTheTablesBoxFits) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv scope("TMAKIT_POLICY", "permute_box_registers_small_tensor_bytes=0");
  const std::string rule[2] = {
      "fits the registers' walk's 2048, which plans a box as large and stores dst words as wide, "
      "at 4 B",
      "fits the registers' walk's 512 at 8 B"};
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  int drawn[2] = {};
  std::mt19937 rng(20261205);
  for (int tries = 0; tries < 40000 && drawn[0] + drawn[1] < 12; ++tries) {
    const int k = static_cast<int>(rng() % 2), e = k == 0 ? 4 : 8;
    const int rank = 3 + static_cast<int>(rng() % 3);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 60, 200000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, e);
    if (drawn[k] >= 6 || how.find(rule[k]) == std::string::npos) continue;
    EXPECT_NE(how.find("box walk (permute_tile, each thread's offsets in registers)"),
              std::string::npos)
        << how;
    ++drawn[k];
    cases.emplace_back(n, p, e);
  }
  EXPECT_GE(drawn[0], 4);
  EXPECT_GE(drawn[1], 4);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    check_under_policies(n, p, e,
                         {"", "permute_box_registers_box_fits_min_bytes=0",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// The registers' walk in words (DevicePolicy::permute_box_registers_words_min_bytes,
// reg_box_words): the scope sends every box to the registers' walk
// (permute_box_registers_min_bytes=1), and random shapes of 2, 4 and 8 B whose explain names its
// words are drawn until each kind is there (src words alone, dst words alone, both; each element
// size). Each by auto and permute_tile against the reference under the default, element by element
// (the field at 0), cut edges and one block an SM; aligned and one element off (fewer or no
// words: the launcher's words follow the addresses).
TEST(Permute, RegistersWalkInWords) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv scope("TMAKIT_POLICY", "permute_box_registers_min_bytes=1");
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  std::mt19937 rng(20261206);
  const int sizes[] = {2, 4, 8};
  int kinds[3][3] = {};  // [size][src only, dst only, both]
  for (int tries = 0; tries < 40000; ++tries) {
    const int k = static_cast<int>(rng() % 3), e = sizes[k];
    const int rank = 2 + static_cast<int>(rng() % 4);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 40, 150000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, e);
    const std::size_t at = how.find("; src words of ");
    // Rows moved as wider elements (permute_rows_as_elements) print their words at that size.
    if (at == std::string::npos || how.find("offsets in registers") == std::string::npos ||
        how.find("(permute_rows_as_elements)") != std::string::npos)
      continue;
    const int ls = std::atoi(how.c_str() + at + 15);
    const std::size_t st = how.find("dst words of ", at);
    ASSERT_NE(st, std::string::npos) << how;
    const int ss = std::atoi(how.c_str() + st + 13);
    ASSERT_TRUE(ls > e || ss > e) << how;
    ASSERT_TRUE(ls <= 16 && ss <= 16 && ls % e == 0 && ss % e == 0) << how;
    if (e == 2) ASSERT_EQ(ls, 2) << how;  // no src words below 4 B
    const int kind = ls > e && ss > e ? 2 : ls > e ? 0 : 1;
    if (kinds[k][kind] >= 2) continue;
    ++kinds[k][kind];
    cases.emplace_back(n, p, e);
  }
  for (int k = 0; k < 3; ++k) {
    EXPECT_GE(kinds[k][1], 1) << sizes[k] << " B: dst words";
    if (sizes[k] >= 4) {
      EXPECT_GE(kinds[k][0], 1) << sizes[k] << " B: src words";
      EXPECT_GE(kinds[k][2], 1) << sizes[k] << " B: both";
    }
  }
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    check_under_policies(n, p, e,
                         {"", "permute_box_registers_words_min_bytes=0",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// Boxes the whole runs rule widened (DevicePolicy::permute_box_whole_runs): random shapes
// of every element size whose explain says so, each by auto and permute_tile against the
// reference under the default, with the rule off, with cut edges and with one block an SM; aligned
// and one element off.
TEST(Permute, WholeRunBoxes) {
  TMAKIT_NEED_GPU(75);
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  std::mt19937 rng(20261204);
  const int sizes[] = {1, 2, 4, 8, 16};
  int per_size[5] = {};
  for (int tries = 0; tries < 40000; ++tries) {
    const int k = static_cast<int>(rng() % 5), rank = 3 + static_cast<int>(rng() % 3);
    if (per_size[k] >= 3) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 120, 400000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, sizes[k]);
    if (how.find("\nwhole runs: ") == std::string::npos) continue;
    cases.emplace_back(n, p, sizes[k]);
    ++per_size[k];
  }
  int sizes_found = 0;
  for (int k = 0; k < 5; ++k) sizes_found += per_size[k] > 0;
  EXPECT_GE(sizes_found, 3);
  EXPECT_GE(cases.size(), 8u);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    check_under_policies(n, p, e,
                         {"", "permute_box_whole_runs=0", "permute_box_overlap_edges=0",
                          "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// Boxes the whole runs rule leaves unwidened for the registers' walk (box_whole_runs_yield;
// DevicePolicy::permute_box_whole_runs_past_registers): random shapes at 4-16 B whose explain
// says so (the small-box rule off), each by auto and permute_tile against the reference under the
// default, with the widened box in the tables' walk, with cut edges and with one block an SM;
// aligned and one element off.
TEST(Permute, WholeRunsYieldToRegisters) {
  TMAKIT_NEED_GPU(75);
  // These small tensors' widened boxes of up to 4096 elements go to the registers' walk by the
  // small-box rule first (SmallTensorBoxesInRegisters); without it, by this one.
  test::ScopedEnv scope("TMAKIT_POLICY", "permute_box_registers_small_box_ratio=0");
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  std::mt19937 rng(20261206);
  const int sizes[] = {4, 8, 16};
  for (int tries = 0; tries < 40000 && cases.size() < 8; ++tries) {
    const int e = sizes[rng() % 3], rank = 3 + static_cast<int>(rng() % 3);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 120, 400000, &n, &p)) continue;
    if (explain_permute(n, p, e).find("in registers: whole runs would widen") != std::string::npos)
      cases.emplace_back(n, p, e);
  }
  EXPECT_GE(cases.size(), 4u);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    check_under_policies(n, p, e,
                         {"", "permute_box_whole_runs_past_registers=1",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// A small tensor's tables' box of up to twice the registers' walk's, walked in registers
// (RegistersRule::small_box; DevicePolicy::permute_box_registers_small_box_ratio): random shapes
// at 4 B whose explain says so, each by auto and permute_tile against the reference under the
// default, with the rule off (the tables' walk), with cut edges and with one block an SM; aligned
// and one element off.
TEST(Permute, SmallTensorBoxesInRegisters) {
  TMAKIT_NEED_GPU(75);
  std::vector<std::pair<Ext, std::vector<int>>> cases;
  std::mt19937 rng(20261207);
  for (int tries = 0; tries < 40000 && cases.size() < 8; ++tries) {
    const int rank = 3 + static_cast<int>(rng() % 3);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 120, 400000, &n, &p)) continue;
    if (explain_permute(n, p, 4).find("permute_box_registers_small_box_ratio") != std::string::npos)
      cases.emplace_back(n, p);
  }
  EXPECT_GE(cases.size(), 4u);
  for (const auto& [n, p] : cases) {
    const std::string how = explain_permute(n, p, 4);
    EXPECT_NE(how.find("offsets in registers"), std::string::npos) << how;
    check_under_policies(n, p, 4,
                         {"", "permute_box_registers_small_box_ratio=0",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// The word walk's stores by src word (DevicePolicy::permute_box_dst_by_src_words_max_bytes,
// box_dst_by_src_words): random shapes whose explain says so, at 1-2 B by default and at 4-8 B
// under the policy at 8, the pipelined walk, the one through cp.async and the one that loads each
// box, then stores it among them; each by auto and permute_tile against the reference under the
// default, with the rule off, through cp.async off, unpipelined, with cut edges and with one block
// an SM; aligned and one element off.
TEST(Permute, DstBySrcWords) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  std::vector<std::tuple<Ext, std::vector<int>, int, const char*>> cases;
  std::mt19937 rng(20261205);
  const int sizes[] = {1, 2, 4, 8};
  int per_size[4] = {}, pipelined = 0, async = 0;
  for (int tries = 0; tries < 40000; ++tries) {
    const int k = static_cast<int>(rng() % 4), rank = 3 + static_cast<int>(rng() % 3);
    if (per_size[k] >= 4) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 120, 400000, &n, &p)) continue;
    const char* policy = sizes[k] <= 2 ? "" : "permute_box_dst_by_src_words_max_bytes=8";
    std::string how;
    {
      test::ScopedEnv wide("TMAKIT_POLICY",
                           *policy == '\0'
                               ? kTablesAtSmallSizes
                               : (std::string(kTablesAtSmallSizes) + "," + policy).c_str());
      how = explain_permute(n, p, sizes[k]);
    }
    if (how.find("\nstores by src word: ") == std::string::npos) continue;
    pipelined += how.find("in flight (registers)") != std::string::npos;
    async += how.find("by cp.async") != std::string::npos;
    cases.emplace_back(n, p, sizes[k], policy);
    ++per_size[k];
  }
  for (int k = 0; k < 4; ++k) EXPECT_GE(per_size[k], 2) << sizes[k] << " B";
  EXPECT_GE(pipelined, 2);
  EXPECT_GE(async, 2);
  for (const auto& [n, p, e, policy] : cases) {
    const std::string extra = std::string(kTablesAtSmallSizes) + (*policy ? "," : "") + policy;
    test::ScopedEnv wide("TMAKIT_POLICY", extra.c_str());
    const std::string how = explain_permute(n, p, e);
    check_under_policies(
        n, p, e,
        {"", "permute_box_dst_by_src_words_max_bytes=0", "permute_box_async=0",
         "permute_box_pipeline=0", "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
        how);
    if (HasFatalFailure()) return;
  }
}

// The word walk's stores in register blocks (DevicePolicy::permute_box_dst_blocks_max_bytes,
// box_dst_blocks): random 1-byte shapes whose explain says so (the rule's only size); each by
// auto and permute_tile against the reference under the default, with the rule off, through
// cp.async off, unpipelined, with cut edges, with the small blocks off and with one block an SM;
// aligned and one element off.
TEST(Permute, DstBlocks) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  std::vector<std::pair<Ext, std::vector<int>>> cases;
  std::mt19937 rng(20261206);
  for (int tries = 0; tries < 40000 && cases.size() < 8; ++tries) {
    const int rank = 3 + static_cast<int>(rng() % 3);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 120, 400000, &n, &p)) continue;
    if (explain_permute(n, p, 1).find("\nstores in register blocks: ") == std::string::npos)
      continue;
    cases.emplace_back(n, p);
  }
  EXPECT_GE(cases.size(), 3u);
  for (const auto& [n, p] : cases) {
    const int e = 1;
    const std::string how = explain_permute(n, p, e);
    check_under_policies(
        n, p, e,
        {"", "permute_box_dst_blocks_max_bytes=0", "permute_box_async=0", "permute_box_pipeline=0",
         "permute_box_overlap_edges=0", "permute_box_words_small_block_max_bytes=0",
         "permute_box_sm_smem_bytes=1"},
        how);
    if (HasFatalFailure()) return;
  }
}

// permute_transpose named on a permutation that reduces to a transpose runs transpose()'s own
// call, as auto does: the same technique (ranked over every one, not only those that walk a
// strided batch of several dimensions), the same result, aligned and one element off.
TEST(Permute, NamedPermuteTransposeOnATransposeRunsTransposesOwnCall) {
  TMAKIT_NEED_GPU(75);
  const std::vector<std::tuple<Ext, std::vector<int>, int>> cases = {
      {{78, 42, 16, 2, 80}, {0, 1, 2, 4, 3}, 4},  // a batch of 52,416 matrices of 2 x 80
      {{5, 76, 565, 22}, {2, 3, 0, 1}, 1},        // one 380 x 12430 matrix
      {{18, 9, 1700, 8}, {0, 1, 3, 2}, 8}};
  for (const auto& [n, p, e] : cases) {
    PermuteReduction red;
    ASSERT_TRUE(reduce_permutation(n, p, e, {}, &red).ok());
    ASSERT_EQ(red.form, PermuteForm::kTranspose) << red.to_string();
    const test::PermuteRun a = test::check_permute(n, p, e, {}, named("auto"));
    ASSERT_TRUE(a.error.empty()) << a.error;
    const test::PermuteRun t = test::check_permute(n, p, e, {}, named("permute_transpose"));
    ASSERT_TRUE(t.error.empty()) << t.error;
    EXPECT_EQ(t.status.variant, a.status.variant) << red.to_string();
    EXPECT_NE(find_variant(t.status.variant), nullptr) << t.status.variant;
    const test::PermuteRun off = test::check_permute(n, p, e, {}, named("permute_transpose"), e);
    ASSERT_TRUE(off.error.empty()) << off.error;
  }
}

// The word walk in blocks of 128 threads (DevicePolicy::permute_box_words_small_block_max_bytes,
// box_words_threads): random 1-2 B shapes whose explain says so, the pipelined walk (4 words a
// thread) and the one that loads each box, then stores it, both drawn; each run by auto and
// permute_tile against the reference under the default, in blocks of 256 (the policy at 0),
// unpipelined, with cut edges, and with one block an SM (many boxes a block); aligned and one
// element off. Plus the (24, 40, 56, 72) reversal at 2 B, 2240 boxes.
TEST(Permute, WordWalkInSmallBlocks) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases = {{{24, 40, 56, 72}, {3, 2, 1, 0}, 2}};
  std::mt19937 rng(20261201);
  int pipelined = 0, each_box = 0;
  for (int tries = 0; tries < 20000 && (pipelined < 6 || each_box < 6); ++tries) {
    const int e = 1 + static_cast<int>(rng() % 2), rank = 3 + static_cast<int>(rng() % 3);
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 40, 400000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, e);
    const bool pipe = how.find("in flight (registers) while this one is stored; blocks of 128") !=
                      std::string::npos;
    const bool each = how.find("then stored; blocks of 128") != std::string::npos;
    if ((pipe && pipelined >= 6) || (each && each_box >= 6) || !(pipe || each)) continue;
    pipelined += pipe;
    each_box += each;
    cases.emplace_back(n, p, e);
  }
  EXPECT_GE(pipelined, 6);
  EXPECT_GE(each_box, 6);
  for (const auto& [n, p, e] : cases) {
    const std::string how = explain_permute(n, p, e);
    EXPECT_NE(how.find("blocks of 128 threads"), std::string::npos) << how;
    check_under_policies(n, p, e,
                         {"", "permute_box_words_small_block_max_bytes=0", "permute_box_pipeline=0",
                          "permute_box_overlap_edges=0", "permute_box_sm_smem_bytes=1"},
                         how);
    if (HasFatalFailure()) return;
  }
}

// The elements of the box `explain` describes ("... = N elements"), 0 where it walks none.
std::int64_t explained_box_elems(const std::string& how) {
  const std::size_t at = how.find("box walk (permute_tile");
  if (at == std::string::npos) return 0;
  const std::size_t eq = how.find(" = ", at), end = how.find(" elements", eq);
  if (eq == std::string::npos || end == std::string::npos) return 0;
  return std::stoll(how.substr(eq + 3, end - eq - 3));
}

// Boxes planned under more than the static 48 KB (DevicePolicy::permute_box_max_smem_bytes, by
// default 96 KB, box_past_static_smem): random shapes at 1-8 B whose box is larger than under the
// 48 KB, the word walks and the element walks drawn, each run by auto and permute_tile against the
// reference under the default, with the tables' dst reads (dst entries in registers off), with cut
// edges, through registers instead of cp.async, and with one block an SM (many boxes a block);
// aligned and one element off.
TEST(Permute, BoxesOverFortyEightKilobytes) {
  TMAKIT_NEED_GPU(75);
  test::ScopedEnv tables("TMAKIT_POLICY", kTablesAtSmallSizes);
  std::vector<std::tuple<Ext, std::vector<int>, int>> cases;
  std::mt19937 rng(20261130);
  int per_size[9] = {}, over = 0, element_walks = 0;
  for (int tries = 0; tries < 20000; ++tries) {
    const int e = 1 << (rng() % 4), rank = 3 + static_cast<int>(rng() % 3);
    if (per_size[e] >= 4 && element_walks >= 2) continue;
    Ext n;
    std::vector<int> p;
    if (!draw_shape(rng, rank, 300, 600000, &n, &p)) continue;
    const std::string how = explain_permute(n, p, e);
    const std::int64_t grown = explained_box_elems(how);
    std::int64_t plain = 0;
    {
      test::ScopedEnv env(
          "TMAKIT_POLICY",
          (std::string(kTablesAtSmallSizes) + ",permute_box_max_smem_bytes=48896").c_str());
      plain = explained_box_elems(explain_permute(n, p, e));
    }
    const bool element_walk = how.find("in words") == std::string::npos;
    if (plain == 0 || grown <= plain || (per_size[e] >= 4 && !element_walk)) continue;
    over += grown * (e + 14) > 48 * 1024;
    element_walks += element_walk;
    cases.emplace_back(n, p, e);
    ++per_size[e];
  }
  for (int e : {1, 2, 4, 8}) EXPECT_GE(per_size[e], 2) << e << " B";
  EXPECT_GE(over, 4);
  EXPECT_GE(element_walks, 2);
  for (const auto& [n, p, e] : cases) {
    check_under_policies(n, p, e,
                         {"", "permute_box_dst_registers=0", "permute_box_overlap_edges=0",
                          "permute_box_async=0", "permute_box_sm_smem_bytes=1"},
                         explain_permute(n, p, e));
    if (HasFatalFailure()) return;
  }
}

// A box walk whose dynamic shared memory is just under 48 KB (49,120 bytes: tables, the box and
// the row tables after them) with the kernel's own static bytes on top: the launch must opt in
// (kernels/primitives/launch_smem.cuh), where it was refused with cudaErrorInvalidValue. Rows of
// 2 bytes kept as rows (operands 1 byte off, and with the policy's widening off), in the tables'
// element walk (1-byte boxes without words take the registers' walk by default, and dst words
// across its rows of 2 the word walk).
TEST(Permute, BoxSharedMemoryJustUnderFortyEightKilobytes) {
  TMAKIT_NEED_GPU(75);
  const Ext ext = {8, 11, 4, 558, 3, 2};
  const std::vector<int> perm = {0, 1, 4, 3, 2, 5};
  test::ScopedEnv env("TMAKIT_POLICY",
                      "permute_rows_as_elements=0,permute_box_registers_elements_max_bytes=0,"
                      "permute_box_dst_runs=0,permute_box_max_smem_bytes=48896,"
                      "permute_box_min_boxes_per_sm=0");
  const std::string how = explain_permute(ext, perm, 1);
  EXPECT_NE(how.find("row tables of 15624 bytes, after the tables"), std::string::npos) << how;
  for (const std::string& v : {std::string("auto"), std::string("permute_tile")})
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}}) {
      const test::PermuteRun r = test::check_permute(ext, perm, 1, {}, named(v), offset);
      EXPECT_TRUE(r.error.empty()) << v << " offset " << offset << ": " << r.error;
    }
}

// permute_tile's 2-D tile kernel (64 x 64 tiles up to 4 B, 32 x 32 from 8 B on): edge tiles cut on
// both sides and in the middle of a warp's columns, one or two batch dimensions between the two,
// operands off 16-byte alignment; explain_permute says the tiles ran, not the boxes.
TEST(Permute, TwoDimensionalTilesWithEdgesEveryElementSize) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
  };
  const Case cases[] = {{{61, 3, 95}, {2, 1, 0}},
                        {{127, 2, 5, 95}, {3, 1, 2, 0}},
                        {{63, 2, 3, 127}, {3, 2, 1, 0}},
                        {{190, 4, 62}, {2, 1, 0}}};
  int runs = 0;
  for (const Case& c : cases)
    for (int e : {1, 2, 4, 8, 16}) {
      const std::string how = explain_permute(c.n, c.p, e);
      ASSERT_NE(how.find("shared tiles"), std::string::npos) << how;
      for (std::size_t off : {std::size_t{0}, std::size_t{16}, std::size_t{48}}) {
        const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named("permute_tile"), off);
        ASSERT_TRUE(r.error.empty()) << e << " B offset " << off << ": " << r.error;
        ++runs;
      }
    }
  EXPECT_EQ(runs, 4 * 5 * 3);  // the tile kernel ran for every case and element size
}

// The tile form as a batch of transposes: every transpose technique that takes a batch of
// several dimensions, named, on tiles with edges in a batch of one to three dimensions
// (interleaved matrices: a reversal's middle dimension), dense and padded (poisoned padding
// left untouched), every element size it takes; auto where both tile sides are long; a tile
// whose contiguous dimension is strided refused by name.
TEST(Permute, TileFormAsBatchOfTransposesEveryTechnique) {
  TMAKIT_NEED_GPU(75);
  const std::vector<StridedCase> cases = {
      {{33, 5, 70}, {2, 1, 0}, {}, {}},              // one batch dimension, interleaved
      {{37, 3, 4, 45}, {3, 1, 2, 0}, {}, {}},        // two
      {{35, 2, 3, 5, 41}, {4, 3, 1, 2, 0}, {}, {}},  // three
      {{70, 3, 2, 130}, {3, 2, 1, 0}, {}, {}},       // several tiles a matrix, edges
      {{37, 3, 45}, {2, 1, 0}, {160, 50, 1}, {}},    // src rows and matrices padded
      {{37, 3, 45}, {2, 1, 0}, {}, {140, 40, 1}},    // dst's padded
  };
  int runs = 0;
  for (const VariantInfo& t : variants()) {
    if (t.batch_dims < 3) continue;
    for (int e : {1, 2, 4, 8, 16}) {
      if (!t.supports_elem_bytes(e)) continue;
      for (const StridedCase& c : cases) {
        const test::PermuteRun r =
            test::check_permute(c.n, c.p, e, PermuteLayout{c.src, c.dst}, named(t.token));
        ASSERT_TRUE(r.error.empty())
            << t.token << " " << e << " B " << test::text(c.n) << ": " << r.error;
        EXPECT_EQ(r.status.variant, t.token);
        ++runs;
      }
    }
  }
  EXPECT_GE(runs, 9 * 6 * 4);  // nine techniques at 1-8 B at least
  // auto takes the transposes where both tile sides are long (63 x 4 and 101 x 4 bytes).
  const Ext n = {63, 5, 7, 101};
  const std::vector<int> p = {3, 2, 1, 0};
  ASSERT_NE(explain_permute(n, p, 4).find("auto: permute_transpose"), std::string::npos);
  const test::PermuteRun a = test::check_permute(n, p, 4, {}, named("auto"));
  ASSERT_TRUE(a.error.empty()) << a.error;
  const VariantInfo* ran = find_variant(a.status.variant);
  ASSERT_NE(ran, nullptr) << a.status.variant;
  EXPECT_GE(ran->batch_dims, 3) << a.status.variant;
  // Rank 6 with both tile sides long (211 and 223 elements): auto runs it as rank-5 permutations
  // over the outer dimension of 2, each a batch of transposes, at 1-8 B; with the rule off, and at
  // 16 B (never by default), permute_tile's box walk in one launch.
  const Ext wide = {2, 3, 211, 3, 2, 223};
  const std::vector<int> wp = {4, 1, 5, 0, 3, 2};
  for (int e : {1, 2, 4, 8}) {
    const std::string how = explain_permute(wide, wp, e);
    ASSERT_NE(how.find("auto runs it as 2 launches of a rank-5 permutation"), std::string::npos)
        << e << " B: " << how;
    const test::PermuteRun w = test::check_permute(wide, wp, e, {}, named("auto"));
    ASSERT_TRUE(w.error.empty()) << e << " B: " << w.error;
    const VariantInfo* t = find_variant(w.status.variant);
    ASSERT_NE(t, nullptr) << e << " B: " << w.status.variant;
    EXPECT_GE(t->batch_dims, 3) << e << " B: " << w.status.variant;
  }
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_wide_transpose_min_side_bytes=0");
    const test::PermuteRun w = test::check_permute(wide, wp, 4, {}, named("auto"));
    ASSERT_TRUE(w.error.empty()) << w.error;
    EXPECT_EQ(w.status.variant, "permute_tile");
  }
  const test::PermuteRun w16 = test::check_permute(wide, wp, 16, {}, named("auto"));
  ASSERT_TRUE(w16.error.empty()) << w16.error;
  EXPECT_EQ(w16.status.variant, "permute_tile");
  // src's contiguous dimension strided (a ::2 view): no batch of transposes takes it.
  const test::PermuteRun refused = test::check_permute(
      {6, 50, 37}, {2, 0, 1}, 4, PermuteLayout{{3700, 73, 2}, {}}, named("smem_sector"));
  EXPECT_EQ(refused.status.code, StatusCode::kUnsupported);
  EXPECT_NE(refused.status.message.find("cannot run as a batch of transposes"), std::string::npos)
      << refused.status.message;
}

// reg_tile over a batch of one to three dimensions (DevicePolicy::permute_reg_tile_max_bytes):
// tiles whose sides are whole blocks (8 x 8 elements at 1-2 B, 4 x 4 at 4 B, 2 x 2 at 8 B), dense
// and padded to aligned pitches (poisoned padding left untouched), by auto under the policy where
// its explain names reg_tile, and named; a pitch off block rows by auto (another technique) and
// named (its fallback, smem_xor for a batch of several dimensions); the policy off never takes it.
TEST(Permute, RegTileOverABatchOfSeveralDimensions) {
  TMAKIT_NEED_GPU(75);
  const std::vector<StridedCase> fits = {
      {{16, 7, 24}, {2, 1, 0}, {}, {}},                   // one batch dimension, interleaved
      {{8, 5, 3, 16}, {3, 2, 1, 0}, {}, {}},              // two (a reversal)
      {{24, 3, 2, 5, 40}, {4, 3, 1, 2, 0}, {}, {}},       // three
      {{72, 3, 2, 136}, {3, 2, 1, 0}, {}, {}},            // many blocks a matrix
      {{16, 3, 24}, {2, 1, 0}, {3 * 32 * 2, 32, 1}, {}},  // src padded (pitch 32, matrices apart)
      {{16, 3, 24}, {2, 1, 0}, {}, {3 * 48, 48, 1}},      // dst padded
  };
  const std::string reg = "auto: reg_tile over the batch";
  test::ScopedEnv on("TMAKIT_POLICY", "permute_reg_tile_max_bytes=8");
  int by_auto = 0;
  for (int e : {1, 2, 4, 8}) {
    for (const StridedCase& c : fits) {
      const PermuteLayout lay{c.src, c.dst};
      const std::string how = explain_permute(c.n, c.p, e, lay);
      const test::PermuteRun a = test::check_permute(c.n, c.p, e, lay, named("auto"));
      ASSERT_TRUE(a.error.empty()) << e << " B " << test::text(c.n) << ": " << a.error << "\n"
                                   << how;
      if (how.find(reg) != std::string::npos) {
        EXPECT_EQ(a.status.variant, "reg_tile") << e << " B " << test::text(c.n);
        ++by_auto;
      }
      const test::PermuteRun r = test::check_permute(c.n, c.p, e, lay, named("reg_tile"));
      ASSERT_TRUE(r.error.empty()) << e << " B " << test::text(c.n) << ": " << r.error;
      EXPECT_EQ(r.status.variant, "reg_tile");
    }
  }
  EXPECT_GE(by_auto, 18);  // of 24 calls: long sides keep the transposes' rule
  // A src pitch of 26 elements (52 bytes at 2 B: no whole 16-byte block rows): auto takes another
  // technique, named reg_tile its fallback; both correct.
  const StridedCase off_rows{{16, 3, 2, 24}, {3, 2, 1, 0}, {3 * 2 * 26 * 2, 2 * 26, 26, 1}, {}};
  const PermuteLayout lay{off_rows.src, off_rows.dst};
  EXPECT_EQ(explain_permute(off_rows.n, off_rows.p, 2, lay).find(reg), std::string::npos);
  for (const char* v : {"auto", "reg_tile"}) {
    const test::PermuteRun r = test::check_permute(off_rows.n, off_rows.p, 2, lay, named(v));
    ASSERT_TRUE(r.error.empty()) << v << ": " << r.error;
  }
  test::ScopedEnv never("TMAKIT_POLICY", "permute_reg_tile_max_bytes=0");
  for (const StridedCase& c : fits) {
    const test::PermuteRun a = test::check_permute(c.n, c.p, 2, {c.src, c.dst}, named("auto"));
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_NE(a.status.variant, "reg_tile") << test::text(c.n);
  }
}

// Row permutations whose rows are not whole 16-byte chunks or sit off 16-byte alignment: the
// realigned rows kernel (head bytes, 16-byte chunks from two aligned blocks, tail bytes, a
// thread's rows together). Rows of 33-103 elements, operands 0-15 bytes off alignment, padded
// rows, more rows than a sweep of the grid.
TEST(Permute, RowsOffSixteenByteChunksEveryOffset) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
  };
  const Case cases[] = {{{5, 7, 37}, {1, 0, 2}},
                        {{3, 9, 4, 69}, {2, 0, 1, 3}},
                        {{6, 5, 103}, {1, 0, 2}},
                        {{300, 41, 33}, {1, 0, 2}},
                        {{2, 3, 5, 2, 47}, {3, 1, 0, 2, 4}}};
  int runs = 0;
  // The default policy (a dense dst: the flat walk) and the row-by-row kernels alone.
  for (const char* policy : {"", "permute_rows_flat_max_vector_bytes=0"}) {
    test::ScopedEnv env("TMAKIT_POLICY", policy);
    for (const Case& c : cases)
      for (int e : {1, 2, 4, 8})
        for (std::size_t off = 0; off < 16; off += e)
          for (const char* v : {"auto", "permute_tile"}) {
            const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named(v), off);
            ASSERT_TRUE(r.error.empty())
                << v << " offset " << off << " policy '" << policy << "': " << r.error;
            ++runs;
          }
  }
  PermuteLayout lay;  // rows of 37 elements in rows of 40, dst's in rows of 39
  lay.src_strides_elems = {7 * 40, 40, 1};
  lay.dst_strides_elems = {5 * 39, 39, 1};
  for (int e : {1, 2, 4, 8}) {
    const test::PermuteRun r = test::check_permute({5, 7, 37}, {1, 0, 2}, e, lay, named("auto"));
    ASSERT_TRUE(r.error.empty()) << "padded: " << r.error;
  }
  EXPECT_EQ(runs, 2 * 5 * (16 + 8 + 4 + 2) * 2);
}

// Few long rows (kernels::permute_row_segment_bytes): each row cut into segments of whole 16-byte
// chunks, the rest of each row a second launch. Rows of odd lengths (realigned chunks, every
// offset off 16 bytes), of whole 16-byte vectors with no rest, padded rows on both sides.
TEST(Permute, FewLongRowsAreCutIntoSegments) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
  };
  const Case cases[] = {
      {{3, 5, 100003}, {1, 0, 2}}, {{2, 3, 65536}, {1, 0, 2}}, {{2, 2, 3, 20011}, {2, 0, 1, 3}}};
  int runs = 0, cut = 0;
  // Segments are the row-by-row kernels' (a dense dst's rows at 8 bytes or less go flat).
  test::ScopedEnv env("TMAKIT_POLICY", "permute_rows_flat_max_vector_bytes=0");
  for (const Case& c : cases)
    for (int e : {1, 2, 4, 8}) {
      cut += explain_permute(c.n, c.p, e).find("segments of") != std::string::npos;
      for (std::size_t off : {std::size_t{0}, std::size_t{8}, std::size_t{13}}) {
        if (off % e != 0) continue;
        for (const char* v : {"auto", "permute_tile"}) {
          const test::PermuteRun r = test::check_permute(c.n, c.p, e, {}, named(v), off);
          ASSERT_TRUE(r.error.empty()) << v << " " << e << " B offset " << off << ": " << r.error;
          ++runs;
        }
      }
    }
  PermuteLayout lay;  // rows of 100003 elements in rows of 100011, dst's in rows of 100005
  lay.src_strides_elems = {5 * 100011, 100011, 1};
  lay.dst_strides_elems = {3 * 100005, 100005, 1};
  for (int e : {1, 2, 4, 8}) {
    const test::PermuteRun r =
        test::check_permute({3, 5, 100003}, {1, 0, 2}, e, lay, named("permute_tile"));
    ASSERT_TRUE(r.error.empty()) << e << " B padded: " << r.error;
    ++runs;
  }
  EXPECT_EQ(cut, 3 * 4);                         // every case at every element size
  EXPECT_EQ(runs, 3 * (3 + 2 + 2 + 2) * 2 + 4);  // offsets 0, 8, 13 at 1 B; 0, 8 beyond
}

// Row permutations into a dense dst as one run of aligned 16-byte chunks
// (kernels/common/permute_rows.hpp): rows of 20-4104 bytes (chunks that cross one row's end into
// the next at every offset), every element size, both operands 0-15 bytes off alignment (head
// and tail bytes; src windows at the span's ends read byte by byte), src rows padded with poison
// between them, under the default policy (every dense row permutation flat), with those whose
// widest vector is 8 bytes or less flat (8) and none (0). explain must say which walk the policy
// picks.
TEST(Permute, RowsIntoADenseDstAsOneRunOfChunks) {
  TMAKIT_NEED_GPU(75);
  int runs = 0, flat = 0;
  for (int max_vector : {-1, 8, 0}) {
    const std::string policy =
        "permute_rows_min_bytes=16" +
        (max_vector < 0 ? std::string()
                        : ",permute_rows_flat_max_vector_bytes=" + std::to_string(max_vector));
    test::ScopedEnv env("TMAKIT_POLICY", policy.c_str());
    for (int e : {1, 2, 4, 8, 16})
      for (std::int64_t row_bytes : {20, 24, 36, 44, 48, 100, 131, 288, 552, 988, 4104}) {
        if (row_bytes % e != 0) continue;
        const Ext n = {3, 5, 4, row_bytes / e};
        const std::vector<int> perm = {2, 0, 1, 3};
        std::int64_t v = 16;  // the widest vector of these dense rows
        while (row_bytes % v != 0) v /= 2;
        const bool want = v <= (max_vector < 0 ? 16 : max_vector);
        const bool is = explain_permute(n, perm, e).find("one run of aligned 16-byte chunks") !=
                        std::string::npos;
        EXPECT_EQ(is, want) << e << " B rows of " << row_bytes << ", policy '" << policy << "'";
        flat += is;
        PermuteLayout padded;  // src rows 3 elements apart, dst dense
        padded.src_strides_elems = {5 * 4 * (n[3] + 3), 4 * (n[3] + 3), n[3] + 3, 1};
        for (std::size_t off : {std::size_t{0}, std::size_t{8}, std::size_t{13}}) {
          if (off % e != 0) continue;
          for (int form = 0; form < 2; ++form) {
            const test::PermuteRun r = test::check_permute(
                n, perm, e, form == 1 ? padded : PermuteLayout{}, named("permute_tile"), off);
            ASSERT_TRUE(r.error.empty())
                << e << " B rows of " << row_bytes << " offset " << off << " form " << form
                << " policy '" << policy << "': " << r.error;
            ++runs;
          }
        }
      }
  }
  // Row lengths that are whole elements: 11 at 1 B, 10 at 2 and 4 B (not 131), 5 at 8 B (24, 48,
  // 288, 552, 4104), 2 at 16 B (48, 288); of those 48 and 288 take 16-byte vectors. Flat: all 38
  // under the default policy, 28 under 8, none under 0.
  EXPECT_EQ(flat, 38 + 28);
  // Offsets 0, 8, 13 at 1 B, 0 and 8 at 2-8 B, 0 at 16 B; two forms each.
  EXPECT_EQ(runs, 3 * (11 * 3 + 10 * 2 + 10 * 2 + 5 * 2 + 2 * 1) * 2);
}

// Row permutations whose rows are 24-104 bytes: the class the per-size rows threshold
// (DevicePolicy::permute_rows_min_bytes) splits between the rows kernels and the box walk. Every
// element size, rows either side of its threshold, dense, off 16-byte alignment by an element and
// strided with poisoned padding, through auto and permute_tile under the default policy (a dense
// dst's rows to the flat walk), the thresholds without the flat walk, and every row sent to each
// walk; explain must name the walk the policy picks.
TEST(Permute, ShortRowsEitherSideOfTheRowsThreshold) {
  TMAKIT_NEED_GPU(75);
  int runs = 0, boxed = 0, flat = 0;
  // The default (a dense dst's rows to the flat walk), the row kernels' thresholds without it,
  // every row to the rows kernels, every row to the box walk.
  const char* policies[] = {"", "permute_rows_flat_max_vector_bytes=0", "permute_rows_min_bytes=1",
                            "permute_rows_min_bytes=1048576,permute_rows_flat_max_vector_bytes=0"};
  for (int k = 0; k < 4; ++k) {
    const char* policy = policies[k];
    test::ScopedEnv env("TMAKIT_POLICY", policy);
    for (int e : {1, 2, 4, 8, 16})
      for (std::int64_t row_bytes : {24, 32, 40, 52, 64, 80, 104}) {
        if (row_bytes % e != 0) continue;
        const Ext n = {5, 6, 7, row_bytes / e};
        const std::vector<int> perm = {2, 0, 1, 3};
        const std::string how = explain_permute(n, perm, e);
        const bool box = how.find("so the box walk") != std::string::npos;
        flat += k == 0 && how.find("one run of aligned 16-byte chunks") != std::string::npos;
        boxed += box && k == 1;
        if (k >= 2)  // every row to the one walk the override names
          EXPECT_EQ(box, k == 3) << e << " B " << how;
        PermuteLayout lay;  // rows padded by 3 elements on both sides, poison in between
        lay.src_strides_elems = {6 * 7 * (n[3] + 3), 7 * (n[3] + 3), n[3] + 3, 1};
        lay.dst_strides_elems = {5 * 6 * (n[3] + 3), 6 * (n[3] + 3), n[3] + 3, 1};
        for (const char* v : {"auto", "permute_tile"})
          for (int form = 0; form < 3; ++form) {
            const test::PermuteRun r =
                test::check_permute(n, perm, e, form == 2 ? lay : PermuteLayout{}, named(v),
                                    form == 1 ? static_cast<std::size_t>(e) : 0);
            ASSERT_TRUE(r.error.empty())
                << v << " " << e << " B rows of " << row_bytes << " bytes, form " << form
                << ", policy '" << policy << "': " << r.error;
            ++runs;
          }
      }
  }
  // Row lengths that are whole elements: 7 at 1, 2 and 4 B, 6 at 8 B, 3 at 16 B. Under the
  // default policy the flat walk takes all 30 (dense, 24 bytes or more); without it the box walk
  // takes rows under 80 bytes at 1 and 4 B (24-64: five each), under 32 at 2 B (24), under 64 at
  // 8 B (24, 32, 40), none of 16 B's (32, 64, 80).
  EXPECT_EQ(flat, 7 + 7 + 7 + 6 + 3);
  EXPECT_EQ(boxed, 5 + 1 + 5 + 3 + 0);
  EXPECT_EQ(runs, 4 * (7 + 7 + 7 + 6 + 3) * 2 * 3);
}

// The box tables built from row tables (DevicePolicy::permute_box_row_tables) and in full: box
// walks in words and in elements, row tables in the box's buffer and after the tables (1-byte
// boxes with short rows), a side of single-word rows decoded in full (pixel shuffle's dst), cut
// boxes at the edges and many boxes a block; 1-16 B, dense and strided with poisoned padding,
// with the row tables on (the default) and off, the tables' walk at every size. explain must
// name each placement.
TEST(Permute, BoxTablesFromRowTablesAndInFull) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
  };
  const Case cases[] = {
      {{2, 9, 10, 11, 40}, {4, 1, 3, 0, 2}},       // words; the 40 and the 10 in rows
      {{3, 5, 7, 9, 11}, {4, 3, 2, 1, 0}},         // odd extents: the element walk
      {{2, 4, 2, 2, 16, 16}, {0, 1, 4, 2, 5, 3}},  // pixel shuffle: dst rows of one word
      {{21, 25, 27, 29, 11}, {4, 3, 2, 1, 0}},     // 1,944-6,750 boxes, cut at the edges
      {{5, 3, 7, 9, 8}, {0, 4, 3, 2, 1}},          // 3-element dst runs
  };
  int runs = 0, in_buffer = 0, after = 0, one_side = 0;
  // The tables' walk at every size (16-byte boxes and 1-2-byte element walks take the registers'
  // walk by default).
  for (const char* policy :
       {"permute_box_registers_min_bytes=32,permute_box_registers_elements_max_bytes=0,"
        "permute_box_registers_small_tensor_bytes=0,permute_box_registers_src_elements_bytes=0,"
        "permute_box_registers_box_fits_min_bytes=0",
        "permute_box_registers_min_bytes=32,permute_box_registers_elements_max_bytes=0,"
        "permute_box_registers_small_tensor_bytes=0,permute_box_registers_src_elements_bytes=0,"
        "permute_box_registers_box_fits_min_bytes=0,permute_box_row_tables=0"}) {
    test::ScopedEnv env("TMAKIT_POLICY", policy);
    const bool row_tables = std::string(policy).find("row_tables=0") == std::string::npos;
    for (const Case& c : cases)
      for (int e : {1, 2, 4, 8, 16}) {
        const std::string how = explain_permute(c.n, c.p, e);
        if (row_tables) {
          in_buffer += how.find("in the box's buffer") != std::string::npos;
          after += how.find("after the tables") != std::string::npos;
          one_side += how.find("dst entries decoded in full") != std::string::npos;
        } else {
          EXPECT_NE(how.find("every entry decoded in full (permute_box_row_tables = 0)"),
                    std::string::npos)
              << how;
        }
        PermuteLayout lay;  // every src and dst extent padded by 1, poison in between
        lay.src_strides_elems.assign(c.n.size(), 1);
        lay.dst_strides_elems.assign(c.n.size(), 1);
        for (std::size_t k = c.n.size() - 1; k > 0; --k) {
          lay.src_strides_elems[k - 1] = lay.src_strides_elems[k] * (c.n[k] + 1);
          lay.dst_strides_elems[k - 1] = lay.dst_strides_elems[k] * (c.n[c.p[k]] + 1);
        }
        for (int form = 0; form < 2; ++form) {
          const test::PermuteRun r = test::check_permute(
              c.n, c.p, e, form == 1 ? lay : PermuteLayout{}, named("permute_tile"));
          ASSERT_TRUE(r.error.empty())
              << e << " B form " << form << ", policy '" << policy << "': " << r.error << "\n"
              << how;
          ++runs;
        }
      }
  }
  EXPECT_GE(in_buffer, 10);
  EXPECT_GE(after, 2);
  EXPECT_GE(one_side, 1);
  EXPECT_EQ(runs, 2 * 5 * 5 * 2);
}

// The layouts of the issue at small sizes, on every technique.
TEST(Permute, NamedLayoutsSmall) {
  TMAKIT_NEED_GPU(75);
  struct Case {
    Ext n;
    std::vector<int> p;
    int e;
  };
  const Case cases[] = {
      {{2, 64, 4, 32}, {0, 2, 1, 3}, 2},     {{2, 4, 64, 32}, {0, 2, 1, 3}, 2},
      {{4, 32, 9, 9}, {0, 2, 3, 1}, 2},      {{4, 9, 9, 32}, {0, 3, 1, 2}, 1},
      {{5, 7, 9, 11}, {0, 2, 3, 1}, 4},      {{5, 7, 9, 11}, {3, 2, 1, 0}, 4},
      {{3, 4, 5, 6, 7}, {4, 3, 2, 1, 0}, 2}, {{33, 65, 4}, {1, 0, 2}, 4},
      {{33, 65, 64}, {1, 0, 2}, 4},
  };
  for (const Case& c : cases)
    for (const std::string& v : techniques()) {
      const test::PermuteRun r = test::check_permute(c.n, c.p, c.e, {}, named(v));
      EXPECT_TRUE(r.error.empty()) << v << ": " << r.error;
    }
}

}  // namespace
}  // namespace tmakit
