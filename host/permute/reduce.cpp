// Argument checks, the reduction and the CPU reference of permute().
#include <host/permute/reduce.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <host/error.hpp>
#include <kernels/common/elem.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/plan_state.hpp>

namespace tmakit {
namespace detail {
namespace {

constexpr int kMaxRank = 8;  // more than 5 only if it folds to 5
constexpr std::int64_t kMaxSpanBytes = std::int64_t{1} << 62;

// a * b, or false when it would pass kMaxSpanBytes.
bool mul_ok(std::int64_t a, std::int64_t b, std::int64_t* out) {
  if (a != 0 && b > kMaxSpanBytes / a) return false;
  *out = a * b;
  return true;
}

// Strides of one operand (per its own dimensions): >= 1, and no two elements at one address:
// sorted by stride (extents of 1 skipped), each stride exceeds the farthest offset the
// dimensions inside it reach, the sum of stride x (extent - 1) over them. torch's x[..., ::2]
// over an odd extent 37 (strides 73, 2) passes: its elements sit at offsets 0-72 of each
// 73-element row. *span: elements from the first to one past the last.
Status check_strides(const char* side, const std::vector<std::int64_t>& extents,
                     const std::vector<std::int64_t>& strides, std::int64_t* span) {
  const std::size_t r = extents.size();
  std::vector<std::size_t> order;
  std::int64_t last = 0;
  for (std::size_t k = 0; k < r; ++k) {
    if (strides[k] < 1)
      return invalid(std::string(side) + " stride of dimension " + std::to_string(k) +
                     " must be >= 1 (got " + std::to_string(strides[k]) + ")");
    std::int64_t reach = 0;
    if (!mul_ok(extents[k] - 1, strides[k], &reach) || last > kMaxSpanBytes - reach)
      return invalid(std::string(side) + " strides " + list(strides) + " with extents " +
                     list(extents) + " reach past 2^62 elements");
    last += reach;
    if (extents[k] > 1) order.push_back(k);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return strides[a] < strides[b]; });
  std::int64_t inner_reach = 0;  // the farthest offset of the dimensions sorted so far
  for (std::size_t n = 0; n < order.size(); ++n) {
    const std::size_t d = order[n];
    if (n > 0 && strides[d] <= inner_reach)
      return invalid(std::string(side) + " strides " + list(strides) + " alias: dimension " +
                     std::to_string(d) + " (stride " + std::to_string(strides[d]) +
                     ") does not step past the " + std::to_string(inner_reach) +
                     " elements the dimensions of smaller stride reach (the sum of their stride "
                     "x (extent - 1)), so two elements would share an address");
    inner_reach += strides[d] * (extents[d] - 1);  // no overflow: the span was checked above
  }
  *span = last + 1;
  return {};
}

}  // namespace

Status check_permute_args(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteProblem* out) {
  const std::size_t r = extents.size();
  if (r == 0) return invalid("extents is empty: a permutation needs rank >= 1");
  if (r > kMaxRank)
    return invalid("rank " + std::to_string(r) + " is above " + std::to_string(kMaxRank));
  if (perm.size() != r)
    return invalid("perm " + list(perm) + " has " + std::to_string(perm.size()) +
                   " entries for rank " + std::to_string(r));
  std::vector<int> seen(r, 0);
  for (int p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= r)
      return invalid("perm " + list(perm) + " is not a permutation of 0.." + std::to_string(r - 1) +
                     ": " + std::to_string(p) + " is out of range");
    if (seen[p]++)
      return invalid("perm " + list(perm) + " is not a permutation of 0.." + std::to_string(r - 1) +
                     ": " + std::to_string(p) + " appears twice");
  }
  for (std::size_t k = 0; k < r; ++k)
    if (extents[k] < 1)
      return invalid("extent of dimension " + std::to_string(k) + " must be >= 1 (got " +
                     std::to_string(extents[k]) + ")");
  if (elem_bit(elem_bytes) == 0)
    return invalid("element size " + std::to_string(elem_bytes) +
                   " bytes is not one of 1, 2, 4, 8, 16");
  for (const auto* s : {&layout.src_strides_elems, &layout.dst_strides_elems})
    if (!s->empty() && s->size() != r)
      return invalid(std::string(s == &layout.src_strides_elems ? "src" : "dst") + " strides " +
                     list(*s) + " have " + std::to_string(s->size()) + " entries for rank " +
                     std::to_string(r) + " (empty: dense)");
  std::int64_t elems = 1;
  for (std::int64_t n : extents)
    if (!mul_ok(elems, n, &elems) || elems > kMaxSpanBytes / elem_bytes)
      return invalid("extents " + list(extents) + " hold more than 2^62 bytes");

  PermuteProblem p;
  p.extents = extents;
  p.perm = perm;
  p.elem_bytes = elem_bytes;
  // src: dense row-major unless given.
  std::vector<std::int64_t> src = layout.src_strides_elems;
  if (src.empty()) {
    src.assign(r, 1);
    for (std::size_t k = r - 1; k-- > 0;) src[k] = src[k + 1] * extents[k + 1];
  }
  // dst, per dst dimension d (extent extents[perm[d]]).
  std::vector<std::int64_t> dst_ext(r), dst = layout.dst_strides_elems;
  for (std::size_t d = 0; d < r; ++d) dst_ext[d] = extents[perm[d]];
  if (dst.empty()) {
    dst.assign(r, 1);
    for (std::size_t d = r - 1; d-- > 0;) dst[d] = dst[d + 1] * dst_ext[d + 1];
  }
  std::int64_t src_span = 0, dst_span = 0;
  if (Status s = check_strides("src", extents, src, &src_span); !s) return s;
  if (Status s = check_strides("dst", dst_ext, dst, &dst_span); !s) return s;
  if (src_span > kMaxSpanBytes / elem_bytes || dst_span > kMaxSpanBytes / elem_bytes)
    return invalid("an operand spans more than 2^62 bytes");
  p.src_strides = src;
  p.dst_strides.assign(r, 0);
  for (std::size_t d = 0; d < r; ++d) p.dst_strides[perm[d]] = dst[d];
  p.src_span_bytes = src_span * elem_bytes;
  p.dst_span_bytes = dst_span * elem_bytes;
  *out = std::move(p);
  return {};
}

namespace {

// The 2-D or batched transpose of a reduced problem whose elements are `e` bytes, when one
// exists: (1, 0) with unit strides on the moving sides, or (0, 2, 1) likewise; the leading
// dimensions and batch strides must pass transpose()'s own layout rules.
bool as_transpose(const std::vector<std::int64_t>& n, const std::vector<int>& perm,
                  const std::vector<std::int64_t>& ss, const std::vector<std::int64_t>& ds, int e,
                  PermuteReduction* r) {
  MatrixLayout lay;
  std::int64_t rows = 0, cols = 0;
  if (n.size() == 2 && perm == std::vector<int>{1, 0} && ss[1] == 1 && ds[0] == 1) {
    rows = n[0], cols = n[1];
    lay.src_ld_elems = ss[0];
    lay.dst_ld_elems = ds[1];
  } else if (n.size() == 3 && perm == std::vector<int>{0, 2, 1} && ss[2] == 1 && ds[1] == 1) {
    lay.batch = n[0];
    rows = n[1], cols = n[2];
    lay.src_ld_elems = ss[1];
    lay.dst_ld_elems = ds[2];
    lay.src_batch_stride_elems = ss[0];
    lay.dst_batch_stride_elems = ds[0];
  } else {
    return false;
  }
  ResolvedLayout resolved;
  if (!resolve_layout(rows, cols, e, lay, false, &resolved)) return false;
  r->form = PermuteForm::kTranspose;
  r->rows = rows;
  r->cols = cols;
  r->transpose_elem_bytes = e;
  r->layout = lay;
  return true;
}

}  // namespace

Status check_permute_call(const void* src, const void* dst,
                          const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteProblem* out) {
  if (Status s = check_null(src, dst); !s) return s;
  if (Status s = check_permute_args(extents, perm, elem_bytes, layout, out); !s) return s;
  if (Status s = check_aligned_to_element(src, dst, elem_bytes); !s) return s;
  return check_no_overlap(src, out->src_span_bytes, dst, out->dst_span_bytes, "permute");
}

PermuteReduction reduce(const PermuteProblem& p) {
  const std::size_t rank = p.extents.size();
  std::vector<int> pos(rank);  // dst position of each src dimension
  for (std::size_t d = 0; d < rank; ++d) pos[p.perm[d]] = static_cast<int>(d);
  // 1. Drop extents of 1; 2. fuse src-adjacent dimensions that follow each other in dst too and
  // whose strides nest on both sides (a dense layout always does).
  struct Dim {
    std::int64_t n, ss, ds;
    int first, last;  // dst positions of its outermost and innermost original dimension
  };
  std::vector<Dim> dims;
  for (std::size_t k = 0; k < rank; ++k) {
    if (p.extents[k] == 1) continue;
    const Dim d{p.extents[k], p.src_strides[k], p.dst_strides[k], pos[k], pos[k]};
    if (!dims.empty()) {
      Dim& o = dims.back();
      // The next dst position after o among the kept dimensions must be d's.
      bool next = d.first > o.last;
      for (std::size_t m = 0; m < rank && next; ++m)
        if (p.extents[m] > 1 && pos[m] > o.last && pos[m] < d.first) next = false;
      if (next && o.ss == d.ss * d.n && o.ds == d.ds * d.n) {
        o.n *= d.n;
        o.ss = d.ss;
        o.ds = d.ds;
        o.last = d.last;
        continue;
      }
    }
    dims.push_back(d);
  }
  PermuteReduction r;
  const std::size_t red = dims.size();
  std::vector<std::size_t> by_dst(red);
  std::iota(by_dst.begin(), by_dst.end(), 0);
  std::sort(by_dst.begin(), by_dst.end(),
            [&](std::size_t a, std::size_t b) { return dims[a].first < dims[b].first; });
  for (const Dim& d : dims) {
    r.extents.push_back(d.n);
    r.src_strides_elems.push_back(d.ss);
    r.dst_strides_elems.push_back(d.ds);
  }
  for (std::size_t k : by_dst) r.perm.push_back(static_cast<int>(k));
  const int e = p.elem_bytes;
  // 3. What it is. A copy: one dimension (or none) left, contiguous on both sides.
  if (red == 0 || (red == 1 && dims[0].ss == 1 && dims[0].ds == 1)) {
    r.form = PermuteForm::kCopy;
    r.rows = 1;
    r.cols = red == 0 ? 1 : dims[0].n;
    r.transpose_elem_bytes = e;
    return r;
  }
  if (as_transpose(r.extents, r.perm, r.src_strides_elems, r.dst_strides_elems, e, &r)) return r;
  // Whole rows of 2, 4, 8 or 16 bytes: a transpose of elements that wide, when every other
  // stride is a whole number of rows (the operands' alignment is permute()'s to check).
  const Dim& in = dims.back();
  const bool keeps_inner = r.perm.back() == static_cast<int>(red - 1) && in.ss == 1 && in.ds == 1;
  if (keeps_inner && red >= 2) {
    const std::int64_t w = in.n * e;
    bool whole = w == 2 || w == 4 || w == 8 || w == 16;
    std::vector<std::int64_t> n, ss, ds;
    for (std::size_t k = 0; k + 1 < red && whole; ++k) {
      whole = dims[k].ss % in.n == 0 && dims[k].ds % in.n == 0;
      n.push_back(dims[k].n);
      ss.push_back(dims[k].ss / in.n);
      ds.push_back(dims[k].ds / in.n);
    }
    std::vector<int> perm(r.perm.begin(), r.perm.end() - 1);
    if (whole && as_transpose(n, perm, ss, ds, static_cast<int>(w), &r)) return r;
  }
  // 4. The permutation kernels: rows when the dimension contiguous in src is also the one
  // contiguous in dst, else a tile.
  PermuteGeometry g;
  permute_geometry(r, &g);
  r.form = g.src_col == 1 && g.dst_col == 1 ? PermuteForm::kRows : PermuteForm::kTile;
  return r;
}

std::string split_permutation(const PermuteReduction& r, PermuteSplit* out) {
  const std::size_t red = r.extents.size();
  const auto& n = r.extents;
  const auto& ss = r.src_strides_elems;
  const auto& ds = r.dst_strides_elems;
  *out = PermuteSplit{};
  std::vector<bool> keep(red, false);
  std::size_t kept = 0;
  auto take = [&](std::size_t k) {
    if (!keep[k]) {
      keep[k] = true;
      ++kept;
    }
  };
  std::size_t i = 0, j = 0;  // the dimensions contiguous in src and in dst: the walk's tile
  for (std::size_t k = 1; k < red; ++k) {
    if (ss[k] < ss[i]) i = k;
    if (ds[k] < ds[j]) j = k;
  }
  take(i);
  take(j);
  std::vector<std::size_t> rest;
  for (std::size_t k = 0; k < red; ++k)
    if (!keep[k]) rest.push_back(k);
  // The largest extents stay in the walk: the fewest launches.
  std::stable_sort(rest.begin(), rest.end(),
                   [&](std::size_t a, std::size_t b) { return n[a] > n[b]; });
  for (std::size_t k : rest)
    if (kept < 5) take(k);
  for (std::size_t k = 0; k < red; ++k) {
    if (keep[k]) continue;
    if (out->launches > kPermuteMaxSplitLaunches / n[k])
      return "it reduces to rank " + std::to_string(red) +
             ", which runs as rank-5 permutations over the outer dimensions, and those would be " +
             "more than " + std::to_string(kPermuteMaxSplitLaunches) + " launches";
    out->launches *= n[k];
    out->loop_extents.push_back(n[k]);
    out->loop_src.push_back(ss[k]);
    out->loop_dst.push_back(ds[k]);
  }
  std::vector<int> sub_of(red, -1);  // reduced src dimension -> its index among the kept ones
  for (std::size_t k = 0; k < red; ++k)
    if (keep[k]) {
      sub_of[k] = static_cast<int>(out->extents.size());
      out->extents.push_back(n[k]);
      out->layout.src_strides_elems.push_back(ss[k]);
    }
  for (int d : r.perm)  // dst order
    if (keep[static_cast<std::size_t>(d)]) {
      out->perm.push_back(sub_of[static_cast<std::size_t>(d)]);
      out->layout.dst_strides_elems.push_back(ds[static_cast<std::size_t>(d)]);
    }
  return {};
}

std::string widen_rows(const PermuteReduction& r, int elem_bytes, PermuteWidened* out) {
  if (r.form != PermuteForm::kRows) return "not a row permutation";
  const std::size_t red = r.extents.size();
  std::size_t i = red;  // the rows' dimension: stride 1 on both sides
  for (std::size_t k = 0; k < red; ++k)
    if (r.src_strides_elems[k] == 1 && r.dst_strides_elems[k] == 1) i = k;
  if (i == red) return "no dimension of stride 1 on both sides";
  const std::int64_t n = r.extents[i], bytes = n * elem_bytes;
  if (n < 2 || bytes > 16 || (bytes & (bytes - 1)) != 0)
    return "rows of " + std::to_string(bytes) +
           " bytes (2, 4, 8 or 16 bytes of two elements "
           "or more move as elements)";
  for (std::size_t k = 0; k < red; ++k)
    if (k != i && (r.src_strides_elems[k] % n != 0 || r.dst_strides_elems[k] % n != 0))
      return "a stride is not a whole number of rows";
  *out = PermuteWidened{};
  out->elem_bytes = static_cast<int>(bytes);
  std::vector<int> sub_of(red, -1);  // reduced src dimension -> its index without the rows'
  for (std::size_t k = 0; k < red; ++k)
    if (k != i) {
      sub_of[k] = static_cast<int>(out->extents.size());
      out->extents.push_back(r.extents[k]);
      out->layout.src_strides_elems.push_back(r.src_strides_elems[k] / n);
    }
  for (int d : r.perm)  // dst order
    if (static_cast<std::size_t>(d) != i) {
      out->perm.push_back(sub_of[static_cast<std::size_t>(d)]);
      out->layout.dst_strides_elems.push_back(r.dst_strides_elems[static_cast<std::size_t>(d)] / n);
    }
  return {};
}

std::string permute_geometry(const PermuteReduction& r, PermuteGeometry* g) {
  const std::size_t red = r.extents.size();
  *g = PermuteGeometry{};
  if (red == 0) {  // one element: a row of one
    g->src_row = g->dst_row = 0;
    g->src_col = g->dst_col = 1;
    return {};
  }
  const auto& n = r.extents;
  const auto& ss = r.src_strides_elems;
  const auto& ds = r.dst_strides_elems;
  std::size_t i = 0;
  for (std::size_t k = 1; k < red; ++k)
    if (ss[k] < ss[i]) i = k;
  g->cols = n[i];
  g->src_col = ss[i];
  g->dst_col = ds[i];
  std::vector<std::size_t> rest;
  for (std::size_t k = 0; k < red; ++k)
    if (k != i) rest.push_back(k);
  std::stable_sort(rest.begin(), rest.end(),
                   [&](std::size_t a, std::size_t b) { return ds[a] < ds[b]; });
  if (rest.empty()) {
    g->rows = 1;
    g->src_row = g->dst_row = 0;
    return {};
  }
  const std::size_t j = rest.front();
  g->rows = n[j];
  g->src_row = ss[j];
  g->dst_row = ds[j];
  constexpr std::size_t kBatchDims = sizeof(g->batch_extent) / sizeof(g->batch_extent[0]);
  if (rest.size() - 1 > kBatchDims)
    return "it reduces to rank " + std::to_string(red) +
           " (the permutation kernels take rank 5 at most: two tile dimensions and three batch "
           "dimensions)";
  for (std::size_t b = 1; b < rest.size(); ++b) {
    g->batch_extent[b - 1] = n[rest[b]];
    g->src_batch[b - 1] = ss[rest[b]];
    g->dst_batch[b - 1] = ds[rest[b]];
  }
  return {};
}

}  // namespace detail

const char* to_string(PermuteForm form) {
  switch (form) {
    case PermuteForm::kCopy:
      return "copy";
    case PermuteForm::kTranspose:
      return "transpose";
    case PermuteForm::kRows:
      return "rows";
    case PermuteForm::kTile:
      return "tile";
  }
  return "?";
}

std::string PermuteReduction::to_string() const {
  std::string s = std::string(tmakit::to_string(form)) + ": extents " + detail::list(extents) +
                  " perm " + detail::list(perm);
  if (form == PermuteForm::kCopy || form == PermuteForm::kTranspose) {
    s += " -> transpose() of " + std::to_string(rows) + " x " + std::to_string(cols);
    if (layout.batch > 1) s += ", batch " + std::to_string(layout.batch);
    s += ", " + std::to_string(transpose_elem_bytes) + "-byte elements";
  }
  return s;
}

Status reduce_permutation(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                          int elem_bytes, const PermuteLayout& layout, PermuteReduction* out) {
  detail::PermuteProblem p;
  if (Status s = detail::check_permute_args(extents, perm, elem_bytes, layout, &p); !s) return s;
  *out = detail::reduce(p);
  if (out->form == PermuteForm::kCopy || out->form == PermuteForm::kTranspose) return {};
  // Rank 6-8 after the reduction runs split (detail::split_permutation), unless that takes too
  // many launches.
  PermuteGeometry g;
  detail::PermuteSplit sp;
  std::string why = out->extents.size() > 5 ? detail::split_permutation(*out, &sp)
                                            : detail::permute_geometry(*out, &g);
  if (!why.empty())
    return make_status(StatusCode::kUnsupported, "permutation " + detail::list(perm) + ": " + why);
  return {};
}

Status reference_permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                         const std::vector<int>& perm, int elem_bytes,
                         const PermuteLayout& layout) {
  if (src == nullptr) return make_status(StatusCode::kInvalidArgument, "src is a null pointer");
  if (dst == nullptr) return make_status(StatusCode::kInvalidArgument, "dst is a null pointer");
  detail::PermuteProblem p;
  if (Status s = detail::check_permute_args(extents, perm, elem_bytes, layout, &p); !s) return s;
  // An odometer over src's multi-index, innermost fastest.
  const std::size_t r = extents.size();
  std::vector<std::int64_t> idx(r, 0);
  std::int64_t so = 0, dof = 0;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  const std::size_t e = static_cast<std::size_t>(elem_bytes);
  while (true) {
    std::memcpy(d + dof * elem_bytes, s + so * elem_bytes, e);
    std::size_t k = r;
    while (k > 0) {
      --k;
      if (++idx[k] < extents[k]) {
        so += p.src_strides[k];
        dof += p.dst_strides[k];
        break;
      }
      so -= (extents[k] - 1) * p.src_strides[k];
      dof -= (extents[k] - 1) * p.dst_strides[k];
      idx[k] = 0;
      if (k == 0) return {};
    }
    if (r == 0) return {};
  }
}

}  // namespace tmakit
