// permute()'s host side: the argument rules, the reduction (what each layout people reorder
// folds to) and the CPU reference against an independent index formula. No GPU.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>
#include <gtest/gtest.h>
#include <host/permute/reduce.hpp>
#include <kernels/common/permute_box.hpp>
#include <kernels/common/permute_rows.hpp>
#include <kernels/launchers.hpp>
#include <tests/support/scoped_env.hpp>
#include <tmakit/permute.hpp>

namespace tmakit {
namespace {

using Ext = std::vector<std::int64_t>;
using Perm = std::vector<int>;

template <class T>
std::string test_text(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return "(" + s + ")";
}

PermuteReduction reduced(const Ext& n, const Perm& p, int e, const PermuteLayout& lay = {}) {
  PermuteReduction r;
  const Status s = reduce_permutation(n, p, e, lay, &r);
  EXPECT_TRUE(s.ok()) << s.message;
  return r;
}

TEST(PermuteReduction, LayoutsPeopleReorder) {
  // NCHW -> NHWC: H and W fuse; a batch of N transposes of C x HW.
  PermuteReduction r = reduced({64, 256, 56, 56}, {0, 2, 3, 1}, 2);
  EXPECT_EQ(r.form, PermuteForm::kTranspose) << r.to_string();
  EXPECT_EQ(r.layout.batch, 64);
  EXPECT_EQ(r.rows, 256);
  EXPECT_EQ(r.cols, 56 * 56);
  EXPECT_EQ(r.transpose_elem_bytes, 2);
  // NHWC -> NCHW: the batched transpose the other way.
  r = reduced({64, 56, 56, 256}, {0, 3, 1, 2}, 1);
  EXPECT_EQ(r.form, PermuteForm::kTranspose);
  EXPECT_EQ(r.rows, 56 * 56);
  EXPECT_EQ(r.cols, 256);
  // Attention's heads: whole rows of D elements move.
  r = reduced({8, 4096, 32, 128}, {0, 2, 1, 3}, 2);
  EXPECT_EQ(r.form, PermuteForm::kRows) << r.to_string();
  EXPECT_EQ(r.extents, (Ext{8, 4096, 32, 128}));
  // (1, 0, 2) with a 16-byte inner dimension: a transpose of 16-byte elements.
  r = reduced({1000, 999, 4}, {1, 0, 2}, 4);
  EXPECT_EQ(r.form, PermuteForm::kTranspose) << r.to_string();
  EXPECT_EQ(r.transpose_elem_bytes, 16);
  EXPECT_EQ(r.rows, 1000);
  EXPECT_EQ(r.cols, 999);
  // ... and with a 256-byte one: rows.
  r = reduced({1000, 999, 64}, {1, 0, 2}, 4);
  EXPECT_EQ(r.form, PermuteForm::kRows);
  // A full reversal keeps every dimension: a tile inside a batch of three.
  r = reduced({3, 5, 7, 9, 11}, {4, 3, 2, 1, 0}, 4);
  EXPECT_EQ(r.form, PermuteForm::kTile);
  EXPECT_EQ(r.extents.size(), 5u);
  EXPECT_EQ(r.perm, (Perm{4, 3, 2, 1, 0}));
}

TEST(PermuteReduction, DropsOnesAndFusesRuns) {
  // The identity of any rank is a copy of everything.
  PermuteReduction r = reduced({3, 5, 7}, {0, 1, 2}, 8);
  EXPECT_EQ(r.form, PermuteForm::kCopy);
  EXPECT_EQ(r.cols, 105);
  // Extents of 1 go wherever they are: (1, A, 1, B) -> (B, 1, A, 1) is a 2-D transpose.
  r = reduced({1, 6, 1, 10}, {3, 2, 1, 0}, 2);
  EXPECT_EQ(r.form, PermuteForm::kTranspose) << r.to_string();
  EXPECT_EQ(r.rows, 6);
  EXPECT_EQ(r.cols, 10);
  EXPECT_EQ(r.layout.batch, 1);
  // (2, 3, 0, 1) of rank 4: two runs swap, a 2-D transpose of (AB) x (CD).
  r = reduced({2, 3, 5, 7}, {2, 3, 0, 1}, 4);
  EXPECT_EQ(r.form, PermuteForm::kTranspose);
  EXPECT_EQ(r.rows, 6);
  EXPECT_EQ(r.cols, 35);
  // Rank 7 that folds to rank 3.
  r = reduced({2, 3, 4, 5, 6, 7, 8}, {4, 5, 6, 0, 1, 2, 3}, 1);
  EXPECT_EQ(r.form, PermuteForm::kTranspose);
  EXPECT_EQ(r.extents, (Ext{120, 336}));
  // Strides that break the nesting keep dimensions apart: a padded dst row is no longer fused.
  PermuteLayout lay;
  lay.dst_strides_elems = {40, 1};  // dst rows of 30 padded to 40
  r = reduced({4, 30}, {0, 1}, 4, lay);
  EXPECT_EQ(r.form, PermuteForm::kRows) << r.to_string();
  EXPECT_EQ(r.extents, (Ext{4, 30}));
}

// Rank 6-8 after the reduction: rank-5 permutations over the outer dimensions, keeping the
// dimensions contiguous in src and in dst and the largest others; refused only when that would
// be more than kPermuteMaxSplitLaunches launches.
TEST(PermuteReduction, RankBeyondFiveRunsSplitOverItsOuterDimensions) {
  PermuteReduction r;
  Status s = reduce_permutation({2, 3, 2, 3, 2, 3, 2, 3}, {7, 6, 5, 4, 3, 2, 1, 0}, 4, {}, &r);
  ASSERT_TRUE(s.ok()) << s.message;
  ASSERT_EQ(r.extents.size(), 8u);
  detail::PermuteSplit sp;
  ASSERT_EQ(detail::split_permutation(r, &sp), "");
  EXPECT_EQ(sp.extents.size(), 5u);
  EXPECT_EQ(sp.launches, 2 * 2 * 2);  // the three 2s the walk does not keep
  // Every element is covered once: the launches x the sub-permutation's volume is the whole.
  std::int64_t sub = 1;
  for (std::int64_t n : sp.extents) sub *= n;
  EXPECT_EQ(sub * sp.launches, 2 * 3 * 2 * 3 * 2 * 3 * 2 * 3);
  // The sub-permutation keeps src's and dst's contiguous dimensions (strides 1).
  EXPECT_EQ(
      *std::min_element(sp.layout.src_strides_elems.begin(), sp.layout.src_strides_elems.end()), 1);
  EXPECT_EQ(
      *std::min_element(sp.layout.dst_strides_elems.begin(), sp.layout.dst_strides_elems.end()), 1);
  s = reduce_permutation({17, 17, 17, 17, 17, 17, 17, 17}, {7, 6, 5, 4, 3, 2, 1, 0}, 4, {}, &r);
  EXPECT_EQ(s.code, StatusCode::kUnsupported);
  EXPECT_NE(s.message.find("launches"), std::string::npos) << s.message;
}

// Whole rows of 2-16 bytes (a power of two, two elements or more) are the same permutation of
// elements that size (widen_rows): the rows' dimension dropped, the strides divided by it.
TEST(PermuteReduction, RowsOfTwoToSixteenBytesAreWiderElements) {
  PermuteReduction r;
  ASSERT_TRUE(reduce_permutation({6, 4, 72, 451, 2}, {1, 3, 2, 0, 4}, 2, {}, &r).ok());
  ASSERT_EQ(r.form, PermuteForm::kRows);
  detail::PermuteWidened w;
  ASSERT_EQ(detail::widen_rows(r, 2, &w), "");
  EXPECT_EQ(w.elem_bytes, 4);
  EXPECT_EQ(w.extents, (std::vector<std::int64_t>{6, 4, 72, 451}));
  EXPECT_EQ(w.perm, (std::vector<int>{1, 3, 2, 0}));
  EXPECT_EQ(w.layout.src_strides_elems, (std::vector<std::int64_t>{129888, 32472, 451, 1}));
  EXPECT_EQ(w.layout.dst_strides_elems, (std::vector<std::int64_t>{194832, 432, 6, 1}));
  // The widened call moves the same bytes: its reference equals the original's.
  std::vector<unsigned char> src(6 * 4 * 72 * 451 * 2 * 2), a(src.size()), b(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + i / 251);
  ASSERT_TRUE(reference_permute(src.data(), a.data(), {6, 4, 72, 451, 2}, {1, 3, 2, 0, 4}, 2).ok());
  ASSERT_TRUE(reference_permute(src.data(), b.data(), w.extents, w.perm, 4, w.layout).ok());
  EXPECT_EQ(a, b);
  // Strided: strides that are whole rows are divided; others keep the rows as they are.
  PermuteLayout lay;
  lay.src_strides_elems = {64, 8, 1};  // (5, 7, 4) at 4 B: rows of 16 bytes, 8 apart
  ASSERT_TRUE(reduce_permutation({5, 7, 4}, {1, 0, 2}, 4, lay, &r).ok());
  ASSERT_EQ(detail::widen_rows(r, 4, &w), "");
  EXPECT_EQ(w.elem_bytes, 16);
  EXPECT_EQ(w.layout.src_strides_elems, (std::vector<std::int64_t>{16, 2}));
  EXPECT_EQ(w.layout.dst_strides_elems, (std::vector<std::int64_t>{5, 1}));
  lay.src_strides_elems = {70, 10, 1};  // rows 10 elements apart: not whole rows of 4
  ASSERT_TRUE(reduce_permutation({5, 7, 4}, {1, 0, 2}, 4, lay, &r).ok());
  EXPECT_NE(detail::widen_rows(r, 4, &w).find("whole number of rows"), std::string::npos);
  // Rows of 6, 32 and 1 element(s) stay rows.
  for (const auto& [n, e] : {std::pair<std::int64_t, int>{3, 2}, {16, 2}, {1, 4}}) {
    if (!reduce_permutation({5, 7, 9, n}, {2, 0, 1, 3}, e, {}, &r).ok() ||
        r.form != PermuteForm::kRows)
      continue;  // (rows of 1 element fold away: a tile form)
    EXPECT_NE(detail::widen_rows(r, e, &w), "") << n << " x " << e;
  }
  const std::string how = explain_permute({6, 4, 72, 451, 2}, {1, 3, 2, 0, 4}, 2);
  EXPECT_NE(how.find("rows of 4 bytes: moved as 4-byte elements"), std::string::npos) << how;
  EXPECT_NE(how.find("reduces to tile: extents (6, 4, 72, 451) perm (1, 3, 2, 0)"),
            std::string::npos)
      << how;
  test::ScopedEnv off("TMAKIT_POLICY", "permute_rows_as_elements=0");
  EXPECT_EQ(explain_permute({6, 4, 72, 451, 2}, {1, 3, 2, 0, 4}, 2).find("moved as"),
            std::string::npos);
}

TEST(PermuteArgs, BadCallsAreClearErrors) {
  struct Case {
    Ext n;
    Perm p;
    int e;
    PermuteLayout lay;
    const char* names;
  };
  const std::vector<Case> cases = {
      {{}, {}, 4, {}, "rank >= 1"},
      {{2, 3}, {0}, 4, {}, "has 1 entries for rank 2"},
      {{2, 3}, {1, 1}, 4, {}, "1 appears twice"},
      {{2, 3}, {0, 2}, 4, {}, "2 is out of range"},
      {{2, 3}, {-1, 0}, 4, {}, "-1 is out of range"},
      {{2, 0}, {1, 0}, 4, {}, "extent of dimension 1 must be >= 1"},
      {{2, -3}, {1, 0}, 4, {}, "extent of dimension 1 must be >= 1"},
      {{2, 3}, {1, 0}, 3, {}, "element size 3"},
      {{2, 3}, {1, 0}, 4, {{3}, {}}, "src strides (3) have 1 entries"},
      {{2, 3}, {1, 0}, 4, {{3, 0}, {}}, "src stride of dimension 1 must be >= 1"},
      {{2, 3}, {1, 0}, 4, {{2, 1}, {}}, "alias"},
      {{2, 3}, {1, 0}, 4, {{}, {1, 2}}, "alias"},
      // One stride short of stepping past what the dimensions inside it reach.
      {{50, 37}, {1, 0}, 4, {{72, 2}, {}}, "alias"},
      {{9, 8, 7, 5}, {3, 1, 0, 2}, 4, {{504, 62, 9, 2}, {}}, "alias"},
      {{1 << 21, 1 << 20, 1 << 20}, {2, 1, 0}, 4, {}, "2^62"},
      {{2, 2, 2, 2, 2, 2, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7, 8}, 4, {}, "rank 9"},
  };
  for (const Case& c : cases) {
    PermuteReduction r;
    const Status s = reduce_permutation(c.n, c.p, c.e, c.lay, &r);
    EXPECT_EQ(s.code, StatusCode::kInvalidArgument) << c.names;
    EXPECT_NE(s.message.find(c.names), std::string::npos) << s.message;
    // The same through permute() (host pointers: the argument checks come first) and the
    // reference.
    std::vector<unsigned char> a(64, 1), b(64, 2);
    const Status ps = permute(a.data(), b.data(), c.n, c.p, c.e, c.lay);
    EXPECT_EQ(ps.code, StatusCode::kInvalidArgument) << c.names;
    EXPECT_EQ(ps.message, s.message);
    EXPECT_EQ(reference_permute(a.data(), b.data(), c.n, c.p, c.e, c.lay).message, s.message);
    EXPECT_TRUE(std::all_of(b.begin(), b.end(), [](unsigned char x) { return x == 2; }));
  }
  std::vector<unsigned char> a(64);
  EXPECT_NE(permute(nullptr, a.data(), {2}, {0}, 1).message.find("src is a null pointer"),
            std::string::npos);
  EXPECT_NE(permute(a.data(), nullptr, {2}, {0}, 1).message.find("dst is a null pointer"),
            std::string::npos);
  // Overlap and misalignment are found before any device call.
  Status s = permute(a.data(), a.data() + 8, {4, 4}, {1, 0}, 1);
  EXPECT_NE(s.message.find("overlap"), std::string::npos) << s.message;
  s = permute(a.data() + 1, a.data() + 33, {2, 2}, {1, 0}, 4);
  EXPECT_NE(s.message.find("not aligned to the 4-byte element size"), std::string::npos)
      << s.message;
  TransposeOptions o;
  o.variant = "no_such";
  s = permute(a.data(), a.data() + 32, {2, 2}, {1, 0}, 4, {}, o);
  EXPECT_NE(s.message.find("unknown variant 'no_such'"), std::string::npos) << s.message;
  o.variant = "permute_tma";
  o.swizzle_bytes = 64;
  s = permute(a.data(), a.data() + 32, {2, 2}, {1, 0}, 4, {}, o);
  EXPECT_NE(s.message.find("swizzle_bytes"), std::string::npos) << s.message;
}

// The reference against an independent formula: the dst offset of src multi-index idx is
// sum_d idx[perm[d]] * dst_stride[d].
// The no-overlap rule is exact for interleaved views: a stride need only step past what the
// dimensions of smaller stride reach (torch's x[..., ::2] over an odd extent: strides (73, 2)
// over (R, 37)), on either side, and any stride one short of that is refused. Every accepted
// layout really puts each element at its own address.
TEST(PermuteArgs, InterleavedViewsThatDoNotOverlapAreAccepted) {
  struct Case {
    Ext n;
    Perm p;
    PermuteLayout lay;
  };
  const std::vector<Case> cases = {
      {{50, 37}, {1, 0}, {{73, 2}, {}}},
      {{50, 37}, {1, 0}, {{}, {101, 2}}},
      {{6, 50, 37}, {2, 0, 1}, {{3700, 73, 2}, {}}},
      {{6, 50, 37}, {1, 2, 0}, {{}, {407, 11, 2}}},
      {{9, 8, 7, 5}, {3, 1, 0, 2}, {{504, 63, 9, 2}, {}}},
  };
  for (const Case& c : cases) {
    PermuteReduction r;
    const Status s = reduce_permutation(c.n, c.p, 4, c.lay, &r);
    ASSERT_TRUE(s.ok()) << s.message;
    for (int side = 0; side < 2; ++side) {
      const auto& st = side == 0 ? c.lay.src_strides_elems : c.lay.dst_strides_elems;
      if (st.empty()) continue;
      Ext ext(c.n.size());
      for (std::size_t d = 0; d < ext.size(); ++d) ext[d] = side == 0 ? c.n[d] : c.n[c.p[d]];
      // Every index's offset, distinct.
      std::vector<std::int64_t> offsets, idx(ext.size(), 0);
      for (bool more = true; more;) {
        std::int64_t off = 0;
        for (std::size_t d = 0; d < ext.size(); ++d) off += idx[d] * st[d];
        offsets.push_back(off);
        more = false;
        for (std::size_t d = ext.size(); d-- > 0;)
          if (++idx[d] < ext[d]) {
            more = true;
            break;
          } else {
            idx[d] = 0;
          }
      }
      std::sort(offsets.begin(), offsets.end());
      EXPECT_EQ(std::adjacent_find(offsets.begin(), offsets.end()), offsets.end());
    }
  }
}

TEST(PermuteReference, MatchesTheIndexFormulaWithPaddingUntouched) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    Ext n(rank);
    for (auto& x : n) x = 1 + static_cast<std::int64_t>(rng() % 5);
    Perm p(rank);
    std::iota(p.begin(), p.end(), 0);
    std::shuffle(p.begin(), p.end(), rng);
    const int e = 1 << (rng() % 5);
    // Padded strides on both sides: each dimension's stride is the inner span plus 0-2.
    PermuteLayout lay;
    lay.src_strides_elems.assign(rank, 0);
    lay.dst_strides_elems.assign(rank, 0);
    std::int64_t span = 1;
    for (int k = rank - 1; k >= 0; --k) {
      lay.src_strides_elems[k] = span;
      span = span * n[k] + static_cast<std::int64_t>(rng() % 3);
    }
    const std::int64_t src_elems = span;
    span = 1;
    for (int d = rank - 1; d >= 0; --d) {
      lay.dst_strides_elems[d] = span;
      span = span * n[p[d]] + static_cast<std::int64_t>(rng() % 3);
    }
    const std::int64_t dst_elems = span;
    std::vector<unsigned char> src(src_elems * e), dst(dst_elems * e, 0xA5), want(dst);
    for (auto& b : src) b = static_cast<unsigned char>(rng());
    ASSERT_TRUE(reference_permute(src.data(), dst.data(), n, p, e, lay).ok());
    std::vector<std::int64_t> idx(rank, 0);
    std::int64_t total = 1;
    for (auto x : n) total *= x;
    for (std::int64_t flat = 0; flat < total; ++flat) {
      std::int64_t rest = flat, so = 0, dof = 0;
      for (int k = rank - 1; k >= 0; --k) {
        idx[k] = rest % n[k];
        rest /= n[k];
        so += idx[k] * lay.src_strides_elems[k];
      }
      for (int d = 0; d < rank; ++d) dof += idx[p[d]] * lay.dst_strides_elems[d];
      std::memcpy(&want[dof * e], &src[so * e], e);
    }
    ASSERT_EQ(dst, want) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tmakit

namespace tmakit {
namespace {

// permute_tile's box walk (kernels/common/permute_box.hpp) run on the CPU exactly as the
// kernels walk it (every box: origin and what is left of cut dimensions, load in src order,
// store in dst order), against the reference. Every plan: the shared-table kernel's from the
// rank-5 geometry, and from every dimension of the reduction (rank 6-8 included) the tables'
// and the registers' boxes, each with its batch in both orders.
// words: as permute_box_words_kernel walks it (box_vector_elems' words, 16-byte aligned
// operands): a word is loaded or stored whole when its first element is inside, so every
// element of it must be inside too, consecutive in memory and aligned; checked element by
// element against the element walk's coordinates.
// lay: strided operands (the plan made from their reduction); dst's padding stays as it was.
bool walk_box(const BoxPlan& plan, const std::vector<std::int64_t>& n, const std::vector<int>& perm,
              int e, std::string* why, bool words = false, const PermuteLayout& lay = {}) {
  detail::PermuteProblem prob;
  if (!detail::check_permute_args(n, perm, e, lay, &prob).ok()) return false;
  const std::int64_t src_bytes = prob.src_span_bytes, dst_bytes = prob.dst_span_bytes;
  std::vector<unsigned char> src(src_bytes), want(dst_bytes, 0xCD), got(dst_bytes, 0xCD);
  for (std::int64_t i = 0; i < src_bytes; ++i) src[i] = static_cast<unsigned char>(i * 7 + i / 251);
  if (!reference_permute(src.data(), want.data(), n, perm, e, lay).ok()) return false;
  std::vector<unsigned char> buf(plan.volume * e);
  for (std::int64_t b = 0; b < plan.boxes; ++b) {
    const BoxOrigin at = box_origin(plan, static_cast<std::uint32_t>(b));
    const std::int64_t so = at.src, dof = at.dst;
    std::uint32_t lim[kBoxMaxDims];
    for (int u = 0; u < kBoxMaxDims; ++u) lim[u] = plan.box[u];
    if (plan.cut[0] >= 0) lim[plan.cut[0]] = at.lim0;
    if (plan.cut[1] >= 0) lim[plan.cut[1]] = at.lim1;
    auto src_at = [&](std::uint32_t t, std::int64_t* off) {
      std::uint32_t c[kBoxMaxDims];
      box_coords_src(plan, t, c);
      bool in = true;
      *off = so;
      for (int u = 0; u < plan.dims; ++u) in = in && c[u] < lim[u], *off += c[u] * plan.ss[u];
      return in;
    };
    auto dst_at = [&](std::uint32_t t, std::int64_t* off, std::uint32_t* at) {
      std::uint32_t c[kBoxMaxDims];
      box_coords_dst(plan, t, c);
      bool in = true;
      *off = dof;
      *at = 0;
      for (int u = 0; u < plan.dims; ++u) {
        in = in && c[u] < lim[u];
        *off += c[u] * plan.ds[u];
        *at += c[u] * plan.smem_stride[u];
      }
      return in;
    };
    const std::uint32_t ws = words ? box_vector_elems(plan, true, e, 0) : 1;
    const std::uint32_t wd = words ? box_vector_elems(plan, false, e, 0) : 1;
    const std::uint32_t step = plan.smem_stride[plan.dst_order[0]];
    // A dst word that crosses rows (box_dst_words_cross_rows) is gathered as the word kernel
    // gathers it: along dst_order[0], carrying into dst_order[1] after b0 elements and into
    // dst_order[2] after b1 rows.
    const bool cross = box_dst_words_cross_rows(plan, static_cast<int>(wd));
    const int u0 = plan.dst_order[0], u1 = plan.dims > 1 ? plan.dst_order[1] : 0;
    const std::uint32_t b0 = plan.box[u0], b1 = plan.box[u1];
    const std::uint32_t wrap1 = cross ? plan.smem_stride[u1] - b0 * step : 0u;
    const std::uint32_t wrap2 =
        cross && plan.dims > 2 ? plan.smem_stride[plan.dst_order[2]] - b1 * plan.smem_stride[u1]
                               : 0u;
    for (std::uint32_t t = 0; t < plan.volume; t += ws) {
      std::int64_t off;
      if (!src_at(t, &off)) continue;
      for (std::uint32_t j = 0; j < ws; ++j) {
        std::int64_t o;
        if (!src_at(t + j, &o) || o != off + j || off % ws != 0) {
          *why = "a src word that is not whole, consecutive and aligned: ";
          return false;
        }
      }
      std::memcpy(&buf[t * e], &src[off * e], ws * e);
    }
    for (std::uint32_t t = 0; t < plan.volume; t += wd) {
      std::int64_t off;
      std::uint32_t at;
      if (!dst_at(t, &off, &at)) continue;
      std::uint32_t a0 = t % b0, a1 = (t / b0) % b1, gather = at;
      for (std::uint32_t j = 0; j < wd; ++j) {
        std::int64_t o;
        std::uint32_t a;
        if (!dst_at(t + j, &o, &a) || o != off + j || a != (cross ? gather : at + j * step) ||
            off % wd != 0) {
          *why = "a dst word that is not whole, consecutive and aligned: ";
          return false;
        }
        std::memcpy(&got[o * e], &buf[a * e], e);
        gather += step;
        if (++a0 == b0) {
          a0 = 0, gather += wrap1;
          if (++a1 == b1) a1 = 0, gather += wrap2;
        }
      }
    }
  }
  if (got == want) return true;
  *why = test_text(n) + " perm " + test_text(perm) + " " + std::to_string(e) + " B";
  return false;
}

// Whether the box has a word of at least two elements on either side (16-byte aligned operands).
bool box_has_words(const BoxPlan& plan, int e) {
  return box_vector_elems(plan, true, e, 0) > 1 || box_vector_elems(plan, false, e, 0) > 1;
}

TEST(PermuteBox, TheWalkCoversEveryElementOnce) {
  const std::vector<std::vector<std::int64_t>> shapes = {{3, 200},
                                                         {7, 5, 3},
                                                         {300, 3, 70},
                                                         {2, 3, 5, 7},
                                                         {5, 3, 7, 2, 9},
                                                         {3, 65, 2, 129, 3},
                                                         {2, 3, 2, 5, 3, 2},
                                                         {3, 2, 4, 1, 3, 2, 2},
                                                         {2, 3, 2, 3, 2, 3, 2, 3},
                                                         // even extents: boxes in words, edge
                                                         // boxes of cut word-wide dimensions
                                                         {12, 200},
                                                         {24, 8, 72},
                                                         {6, 100, 4, 2},
                                                         {16, 3, 40, 2},
                                                         {2, 4, 6, 8, 3}};
  std::mt19937 rng(73);
  int walked_tables = 0, walked_regs = 0, walked_words = 0, walked_small = 0, walked_least = 0,
      wide = 0, crossing = 0;
  for (const auto& n : shapes) {
    std::vector<int> perm(n.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::vector<std::vector<int>> perms;
    do perms.push_back(perm);
    while (std::next_permutation(perm.begin(), perm.end()));
    if (perms.size() > 400) {  // ranks 7 and 8: a sample
      std::shuffle(perms.begin(), perms.end(), rng);
      perms.resize(400);
    }
    for (const auto& p : perms)
      for (int e : {1, 2, 4, 8, 16}) {
        detail::PermuteProblem prob;
        ASSERT_TRUE(detail::check_permute_args(n, p, e, {}, &prob).ok());
        const PermuteReduction red = detail::reduce(prob);
        std::string why;
        PermuteGeometry g;
        BoxPlan plan;
        if (detail::permute_geometry(red, &g).empty() && make_box_plan(g, e, &plan)) {
          ASSERT_LE(box_smem_bytes(plan.volume, e), kBoxMaxSmemBytes);
          for (int cut : plan.cut)  // packed as 8-bit coordinates in the kernel's tables
            if (cut >= 0) ASSERT_LT(plan.box[cut], 256u);
          ASSERT_TRUE(walk_box(plan, n, p, e, &why)) << "tables: " << why;
          if (plan.cut[0] >= 0) {  // edge boxes cut short, as permute_box_overlap_edges=0 runs
            BoxPlan cut_short = plan;
            set_box_edges(&cut_short, false);
            ASSERT_TRUE(walk_box(cut_short, n, p, e, &why)) << "tables, cut short: " << why;
          }
          ++walked_tables;
          if (box_has_words(plan, e)) {
            ASSERT_TRUE(walk_box(plan, n, p, e, &why, true)) << "tables in words: " << why;
            ++walked_words;
            crossing += box_dst_words_cross_rows(plan, box_vector_elems(plan, false, e, 0));
            if (plan.cut[0] >= 0) {
              BoxPlan cut_short = plan;
              set_box_edges(&cut_short, false);
              ASSERT_TRUE(walk_box(cut_short, n, p, e, &why, true)) << "words, cut short: " << why;
            }
          }
        }
        PermuteDims dims;
        dims.rank = static_cast<int>(red.extents.size());
        for (int k = 0; k < dims.rank; ++k)
          dims.n[k] = red.extents[k], dims.ss[k] = red.src_strides_elems[k],
          dims.ds[k] = red.dst_strides_elems[k];
        // Every dimension: the tables' box and the registers' (reg_box_volume), each walked in
        // every order of the batch (kBoxCuts*).
        bool any = false;
        for (const bool registers : {false, true})
          for (const int cuts_first :
               {kBoxCutsFirstAlways, kBoxCutsDstOrder, kBoxCutsFirstSplitSrc}) {
            if (!make_box_plan(dims, e, registers ? reg_box_volume(e) : 65535,
                               registers ? 0 : kBoxTableBytes, cuts_first, &plan))
              continue;
            any = true;
            for (int cut : plan.cut)
              if (cut >= 0) ASSERT_LT(plan.box[cut], 256u);
            ASSERT_TRUE(walk_box(plan, n, p, e, &why))
                << (registers ? "registers" : "tables") << ", batch order " << cuts_first << ": "
                << why;
            ++walked_regs;
            if (!registers && box_has_words(plan, e)) {
              ASSERT_TRUE(walk_box(plan, n, p, e, &why, true))
                  << "tables in words, batch order " << cuts_first << ": " << why;
              ++walked_words;
            }
          }
        // A small target (DevicePolicy::permute_box_target_elems): smaller boxes, more of them
        // cut at the tensor's edge.
        if (make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plan, 64)) {
          ASSERT_TRUE(walk_box(plan, n, p, e, &why)) << "tables, target 64: " << why;
          ++walked_small;
        }
        // The least-waste rule (DevicePolicy::permute_box_least_waste): other chunk sizes.
        if (make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plan, kBoxTargetElems, true)) {
          ASSERT_TRUE(walk_box(plan, n, p, e, &why)) << "tables, least waste: " << why;
          if (box_has_words(plan, e))
            ASSERT_TRUE(walk_box(plan, n, p, e, &why, true)) << "words, least waste: " << why;
          ++walked_least;
        }
        ASSERT_TRUE(any || dims.rank <= 5) << "a rank-" << dims.rank << " reduction with no box";
        ASSERT_EQ(any, kernels::permute_tile_box_plan(dims, e, &plan));
        wide += any && dims.rank > 5;
      }
  }
  EXPECT_GT(walked_tables, 500);
  EXPECT_GT(walked_regs, 8000);
  EXPECT_GT(wide, 100);           // reductions of rank 6-8 walked in one box walk
  EXPECT_GT(walked_words, 1000);  // boxes walked in words
  EXPECT_GT(crossing, 100);       // dst words across rows (BoxPlan::dst_runs)
  EXPECT_GT(walked_small, 500);
  EXPECT_GT(walked_least, 500);
}

// What the box tables built from row tables rely on (kernels/permute/permute_tile.cu,
// build_box_entries): every entry of a src row (box dimension 0, src's fastest) is the row's
// first element's offset plus i times dimension 0's src stride, with the row's cut coordinates
// plus i where dimension 0 is cut (cut[0]: bits 0-7, cut[1]: bits 8-15); the same in dst order
// along dst_order[0], the shared slot too. Checked against the full decode for every entry the
// kernels build (elements, and src and dst words) over every permutation of the walk's shapes.
// The edge boxes: a cut dimension's last chunk starts box[u] before its end (overlapping the chunk
// before it, every box whole), or with overlap_edges off starts where the chunks put it and is cut
// short (its lim). explain_permute says which.
// Src words across whole box dimensions that continue src's contiguous one
// (BoxPlan::src_runs, box_vector_elems): (23, 20, 4, 128, 5) (2,0,4,1,3) reads runs of 5 x 128
// elements, so 16-byte words at 2 B where the 5 alone took 2-byte loads; each such word is whole,
// consecutive and aligned in the CPU walk; the policy off keeps the old words.
TEST(PermuteBox, SrcWordsAcrossWholeDimensionsThatContinueTheRun) {
  const std::string on = explain_permute({23, 20, 4, 128, 5}, {2, 0, 4, 1, 3}, 2);
  EXPECT_NE(on.find("loads of 16 bytes, stores of 16 bytes"), std::string::npos) << on;
  {
    // (Without src words at 2 B the registers' walk would take it:
    // permute_box_registers_src_elements_bytes.)
    test::ScopedEnv off("TMAKIT_POLICY",
                        "permute_box_src_runs=0,permute_box_registers_src_elements_bytes=0");
    const std::string old = explain_permute({23, 20, 4, 128, 5}, {2, 0, 4, 1, 3}, 2);
    EXPECT_NE(old.find("loads of 2 bytes, stores of 16 bytes"), std::string::npos) << old;
  }
  int fused = 0;
  for (const auto& [n, p] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>>{
           {{23, 20, 4, 128, 5}, {2, 0, 4, 1, 3}},
           {{7, 6, 9, 3}, {2, 0, 3, 1}},
           {{5, 12, 3, 7}, {3, 0, 2, 1}},
           {{4, 3, 5, 8, 3}, {1, 3, 4, 0, 2}}})
    for (int e : {1, 2, 4, 8, 16}) {
      detail::PermuteProblem prob;
      ASSERT_TRUE(detail::check_permute_args(n, p, e, {}, &prob).ok());
      PermuteGeometry g;
      BoxPlan plan;
      ASSERT_EQ(detail::permute_geometry(detail::reduce(prob), &g), "");
      ASSERT_TRUE(make_box_plan(g, e, &plan));
      BoxPlan old = plan;
      old.src_runs = false;
      fused += box_vector_elems(plan, true, e, 0) > box_vector_elems(old, true, e, 0);
      std::string why;
      ASSERT_TRUE(walk_box(plan, n, p, e, &why, true)) << e << " B: " << why;
    }
  EXPECT_GE(fused, 8);
}

// permute_tile's box for (n, p) at e bytes as its launcher plans it, over the reduction's
// dimensions.
bool tile_box_plan(const std::vector<std::int64_t>& n, const std::vector<int>& p, int e,
                   BoxPlan* plan) {
  detail::PermuteProblem prob;
  if (!detail::check_permute_args(n, p, e, {}, &prob).ok()) return false;
  const PermuteReduction red = detail::reduce(prob);
  PermuteDims dims;
  dims.rank = static_cast<int>(red.extents.size());
  for (int k = 0; k < dims.rank; ++k)
    dims.n[k] = red.extents[k], dims.ss[k] = red.src_strides_elems[k],
    dims.ds[k] = red.dst_strides_elems[k];
  return kernels::permute_tile_box_plan(dims, e, plan);
}

// Src words across a cut dimension that continues the run (box_vector_elems, make_box_plan's
// chunks): the (96, 128, 5) reversal at 4 B reads the whole 5 and chunks of 8 of the 128, runs of
// 40 elements, so 16-byte loads where the 5 alone took 4-byte ones; the planner cuts such a
// dimension in multiples that make whole words; each word is whole, consecutive and aligned in the
// CPU walk, with overlapping and with cut-short edge boxes; the policy off keeps the old words.
// From 2-byte elements on.
TEST(PermuteBox, SrcWordsAcrossACutDimensionThatContinuesTheRun) {
  // The box as planned for its runs, not the smaller one a tensor this small gets for the SMs.
  test::ScopedEnv boxes("TMAKIT_POLICY", "permute_box_min_boxes_per_sm=0");
  const std::string on = explain_permute({96, 128, 5}, {2, 1, 0}, 4);
  EXPECT_NE(on.find("loads of 16 bytes"), std::string::npos) << on;
  // From 2 bytes on: at 1 B the loads stay elements.
  const std::string one = explain_permute({96, 128, 5}, {2, 1, 0}, 1);
  EXPECT_NE(one.find("loads of 1 bytes"), std::string::npos) << one;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_src_runs=0,permute_box_min_boxes_per_sm=0");
    const std::string old = explain_permute({96, 128, 5}, {2, 1, 0}, 4);
    EXPECT_NE(old.find("loads of 4 bytes"), std::string::npos) << old;
  }
  int fused = 0, walked = 0;
  for (const auto& [n, p] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>>{
           {{96, 128, 5}, {2, 1, 0}},
           {{40, 3, 36, 7}, {1, 3, 2, 0}},
           {{9, 60, 20, 3}, {3, 0, 2, 1}},
           {{6, 11, 100, 5}, {1, 3, 2, 0}},
           {{24, 40, 5, 52}, {2, 0, 3, 1}}})
    for (int e : {1, 2, 4, 8, 16}) {
      BoxPlan plan;
      ASSERT_TRUE(tile_box_plan(n, p, e, &plan));
      BoxPlan old = plan;
      old.src_runs = false;
      const int ws = box_vector_elems(plan, true, e, 0);
      ASSERT_GE(ws, box_vector_elems(old, true, e, 0));
      // Words past dimension 0 over a cut dimension: the run's last dimension is cut.
      bool cut_run = false;
      for (int u = 1; u < plan.dims && plan.ss[u] == plan.ss[u - 1] * plan.full[u - 1]; ++u)
        if (plan.box[u] < plan.full[u]) {
          cut_run = plan.box[0] == plan.full[0];
          break;
        }
      fused += cut_run && ws > box_vector_elems(old, true, e, 0);
      std::string why;
      ASSERT_TRUE(walk_box(plan, n, p, e, &why, true)) << e << " B: " << why;
      BoxPlan cut_short = plan;
      set_box_edges(&cut_short, false);
      ASSERT_TRUE(walk_box(cut_short, n, p, e, &why, true)) << e << " B, cut short: " << why;
      ++walked;
    }
  EXPECT_EQ(walked, 25);
  EXPECT_GE(fused, 4);
}

// Single-element dst words through cp.async keep each thread's dst entries in registers
// (box_dst_in_registers, DevicePolicy::permute_box_dst_registers): (563, 72, 217, 6) (2,1,3,0) at
// 4 B (8-byte loads, 4-byte stores) says so, not under the policy at 0, not where dst has words,
// not at 1 B, and not for a box over kBoxDstRegisterEntries x kBoxWordThreads elements.
TEST(PermuteExplain, DstEntriesInRegisters) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8,"
      "permute_box_min_boxes_per_sm=0");
  const std::string on = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
  EXPECT_NE(on.find("loads of 8 bytes, stores of 4 bytes\nloads: by cp.async into two shared "
                    "buffers, the next box's copies in flight while this one is stored; each "
                    "thread's dst offsets and shared slots in registers"),
            std::string::npos)
      << on;
  {
    test::ScopedEnv off("TMAKIT_POLICY",
                        "permute_box_dst_registers=0,permute_box_max_smem_bytes=48896,"
                        "permute_box_registers_box_fits_min_bytes=8");
    const std::string old = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
    EXPECT_EQ(old.find("in registers"), std::string::npos) << old;
    EXPECT_NE(old.find("stores of 4 bytes"), std::string::npos) << old;
  }
  const std::string words = explain_permute({144, 2, 4, 37, 89, 8}, {0, 3, 2, 5, 1, 4}, 2);
  EXPECT_EQ(words.find("in registers"), std::string::npos) << words;
  BoxPlan plan;
  ASSERT_TRUE(tile_box_plan({563, 72, 217, 6}, {2, 1, 3, 0}, 4, &plan));
  EXPECT_TRUE(box_dst_in_registers(plan, 4, 1, BoxLoads::async, true));
  EXPECT_FALSE(box_dst_in_registers(plan, 4, 1, BoxLoads::async, false));
  EXPECT_FALSE(box_dst_in_registers(plan, 4, 2, BoxLoads::async, true));
  EXPECT_FALSE(box_dst_in_registers(plan, 4, 1, BoxLoads::registers, true));
  EXPECT_TRUE(box_dst_in_registers(plan, 2, 1, BoxLoads::async, true));
  EXPECT_FALSE(box_dst_in_registers(plan, 1, 1, BoxLoads::async, true));  // from 2 B on
  plan.volume = kBoxDstRegisterEntries * kBoxWordThreads;
  EXPECT_TRUE(box_dst_in_registers(plan, 4, 1, BoxLoads::async, true));
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, true, 4), kBoxDstRegisterEntries);
  ++plan.volume;
  EXPECT_FALSE(box_dst_in_registers(plan, 4, 1, BoxLoads::async, true));
  // Over 12 entries a thread, up to 24 (box_dst_register_entries): at 4 B up to the policy's
  // permute_box_dst_registers_large_max_bytes (4 by default), never at 2 B or with the policy at 0.
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, true, 4),
            kBoxDstRegisterEntriesLarge);
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, true, 0), 0);
  EXPECT_EQ(box_dst_register_entries(plan, 8, 1, BoxLoads::async, true, 4), 0);
  EXPECT_EQ(box_dst_register_entries(plan, 8, 1, BoxLoads::async, true, 8),
            kBoxDstRegisterEntriesLarge);
  EXPECT_EQ(box_dst_register_entries(plan, 2, 1, BoxLoads::async, true, 8), 0);
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, false, 4), 0);
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::pipelined, true, 4), 0);
  plan.volume = kBoxDstRegisterEntriesLarge * kBoxWordThreads;
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, true, 4),
            kBoxDstRegisterEntriesLarge);
  ++plan.volume;
  EXPECT_EQ(box_dst_register_entries(plan, 4, 1, BoxLoads::async, true, 4), 0);
}

// The same case under the default 96 KB box bound plans a box of 3,120 elements, over 12 entries a
// thread: at 4 B it keeps 24 (permute_box_dst_registers_large_max_bytes), explain says so, and
// with the field at 0 the tables' reads come back.
TEST(PermuteExplain, DstEntriesInRegistersLargeBox) {
  const std::string on = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
  ASSERT_NE(on.find(" = 3120 elements, src order first"), std::string::npos) << on;
  EXPECT_NE(on.find("stores of 4 bytes\nloads: by cp.async into two shared buffers, the next "
                    "box's copies in flight while this one is stored; each thread's dst offsets "
                    "and shared slots in registers, read from the tables once "
                    "(permute_box_dst_registers: 24 a thread, the box over 3072 elements; "
                    "permute_box_dst_registers_large_max_bytes = 4)"),
            std::string::npos)
      << on;
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_dst_registers_large_max_bytes=0");
  const std::string old = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
  EXPECT_EQ(old.find("in registers"), std::string::npos) << old;
}

// At 4 B and more the box stays under the static 48 KB where its walk there is the pipelined one
// through registers, except where the larger box stores wider dst words
// (permute_box_past_static_for_wider_words, box_words_wider): (2, 79, 57, 26, 136) (0,2,3,4,1) at
// 4 B takes dst's 79 whole and stores 16-byte words across its rows, where the box of 48 KB stores
// 4-byte elements; with the field at 0 it keeps that box and the pipelined walk. A box that gains
// no wider word, (3, 108, 80, 7, 146, 2) (3,0,5,4,1,2) at 4 B, keeps the box of 48 KB either way.
TEST(PermuteExplain, PastStaticSmemForWiderWords) {
  const std::string on = explain_permute({2, 79, 57, 26, 136}, {0, 2, 3, 4, 1}, 4);
  EXPECT_NE(on.find(" x 79 (src stride 201552, dst stride 1) = 3476 elements"), std::string::npos)
      << on;
  EXPECT_NE(on.find("past the static 48 KB for wider words: 16-byte dst words, where the box under "
                    "48 KB (1440 elements, walked pipelined through registers) stores 4 bytes "
                    "(permute_box_past_static_for_wider_words)\n"),
            std::string::npos)
      << on;
  EXPECT_NE(on.find("stores of 16 bytes across dst rows of 79 elements"), std::string::npos) << on;
  EXPECT_NE(on.find("loads: by cp.async"), std::string::npos) << on;
  const std::string same = explain_permute({3, 108, 80, 7, 146, 2}, {3, 0, 5, 4, 1, 2}, 4);
  EXPECT_NE(same.find("= 1760 elements"), std::string::npos) << same;
  EXPECT_EQ(same.find("past the static 48 KB"), std::string::npos) << same;
  // The box under 48 KB in tables (it fits the registers' walk: box_fits_min_bytes).
  test::ScopedEnv off("TMAKIT_POLICY",
                      "permute_box_past_static_for_wider_words=0,"
                      "permute_box_registers_box_fits_min_bytes=8");
  const std::string old = explain_permute({2, 79, 57, 26, 136}, {0, 2, 3, 4, 1}, 4);
  EXPECT_NE(old.find("= 1440 elements"), std::string::npos) << old;
  EXPECT_NE(old.find("loads: the next box's loads in flight (registers)"), std::string::npos)
      << old;
  EXPECT_EQ(old.find("past the static 48 KB"), std::string::npos) << old;
}

// ...and only where the matrix is at least permute_transpose_min_matrix_bytes at the element
// size, or permute_tile would run its 2-D tile. Under the H200's thresholds (its policy row): 37 x
// 58 at 4 B (8,584 bytes, under 12,288) goes to the box walk, the policy at 0 gives it back to the
// transposes; 61 x 95 at 2 B (11,590 bytes) stays with them because permute_tile's own kernel
// there is its 2-D tile; at rank 6 a 141 x 116 matrix at 2 B (32,712 bytes, under 65,536) keeps
// the box walk in one launch rather than split. The H100's row (explain's, with no device) has its
// own fit: 37 x 58 at 4 B reaches its 8,192 and goes to the transposes, 37 x 50 (7,400) does not,
// and 99 x 256 at 2 B (50,688 bytes) reaches its 6,144.
TEST(PermuteExplain, AutoLeavesSmallMatricesToTheBoxWalk) {
  const std::string h100 = explain_permute({8, 94, 37, 13, 58}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(h100.find("auto: permute_transpose (both tile dimensions at least 112 bytes: 148 and "
                      "232; a matrix of 8584 bytes, at least 8192)"),
            std::string::npos)
      << h100;
  const std::string h100_small = explain_permute({8, 94, 37, 13, 50}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(h100_small.find("; not permute_transpose: its 37 x 50 matrix, 7400 bytes, is under "
                            "the 8192 from which the transposes beat the box walk "
                            "(permute_transpose_min_matrix_bytes)\n"),
            std::string::npos)
      << h100_small;
  const std::string h100_two = explain_permute({14, 44, 99, 7, 256}, {3, 0, 1, 4, 2}, 2);
  EXPECT_NE(h100_two.find("a matrix of 50688 bytes, at least 6144)"), std::string::npos)
      << h100_two;
  test::ScopedEnv h200("TMAKIT_POLICY",
                       "permute_transpose_min_matrix_bytes_e2=65536,"
                       "permute_transpose_min_matrix_bytes_e4=12288");
  const std::string small = explain_permute({8, 94, 37, 13, 58}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(small.find("; not permute_transpose: its 37 x 58 matrix, 8584 bytes, is under the "
                       "12288 from which the transposes beat the box walk "
                       "(permute_transpose_min_matrix_bytes)\n"),
            std::string::npos)
      << small;
  EXPECT_NE(small.find("\nbox walk (permute_tile"), std::string::npos) << small;
  const std::string tile = explain_permute({61, 41, 27, 6, 95}, {4, 1, 2, 3, 0}, 2);
  EXPECT_NE(tile.find("auto: permute_transpose (both tile dimensions at least 96 bytes: 122 and "
                      "190; permute_tile would run its 2-D tile, not the box walk)"),
            std::string::npos)
      << tile;
  const std::string wide = explain_permute({310, 116, 2, 2, 3, 141}, {0, 2, 5, 4, 3, 1}, 2);
  EXPECT_NE(wide.find("rank 6: permute_tile's box walk in one launch (auto runs it; not split into "
                      "transposes: the 116 x 141 matrix, 32712 bytes, is under the 65536 of "
                      "permute_transpose_min_matrix_bytes)"),
            std::string::npos)
      << wide;
  test::ScopedEnv off("TMAKIT_POLICY", "permute_transpose_min_matrix_bytes=0");
  EXPECT_NE(explain_permute({8, 94, 37, 13, 58}, {4, 1, 3, 0, 2}, 4)
                .find("auto: permute_transpose (both tile dimensions at least 112 bytes: 148 and "
                      "232; a matrix of 8584 bytes, at least 0)"),
            std::string::npos);
  EXPECT_NE(explain_permute({310, 116, 2, 2, 3, 141}, {0, 2, 5, 4, 3, 1}, 2)
                .find("rank 6, both tile dimensions at least 144 bytes"),
            std::string::npos);
}

// A permutation that reduces to a transpose: auto and a named permute_transpose both run
// transpose()'s own call; a copy's explain names auto alone.
TEST(PermuteExplain, PermuteTransposeOnATransposeIsTransposesCall) {
  const std::string t = explain_permute({78, 42, 16, 2, 80}, {0, 1, 2, 4, 3}, 4);
  EXPECT_NE(t.find("reduces to transpose: "), std::string::npos) << t;
  EXPECT_NE(t.find("auto: transpose() runs it (when src and dst are aligned to 4 bytes; so does "
                   "permute_transpose, when named); permute_tma and permute_tile"),
            std::string::npos)
      << t;
  const std::string c = explain_permute({6, 5, 4}, {0, 1, 2}, 4);
  EXPECT_EQ(c.find("so does permute_transpose"), std::string::npos) << c;
}

// The cp.async walks' first box (first_box in kernels/permute/permute_tile.cu): explain says its
// copies go out while the tables are built from 4-byte elements on (kBoxFirstCopiesMinBytes), that
// it waits for them at 2 B and under the policy at 0, and says nothing for a walk without cp.async.
TEST(PermuteExplain, TheFirstBoxCopiedWhileTheTablesAreBuilt) {
  const std::string early = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
  EXPECT_NE(early.find("\nfirst box: each block's first box copied while its tables are built "
                       "(permute_box_first_copies_early)\n"),
            std::string::npos)
      << early;
  const std::string two = explain_permute({34, 19, 21, 37, 6}, {4, 3, 2, 0, 1}, 2);
  EXPECT_NE(two.find("loads: by cp.async"), std::string::npos) << two;
  EXPECT_NE(two.find("\nfirst box: copied after the tables (the early copies start at 4-byte "
                     "elements)\n"),
            std::string::npos)
      << two;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_first_copies_early=0");
    const std::string late = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
    EXPECT_NE(late.find("\nfirst box: copied after the tables "
                        "(permute_box_first_copies_early = 0)\n"),
              std::string::npos)
        << late;
  }
  test::ScopedEnv sync("TMAKIT_POLICY", "permute_box_async=0");
  const std::string no_async = explain_permute({563, 72, 217, 6}, {2, 1, 3, 0}, 4);
  EXPECT_EQ(no_async.find("cp.async"), std::string::npos) << no_async;
  EXPECT_EQ(no_async.find("first box"), std::string::npos) << no_async;
}

// Dst words across rows of dst's contiguous box dimension where the next dimensions continue it in
// dst (BoxPlan::dst_runs, box_vector_elems, box_dst_words_cross_rows): (144, 2, 4, 37, 89, 8)
// (0,3,2,5,1,4) at 2 B writes runs of 89 x 2 x 8 elements, so 16-byte stores where the 89 alone
// took 2-byte ones; each such word is gathered in the CPU walk as the kernel gathers it; the
// policy off keeps the old words.
TEST(PermuteBox, DstWordsAcrossRowsOfTheRun) {
  const std::string on = explain_permute({144, 2, 4, 37, 89, 8}, {0, 3, 2, 5, 1, 4}, 2);
  EXPECT_NE(on.find("loads of 16 bytes, stores of 16 bytes across dst rows of 89 elements"),
            std::string::npos)
      << on;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_dst_runs=0");
    const std::string old = explain_permute({144, 2, 4, 37, 89, 8}, {0, 3, 2, 5, 1, 4}, 2);
    EXPECT_NE(old.find("loads of 16 bytes, stores of 2 bytes\n"), std::string::npos) << old;
  }
  // At 1 B where src has words (permute_box_narrow_dst_runs_max_bytes): 41-byte rows in 16-byte
  // words, the stores by src word without the rule.
  const std::string bytes = explain_permute({41, 256, 192}, {1, 2, 0}, 1);
  EXPECT_NE(bytes.find("loads of 16 bytes, stores of 16 bytes across dst rows of 41 elements"),
            std::string::npos)
      << bytes;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_narrow_dst_runs_max_bytes=0");
    const std::string old = explain_permute({41, 256, 192}, {1, 2, 0}, 1);
    EXPECT_NE(old.find("loads of 16 bytes, stores of 1 bytes, the shared box swizzled\n"),
              std::string::npos)
        << old;
  }
  // At 2 B with the field at 2, 4-byte words behind src words; at 1 (1 B only, the default)
  // single elements.
  {
    test::ScopedEnv two_b("TMAKIT_POLICY", "permute_box_narrow_dst_runs_max_bytes=2");
    const std::string two = explain_permute({36, 39, 378, 99, 2}, {0, 3, 2, 4, 1}, 2);
    EXPECT_NE(two.find("loads of 4 bytes, stores of 4 bytes across dst rows of 39 elements"),
              std::string::npos)
        << two;
  }
  const std::string one = explain_permute({36, 39, 378, 99, 2}, {0, 3, 2, 4, 1}, 2);
  EXPECT_EQ(one.find("across dst rows"), std::string::npos) << one;
  int crossed = 0;
  for (const auto& [n, p] : std::vector<std::pair<std::vector<std::int64_t>, std::vector<int>>>{
           {{3, 2, 4, 5, 89, 8}, {0, 3, 2, 5, 1, 4}},
           {{3, 7, 12, 5, 91}, {4, 2, 1, 0, 3}},
           {{3, 7, 6, 5, 64}, {3, 2, 0, 4, 1}},
           {{3, 5, 7, 3, 24}, {0, 2, 4, 3, 1}}})
    for (int e : {1, 2, 4, 8, 16}) {
      BoxPlan plan;
      ASSERT_TRUE(tile_box_plan(n, p, e, &plan));
      BoxPlan old = plan;
      old.dst_runs = false;
      const int wd = box_vector_elems(plan, false, e, 0);
      ASSERT_GE(wd, box_vector_elems(old, false, e, 0));
      // Narrower than 16 bytes, or at 1 B, only behind src words
      // (BoxPlan::narrow_dst_runs_max_bytes).
      if (box_vector_elems(plan, true, e, 0) == 1 && (e == 1 || wd * e != 16))
        EXPECT_EQ(wd, box_vector_elems(old, false, e, 0)) << e << " B " << test_text(n);
      if (e >= 4 && wd * e != 16)
        EXPECT_EQ(wd, box_vector_elems(old, false, e, 0)) << e << " B " << test_text(n);
      crossed += box_dst_words_cross_rows(plan, wd) && wd > 1;
      std::string why;
      ASSERT_TRUE(walk_box(plan, n, p, e, &why, true)) << e << " B: " << why;
      BoxPlan cut_short = plan;
      set_box_edges(&cut_short, false);
      ASSERT_TRUE(walk_box(cut_short, n, p, e, &why, true)) << e << " B, cut short: " << why;
    }
  EXPECT_GE(crossed, 6);
}

// The word walk on padded operands: src rows padded by 8 elements and dst's by 4 (as the GPU
// test BoxesInWordsEvenExtentsOffsetsAndPadding pads them), every permutation of three shapes at
// 1-8 B; each word whole, consecutive and aligned in the CPU walk. A dst word check that skipped
// a dimension's stride (a fault on the GPU) fails here.
TEST(PermuteBox, WordsOnPaddedOperands) {
  int walked_words = 0;
  for (const std::vector<std::int64_t>& n :
       {std::vector<std::int64_t>{16, 3, 40, 2}, {6, 10, 4, 8}, {23, 4, 16, 5}}) {
    const int rank = static_cast<int>(n.size());
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    do
      for (int e : {1, 2, 4, 8}) {
        std::vector<std::int64_t> dn(rank);
        for (int d = 0; d < rank; ++d) dn[d] = n[perm[d]];
        PermuteLayout lay;
        using Side = std::tuple<const std::vector<std::int64_t>*, int, std::vector<std::int64_t>*>;
        for (auto [ext, add, out] :
             {Side{&n, 8, &lay.src_strides_elems}, Side{&dn, 4, &lay.dst_strides_elems}}) {
          out->assign(rank, 1);  // dense strides plus add x (k + 1), kept nested
          for (int k = rank - 1; k-- > 0;) (*out)[k] = (*out)[k + 1] * (*ext)[k + 1];
          for (int k = 0; k + 1 < rank; ++k) (*out)[k] += add * (k + 1);
          std::int64_t span = 1;
          for (int k = rank - 1; k >= 0; --k) {
            (*out)[k] = std::max((*out)[k], span);
            span = (*out)[k] * (*ext)[k];
          }
        }
        detail::PermuteProblem prob;
        ASSERT_TRUE(detail::check_permute_args(n, perm, e, lay, &prob).ok());
        PermuteGeometry g;
        BoxPlan plan;
        if (!detail::permute_geometry(detail::reduce(prob), &g).empty() ||
            !make_box_plan(g, e, &plan) || !box_has_words(plan, e))
          continue;
        std::string why;
        ASSERT_TRUE(walk_box(plan, n, perm, e, &why, true, lay))
            << "padded, " << e << " B: " << why << test_text(n) << " perm " << test_text(perm);
        ++walked_words;
      }
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(walked_words, 60);
}

TEST(PermuteBox, EdgeBoxesOverlapTheChunkBefore) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8");
  PermuteDims dims;  // (237, 69) (1, 0) at 4 B: both dimensions cut, neither a multiple
  dims.rank = 2;
  dims.n[0] = 3 * 23, dims.ss[0] = 1, dims.ds[0] = 237;  // 69 x 237 transposed
  dims.n[1] = 237, dims.ss[1] = 69, dims.ds[1] = 1;
  BoxPlan p;
  ASSERT_TRUE(make_box_plan(dims, 4, 65535, kBoxTableBytes, true, &p, 64));  // 35 x 34, no growth
  int cuts = 0;
  for (int k = 0; k < 2; ++k) cuts += p.cut[k] >= 0;
  ASSERT_EQ(cuts, 2) << p.box[0] << " x " << p.box[1];
  int overlapped = 0;
  for (const bool overlap : {true, false}) {
    set_box_edges(&p, overlap);
    for (std::int64_t b = 0; b < p.boxes; ++b) {
      const BoxOrigin at = box_origin(p, static_cast<std::uint32_t>(b));
      const std::int64_t src = at.src;  // the box's coordinates from its src offset (dense)
      const std::int64_t c1 = src / 69, c0 = src % 69;
      const std::int64_t start[2] = {c0, c1};
      const std::uint32_t lim[2] = {at.lim0, at.lim1};
      for (int k = 0; k < 2; ++k) {
        const int u = p.cut[k];
        const std::int64_t s = start[u], full = p.full[u], box = p.box[u];
        ASSERT_EQ(at.dst, c0 * 237 + c1);
        if (overlap) {  // every box whole; the last chunk ends at the dimension's end
          EXPECT_EQ(lim[k], box);
          EXPECT_LE(s + box, full);
          overlapped += s % box != 0;
        } else {
          EXPECT_EQ(s % box, 0);
          EXPECT_EQ(lim[k], std::min(box, full - s));
        }
      }
      EXPECT_EQ(box_is_whole(p, at),
                overlap || (at.lim0 == p.box[p.cut[0]] && at.lim1 == p.box[p.cut[1]]));
    }
  }
  EXPECT_GT(overlapped, 0);
  // A tile whose box cuts 23 into 12 + 11 and 237 into 7 chunks of 34 (238).
  const std::vector<std::int64_t> n = {237, 552, 23, 3};
  const std::string how = explain_permute(n, {2, 1, 3, 0}, 4);
  EXPECT_NE(how.find("23 in 2 chunks of 12, the last from 11 (1 copied twice)"), std::string::npos)
      << how;
  EXPECT_NE(how.find("copied twice): every box whole"), std::string::npos) << how;
  {
    test::ScopedEnv off("TMAKIT_POLICY",
                        "permute_box_overlap_edges=0,permute_box_max_smem_bytes=48896");
    const std::string cut = explain_permute(n, {2, 1, 3, 0}, 4);
    EXPECT_NE(cut.find("23 in 2 chunks of 12, the last 11 long"), std::string::npos) << cut;
    EXPECT_NE(cut.find("(permute_box_overlap_edges = 0)"), std::string::npos) << cut;
  }
}

TEST(PermuteBox, RowTablesGiveEveryEntry) {
  const std::vector<std::vector<std::int64_t>> shapes = {
      {7, 5, 3},          {300, 3, 70}, {2, 3, 5, 7},   {5, 3, 7, 2, 9}, {3, 65, 2, 129, 3},
      {2, 3, 2, 5, 3, 2}, {24, 8, 72},  {16, 3, 40, 2}, {2, 4, 6, 8, 3}};
  int plans = 0, entries = 0, word_sides = 0, cut_rows = 0;
  for (const auto& n : shapes) {
    std::vector<int> perm(n.size());
    std::iota(perm.begin(), perm.end(), 0);
    do
      for (int e : {1, 2, 4, 8, 16}) {
        detail::PermuteProblem prob;
        ASSERT_TRUE(detail::check_permute_args(n, perm, e, {}, &prob).ok());
        PermuteGeometry g;
        BoxPlan p;
        if (!detail::permute_geometry(detail::reduce(prob), &g).empty() ||
            !make_box_plan(g, e, &p) || p.dims < 2)
          continue;
        ++plans;
        const int u0 = p.dst_order[0];
        const std::uint32_t b0 = p.box[0], bd0 = p.box[u0];
        const std::uint32_t cut_src = p.cut[0] == 0 ? 1u : p.cut[1] == 0 ? 256u : 0u;
        const std::uint32_t cut_dst = p.cut[0] == u0 ? 1u : p.cut[1] == u0 ? 256u : 0u;
        cut_rows += cut_src != 0 || cut_dst != 0;
        const auto ws = static_cast<std::uint32_t>(box_vector_elems(p, true, e, 0));
        const auto wd = static_cast<std::uint32_t>(box_vector_elems(p, false, e, 0));
        word_sides += (ws > 1) + (wd > 1);
        for (const std::uint32_t step : {1u, ws}) {
          ASSERT_EQ(box_src_rows(p, step) == 0, b0 <= step);
          for (std::uint32_t t = 0; t < p.volume; t += step) {
            const std::uint32_t r = t / b0, i = t - r * b0;
            std::uint32_t cuts = 0, row_cuts = 0;
            const std::int64_t off = box_src_offset(p, t, &cuts);
            const std::int64_t row = box_src_offset(p, r * b0, &row_cuts);
            ASSERT_EQ(off, row + std::int64_t{i} * p.ss[0]) << test_text(n) << " " << e << " B";
            ASSERT_EQ(cuts, row_cuts + i * cut_src) << test_text(n) << " " << e << " B";
            ++entries;
          }
        }
        for (const std::uint32_t step : {1u, wd}) {
          ASSERT_EQ(box_dst_rows(p, step) == 0, bd0 <= step);
          for (std::uint32_t t = 0; t < p.volume; t += step) {
            const std::uint32_t r = t / bd0, j = t - r * bd0;
            std::uint32_t cuts = 0, row_cuts = 0, at = 0, row_at = 0;
            const std::int64_t off = box_dst_offset(p, t, &at, &cuts);
            const std::int64_t row = box_dst_offset(p, r * bd0, &row_at, &row_cuts);
            ASSERT_EQ(off, row + std::int64_t{j} * p.ds[u0]) << test_text(n) << " " << e << " B";
            ASSERT_EQ(at, row_at + j * p.smem_stride[u0]) << test_text(n) << " " << e << " B";
            ASSERT_EQ(cuts, row_cuts + j * cut_dst) << test_text(n) << " " << e << " B";
            ++entries;
          }
        }
        // The bytes the launchers add where the box's buffer cannot hold them.
        const std::uint32_t need = box_row_tables_bytes(p, ws, wd);
        ASSERT_EQ(need, box_src_rows(p, ws) * 6 + box_dst_rows(p, wd) * 8);
        ASSERT_EQ(box_row_tables_extra_bytes(p, need, ws, wd), 0u);
        if (need > 0) ASSERT_EQ(box_row_tables_extra_bytes(p, need - 1, ws, wd), box_align16(need));
      }
    while (std::next_permutation(perm.begin(), perm.end()));
  }
  EXPECT_GT(plans, 1000);
  EXPECT_GT(word_sides, 300);
  EXPECT_GT(cut_rows, 100);  // rows along a cut dimension: their cut coordinates step too
  EXPECT_GT(entries, 1000000);
}

// DevicePolicy::permute_box_target_elems: a larger target never makes the box smaller, every box
// fits the tables' shared memory and stays within twice its target unless the shortest runs
// alone are larger, and the target does grow boxes (fewer barriers per element).
// A random permutation of the box tests: rank 3-6, extents 2-600, elements of 1-16 bytes; and
// its reduction as the box planner takes it (false: the arguments are refused).
struct RandomPermutation {
  std::vector<std::int64_t> n;
  std::vector<int> p;
  int e = 1;
};
RandomPermutation random_permutation(std::mt19937& rng) {
  RandomPermutation r;
  const int rank = 3 + static_cast<int>(rng() % 4);
  r.n.resize(rank);
  for (auto& x : r.n) x = 2 + static_cast<std::int64_t>(rng() % 599);
  r.p.resize(rank);
  std::iota(r.p.begin(), r.p.end(), 0);
  std::shuffle(r.p.begin(), r.p.end(), rng);
  r.e = 1 << (rng() % 5);
  return r;
}
bool reduced_dims(const std::vector<std::int64_t>& n, const std::vector<int>& p, int e,
                  PermuteDims* dims) {
  detail::PermuteProblem prob;
  if (!detail::check_permute_args(n, p, e, {}, &prob).ok()) return false;
  const PermuteReduction red = detail::reduce(prob);
  dims->rank = static_cast<int>(std::min<std::size_t>(red.extents.size(), kPermuteMaxRank));
  for (int k = 0; k < dims->rank; ++k)
    dims->n[k] = red.extents[k], dims->ss[k] = red.src_strides_elems[k],
    dims->ds[k] = red.dst_strides_elems[k];
  return true;
}

TEST(PermuteBox, TargetGrowsTheBoxWithinSharedMemory) {
  std::mt19937 rng(5);
  int grew = 0, planned = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    std::uint32_t last = 0;
    BoxPlan first;
    for (const std::int64_t target : {256, 1024, 2048, 4096}) {
      BoxPlan plan;
      if (!make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plan, target)) break;
      if (target == 256) first = plan, ++planned;
      ASSERT_LE(box_smem_bytes(plan.volume, e), kBoxMaxSmemBytes);
      ASSERT_GE(plan.volume, last)
          << test_text(n) << " perm " << test_text(p) << " " << e << " B, target " << target;
      ASSERT_TRUE(plan.volume <= 2 * target || plan.volume == first.volume)
          << test_text(n) << " perm " << test_text(p) << " " << e << " B, target " << target;
      grew += target == 4096 && plan.volume > first.volume;
      last = plan.volume;
    }
  }
  EXPECT_GT(planned, 800);
  EXPECT_GT(grew, 400);
}

// PermuteArgs::box_min_boxes (DevicePolicy::permute_box_min_boxes_per_sm): a box that leaves
// fewer boxes than asked gives way to a smaller target's, never to one with fewer boxes; a box
// with enough is kept as it is; a box that still leaves too few is the one with the most of the
// targets down to kBoxMinTargetElems.
TEST(PermuteBox, TooFewBoxesForTheSmsTakeASmallerTarget) {
  std::mt19937 rng(11);
  int shrunk = 0, kept = 0;
  for (int i = 0; i < 600; ++i) {
    auto [n, p, e] = random_permutation(rng);
    for (auto& x : n) x = 2 + x % 40;  // small tensors: few boxes
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    for (const bool registers : {false, true}) {
      BoxPlan base, bound;
      bool base_reg = false, bound_reg = false;
      const bool planned = kernels::permute_tile_box_plan(dims, e, &base, registers, 2, 2048, true,
                                                          &base_reg, 98304, true, true, 0);
      const std::int64_t min_boxes = 2 * 132;
      ASSERT_EQ(planned, kernels::permute_tile_box_plan(dims, e, &bound, registers, 2, 2048, true,
                                                        &bound_reg, 98304, true, true, min_boxes));
      if (!planned) continue;
      const std::string what = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) +
                               " B" + (registers ? ", registers" : "");
      ASSERT_EQ(base_reg, bound_reg) << what;
      ASSERT_GE(bound.boxes, base.boxes) << what;
      if (base.boxes >= min_boxes) {
        ASSERT_EQ(bound.volume, base.volume) << what;
        ++kept;
        continue;
      }
      if (bound.boxes > base.boxes) ++shrunk;
      if (bound.boxes < min_boxes) {  // none had enough: the most of every target's
        for (int t = 1024; t >= kBoxMinTargetElems; t /= 2) {
          BoxPlan other;
          bool other_reg = false;
          if (kernels::permute_tile_box_plan(dims, e, &other, registers, 2, t, true, &other_reg,
                                             98304, true, true, 0) &&
              other_reg == bound_reg)
            ASSERT_LE(other.boxes, bound.boxes) << what << ", target " << t;
        }
      }
    }
  }
  EXPECT_GT(shrunk, 100);
  EXPECT_GT(kept, 100);
  // explain says so where the policy asks for boxes, and not where it does not.
  std::string off, on;
  {
    test::ScopedEnv policy("TMAKIT_POLICY", "permute_box_min_boxes_per_sm=0");
    off = explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4);
  }
  EXPECT_EQ(off.find("too few boxes"), std::string::npos) << off;
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_box_min_boxes_per_sm=8");
  on = explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(on.find("2376 boxes"), std::string::npos) << on;
  EXPECT_NE(on.find("too few boxes for the SMs: the target's box (1600 elements) leaves 594, "
                    "under 8 an SM on 132 SMs"),
            std::string::npos)
      << on;
}

// DevicePolicy::permute_box_byte_stores_target_elems: at 1 B a tables' box walked in src words with
// single-byte stores (box_byte_stores) takes the box of the larger target where that box is walked
// so too; every other box, every other element size and a target of 0 keep the target's box.
TEST(PermuteBox, SingleByteStoresTakeTheLargerTarget) {
  std::mt19937 rng(29);
  int larger = 0, byte_stores = 0, other = 0;
  for (int i = 0; i < 1500; ++i) {
    auto [n, p, e] = random_permutation(rng);
    if (i % 2 == 0) e = 1;  // the rule's size, half the draws
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    const std::int64_t min_boxes = 8 * 132;
    BoxPlan base, ruled, big, off;
    bool base_reg = false, ruled_reg = false, off_reg = false;
    const bool planned = kernels::permute_tile_box_plan(dims, e, &base, false, 2, 2048, true,
                                                        &base_reg, 98304, true, true, min_boxes);
    ASSERT_EQ(planned,
              kernels::permute_tile_box_plan(dims, e, &ruled, false, 2, 2048, true, &ruled_reg,
                                             98304, true, true, min_boxes, 4096));
    ASSERT_EQ(planned, kernels::permute_tile_box_plan(dims, e, &off, false, 2, 2048, true, &off_reg,
                                                      98304, true, true, min_boxes, 0));
    if (!planned) continue;
    const std::string what =
        test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    ASSERT_EQ(off.volume, base.volume) << what;
    ASSERT_EQ(off.boxes, base.boxes) << what;
    ASSERT_EQ(ruled_reg, base_reg) << what;
    if (base_reg || !box_byte_stores(base, e)) {
      ASSERT_EQ(ruled.volume, base.volume) << what;
      ASSERT_EQ(ruled.boxes, base.boxes) << what;
      other += !base_reg;
      continue;
    }
    ++byte_stores;
    ASSERT_EQ(e, 1) << what;
    ASSERT_TRUE(kernels::permute_tile_box_plan(dims, e, &big, false, 2, 4096, true, nullptr, 98304,
                                               true, true, min_boxes))
        << what;
    if (box_byte_stores(big, e)) {  // the larger target's box, walked so too
      ASSERT_EQ(ruled.volume, big.volume) << what;
      ASSERT_EQ(ruled.boxes, big.boxes) << what;
      ASSERT_TRUE(box_byte_stores(ruled, e)) << what;
      larger += ruled.volume > base.volume;
    } else {
      ASSERT_EQ(ruled.volume, base.volume) << what;
    }
  }
  EXPECT_GT(byte_stores, 50);
  EXPECT_GT(larger, 30);
  EXPECT_GT(other, 500);
  // explain names the rule where it took the larger box, and not under a target of 0.
  const std::string on = explain_permute({28, 208, 7, 70, 40}, {2, 1, 4, 0, 3}, 1);
  EXPECT_NE(on.find("x 2 of 28 (src stride 4076800, dst stride 70) = 5600 elements"),
            std::string::npos)
      << on;
  EXPECT_NE(on.find("byte-wide dst rows: the box of a 4096-element target "
                    "(permute_box_byte_stores_target_elems), fewer barriers a byte than "
                    "the target's (2800 elements)"),
            std::string::npos)
      << on;
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_box_byte_stores_target_elems=0");
  const std::string plain = explain_permute({28, 208, 7, 70, 40}, {2, 1, 4, 0, 3}, 1);
  EXPECT_NE(plain.find("= 2800 elements"), std::string::npos) << plain;
  EXPECT_EQ(plain.find("byte-wide dst rows"), std::string::npos) << plain;
}

// DevicePolicy::permute_box_max_smem_bytes: the default bound plans the boxes the planner plans
// without one; under a larger bound permute_tile plans a box wherever it does under the default
// (where the bound's longer first runs cut more dimensions than a box takes, the default's box),
// and a tables' box fits the bound and stays within twice the target unless the shortest runs
// alone are larger; the bound grows boxes that shared memory held back: (53, 203, 40, 25)
// (2, 0, 3, 1) at 4 B goes from 25 x 29 (100-byte src runs) to 25 x 4 x 34 (400 bytes).
TEST(PermuteBox, SharedMemoryBoundGrowsTheBoxesItHeldBack) {
  std::mt19937 rng(11);
  int grew = 0, planned = 0, fell_back = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    BoxPlan plain, first;
    const bool has = make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plain);
    if (!has) continue;
    for (const int bound : {kBoxMaxSmemBytes, 65536, 98304}) {
      BoxPlan plan;
      const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) +
                             " B, bound " + std::to_string(bound);
      if (bound == kBoxMaxSmemBytes) {
        ASSERT_TRUE(make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plan, kBoxTargetElems,
                                  false, bound))
            << at;
        ASSERT_EQ(plan.volume, plain.volume) << at;
        first = plan, ++planned;
        continue;
      }
      fell_back += !make_box_plan(dims, e, 65535, kBoxTableBytes, true, &plan, kBoxTargetElems,
                                  false, bound);
      bool in_registers = true;
      ASSERT_TRUE(kernels::permute_tile_box_plan(dims, e, &plan, false, true,
                                                 static_cast<int>(kBoxTargetElems), false,
                                                 &in_registers, bound))
          << at;
      ASSERT_FALSE(in_registers) << at;
      ASSERT_LE(box_smem_bytes(plan.volume, e), bound) << at;
      ASSERT_TRUE(plan.volume <= 2 * kBoxTargetElems || plan.volume == first.volume) << at;
      grew += bound == 98304 && plan.volume > first.volume;
    }
  }
  EXPECT_GT(planned, 800);
  EXPECT_GT(grew, 50);
  EXPECT_GE(fell_back, 1);
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims({53, 203, 40, 25}, {2, 0, 3, 1}, 4, &dims));
  BoxPlan small, large;  // permute()'s boxes: the least-waste rule's
  const int target = static_cast<int>(kBoxTargetElems);
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 4, &small, false, true, target, true));
  ASSERT_TRUE(
      kernels::permute_tile_box_plan(dims, 4, &large, false, true, target, true, nullptr, 98304));
  EXPECT_EQ(small.volume, 25u * 29u);
  EXPECT_EQ(large.volume, 25u * 4u * 34u);  // 400-byte src runs
  EXPECT_GT(box_smem_bytes(large.volume, 4), kBoxMaxSmemBytes);
  EXPECT_LE(box_smem_bytes(large.volume, 4), 98304);
}

// DevicePolicy::permute_box_least_waste: of the boxes no smaller than the largest-box rule's
// (within the same shared memory and twice the target), the one whose cut dimensions' overlapping
// last chunks copy the fewest elements twice, where it copies at least kBoxLeastWasteGain fewer.
// (103, 7, 22, 16, 15) (3,4,0,2,1) at 16 B: the largest box cuts 22 into 5 chunks of 5 (25 copied
// for 22, 1.136 copies an element), the least-waste one into 4 of 6 (24, 1.091; 11 would copy
// none, but 30 x 11 x 7 boxes of 16 bytes do not fit).
TEST(PermuteBox, LeastWasteCopiesFewerElementsTwice) {
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims({103, 7, 22, 16, 15}, {3, 4, 0, 2, 1}, 16, &dims));
  BoxPlan largest, least;
  ASSERT_TRUE(make_box_plan(dims, 16, 65535, kBoxTableBytes, true, &largest));
  ASSERT_TRUE(make_box_plan(dims, 16, 65535, kBoxTableBytes, true, &least, kBoxTargetElems, true));
  EXPECT_GT(box_copies_per_elem(largest), 1.13);
  EXPECT_LT(box_copies_per_elem(least), 1.1);
  EXPECT_GE(least.volume, largest.volume);

  std::mt19937 rng(11);
  int planned = 0, changed = 0;
  double log_copies_largest = 0, log_copies_least = 0;
  for (int i = 0; i < 1500; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    // A box whenever the largest-box rule has one (and now and then where its box is refused:
    // more than 2^32 boxes).
    const bool lw =
        make_box_plan(dims, e, 65535, kBoxTableBytes, true, &least, kBoxTargetElems, true);
    if (!make_box_plan(dims, e, 65535, kBoxTableBytes, true, &largest)) continue;
    ASSERT_TRUE(lw) << test_text(n) << " perm " << test_text(p) << " " << e << " B";
    ++planned;
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    ASSERT_LE(box_smem_bytes(least.volume, e), kBoxMaxSmemBytes) << at;
    ASSERT_GE(least.volume, largest.volume) << at;
    ASSERT_TRUE(least.volume <= 2 * kBoxTargetElems || least.volume == largest.volume) << at;
    for (int cut : least.cut)
      if (cut >= 0) ASSERT_LT(least.box[cut], 256u) << at;
    const double c0 = box_copies_per_elem(largest), c1 = box_copies_per_elem(least);
    bool same = least.dims == largest.dims;
    for (int u = 0; same && u < least.dims; ++u) same = least.box[u] == largest.box[u];
    if (!same) {
      ASSERT_LE(c1, c0 - kBoxLeastWasteGain + 1e-9) << at;
      ++changed;
    }
    log_copies_largest += std::log(c0);
    log_copies_least += std::log(c1);
  }
  EXPECT_GT(planned, 800);
  EXPECT_GT(changed, planned / 10);
  EXPECT_LT(log_copies_least, 0.85 * log_copies_largest);
}

// DevicePolicy::permute_box_whole_runs (make_box_plan's whole_runs): where the box cuts a side's
// contiguous dimension and holds the next dimension of that side, which continues it, that
// dimension is taken whole if the box still fits (dst's side first, then src's); that side's run
// is then the box's whole region of it. (84, 527, 129, 3) (1,2,3,0) at 4 B: 41 of 203949 x 44 of
// 84, dst runs of 44 elements (176 bytes, half of them starting mid-sector), becomes 41 x 84, one
// dst run of 3444 elements.
TEST(PermuteBox, WholeRunsWhereTheBoxFits) {
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims({84, 527, 129, 3}, {1, 2, 3, 0}, 4, &dims));
  const int target = static_cast<int>(kBoxTargetElems);
  BoxPlan cut, whole;  // permute()'s boxes: least waste, past the static 48 KB
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 4, &cut, false, true, target, true, nullptr,
                                             98304, false));
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 4, &whole, false, true, target, true, nullptr,
                                             98304, true));
  const int d0 = whole.dst_order[0], d1 = whole.dst_order[1];
  EXPECT_EQ(whole.full[d0], 84);
  EXPECT_EQ(whole.box[d0], 84u);
  EXPECT_EQ(whole.ds[d0], 1);
  EXPECT_EQ(whole.ds[d1], 84);
  EXPECT_EQ(whole.volume, 84u * whole.box[d1]);
  EXPECT_LT(cut.box[cut.dst_order[0]], 84u);
  EXPECT_GT(whole.volume, cut.volume);

  // Random permutations: the rule's box is the rule off's, or that box with dst's contiguous
  // dimension (box dimension dst_order[0]) and/or src's (box dimension 0) whole, each cut before
  // and continued by the next dimension of its side inside the box, within the bound
  // (permute_box_max_smem_bytes' 96 KB).
  std::mt19937 rng(12);
  int planned = 0, widened_dst = 0, widened_src = 0;
  for (int i = 0; i < 8000; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    BoxPlan off, on;
    if (!make_box_plan(dims, e, 65535, kBoxTableBytes, true, &off, kBoxTargetElems, true, 98304))
      continue;
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    ASSERT_TRUE(make_box_plan(dims, e, 65535, kBoxTableBytes, true, &on, kBoxTargetElems, true,
                              98304, true))
        << at;
    ++planned;
    ASSERT_EQ(on.dims, off.dims) << at;
    ASSERT_LE(box_smem_bytes(on.volume, e), 98304) << at;
    const int u0 = off.dst_order[0];
    for (int u = 0; u < on.dims; ++u) {
      ASSERT_EQ(on.full[u], off.full[u]) << at;
      if (on.box[u] == off.box[u]) continue;
      ASSERT_TRUE(u == u0 || u == 0) << at << ": box dimension " << u << " widened";
      ASSERT_LT(off.box[u], off.full[u]) << at;
      ASSERT_EQ(std::int64_t{on.box[u]}, on.full[u]) << at;
      ASSERT_GE(on.dims, 2) << at;
      if (u == u0 && off.ds[u] == 1) {  // dst's: the next dst dimension continues it
        ASSERT_EQ(on.ds[on.dst_order[1]], on.full[u]) << at;
        ++widened_dst;
      } else {  // src's: box dimension 1 continues it
        ASSERT_EQ(on.ss[0], 1) << at;
        ASSERT_EQ(on.ss[1], on.full[0]) << at;
        ++widened_src;
      }
    }
  }
  EXPECT_GT(planned, 2000);
  EXPECT_GE(widened_dst, 5);
  EXPECT_GE(widened_src, 5);
  EXPECT_LT(widened_dst + widened_src, planned / 5);
  // explain names the rule where it widened the box, and the policy at 0 keeps the cut box.
  const std::string how = explain_permute({84, 527, 129, 3}, {1, 2, 3, 0}, 4);
  EXPECT_NE(how.find("runs of 41 elements (164 bytes) read, 3444 (13776 bytes) written"),
            std::string::npos)
      << how;
  EXPECT_NE(how.find("whole runs: dst's contiguous dimension taken whole"), std::string::npos)
      << how;
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_whole_runs=0");
  const std::string plain = explain_permute({84, 527, 129, 3}, {1, 2, 3, 0}, 4);
  EXPECT_EQ(plain.find("whole runs"), std::string::npos) << plain;
  EXPECT_NE(plain.find("44 (176 bytes) written"), std::string::npos) << plain;
}

// The whole runs rule yields to the registers' walk (box_whole_runs_yield;
// DevicePolicy::permute_box_whole_runs_past_registers off): (44, 102, 121) (0,2,1) at 4 B, whose
// dst dimension the rule widens from 34 to 102 (4182 elements, the tables' walk), keeps the box of
// 1394 elements in registers. Over random permutations explain says so only at elements the
// box-fits rule covers, only where the policy at 1 widens the box into the tables' walk, and with a
// box the registers' walk holds.
TEST(PermuteBox, WholeRunsYieldToTheRegistersWalk) {
  const std::string yield = "in registers: whole runs would widen the tables' box to ";
  const std::string how = explain_permute({44, 102, 121}, {0, 2, 1}, 4);
  EXPECT_NE(how.find(yield + "4182 elements"), std::string::npos) << how;
  EXPECT_NE(how.find("= 1394 elements"), std::string::npos) << how;
  EXPECT_NE(how.find("offsets in registers"), std::string::npos) << how;
  EXPECT_EQ(how.find("\nwhole runs: "), std::string::npos) << how;
  {
    test::ScopedEnv past("TMAKIT_POLICY", "permute_box_whole_runs_past_registers=1");
    const std::string wide = explain_permute({44, 102, 121}, {0, 2, 1}, 4);
    EXPECT_NE(wide.find("= 4182 elements"), std::string::npos) << wide;
    EXPECT_NE(wide.find("offsets in shared tables"), std::string::npos) << wide;
    EXPECT_NE(wide.find("\nwhole runs: dst's contiguous dimension"), std::string::npos) << wide;
  }
  std::mt19937 rng(44);
  int yielded = 0;
  for (int i = 0; i < 30000; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    const std::string on = explain_permute(n, p, e);
    if (on.find(yield) == std::string::npos) continue;
    ++yielded;
    ASSERT_GE(e, DevicePolicy{}.permute_box_registers_box_fits_min_bytes) << at;
    ASSERT_NE(on.find("offsets in registers"), std::string::npos) << at << "\n" << on;
    test::ScopedEnv past("TMAKIT_POLICY", "permute_box_whole_runs_past_registers=1");
    const std::string wide = explain_permute(n, p, e);
    ASSERT_NE(wide.find("\nwhole runs: "), std::string::npos) << at << "\n" << wide;
    ASSERT_NE(wide.find("offsets in shared tables"), std::string::npos) << at << "\n" << wide;
  }
  EXPECT_GE(yielded, 10);
}

// A small tensor's tables' box of up to twice the registers' walk's (RegistersRule::small_box;
// DevicePolicy::permute_box_registers_small_box_ratio): (202, 9, 3, 22, 3) (3,1,2,4,0) at 4 B,
// 1.4 MB, whose tables' box holds 2244 elements, goes to the registers' walk with its own box of
// at most 2048. Over random permutations explain names the rule only from the box-fits size on, on
// tensors of at most permute_box_registers_small_tensor_bytes, and only where the ratio at 0 keeps
// a tables' box over the registers' walk's volume and at most twice it.
TEST(PermuteBox, SmallTensorsBoxOfUpToTwiceTheRegistersWalk) {
  const std::string rule = "whose tables' box, ";
  const std::string how = explain_permute({202, 9, 3, 22, 3}, {3, 1, 2, 4, 0}, 4);
  EXPECT_NE(how.find(rule + "2244 elements, is at most permute_box_registers_small_box_ratio = 2"),
            std::string::npos)
      << how;
  EXPECT_NE(how.find("offsets in registers"), std::string::npos) << how;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_registers_small_box_ratio=0");
    const std::string tables = explain_permute({202, 9, 3, 22, 3}, {3, 1, 2, 4, 0}, 4);
    EXPECT_NE(tables.find("= 2244 elements"), std::string::npos) << tables;
    EXPECT_NE(tables.find("offsets in shared tables"), std::string::npos) << tables;
  }
  const DevicePolicy policy;
  std::mt19937 rng(45);
  int taken = 0;
  for (int i = 0; i < 6000; ++i) {
    auto [n, p, e] = random_permutation(rng);
    for (auto& x : n) x = 2 + x % 40;  // small tensors as well
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    const std::string on = explain_permute(n, p, e);
    // (rows moved as wider elements are the wider size's case)
    if (on.find(rule) == std::string::npos ||
        on.find("(permute_rows_as_elements)") != std::string::npos)
      continue;
    ++taken;
    std::int64_t bytes = e;
    for (auto x : n) bytes *= x;
    ASSERT_GE(e, policy.permute_box_registers_box_fits_min_bytes) << at;
    ASSERT_LE(bytes, policy.permute_box_registers_small_tensor_bytes) << at;
    ASSERT_NE(on.find("offsets in registers"), std::string::npos) << at << "\n" << on;
    const std::int64_t volume = std::stoll(on.substr(on.find(rule) + rule.size()));
    ASSERT_GT(volume, reg_box_volume(e)) << at;
    ASSERT_LE(volume, 2 * reg_box_volume(e)) << at;
    // Off, that box runs in tables, or where whole runs widened it, the yield rule takes the box
    // without them (box_whole_runs_yield).
    test::ScopedEnv off("TMAKIT_POLICY", "permute_box_registers_small_box_ratio=0");
    const std::string tables = explain_permute(n, p, e);
    ASSERT_EQ(tables.find(rule), std::string::npos) << at << "\n" << tables;
    ASSERT_TRUE(tables.find("offsets in shared tables") != std::string::npos ||
                tables.find("whole runs would widen the tables' box to " +
                            std::to_string(volume)) != std::string::npos)
        << at << "\n"
        << tables;
  }
  EXPECT_GE(taken, 10);
}

// The batch order (DevicePolicy::permute_box_cuts_first): src's innermost cut dimension's chunks
// first only where their edges split 32-byte sectors and dst's do not, or dst's do too and src's
// cut has at most kBoxCutsFirstMaxSrcChunks chunks; dst order elsewhere.
TEST(PermuteBox, CutsFirstWhereOnlySrcsChunksSplitSectors) {
  const int target = static_cast<int>(kBoxTargetElems);
  auto plan = [&](const std::vector<std::int64_t>& n, const std::vector<int>& perm, int e,
                  int order, BoxPlan* box) {
    PermuteDims dims;
    return reduced_dims(n, perm, e, &dims) &&
           kernels::permute_tile_box_plan(dims, e, box, false, order, target, true, nullptr, 98304,
                                          true);
  };
  auto same_order = [](const BoxPlan& a, const BoxPlan& b) {
    if (a.outer != b.outer) return false;
    for (int o = 0; o < a.outer; ++o)
      if (a.outer_n[o] != b.outer_n[o] || a.outer_ss[o] != b.outer_ss[o] ||
          a.outer_ds[o] != b.outer_ds[o])
        return false;
    return true;
  };
  // A side's innermost cut box dimension, and whether its chunks start inside a sector.
  auto cut_of = [](const BoxPlan& p, bool src) {
    int best = -1;
    for (int u = 0; u < p.dims; ++u)
      if (p.box[u] < p.full[u] && (best < 0 || (src ? p.ss[u] < p.ss[best] : p.ds[u] < p.ds[best])))
        best = u;
    return best;
  };
  auto splits = [](const BoxPlan& p, int u, bool src, int e) {
    const std::int64_t s = (src ? p.ss[u] : p.ds[u]) * e, b = p.box[u], n = p.full[u];
    return (b * s) % 32 != 0 || (n % b != 0 && ((n - b) * s) % 32 != 0);
  };
  struct Case {
    std::vector<std::int64_t> n;
    std::vector<int> perm;
    int e;
    bool src_splits, dst_splits;
    std::int64_t src_chunks;
  };
  // (5,27,16,5,328,8) at 4 B: src's chunks of 5 along a dimension of src stride 8 (160 bytes)
  // start on sectors, dst's chunks of 27 (dst stride 5) do not. (472,324,2,230) at 2 B: src's
  // chunks of 230 split sectors, dst's do not. (99,24,47,16,19) at 4 B: both split, src's cut in
  // 4 chunks; (28,225,28,140) at 2 B: both split, src's cut in 3 (140 in chunks of 48, the last
  // from 92).
  static_assert(kBoxCutsFirstMaxSrcChunks >= 2 && kBoxCutsFirstMaxSrcChunks < 4,
                "the both-split cases lie on either side of the bound");
  for (const Case& c : {Case{{5, 27, 16, 5, 328, 8}, {5, 3, 4, 2, 1, 0}, 4, false, true, 328},
                        Case{{472, 324, 2, 230}, {3, 0, 1, 2}, 2, true, false, 5},
                        Case{{99, 24, 47, 16, 19}, {3, 1, 4, 0, 2}, 4, true, true, 4},
                        Case{{28, 225, 28, 140}, {3, 1, 2, 0}, 2, true, true, 3}}) {
    BoxPlan always, split, dst;
    ASSERT_TRUE(plan(c.n, c.perm, c.e, kBoxCutsFirstAlways, &always));
    ASSERT_TRUE(plan(c.n, c.perm, c.e, kBoxCutsFirstSplitSrc, &split));
    ASSERT_TRUE(plan(c.n, c.perm, c.e, kBoxCutsDstOrder, &dst));
    const int us = cut_of(always, true), ud = cut_of(always, false);
    ASSERT_GE(us, 0);
    ASSERT_GE(ud, 0);
    ASSERT_NE(us, ud);
    EXPECT_EQ(splits(always, us, true, c.e), c.src_splits) << c.n[0];
    EXPECT_EQ(splits(always, ud, false, c.e), c.dst_splits) << c.n[0];
    EXPECT_EQ((always.full[us] + always.box[us] - 1) / always.box[us], c.src_chunks) << c.n[0];
    EXPECT_EQ(always.outer_cut[0], us) << c.n[0];  // src's chunks fastest
    EXPECT_FALSE(same_order(always, dst)) << c.n[0];
    const bool src_first =
        c.src_splits && (!c.dst_splits || c.src_chunks <= kBoxCutsFirstMaxSrcChunks);
    EXPECT_TRUE(same_order(split, src_first ? always : dst)) << c.n[0];
    EXPECT_EQ(split.boxes, always.boxes);
  }
  // explain names the order and its reason.
  const std::string dst_first = explain_permute({5, 27, 16, 5, 328, 8}, {5, 3, 4, 2, 1, 0}, 4);
  EXPECT_NE(dst_first.find("batch order (permute_box_cuts_first = 2): dst order: src's cut's "
                           "chunks start on 32-byte sectors\n"),
            std::string::npos)
      << dst_first;
  const std::string few = explain_permute({28, 225, 28, 140}, {3, 1, 2, 0}, 2);
  EXPECT_NE(few.find("batch order (permute_box_cuts_first = 2): src's cut dimension's chunks first "
                     "(140 in 3): they start inside 32-byte sectors, and so do dst's cut's, but "
                     "src's cut has at most 3 chunks\n"),
            std::string::npos)
      << few;
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_box_cuts_first=0");
  EXPECT_NE(explain_permute({28, 225, 28, 140}, {3, 1, 2, 0}, 2)
                .find("batch order (permute_box_cuts_first = 0): dst order\n"),
            std::string::npos);
}

// Few long rows are cut into segments (kernels::permute_row_segment_bytes): whole 16-byte chunks,
// at least 4 KB, enough of them for 4 blocks of 8 rows an SM; rows enough for a block an SM, or
// all three batch dimensions in use, stay whole.
TEST(PermuteRows, FewLongRowsAreCutIntoSegments) {
  PermuteGeometry bytes;  // (9, 15, 607563) (1, 0, 2) at 2 B in bytes: 135 rows of 1215126
  bytes.rows = 9, bytes.cols = 1215126, bytes.src_row = 18226890, bytes.dst_row = 1215126;
  bytes.src_col = bytes.dst_col = 1;
  bytes.batch_extent[0] = 15, bytes.src_batch[0] = 1215126, bytes.dst_batch[0] = 10936134;
  const std::int64_t seg = kernels::permute_row_segment_bytes(bytes, 132);
  ASSERT_GT(seg, 0);
  EXPECT_EQ(seg % 16, 0);
  EXPECT_GE(seg, 4096);
  const std::int64_t segments = bytes.cols / seg * bytes.rows * bytes.batch();
  EXPECT_GE(segments, 4 * 8 * 132 - bytes.rows * bytes.batch());  // within a segment a row
  EXPECT_LE(segments, 4 * 8 * 132);
  // Short rows: too short to cut (under two segments of 4 KB).
  PermuteGeometry shorter = bytes;
  shorter.cols = 8000;
  EXPECT_EQ(kernels::permute_row_segment_bytes(shorter, 132), 0);
  // Rows enough for a block an SM (8 rows of 32 lanes): whole.
  PermuteGeometry many = bytes;
  many.batch_extent[0] = 118;
  EXPECT_EQ(kernels::permute_row_segment_bytes(many, 132), 0);
  // Three batch dimensions: no slot for the segments.
  PermuteGeometry full = bytes;
  full.batch_extent[1] = full.batch_extent[2] = 2;
  EXPECT_EQ(kernels::permute_row_segment_bytes(full, 132), 0);
  // What explain says (where the rows go row by row: a dense dst's go flat by default).
  EXPECT_NE(explain_permute({9, 15, 361, 3, 561}, {1, 0, 2, 3, 4}, 2)
                .find("one run of aligned 16-byte chunks"),
            std::string::npos);
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_rows_flat_max_vector_bytes=0");
  EXPECT_NE(explain_permute({9, 15, 361, 3, 561}, {1, 0, 2, 3, 4}, 2)
                .find("few long rows (135 of 1215126 bytes), so each is cut into 31 segments of "
                      "38848 bytes"),
            std::string::npos);
}

// The flat rows walk (kernels/common/permute_rows.hpp) against an independent walk of the same
// rows: every dst byte's src offset, for dense dsts whose row dimensions come in every dst order
// (the geometry's rows and batch dimensions shuffled), rows of 16-99 bytes; dsts with a gap
// between rows or under 16-byte rows have no flat walk.
TEST(PermuteRows, FlatWalkMapsEveryDstByteToItsSrcByte) {
  std::mt19937 rng(73);
  int walked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    // Extents of the row dimensions (1 included: dropped), a row of L bytes.
    const std::int64_t L = 16 + static_cast<std::int64_t>(rng() % 84);
    std::int64_t n[4];
    for (std::int64_t& x : n) x = 1 + static_cast<std::int64_t>(rng() % 5);
    int dst_order[4] = {0, 1, 2, 3}, src_order[4] = {0, 1, 2, 3};
    std::shuffle(dst_order, dst_order + 4, rng);
    std::shuffle(src_order, src_order + 4, rng);
    std::int64_t ds[4], ss[4], d = L, s = L + static_cast<std::int64_t>(rng() % 3);  // src padded
    for (int k : dst_order) ds[k] = d, d *= n[k];
    for (int k : src_order) ss[k] = s, s *= n[k];
    PermuteGeometry g;
    g.cols = L, g.src_col = g.dst_col = 1;
    g.rows = n[0], g.src_row = ss[0], g.dst_row = ds[0];
    for (int k = 0; k < 3; ++k)
      g.batch_extent[k] = n[k + 1], g.src_batch[k] = ss[k + 1], g.dst_batch[k] = ds[k + 1];
    RowsFlat m;
    ASSERT_TRUE(make_rows_flat(g, &m)) << trial;
    ASSERT_EQ(m.bytes, static_cast<std::uint32_t>(d));
    std::vector<std::int64_t> want(static_cast<std::size_t>(d), -1);
    for (std::int64_t a = 0; a < n[0]; ++a)
      for (std::int64_t b = 0; b < n[1]; ++b)
        for (std::int64_t c = 0; c < n[2]; ++c)
          for (std::int64_t e = 0; e < n[3]; ++e)
            for (std::int64_t i = 0; i < L; ++i)
              want[static_cast<std::size_t>(a * ds[0] + b * ds[1] + c * ds[2] + e * ds[3] + i)] =
                  a * ss[0] + b * ss[1] + c * ss[2] + e * ss[3] + i;
    for (std::uint32_t p = 0; p < m.bytes; ++p)
      ASSERT_EQ(m.src_of(p), want[p]) << "trial " << trial << " byte " << p;
    walked += static_cast<int>(m.bytes);
    // A gap in dst (the outermost row dimension's stride a byte longer): no flat walk.
    int outer = -1;
    for (int k = 0; k < 4; ++k)
      if (n[k] > 1 && (outer < 0 || ds[k] > ds[outer])) outer = k;
    if (outer >= 0) {
      PermuteGeometry gap = g;
      (outer == 0 ? gap.dst_row : gap.dst_batch[outer - 1]) += 1;
      EXPECT_FALSE(make_rows_flat(gap, &m)) << trial;
    }
  }
  EXPECT_GT(walked, 200 * 16);
  PermuteGeometry short_rows;  // 15-byte rows: a chunk may span three rows
  short_rows.cols = 15, short_rows.rows = 4, short_rows.src_row = 15 * 3, short_rows.dst_row = 15;
  short_rows.batch_extent[0] = 3, short_rows.src_batch[0] = 15, short_rows.dst_batch[0] = 60;
  RowsFlat m;
  EXPECT_FALSE(make_rows_flat(short_rows, &m));
  short_rows.cols = 16, short_rows.src_row = 48, short_rows.dst_row = 16;
  short_rows.src_batch[0] = 16, short_rows.dst_batch[0] = 64;
  EXPECT_TRUE(make_rows_flat(short_rows, &m));
  PermuteGeometry huge = short_rows;  // 2^31 bytes of dst: 32-bit positions no longer hold
  huge.rows = std::int64_t{1} << 25, huge.src_row = 16, huge.dst_row = 16;
  huge.src_batch[0] = 16 << 25, huge.dst_batch[0] = 16 << 25;
  huge.batch_extent[0] = 4;
  EXPECT_FALSE(make_rows_flat(huge, &m));
  huge.batch_extent[0] = 3;
  EXPECT_TRUE(make_rows_flat(huge, &m));
}

// Which rows the flat walk takes, and what explain says: rows whose widest vector is at most the
// policy's permute_rows_flat_max_vector_bytes (16 by default: all), into a dense dst.
TEST(PermuteExplain, RowsIntoADenseDstAsOneRunOfChunks) {
  // 552-byte rows at 8 B (8-byte vectors): flat.
  const std::string eight = explain_permute({200, 3, 13, 50, 69}, {2, 3, 0, 1, 4}, 8);
  EXPECT_NE(eight.find("permute_tile: whole rows of 552 bytes into a dense dst, written as one run "
                       "of aligned 16-byte chunks"),
            std::string::npos)
      << eight;
  // 288-byte rows at 16 B (16-byte vectors): flat too.
  const std::string sixteen = explain_permute({579, 280, 18}, {1, 0, 2}, 16);
  EXPECT_NE(sixteen.find("one run of aligned 16-byte chunks"), std::string::npos) << sixteen;
  // A dst with a gap between rows: row by row.
  PermuteLayout lay;
  lay.dst_strides_elems = {50 * 200 * 3 * 70, 200 * 3 * 70, 3 * 70, 70, 1};  // rows of 70
  const std::string gap = explain_permute({200, 3, 13, 50, 69}, {2, 3, 0, 1, 4}, 8, lay);
  EXPECT_EQ(gap.find("one run of aligned 16-byte chunks"), std::string::npos) << gap;
  EXPECT_NE(gap.find("permute_tile: whole rows, the widest vector"), std::string::npos) << gap;
  // Under 8: the 16-byte vectors' rows row by row, the 8-byte ones flat.
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_rows_flat_max_vector_bytes=8");
  EXPECT_NE(explain_permute({579, 280, 18}, {1, 0, 2}, 16).find("whole rows, the widest vector"),
            std::string::npos);
  EXPECT_NE(explain_permute({200, 3, 13, 50, 69}, {2, 3, 0, 1, 4}, 8)
                .find("one run of aligned 16-byte chunks"),
            std::string::npos);
}

// The word walk's shared box is swizzled where consecutive dst words' gathers start a multiple of
// the policy's permute_box_swizzle_bytes apart (32 by default): 192 bytes (a warp's gathers in 2
// banks) and 128 are, 168 (16 banks) and 48 (a 16-mod-32 stride, which the swizzle makes worse)
// are not; at 128 only multiples of 128 are; 0 never.
TEST(PermuteBox, SwizzleWhereTheGathersShareBanks) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8");
  BoxPlan p;
  p.dims = 1;
  p.dst_order[0] = 0;
  auto swizzled = [&](std::uint32_t step, int e, int wd, int multiple) {
    p.smem_stride[0] = step;
    return box_words_swizzled(p, e, wd, multiple);
  };
  EXPECT_TRUE(swizzled(48, 2, 2, DevicePolicy{}.permute_box_swizzle_bytes));  // 192 bytes
  EXPECT_TRUE(swizzled(32, 4, 1, 32));                                        // 128 bytes
  EXPECT_FALSE(swizzled(42, 2, 2, 32));                                       // 168 bytes
  EXPECT_FALSE(swizzled(12, 2, 2, 32));                                       // 48 bytes
  EXPECT_FALSE(swizzled(48, 2, 2, 128));
  EXPECT_TRUE(swizzled(64, 2, 1, 128));
  EXPECT_FALSE(swizzled(64, 2, 1, 0));
  // What explain says for the (34, 19, 21, 37, 6) (4, 3, 2, 0, 1) box at 2 B: dst words 192 bytes
  // apart.
  EXPECT_NE(explain_permute({34, 19, 21, 37, 6}, {4, 3, 2, 0, 1}, 2)
                .find("stores of 4 bytes, the shared box swizzled"),
            std::string::npos);
}

// How each box gets into shared memory (box_loads): cp.async from 4-byte elements or src words
// on, the pipelined register walk where it applies (8-16-byte words, at most two a thread), the
// register walk otherwise and with the policy off; explain says which.
TEST(PermuteBox, LoadsByWordSizeAndPolicy) {
  auto plan_of = [](const std::vector<std::int64_t>& n, const std::vector<int>& p, int e) {
    detail::PermuteProblem prob;
    EXPECT_TRUE(detail::check_permute_args(n, p, e, {}, &prob).ok());
    PermuteGeometry g;
    BoxPlan plan;
    EXPECT_TRUE(detail::permute_geometry(detail::reduce(prob), &g).empty());
    EXPECT_TRUE(make_box_plan(g, e, &plan));
    return plan;
  };
  // Odd extents: the element walk (no words).
  const BoxPlan odd4 = plan_of({63, 95, 97, 101}, {3, 2, 1, 0}, 4);
  EXPECT_EQ(box_loads(odd4, 4, false, 1, true, true), BoxLoads::async);
  EXPECT_EQ(box_loads(odd4, 4, false, 1, true, false), BoxLoads::registers);
  const BoxPlan odd2 = plan_of({63, 95, 97, 101}, {3, 2, 1, 0}, 2);
  EXPECT_EQ(box_loads(odd2, 2, false, 1, true, true), BoxLoads::registers);  // under 4 bytes
  EXPECT_EQ(box_loads(odd2, 2, true, 2, true, true), BoxLoads::async);       // 4-byte words
  // Words of 16 bytes, at most two a thread: the pipelined register walk, cp.async without it.
  const BoxPlan rev5 = plan_of({24, 40, 32, 48, 40}, {4, 3, 2, 1, 0}, 4);
  ASSERT_LE(rev5.volume / 4, 2u * kBoxWordThreads);
  EXPECT_EQ(box_loads(rev5, 4, true, 4, true, true), BoxLoads::pipelined);
  EXPECT_EQ(box_loads(rev5, 4, true, 4, false, true), BoxLoads::async);
  EXPECT_EQ(box_loads(rev5, 4, true, 4, false, false), BoxLoads::registers);
  EXPECT_EQ(box_loads(rev5, 4, true, 1, true, true), BoxLoads::async);  // 4-byte src words
  // More than two words a thread: cp.async.
  EXPECT_EQ(box_loads(rev5, 4, true, 2, true, true), BoxLoads::async);
  // Its box goes to the registers' walk by default (permute_box_registers_elements_max_bytes, 4);
  // with that rule at 2 B, to cp.async.
  EXPECT_NE(explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 4).find("offsets in registers"),
            std::string::npos);
  {
    test::ScopedEnv two("TMAKIT_POLICY", "permute_box_registers_elements_max_bytes=2");
    EXPECT_NE(explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 4).find("loads: by cp.async"),
              std::string::npos);
  }
  // Its stores gather the 63 a shared stride of 34 (the 101's chunk) apart: padded to 35.
  ASSERT_EQ(odd4.smem_stride[odd4.dst_order[0]], 34u);
  EXPECT_EQ(box_async_pad_every(odd4, true), 34u);
  EXPECT_EQ(box_async_pad_every(odd4, false), 1u);
  EXPECT_NE(explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 4)
                .find("a slot of padding every 34 elements (gathers 35 apart)"),
            std::string::npos);
  // An odd stride is left alone: (152, 123, 5, 269) (3, 1, 0, 2) gathers the 5 45 apart.
  const BoxPlan odd_stride = plan_of({152, 123, 5, 269}, {3, 1, 0, 2}, 4);
  EXPECT_EQ(odd_stride.smem_stride[odd_stride.dst_order[0]] % 2, 1u);
  EXPECT_EQ(box_async_pad_every(odd_stride, true), 1u);
  {  // 1 B, no words: the registers' walk by default, the tables' loaded into registers without it
    test::ScopedEnv tables("TMAKIT_POLICY", "permute_box_registers_elements_max_bytes=0");
    EXPECT_NE(explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 1)
                  .find("loads: each box loaded into registers"),
              std::string::npos);
  }
  {  // 4 B in tables (the box fits the registers' walk: box_fits_min_bytes)
    test::ScopedEnv tables("TMAKIT_POLICY", "permute_box_registers_box_fits_min_bytes=8");
    EXPECT_NE(explain_permute({24, 40, 32, 48, 40}, {4, 3, 2, 1, 0}, 4)
                  .find("loads: the next box's loads in flight (registers)"),
              std::string::npos);
  }
}

// The registers' walk (permute_box_reg_kernel; DevicePolicy::permute_box_registers_min_bytes,
// 16 by default): a block is the box's elements over the elements a thread, in whole warps, at
// most reg_box_shape's; explain names the walk, its block and its padding, and under the policy
// at 32 the tables' walk runs instead.
TEST(PermuteExplain, TheRegistersWalkAtSixteenBytes) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8");
  EXPECT_EQ(reg_box_volume(16), 512);
  EXPECT_EQ(reg_box_volume(8), 512);
  EXPECT_EQ(reg_box_volume(4), 2048);         // 8 elements a thread below 8 B
  EXPECT_EQ(reg_box_threads(288, 16), 160u);  // 144 threads of 2 elements: 5 warps
  EXPECT_EQ(reg_box_threads(64, 16), 32u);
  EXPECT_EQ(reg_box_threads(512, 16), 256u);
  EXPECT_EQ(reg_box_threads(1024, 4), 128u);
  EXPECT_EQ(reg_box_threads(2048, 1), 256u);
  EXPECT_EQ(reg_box_threads(1, 1), 32u);
  const std::string sixteen = explain_permute({8, 8, 67, 8, 39}, {0, 3, 4, 2, 1}, 16);
  EXPECT_NE(sixteen.find("box walk (permute_tile, each thread's offsets in registers): a box of 12 "
                         "of 312 (src stride 1, dst stride 536) x 3 of 67 (src stride 312, dst "
                         "stride 8) x 8 (src stride 20904, dst stride 1) = 288 elements"),
            std::string::npos)
      << sixteen;
  EXPECT_NE(
      sixteen.find("loads: blocks of 160 threads, 2 elements a thread, the next box's loads in "
                   "flight (registers) while this one is stored"),
      std::string::npos)
      << sixteen;
  EXPECT_EQ(sixteen.find("tables:"), std::string::npos) << sixteen;
  // 8 B stays with the tables where the tensor is over permute_box_registers_small_tensor_bytes
  // (TheRegistersWalkForSmallTensors).
  {
    test::ScopedEnv large(
        "TMAKIT_POLICY",
        "permute_box_max_smem_bytes=48896,permute_box_registers_small_tensor_bytes=0");
    EXPECT_NE(explain_permute({8, 8, 67, 8, 39}, {0, 3, 4, 2, 1}, 8).find("in shared tables"),
              std::string::npos);
  }
  test::ScopedEnv off("TMAKIT_POLICY",
                      "permute_box_registers_min_bytes=32,permute_box_max_smem_bytes=48896");
  const std::string tables = explain_permute({8, 8, 67, 8, 39}, {0, 3, 4, 2, 1}, 16);
  EXPECT_NE(tables.find("each thread's offsets in shared tables): a box of 39 of 312"),
            std::string::npos)
      << tables;
  EXPECT_NE(tables.find("loads: by cp.async"), std::string::npos) << tables;
}

// From 8-byte elements on, a tensor of at most permute_box_registers_small_tensor_bytes (16 MiB)
// takes the registers' walk (DevicePolicy::box_registers): explain says why. (8, 8, 64, 8, 64) at
// 8 B is 16 MiB; with 65 it is over, and the tables' walk runs; at 4 B the small-box rule takes
// it, and under the policy at 0 the tables' walk runs.
TEST(PermuteExplain, TheRegistersWalkForSmallTensors) {
  // The box as planned for its runs, not the smaller one a tensor this small gets for the SMs.
  test::ScopedEnv boxes("TMAKIT_POLICY", "permute_box_min_boxes_per_sm=0");
  const DevicePolicy shipped;
  EXPECT_TRUE(shipped.box_registers(8, std::int64_t{16} << 20));
  EXPECT_FALSE(shipped.box_registers(8, (std::int64_t{16} << 20) + 8));
  EXPECT_FALSE(shipped.box_registers(4, std::int64_t{1} << 20));
  EXPECT_TRUE(shipped.box_registers(16, std::int64_t{1} << 34));
  const Ext at = {8, 8, 64, 8, 64}, over = {8, 8, 64, 8, 65};
  const std::vector<int> perm = {0, 3, 4, 2, 1};
  const std::string small = explain_permute(at, perm, 8);
  EXPECT_NE(small.find("box walk (permute_tile, each thread's offsets in registers)"),
            std::string::npos)
      << small;
  EXPECT_NE(small.find("in registers: a tensor of 16777216 bytes, at 8 B or more and at most "
                       "permute_box_registers_small_tensor_bytes = 16777216\n"),
            std::string::npos)
      << small;
  EXPECT_EQ(small.find("tables:"), std::string::npos) << small;
  const std::string large = explain_permute(over, perm, 8);
  EXPECT_NE(large.find("each thread's offsets in shared tables"), std::string::npos) << large;
  EXPECT_EQ(large.find("in registers:"), std::string::npos) << large;
  // At 4 B its tables' box, 4096 elements, is twice the registers' walk's: the small-box rule
  // (permute_box_registers_small_box_ratio) takes it; at 0, the tables.
  const std::string four = explain_permute(at, perm, 4);
  EXPECT_NE(four.find("whose tables' box, 4096 elements, is at most "
                      "permute_box_registers_small_box_ratio = 2"),
            std::string::npos)
      << four;
  {
    test::ScopedEnv off("TMAKIT_POLICY",
                        "permute_box_min_boxes_per_sm=0,permute_box_registers_small_box_ratio=0");
    const std::string tables = explain_permute(at, perm, 4);
    EXPECT_NE(tables.find("each thread's offsets in shared tables"), std::string::npos) << tables;
  }
  // auto weighs permute_tile against permute_tma by the tables' box, the one
  // permute_tma_max_box_ratio was fitted on: (83, 48, 15, 7) (3,2,0,1) at 8 B (2.1 MB) runs
  // permute_tile, its box of 9520 bytes against the TMA tile's 896, in the registers' walk (its
  // registers' box alone would have sent it to permute_tma).
  const std::string weighed = explain_permute({83, 48, 15, 7}, {3, 2, 0, 1}, 8);
  EXPECT_NE(weighed.find("auto: permute_tile (its box under 48 KB, 9520 bytes, carries more than 3 "
                         "times the 896 bytes of a TMA tile 44% full)"),
            std::string::npos)
      << weighed;
  EXPECT_NE(weighed.find("each thread's offsets in registers"), std::string::npos) << weighed;
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_registers_small_tensor_bytes=0");
  const std::string tables = explain_permute(at, perm, 8);
  EXPECT_NE(tables.find("each thread's offsets in shared tables"), std::string::npos) << tables;
  EXPECT_NE(explain_permute({83, 48, 15, 7}, {3, 2, 0, 1}, 8).find("auto: permute_tile (its box"),
            std::string::npos);
}

// The word walk through registers runs blocks of 128 threads at 1-2 B
// (DevicePolicy::permute_box_words_small_block_max_bytes, box_words_threads), 256 at 4 B, through
// cp.async, and under the policy at 0; explain names the block where it is the small one.
TEST(PermuteExplain, TheWordWalkInSmallBlocksAtOneAndTwoBytes) {
  EXPECT_EQ(box_words_threads(1, BoxLoads::pipelined, 2), kBoxWordSmallThreads);
  EXPECT_EQ(box_words_threads(2, BoxLoads::registers, 2), kBoxWordSmallThreads);
  EXPECT_EQ(box_words_threads(2, BoxLoads::async, 2), kBoxWordThreads);
  EXPECT_EQ(box_words_threads(2, BoxLoads::pipelined, 1), kBoxWordThreads);
  EXPECT_EQ(box_words_threads(4, BoxLoads::pipelined, 16), kBoxWordThreads);  // capped at 2
  EXPECT_EQ(box_words_threads(1, BoxLoads::registers, 0), kBoxWordThreads);
  const Ext rev4 = {24, 40, 56, 72};
  const std::vector<int> perm = {3, 2, 1, 0};
  const std::string two = explain_permute(rev4, perm, 2);
  EXPECT_NE(two.find("loads of 16 bytes, stores of 16 bytes"), std::string::npos) << two;
  EXPECT_NE(two.find("the next box's loads in flight (registers) while this one is stored; "
                     "blocks of 128 threads (permute_box_words_small_block_max_bytes = 2)"),
            std::string::npos)
      << two;
  {  // 4 B in tables (the box fits the registers' walk: box_fits_min_bytes)
    test::ScopedEnv tables("TMAKIT_POLICY", "permute_box_registers_box_fits_min_bytes=8");
    const std::string four = explain_permute(rev4, perm, 4);
    EXPECT_NE(four.find("in words"), std::string::npos) << four;
    EXPECT_EQ(four.find("blocks of 128"), std::string::npos) << four;
  }
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_words_small_block_max_bytes=0");
  const std::string big = explain_permute(rev4, perm, 2);
  EXPECT_NE(big.find("in words"), std::string::npos) << big;
  EXPECT_EQ(big.find("blocks of 128"), std::string::npos) << big;
}

// At 1-4 B a box the tables' walk would move element by element on both sides (no 4-16-byte
// words: odd extents) goes to the registers' walk
// (DevicePolicy::permute_box_registers_elements_max_bytes, 4), and at 2 B one it would load element
// by element through registers, storing dst words (permute_box_registers_src_elements_bytes, 2):
// explain says which rule; where src has words, at 1 B for the src rule, or under the policies at
// 0, the tables' walk. The launcher asks at the operands' addresses: a 2-byte case with words at
// 16-byte aligned operands has none one byte off.
TEST(PermuteExplain, ElementsInRegistersAtOneToFourBytes) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8");
  const Ext odd = {9, 7, 506, 22, 11, 15};
  const std::vector<int> odd_perm = {4, 2, 0, 5, 1, 3};
  for (int e : {1, 2, 4}) {  // at 2 B (311, 5, 240, 3, 13) (1,2,4,3,0), at 4 B (43, 33, 11, 37)
                             // (0,3,2,1): the 9,7,.. has dst words there
    const std::string how = e == 1   ? explain_permute(odd, odd_perm, e)
                            : e == 2 ? explain_permute({311, 5, 240, 3, 13}, {1, 2, 4, 3, 0}, e)
                                     : explain_permute({43, 33, 11, 37}, {0, 3, 2, 1}, e);
    EXPECT_NE(how.find("box walk (permute_tile, each thread's offsets in registers)"),
              std::string::npos)
        << how;
    EXPECT_NE(how.find("in registers: the tables' walk would move its box element by element on "
                       "both sides (no 4-16-byte words) at " +
                       std::to_string(e) + " B (permute_box_registers_elements_max_bytes = 4)"),
              std::string::npos)
        << how;
    EXPECT_NE(how.find(" elements a thread, the next box's loads in flight"), std::string::npos)
        << how;
    EXPECT_EQ(how.find("tables:"), std::string::npos) << how;
  }
  EXPECT_NE(explain_permute(odd, odd_perm, 4).find("offsets in shared tables"), std::string::npos);
  // At 2 B the odd case's dst words leave the element rule, its src without words the src rule's.
  EXPECT_NE(
      explain_permute(odd, odd_perm, 2).find("(permute_box_registers_src_elements_bytes = 2)"),
      std::string::npos);
  // The src rule: (10, 309, 51, 3, 7) (2,4,3,0,1) at 2 B loads 2 bytes and stores 4 in the tables'
  // walk. At 1 B it does not apply: (4, 301, 30, 19, 9) (3,4,0,1,2) loads 1 byte and stores 8
  // there.
  const Ext src_elems = {10, 309, 51, 3, 7};
  const std::vector<int> src_perm = {2, 4, 3, 0, 1};
  const std::string loads = explain_permute(src_elems, src_perm, 2);
  EXPECT_NE(loads.find("box walk (permute_tile, each thread's offsets in registers)"),
            std::string::npos)
      << loads;
  EXPECT_NE(loads.find("in registers: the tables' walk would load its box element by element "
                       "through registers (no src word) at 2 B "
                       "(permute_box_registers_src_elements_bytes = 2)\n"),
            std::string::npos)
      << loads;
  const std::string one = explain_permute({4, 301, 30, 19, 9}, {3, 4, 0, 1, 2}, 1);
  EXPECT_NE(one.find("offsets in shared tables"), std::string::npos) << one;
  EXPECT_NE(one.find("loads of 1 bytes, stores of 8 bytes"), std::string::npos) << one;
  const std::string words = explain_permute({8, 197, 6, 76, 39}, {0, 1, 2, 4, 3}, 2);
  EXPECT_NE(words.find("offsets in shared tables"), std::string::npos) << words;
  EXPECT_NE(words.find("in words (16-byte aligned operands): loads of 8 bytes, stores of 8 bytes"),
            std::string::npos)
      << words;
  // The rule on the tables' box, at the operands' addresses.
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims({8, 197, 6, 76, 39}, {0, 1, 2, 4, 3}, 2, &dims));
  BoxPlan box;
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 2, &box));
  EXPECT_FALSE(box_elements_in_registers(box, 2, true, 2, 0, 0));
  EXPECT_TRUE(box_elements_in_registers(box, 2, true, 2, 1, 1));   // no word at an odd address
  EXPECT_FALSE(box_elements_in_registers(box, 2, true, 1, 1, 1));  // above the policy's size
  EXPECT_TRUE(box_elements_in_registers(box, 2, false, 2, 0, 0));  // permute_box_words = 0
  // Its src has 8-byte words: the src rule leaves it (at any address its words are loaded as such
  // or, one byte off, there are none on either side: the element rule's).
  EXPECT_FALSE(box_words_in_registers(box, 2, true, 2, 0, 0));
  PermuteDims src_dims;
  ASSERT_TRUE(reduced_dims(src_elems, src_perm, 2, &src_dims));
  BoxPlan src_box;
  ASSERT_TRUE(kernels::permute_tile_box_plan(src_dims, 2, &src_box));
  EXPECT_TRUE(box_words_in_registers(src_box, 2, true, 2, 0, 0));
  EXPECT_FALSE(box_words_in_registers(src_box, 2, true, 0, 0, 0));   // policy at 0
  EXPECT_FALSE(box_words_in_registers(src_box, 2, false, 2, 0, 0));  // words off
  EXPECT_FALSE(box_words_in_registers(src_box, 2, true, 2, 1, 1));   // no dst word
  test::ScopedEnv off("TMAKIT_POLICY",
                      "permute_box_registers_elements_max_bytes=0,permute_box_registers_src_"
                      "elements_bytes=0,permute_box_max_smem_bytes=48896");
  const std::string tables = explain_permute(odd, odd_perm, 1);
  EXPECT_NE(tables.find("offsets in shared tables"), std::string::npos) << tables;
  EXPECT_EQ(tables.find("in registers:"), std::string::npos) << tables;
  const std::string loaded = explain_permute(src_elems, src_perm, 2);
  EXPECT_NE(loaded.find("offsets in shared tables"), std::string::npos) << loaded;
}

// From 4 B on a tables' box of at most the registers' walk's own bound (512 elements at 8 B) goes
// to that walk at any tensor size (DevicePolicy::permute_box_registers_box_fits_min_bytes, 4;
// box_fits_registers): (99, 6, 23, 45, 20) (1,4,3,0,2) at 8 B (98 MB, over the small tensors'
// 16 MiB) plans 460 elements in tables; explain says the rule took it. At 4 B too (the registers'
// walk's 2,048 there, where its own box is as large and its dst words as wide:
// box_registers_takes), unless the policy starts the rule at 8; with the field at 0, or a box over
// 512 at 8 B, the tables'. (404, 61, 22, 2, 52) (3,0,2,4,1) at 4 B stays in tables: the tables'
// walk stores 16-byte words across dst rows, the registers' walk 4 bytes.
TEST(PermuteExplain, RegistersWalkWhereTheTablesBoxFits) {
  const Ext n = {99, 6, 23, 45, 20};
  const std::vector<int> perm = {1, 4, 3, 0, 2};
  const std::string on = explain_permute(n, perm, 8);
  EXPECT_NE(on.find("box walk (permute_tile, each thread's offsets in registers)"),
            std::string::npos)
      << on;
  EXPECT_NE(on.find("in registers: the tables' box, 460 elements, fits the registers' walk's 512 "
                    "at 8 B (permute_box_registers_box_fits_min_bytes = 4)\n"),
            std::string::npos)
      << on;
  EXPECT_EQ(on.find("tables:"), std::string::npos) << on;
  const std::string large = explain_permute({7, 189, 25, 39, 11, 2}, {5, 4, 3, 1, 0, 2}, 8);
  EXPECT_NE(large.find("offsets in shared tables"), std::string::npos) << large;
  // The rule on the tables' box.
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims(n, perm, 8, &dims));
  BoxPlan box;
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 8, &box));
  ASSERT_EQ(box.volume, 460u);
  EXPECT_TRUE(box_fits_registers(box, 8, 8));
  EXPECT_TRUE(box_fits_registers(box, 16, 8));
  EXPECT_FALSE(box_fits_registers(box, 8, 0));   // never
  EXPECT_FALSE(box_fits_registers(box, 4, 8));   // under the policy's size
  EXPECT_FALSE(box_fits_registers(box, 8, 16));  // likewise
  box.volume = 512;
  EXPECT_TRUE(box_fits_registers(box, 8, 8));
  box.volume = 513;
  EXPECT_FALSE(box_fits_registers(box, 8, 8));
  box.volume = 2048;
  EXPECT_TRUE(box_fits_registers(box, 4, 4));
  EXPECT_FALSE(box_fits_registers(box, 8, 4));
  // At 4 B, where the registers' walk plans a box as large and dst words as wide.
  const std::string four_on = explain_permute(n, perm, 4);
  EXPECT_NE(four_on.find("in registers: the tables' box, 460 elements, fits the registers' walk's "
                         "2048, which plans a box as large and stores dst words as wide, at "
                         "4 B (permute_box_registers_box_fits_min_bytes = 4)\n"),
            std::string::npos)
      << four_on;
  const std::string wider = explain_permute({404, 61, 22, 2, 52}, {3, 0, 2, 4, 1}, 4);
  EXPECT_NE(wider.find("offsets in shared tables"), std::string::npos) << wider;
  EXPECT_NE(wider.find("stores of 16 bytes"), std::string::npos) << wider;
  EXPECT_EQ(wider.find("fits the registers' walk"), std::string::npos) << wider;
  {
    test::ScopedEnv at8("TMAKIT_POLICY", "permute_box_registers_box_fits_min_bytes=8");
    const std::string four = explain_permute(n, perm, 4);  // the rule from 8 B on
    EXPECT_NE(four.find("offsets in shared tables"), std::string::npos) << four;
  }
  // Below 8 B the registers' walk takes the tables' place only with a box as large and dst words
  // (elements a word: tables', registers') as wide.
  BoxPlan reg = box;
  reg.volume = 459;
  EXPECT_TRUE(box_registers_takes(RegistersRule::box_fits, box, box, 4, 1, 1));
  EXPECT_TRUE(box_registers_takes(RegistersRule::box_fits, box, box, 4, 2, 4));
  EXPECT_FALSE(box_registers_takes(RegistersRule::box_fits, box, reg, 4, 1, 1));
  EXPECT_FALSE(box_registers_takes(RegistersRule::box_fits, box, box, 4, 4, 1));
  EXPECT_TRUE(box_registers_takes(RegistersRule::box_fits, box, reg, 8, 2, 1));
  EXPECT_TRUE(box_registers_takes(RegistersRule::elements, box, reg, 4, 4, 1));
  EXPECT_FALSE(box_registers_takes(RegistersRule::none, box, box, 4, 1, 1));
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_registers_box_fits_min_bytes=0");
  const std::string tables = explain_permute(n, perm, 8);
  EXPECT_NE(tables.find("offsets in shared tables"), std::string::npos) << tables;
  EXPECT_EQ(tables.find("fits the registers' walk"), std::string::npos) << tables;
}

// The registers' walk in words (DevicePolicy::permute_box_registers_words_min_bytes,
// reg_box_words): (99, 6, 23, 45, 20) (1,4,3,0,2) at 8 B goes to the registers' walk (its tables'
// box fits), whose box keeps src's 20 whole (16-byte src words) and dst's odd 23 (single-element
// stores). explain says so; the words follow the field (0: none; from 16 B: none) and the addresses
// (src 8 bytes off 16: no src word).
TEST(PermuteExplain, RegistersWalkInWords) {
  const Ext n = {99, 6, 23, 45, 20};
  const std::vector<int> perm = {1, 4, 3, 0, 2};
  const std::string on = explain_permute(n, perm, 8);
  EXPECT_NE(on.find("offsets in registers"), std::string::npos) << on;
  EXPECT_NE(on.find("; src words of 16 bytes, dst words of 8 bytes where src and dst are aligned "
                    "to them (permute_box_registers_words_min_bytes = 2);"),
            std::string::npos)
      << on;
  PermuteDims dims;
  ASSERT_TRUE(reduced_dims(n, perm, 8, &dims));
  BoxPlan box;
  bool in_registers = false;
  ASSERT_TRUE(kernels::permute_tile_box_plan(dims, 8, &box, true, true, 2048, true, &in_registers,
                                             kBoxMaxSmemBytes, true));
  ASSERT_TRUE(in_registers);
  RegBoxWords w = reg_box_words(box, 8, 2, 0, 0);
  EXPECT_EQ(w.ws, 2);
  EXPECT_EQ(w.wd, 1);
  w = reg_box_words(box, 8, 2, 8, 0);  // src 8 bytes off 16
  EXPECT_EQ(w.ws, 1);
  w = reg_box_words(box, 8, 0, 0, 0);  // never
  EXPECT_EQ(w.ws, 1);
  w = reg_box_words(box, 8, 16, 0, 0);  // under the policy's size
  EXPECT_EQ(w.ws, 1);
  w = reg_box_words(box, 16, 2, 0, 0);  // no words at 16 B
  EXPECT_EQ(w.ws, 1);
  EXPECT_EQ(w.wd, 1);
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_registers_words_min_bytes=0");
  const std::string elements = explain_permute(n, perm, 8);
  EXPECT_NE(elements.find("offsets in registers"), std::string::npos) << elements;
  EXPECT_EQ(elements.find("; src words of"), std::string::npos) << elements;
}

// The least-waste box (DevicePolicy::permute_box_least_waste, make_box_plan): explain names it
// beside the largest box's copies; under the policy off, the largest box and no such line.
// (8, 9, 10, 11, 120) (4,1,3,0,2) at 4 B: 120 in 3 chunks of 40 instead of 4 of 32 (the last
// from 88, 8 copied twice: 128 / 120 = 1.067 copies an element).
TEST(PermuteExplain, TheLeastWasteBox) {
  // The box as planned for its runs, not the smaller one a tensor this small gets for the SMs.
  std::string least;
  {
    test::ScopedEnv boxes("TMAKIT_POLICY", "permute_box_min_boxes_per_sm=0");
    least = explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4);
  }
  EXPECT_NE(least.find("edge boxes: 8 in 2 chunks of 4 (whole); 120 in 3 chunks of 40 (whole)"),
            std::string::npos)
      << least;
  EXPECT_NE(least.find("the least-waste box (permute_box_least_waste): elements copied per element "
                       "of the tensor 1.000 (the largest box: 1.067)"),
            std::string::npos)
      << least;
  test::ScopedEnv policy("TMAKIT_POLICY",
                         "permute_box_least_waste=0,permute_box_min_boxes_per_sm=0");
  const std::string largest = explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(largest.find("120 in 4 chunks of 32, the last from 88 (8 copied twice)"),
            std::string::npos)
      << largest;
  EXPECT_EQ(largest.find("least-waste"), std::string::npos) << largest;
}

// The box tables from row tables (kernels/permute/permute_tile.cu, build_box_entries): explain
// counts the rows decoded in full per side (a side whose rows are single words decodes its entries
// instead) and says where the row tables go (the box's buffer where they fit, else after the
// tables); under permute_box_row_tables=0 every entry is decoded in full.
TEST(PermuteExplain, BoxTablesFromRowTables) {
  // The boxes planned under the static 48 KB, which this test names (permute_box_max_smem_bytes),
  // in tables (the 4-byte box fits the registers' walk: permute_box_registers_box_fits_min_bytes).
  test::ScopedEnv bound(
      "TMAKIT_POLICY",
      "permute_box_max_smem_bytes=48896,permute_box_registers_box_fits_min_bytes=8,"
      "permute_box_min_boxes_per_sm=0");
  // 4 B: a box of 40 of 120 x 10 x 4 of 8 (1,600 elements, 6,400 bytes), 40 src rows of the 40,
  // 160 dst rows of the 10: 40 x 6 + 160 x 8 = 1,520 bytes.
  const std::string small = explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4);
  EXPECT_NE(small.find("tables: 40 src rows decoded in full, 160 dst rows decoded in full, the "
                       "rest a division an entry (row tables of 1520 bytes, in the box's buffer)"),
            std::string::npos)
      << small;
  // 1 B, odd extents: 180 rows of 11 and 660 of 3 in a 1,980-element box: 6,360 bytes, more than
  // its 1,984-byte buffer (the tables' walk, which 1-byte boxes without words leave by default).
  std::string odd;
  {
    test::ScopedEnv tables(
        "TMAKIT_POLICY",
        "permute_box_registers_elements_max_bytes=0,permute_box_max_smem_bytes=48896");
    odd = explain_permute({3, 5, 7, 9, 11}, {4, 3, 2, 1, 0}, 1);
  }
  EXPECT_NE(odd.find("tables: 180 src rows decoded in full, 660 dst rows decoded in full, the rest "
                     "a division an entry (row tables of 6360 bytes, after the tables: the box's "
                     "buffer holds 1984)"),
            std::string::npos)
      << odd;
  // Pixel shuffle at 2 B: dst rows of 2 elements, one 4-byte word each, no fewer than its entries:
  // only the src side from rows.
  const std::string shuffle = explain_permute({8, 64, 2, 2, 128, 128}, {0, 1, 4, 2, 5, 3}, 2);
  EXPECT_NE(shuffle.find("tables: 16 src rows decoded in full, dst entries decoded in full, the "
                         "rest a division an entry (row tables of 96 bytes, in the box's buffer)"),
            std::string::npos)
      << shuffle;
  test::ScopedEnv policy(
      "TMAKIT_POLICY",
      "permute_box_row_tables=0,permute_box_max_smem_bytes=48896,"
      "permute_box_registers_box_fits_min_bytes=8,permute_box_min_boxes_per_sm=0");
  EXPECT_NE(explain_permute({8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4)
                .find("tables: every entry decoded in full (permute_box_row_tables = 0)"),
            std::string::npos);
}

// auto between permute_tma and permute_tile in the tile form: TMA where its tiles are at least
// 20% full, unless permute_tile's box carries more than 3 times a TMA tile's bytes.
TEST(PermuteExplain, AutoWeighsTheBoxAgainstTheTmaTile) {
  // 8 B, dst's contiguous 4 against 16 x 16 tiles (25% full, 508 bytes of 2048): a box of 476 x 4
  // (15232 bytes).
  EXPECT_NE(
      explain_permute({3, 10, 4, 89, 476}, {3, 0, 1, 4, 2}, 8)
          .find(
              "auto: permute_tile (its box under 48 KB, 15232 bytes, carries more than 3 times the "
              "508 bytes of a TMA tile 25% full)"),
      std::string::npos);
  // The 2 B reversal: tiles 21% full (1728 bytes), a box of 3840 bytes: TMA.
  EXPECT_NE(explain_permute({24, 40, 56, 72}, {3, 2, 1, 0}, 2).find("auto: permute_tma"),
            std::string::npos);
  // The rank-5 reversal at 4 B: tiles 47% full (1920 bytes), a box of 7680 bytes.
  EXPECT_NE(explain_permute({24, 40, 32, 48, 40}, {4, 3, 2, 1, 0}, 4).find("auto: permute_tile"),
            std::string::npos);
  // Below the fill, permute_tile whatever the box.
  EXPECT_NE(explain_permute({514, 3, 14, 456, 8}, {1, 2, 0, 4, 3}, 2)
                .find("auto: permute_tile (TMA tiles 11% full)"),
            std::string::npos);
}

// auto's permute_tile for row permutations its flat walk runs (a dense dst), else permute_tma from
// the policy's permute_tma_min_row_bytes on (512 by default) and permute_tile's rows kernels for
// shorter rows; the policy moves the threshold, per element size too.
TEST(PermuteExplain, AutoTakesTmaForRowsFromTheThresholdOn) {
  // A dense dst: the flat walk, at 256 and 2000 bytes alike.
  for (const auto& [n, e] : {std::pair<Ext, int>{{8, 4096, 32, 128}, 2}, {{91, 416, 250}, 8}}) {
    const Perm p = n.size() == 4 ? Perm{0, 2, 1, 3} : Perm{1, 0, 2};
    EXPECT_NE(explain_permute(n, p, e).find("auto: permute_tile (its flat rows walk: a dense dst)"),
              std::string::npos)
        << test_text(n);
  }
  // The rest under the policy without it (a strided dst's rows).
  test::ScopedEnv no_flat("TMAKIT_POLICY", "permute_rows_flat_max_vector_bytes=0");
  // Attention's (B,S,H,D) -> (B,H,S,D) at 2 B: rows of 256 bytes.
  const std::string attention = explain_permute({8, 4096, 32, 128}, {0, 2, 1, 3}, 2);
  EXPECT_NE(attention.find("auto: permute_tile (rows of 256 bytes: permute_tma from 512 on)"),
            std::string::npos)
      << attention;
  // Rows of 512 and 2000 bytes.
  EXPECT_NE(explain_permute({8, 4096, 32, 256}, {0, 2, 1, 3}, 2)
                .find("auto: permute_tma (permute_tile where its maps cannot be made)"),
            std::string::npos);
  EXPECT_NE(explain_permute({91, 416, 250}, {1, 0, 2}, 8).find("auto: permute_tma"),
            std::string::npos);
  {
    test::ScopedEnv policy("TMAKIT_POLICY",
                           "permute_rows_flat_max_vector_bytes=0,permute_tma_min_row_bytes_e2=256");
    EXPECT_NE(explain_permute({8, 4096, 32, 128}, {0, 2, 1, 3}, 2).find("auto: permute_tma"),
              std::string::npos);
    // Only 2 B moved: 4 B rows of 256 bytes stay with permute_tile.
    EXPECT_NE(explain_permute({16, 197, 12, 64}, {0, 2, 1, 3}, 4)
                  .find("auto: permute_tile (rows of 256 bytes: permute_tma from 512 on)"),
              std::string::npos);
  }
}

// auto runs the tile form as a batch of transposes where both tile dimensions are at least
// permute_transpose_min_side_bytes long at the element size (the default policy's thresholds:
// 80, 96, 112, 192 and 224 bytes from 1 to 16 B), and says why not elsewhere.
// auto's reg_tile (DevicePolicy::permute_reg_tile_max_bytes): the tile form as one launch of
// reg_tile where its blocks take both tile sides and every stride, up to the policy's element
// size, and only where the transposes' own rule does not take the call.
TEST(PermuteExplain, AutoTakesRegTileWhereItsBlocksFit) {
  const std::vector<std::int64_t> n = {24, 40, 56, 72};
  const std::vector<int> p = {3, 2, 1, 0};
  const std::string reg = "auto: reg_tile over the batch";
  {
    test::ScopedEnv on("TMAKIT_POLICY", "permute_reg_tile_max_bytes=8");
    const std::string two = explain_permute(n, p, 2);
    EXPECT_NE(two.find(reg + " (its blocks of 8 x 8 elements take both tile dimensions, 24 and 72"),
              std::string::npos)
        << two;
    EXPECT_NE(explain_permute(n, p, 4).find(reg + " (its blocks of 4 x 4"), std::string::npos);
    // (At 8 B, 24 x 8 = 192-byte sides take the transposes' rule; 16 x 8 = 128 do not.)
    EXPECT_NE(explain_permute({16, 40, 56, 22}, p, 8).find(reg + " (its blocks of 2 x 2"),
              std::string::npos);
    EXPECT_NE(explain_permute(n, p, 1).find(reg), std::string::npos);
    EXPECT_EQ(explain_permute(n, p, 16).find(reg), std::string::npos);  // no 16-byte blocks
    // A side not a whole number of blocks (71 at 1-4 B; at 8 B, blocks of 2, it is again).
    EXPECT_EQ(explain_permute({24, 40, 56, 71}, p, 2).find(reg), std::string::npos);
    EXPECT_EQ(explain_permute({24, 40, 56, 71}, p, 4).find(reg), std::string::npos);
    // A padded src whose row pitch is no whole block row (76 elements, 152 bytes at 2 B).
    const PermuteLayout padded{{40 * 56 * 76, 56 * 76, 76, 1}, {}};
    EXPECT_EQ(explain_permute(n, p, 2, padded).find(reg), std::string::npos);
    const PermuteLayout aligned{{40 * 56 * 80, 56 * 80, 80, 1}, {}};
    EXPECT_NE(explain_permute(n, p, 2, aligned).find(reg), std::string::npos);
    // Long tile sides keep the transposes' rule (63 x 101 does not fit blocks anyway; 64 x 104
    // does, and both sides are at least 112 bytes at 4 B).
    EXPECT_NE(explain_permute({64, 95, 97, 104}, p, 4).find("auto: permute_transpose"),
              std::string::npos);
  }
  {
    test::ScopedEnv up_to_two("TMAKIT_POLICY", "permute_reg_tile_max_bytes=2");
    EXPECT_NE(explain_permute(n, p, 2).find(reg), std::string::npos);
    EXPECT_EQ(explain_permute(n, p, 4).find(reg), std::string::npos);
  }
  test::ScopedEnv off("TMAKIT_POLICY", "permute_reg_tile_max_bytes=0");
  EXPECT_EQ(explain_permute(n, p, 2).find(reg), std::string::npos);
}

TEST(PermuteExplain, AutoTakesTheTransposesWhereBothTileSidesAreLong) {
  const std::string odd = explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 4);
  EXPECT_NE(odd.find("auto: permute_transpose (both tile dimensions at least 112 bytes: 252 and "
                     "404; a matrix of 25452 bytes, at least 8192)"),
            std::string::npos)
      << odd;
  // The threshold follows the element size: 89-byte sides take the transposes at 1 B (a matrix of
  // 89 x 600 bytes), 144-byte sides do not at 8 B.
  const std::string one = explain_permute({256, 600, 14, 89}, {1, 3, 2, 0}, 1);
  EXPECT_NE(one.find("auto: permute_transpose (both tile dimensions at least 80 bytes: "),
            std::string::npos)
      << one;
  const std::string eight = explain_permute({295, 25, 65, 18}, {0, 3, 2, 1}, 8);
  EXPECT_NE(eight.find("not permute_transpose: a tile dimension is shorter than 192 bytes"),
            std::string::npos)
      << eight;
  // 13 x 16 = 208-byte sides stay with the box walk at 16 B (the threshold refitted on its
  // registers' walk; docs/perf-guide.md section 4.13).
  const std::string sixteen = explain_permute({21, 6, 5, 70, 2, 13}, {1, 4, 2, 3, 5, 0}, 16);
  EXPECT_NE(sixteen.find("not permute_transpose: a tile dimension is shorter than 224 bytes"),
            std::string::npos)
      << sixteen;
  EXPECT_NE(odd.find("permute_transpose: a batch of 9215 transposes of 63 x 101 (src_ld 930715, "
                     "dst_ld 580545)"),
            std::string::npos)
      << odd;
  // 24 x 2 = 48 bytes: the tile's dst side is short.
  const std::string rev = explain_permute({24, 40, 56, 72}, {3, 2, 1, 0}, 2);
  EXPECT_NE(rev.find("auto: permute_tma (permute_tile where its maps cannot be made); not "
                     "permute_transpose: a tile dimension is shorter than 96 bytes"),
            std::string::npos)
      << rev;
  // Rank 6 and 7 after the reduction: rank-5 permutations over the outer dimensions, each a batch
  // of transposes, where both tile sides are at least permute_wide_transpose_min_side_bytes long
  // (the default policy's: 208, 144, 208 and 512 bytes from 1 to 8 B, never at 16 B; here 485 and
  // 379 bytes at 1 B, the looped dimension the 2) and they take at most 8 launches; else the box
  // walk in one launch: a short side (9 elements of 4 bytes), 3 x 3 = 9 launches, 16 B.
  const std::string six = explain_permute({8, 7, 379, 9, 2, 485}, {4, 1, 5, 0, 3, 2}, 1);
  EXPECT_NE(
      six.find("rank 6, both tile dimensions at least 208 bytes "
               "(permute_wide_transpose_min_side_bytes): auto runs it as 2 launches of a rank-5 "
               "permutation, the host looping over 2 (src stride 485, dst stride 92642760); "
               "each:"),
      std::string::npos)
      << six;
  EXPECT_NE(six.find("auto: permute_transpose (both tile dimensions at least 80 bytes: "),
            std::string::npos)
      << six;
  const std::string short_side = explain_permute({4, 9, 52, 8, 5, 449}, {0, 5, 2, 4, 3, 1}, 4);
  EXPECT_NE(short_side.find("rank 6: permute_tile's box walk in one launch"), std::string::npos)
      << short_side;
  const std::string nine = explain_permute({120, 3, 5, 3, 5, 3, 100}, {6, 5, 4, 3, 2, 1, 0}, 4);
  EXPECT_NE(nine.find("rank 7: permute_tile's box walk in one launch"), std::string::npos) << nine;
  const std::string sixteen_wide = explain_permute({8, 7, 379, 9, 2, 485}, {4, 1, 5, 0, 3, 2}, 16);
  EXPECT_NE(sixteen_wide.find("rank 6: permute_tile's box walk in one launch"), std::string::npos)
      << sixteen_wide;
  {
    test::ScopedEnv off("TMAKIT_POLICY", "permute_wide_transpose_min_side_bytes=0");
    const std::string ruled_out = explain_permute({8, 7, 379, 9, 2, 485}, {4, 1, 5, 0, 3, 2}, 1);
    EXPECT_NE(ruled_out.find("rank 6: permute_tile's box walk in one launch"), std::string::npos)
        << ruled_out;
  }
  // src's contiguous dimension strided (a ::2 view): no batch of transposes.
  PermuteLayout view;
  view.src_strides_elems = {3700, 73, 2};
  const std::string strided = explain_permute({6, 50, 37}, {2, 0, 1}, 4, view);
  EXPECT_NE(strided.find("permute_transpose: cannot run it: a transpose reads its rows and "
                         "writes its columns at unit stride; the tile's src side has stride 2"),
            std::string::npos)
      << strided;
}

// A row permutation's rows go to the rows kernels from permute_rows_min_bytes at the element size
// on (the default policy's: 80, 32, 80, 64, 32 bytes from 1 to 16 B), to the box walk below it,
// and explain says which and why; TMAKIT_POLICY moves the threshold.
TEST(PermuteExplain, ShortRowsGoToTheBoxWalkByElementSize) {
  // Into a dense dst the flat walk takes every row of 16 bytes or more: 52-byte rows at 4 B.
  EXPECT_NE(explain_permute({149, 25, 48, 16, 13}, {3, 2, 1, 0, 4}, 4)
                .find("permute_tile: whole rows of 52 bytes into a dense dst"),
            std::string::npos);
  // Without it (a strided dst, or the policy's permute_rows_flat_max_vector_bytes=0), the row
  // kernels' threshold. 13 x 4 = 52-byte rows at 4 B: the box walk.
  test::ScopedEnv no_flat("TMAKIT_POLICY", "permute_rows_flat_max_vector_bytes=0");
  const std::string four = explain_permute({149, 25, 48, 16, 13}, {3, 2, 1, 0, 4}, 4);
  EXPECT_NE(four.find("permute_tile: rows of 52 bytes, under the 80 bytes from which the rows "
                      "kernels take them at 4 B (permute_rows_min_bytes), so the box walk"),
            std::string::npos)
      << four;
  EXPECT_NE(four.find("box walk (permute_tile"), std::string::npos) << four;
  EXPECT_EQ(four.find("whole rows, the widest vector"), std::string::npos) << four;
  // 26 x 2 = 52-byte rows at 2 B: the rows kernels.
  const std::string two = explain_permute({149, 25, 48, 16, 26}, {3, 2, 1, 0, 4}, 2);
  EXPECT_NE(two.find("permute_tile: whole rows"), std::string::npos) << two;
  // 10 x 8 = 80-byte rows at 8 B: the rows kernels; 7 x 8 = 56 at 8 B: the box walk.
  EXPECT_NE(
      explain_permute({149, 25, 48, 16, 10}, {3, 2, 1, 0, 4}, 8).find("permute_tile: whole rows"),
      std::string::npos);
  EXPECT_NE(explain_permute({149, 25, 48, 16, 7}, {3, 2, 1, 0, 4}, 8)
                .find("rows of 56 bytes, under the 64 bytes"),
            std::string::npos);
  test::ScopedEnv policy("TMAKIT_POLICY",
                         "permute_rows_flat_max_vector_bytes=0,permute_rows_min_bytes_e4=48");
  const std::string moved = explain_permute({149, 25, 48, 16, 13}, {3, 2, 1, 0, 4}, 4);
  EXPECT_NE(moved.find("permute_tile: whole rows"), std::string::npos) << moved;
}

// The tile form's 2-D tile or box walk by how full its 32-element tiles are, per element size
// (permute_tile_min_fill_pct: 90% at 1-4 B, 60% at 8 B, 40% at 16 B): (21, 4, 185, 567) (3,2,1,0)
// is a 567 x 21 tile, 65% full.
TEST(PermuteExplain, TheTwoDimensionalTileByHowFullItsTilesAre) {
  const std::vector<std::int64_t> n = {21, 4, 185, 567};
  const std::vector<int> perm = {3, 2, 1, 0};
  const std::string tile = "permute_tile: 32 x 33 shared tiles", box = "box walk (permute_tile";
  for (int e : {8, 16}) {
    const std::string s = explain_permute(n, perm, e);
    EXPECT_NE(s.find(tile), std::string::npos) << e << "\n" << s;
    EXPECT_EQ(s.find(box), std::string::npos) << e << "\n" << s;
  }
  for (int e : {1, 2, 4}) EXPECT_NE(explain_permute(n, perm, e).find(box), std::string::npos) << e;
  // Between the two sizes' thresholds: (32, 3, 33) (2,1,0), a 33 x 32 tile, 52% full.
  EXPECT_NE(explain_permute({32, 3, 33}, {2, 1, 0}, 8).find(box), std::string::npos);
  EXPECT_NE(explain_permute({32, 3, 33}, {2, 1, 0}, 16).find(tile), std::string::npos);
  test::ScopedEnv policy("TMAKIT_POLICY", "permute_tile_min_fill_pct_e16=90");
  EXPECT_NE(explain_permute(n, perm, 16).find(box), std::string::npos);
  EXPECT_NE(explain_permute(n, perm, 8).find(tile), std::string::npos);
}

// BatchStrides::batch_offsets, the transposes' batch of up to three dimensions, against the
// plain 64-bit decode b = b0 + n0 * (b1 + n1 * b2): one dimension, three, extents above 2^32,
// and b on both sides of its 32-bit path.
TEST(BatchStrides, BatchOffsetsDecodeEveryDimension) {
  const std::int64_t big = std::int64_t{1} << 33;
  const std::int64_t extents[][3] = {{0, 1, 1},   {95, 97, 1}, {6, 5, 7},        {1, 1, 9},
                                     {big, 2, 1}, {3, big, 2}, {65537, 65536, 3}};
  std::mt19937_64 rng(11);
  for (const auto& n : extents) {
    BatchStrides st;
    st.batch_n0 = n[0];
    st.batch_n1 = n[1];
    st.src_batch_elems = 9797, st.src_batch1_elems = 101, st.src_batch2_elems = 930715;
    st.dst_batch_elems = 63, st.dst_batch1_elems = 5985, st.dst_batch2_elems = 3;
    const std::int64_t total = n[0] == 0 ? 1000 : n[0] * n[1] * n[2];
    for (int i = 0; i < 2000; ++i) {
      std::int64_t b = i < 1000 ? i : static_cast<std::int64_t>(rng() % std::uint64_t(total));
      if (i == 1999) b = total - 1;
      if (i == 1998 && total > 0xffffffffLL) b = 0xffffffffLL - 1;
      if (i == 1997 && total > 0xffffffffLL) b = 0xffffffffLL;
      std::int64_t so = 0, dof = 0;
      st.batch_offsets(b, &so, &dof);
      if (n[0] == 0) {
        ASSERT_EQ(so, b * 9797);
        ASSERT_EQ(dof, b * 63);
        continue;
      }
      const std::int64_t b0 = b % n[0], b1 = b / n[0] % n[1], b2 = b / n[0] / n[1];
      ASSERT_EQ(so, b0 * 9797 + b1 * 101 + b2 * 930715) << b;
      ASSERT_EQ(dof, b0 * 63 + b1 * 5985 + b2 * 3) << b;
    }
  }
}

TEST(PermuteBox, FastDivIsExact) {
  std::mt19937 rng(3);
  for (std::uint32_t d : {1u, 2u, 3u, 5u, 7u, 64u, 65u, 127u, 1000u, 65535u, 2147483647u}) {
    const FastDiv f(d);
    for (int i = 0; i < 20000; ++i) {
      const std::uint32_t n =
          i < 1000 ? static_cast<std::uint32_t>(i) : static_cast<std::uint32_t>(rng());
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(f.div(0xffffffffu), 0xffffffffu / d);
    // div31: the 32-bit sum, exact below 2^31 (a box's element indices and shared slots).
    for (int i = 0; i < 20000; ++i) {
      const std::uint32_t n = i < 1000 ? static_cast<std::uint32_t>(i)
                                       : static_cast<std::uint32_t>(rng()) & 0x7fffffffu;
      ASSERT_EQ(f.div31(n), n / d) << n << " / " << d;
    }
    ASSERT_EQ(f.div31(0x7fffffffu), 0x7fffffffu / d);
  }
}

// batch_at's 32-bit decode (b below 2^32 - 1) against the 64-bit one it stands for: extents
// above b, above 2^32, of 1, and b at the edge of each path.
TEST(PermuteGeometry, BatchAtDecodesLikeSixtyFourBitDivision) {
  std::mt19937_64 rng(5);
  const std::int64_t big = std::int64_t{1} << 33;
  const std::int64_t extents[][3] = {{1, 1, 1},
                                     {7, 1, 9},
                                     {405, 3, 2},
                                     {65536, 65537, 5},
                                     {big, 3, 1},
                                     {3, big, 1},
                                     {100000, 100000, 1000},
                                     {0xffffffffLL, 2, 2}};
  for (const auto& n : extents) {
    PermuteGeometry g;
    for (int k = 0; k < 3; ++k) {
      g.batch_extent[k] = n[k];
      g.src_batch[k] = 1000 + k;
      g.dst_batch[k] = 7 * k + 1;
    }
    const std::int64_t total = g.batch();
    std::vector<std::int64_t> bs = {0, 1, 0xfffffffeLL, 0xffffffffLL, 0x100000000LL};
    for (int i = 0; i < 2000; ++i) bs.push_back(static_cast<std::int64_t>(rng() % total));
    for (std::int64_t b : bs) {
      if (b >= total) continue;
      const BatchAt at = batch_at(g, b);
      const std::int64_t b0 = b % n[0], b1 = (b / n[0]) % n[1], b2 = b / n[0] / n[1];
      ASSERT_EQ(at.b0, b0) << b;
      ASSERT_EQ(at.b1, b1) << b;
      ASSERT_EQ(at.b2, b2) << b;
      ASSERT_EQ(at.src, b0 * 1000 + b1 * 1001 + b2 * 1002) << b;
      ASSERT_EQ(at.dst, b0 * 1 + b1 * 8 + b2 * 15) << b;
    }
  }
}

}  // namespace
}  // namespace tmakit

namespace tmakit {
namespace {

// explain_permute() needs no GPU; docs/permute.md section 3 walks these two outputs through,
// so the figures it quotes are pinned here.
TEST(PermuteExplain, TheDocsWalkThroughIsWhatItPrints) {
  const std::string rev = explain_permute({32, 48, 64, 96}, {3, 2, 1, 0}, 4);
  for (const char* want :
       {"reduces to tile: extents (32, 48, 64, 96) perm (3, 2, 1, 0)",
        "tiles of cols 96 (src stride 1, dst stride 98304) x rows 32 (src stride 294912, dst "
        "stride 1), batch b0 48 (src stride 6144, dst stride 32), batch b1 64 (src stride 96, dst "
        "stride 1536)",
        "shape 1 x 64 x 48 x 32 x 96, pitches [16, 384, 24576, 1179648] bytes, box 1 x 1 x 1 x 32 "
        "x 32",
        "shape 1 x 64 x 48 x 96 x 32, pitches [16, 6144, 128, 393216] bytes, box 1 x 1 x 1 x 32 x "
        "32",
        "box: 4096 bytes per copy"})
    EXPECT_NE(rev.find(want), std::string::npos) << want << "\n" << rev;
  EXPECT_EQ(rev.find("not valid"), std::string::npos) << rev;
  const std::string att = explain_permute({8, 4096, 32, 128}, {0, 2, 1, 3}, 2);
  for (const char* want : {"reduces to rows", "UINT64", "shape 1 x 8 x 32 x 4096 x 32",
                           "box 1 x 1 x 1 x 128 x 32", "box: 32768 bytes per copy"})
    EXPECT_NE(att.find(want), std::string::npos) << want << "\n" << att;
  // Odd extents: the rule that keeps TMA off, in words.
  EXPECT_NE(explain_permute({63, 95, 97, 101}, {3, 2, 1, 0}, 4)
                .find("permute_tma stores whole 16-byte chunks"),
            std::string::npos);
  // A transpose: who runs it.
  EXPECT_NE(explain_permute({64, 256, 56, 56}, {0, 2, 3, 1}, 2).find("transpose() runs it"),
            std::string::npos);
  EXPECT_NE(explain_permute({2, 3}, {1, 1}, 4).find("error: perm (1, 1)"), std::string::npos);
}

// The word walk's stores by src word (box_dst_by_src_words,
// DevicePolicy::permute_box_dst_by_src_words_max_bytes): src word g of the stores is the g-th
// dst-order element whose coordinate along box dimension 0 is a multiple of the word
// (box_dst_src_word_at), so the stores cover every element once, lanes along dst's contiguous
// dimension; a word's elements are ds[0] apart in dst and consecutive in the src-ordered box.
// Checked against a count of the box's elements in dst order, on random permutations.
TEST(PermuteBox, DstBySrcWordsCoverTheBoxInDstOrder) {
  std::mt19937 rng(31);
  int taken = 0, sizes = 0;
  bool size_seen[17] = {};
  for (int i = 0; i < 8000; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    BoxPlan b;
    if (!make_box_plan(dims, e, 65535, kBoxTableBytes, true, &b, kBoxTargetElems, true, 98304))
      continue;
    const int ws = box_vector_elems(b, true, e, 0), wd = box_vector_elems(b, false, e, 0);
    if (!box_dst_by_src_words(b, e, ws, wd, 16)) continue;
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    EXPECT_EQ(box_dst_by_src_words(b, e, ws, wd, e - 1), false) << at;
    ++taken;
    if (!size_seen[e]) size_seen[e] = true, ++sizes;
    set_box_dst_src_word_rows(&b);
    ASSERT_GE(box_dst_src_word_rows(b) * e, kBoxDstBySrcWordsMinRunBytes) << at;
    // Dst-order element d's coordinates (dst_order[0] fastest), its src-ordered slot and dst
    // offset inside the box.
    std::uint32_t g = 0;
    std::int64_t last_dst = -1;
    for (std::uint32_t d = 0; d < b.volume; ++d) {
      std::uint32_t rest = d, c[kBoxMaxDims] = {};
      for (int k = 0; k < b.dims; ++k) {
        const int u = b.dst_order[k];
        c[u] = rest % b.box[u];
        rest /= b.box[u];
      }
      if (c[0] % static_cast<std::uint32_t>(ws) != 0) continue;
      ASSERT_EQ(box_dst_src_word_at(b, ws, g), d) << at << " word " << g;
      std::uint32_t slot = 0;
      std::int64_t dst = 0;
      for (int u = 0; u < b.dims; ++u) slot += c[u] * b.smem_stride[u], dst += c[u] * b.ds[u];
      ASSERT_EQ(slot % ws, 0u) << at;  // a whole aligned word of the box
      ASSERT_EQ(b.smem_stride[0], 1u) << at;
      ASSERT_LE(c[0] + ws, b.box[0]) << at;  // its elements stay along dimension 0
      ASSERT_NE(dst, last_dst) << at;
      last_dst = dst;
      ++g;
    }
    ASSERT_EQ(g, b.volume / ws) << at;
    if (taken >= 300) break;
  }
  EXPECT_GE(taken, 100);
  EXPECT_GE(sizes, 2);  // words of 4-16 bytes: 1, 2, 4 and 8-byte elements
  // explain names it at 1-2 B, with the run; at 0 the element gather (at 1 B where the dst words
  // across rows are off: they take this box).
  test::ScopedEnv bytes("TMAKIT_POLICY", "permute_box_narrow_dst_runs_max_bytes=0");
  const std::string how = explain_permute({41, 256, 192}, {1, 2, 0}, 1);
  EXPECT_NE(how.find("\nstores by src word: a thread reads a 16-byte src word"), std::string::npos)
      << how;
  test::ScopedEnv off(
      "TMAKIT_POLICY",
      "permute_box_narrow_dst_runs_max_bytes=0,permute_box_dst_by_src_words_max_bytes=0");
  const std::string plain = explain_permute({41, 256, 192}, {1, 2, 0}, 1);
  EXPECT_EQ(plain.find("stores by src word"), std::string::npos) << plain;
  EXPECT_NE(plain.find("stores of 1 bytes"), std::string::npos) << plain;
}

// The word walk's stores in register blocks (box_dst_blocks,
// DevicePolicy::permute_box_dst_blocks_max_bytes, at 1 B): block g of a thread is the 4 dst words
// that differ only along box dimension 0; the kernel finds its first word w from g (dst-order
// element g wd = lo + R m, first element lo + S R m) and reads unit j of the box at slot(w) +
// j step. Checked against a walk of the box in dst order on random permutations: the blocks cover
// every dst word once; unit j is 4-byte aligned and holds the S words' elements j in order; word
// k of the block lies k ds[0] past word w in dst; an edge box's cut leaves a block whole or empty.
TEST(PermuteBox, DstBlocksCoverTheBoxInDstOrder) {
  std::mt19937 rng(37);
  int taken = 0;
  for (int i = 0; i < 40000 && taken < 300; ++i) {
    const auto [n, p, e] = random_permutation(rng);
    if (e != 1) continue;
    PermuteDims dims;
    ASSERT_TRUE(reduced_dims(n, p, e, &dims));
    BoxPlan b;
    if (!make_box_plan(dims, e, 65535, kBoxTableBytes, true, &b, kBoxTargetElems, true, 98304))
      continue;
    const int ws = box_vector_elems(b, true, e, 0), wd = box_vector_elems(b, false, e, 0);
    if (!box_dst_blocks(b, e, ws, wd, 1)) continue;
    const std::string at = test_text(n) + " perm " + test_text(p) + " " + std::to_string(e) + " B";
    EXPECT_FALSE(box_dst_blocks(b, e, ws, wd, 0)) << at;
    ++taken;
    set_box_dst_src_word_rows(&b);
    const std::uint32_t S = kBoxDstBlockBytes / e, WD = static_cast<std::uint32_t>(wd);
    const std::uint32_t R = b.src_word_rows_div.d, step = b.smem_stride[b.dst_order[0]];
    ASSERT_EQ(R % WD, 0u) << at;
    // Dst-order element t: its coordinates, src-ordered slot and dst offset in the box.
    auto coords = [&](std::uint32_t t, std::uint32_t* c) {
      for (int k = 0; k < b.dims; ++k) {
        const int u = b.dst_order[k];
        c[u] = t % b.box[u];
        t /= b.box[u];
      }
    };
    auto slot_of = [&](const std::uint32_t* c) {
      std::uint32_t s = 0;
      for (int u = 0; u < b.dims; ++u) s += c[u] * b.smem_stride[u];
      return s;
    };
    auto dst_of = [&](const std::uint32_t* c) {
      std::int64_t d = 0;
      for (int u = 0; u < b.dims; ++u) d += c[u] * b.ds[u];
      return d;
    };
    std::vector<int> seen(b.volume / WD, 0);
    for (std::uint32_t g = 0; g < b.volume / WD / S; ++g) {
      const std::uint32_t t = g * WD, m = b.src_word_rows_div.div31(t);
      const std::uint32_t w = (t + (S - 1) * R * m) / WD;
      ASSERT_LT(w, b.volume / WD) << at;
      std::uint32_t c[kBoxMaxDims] = {};
      coords(w * WD, c);
      ASSERT_EQ(c[0] % S, 0u) << at << " block " << g;
      const std::uint32_t from = slot_of(c);
      const std::int64_t d0 = dst_of(c);
      for (std::uint32_t k = 0; k < S; ++k) {
        const std::uint32_t wk = w + k * (R / WD);
        ++seen[wk];
        for (std::uint32_t j = 0; j < WD; ++j) {
          std::uint32_t ck[kBoxMaxDims] = {};
          coords(wk * WD + j, ck);
          ASSERT_EQ(slot_of(ck), from + j * step + k) << at << " block " << g;
          ASSERT_EQ((from + j * step) % S, 0u) << at;
          if (j == 0) ASSERT_EQ(dst_of(ck), d0 + static_cast<std::int64_t>(k) * b.ds[0]) << at;
        }
      }
    }
    for (std::size_t w = 0; w < seen.size(); ++w) ASSERT_EQ(seen[w], 1) << at << " word " << w;
    // A cut along dimension 0 leaves whole units: every S-th coordinate starts one inside.
    if (b.box[0] < b.full[0]) EXPECT_EQ(b.full[0] % S, 0u) << at;
  }
  EXPECT_GE(taken, 50);
  // explain names it at 1 B by default, never at 2 B (capped there: kBoxDstBlocksMaxBytes), at 0
  // nowhere.
  const std::string how = explain_permute({36, 192, 136, 9, 8}, {2, 4, 1, 3, 0}, 1);
  EXPECT_NE(how.find("\nstores in register blocks: a thread gathers the 4 dst words"),
            std::string::npos)
      << how;
  const std::string two = explain_permute({24, 40, 56, 72}, {3, 2, 1, 0}, 2);
  EXPECT_EQ(two.find("stores in register blocks"), std::string::npos) << two;
  {
    test::ScopedEnv on("TMAKIT_POLICY", "permute_box_dst_blocks_max_bytes=2");
    const std::string wide = explain_permute({24, 40, 56, 72}, {3, 2, 1, 0}, 2);
    EXPECT_EQ(wide.find("stores in register blocks"), std::string::npos) << wide;
  }
  test::ScopedEnv off("TMAKIT_POLICY", "permute_box_dst_blocks_max_bytes=0");
  const std::string plain = explain_permute({36, 192, 136, 9, 8}, {2, 4, 1, 3, 0}, 1);
  EXPECT_EQ(plain.find("stores in register blocks"), std::string::npos) << plain;
}

}  // namespace
}  // namespace tmakit
