// The box walk of permute_tile (kernels/permute/permute_tile.cu) for permutations whose two
// contiguous dimensions are short (a reversal of extents like 3 x 5 x 7, rows of 60 bytes): a
// 32 x 32 tile of such dimensions is mostly empty and its runs are a few elements long. A box
// instead takes whole runs on both sides: the innermost src dimensions until they hold
// box_run_elems (the last one cut into chunks to get there), united with the innermost dst
// dimensions until they do too. A block loads the box in src order (consecutive threads,
// consecutive src addresses), then stores it in dst order (consecutive dst addresses) from
// shared memory. Every other dimension, and the chunks of a cut one, are the batch of boxes.
// The plan takes any reduced permutation up to rank 8 (PermuteDims), so rank 6-8 is one launch.
// Host (the plan) and device (the index math), so the host tests can walk it on the CPU.
#pragma once
#include <algorithm>
#include <cstdint>
#include <kernels/common/arch.hpp>
#include <kernels/common/permute_geometry.hpp>

namespace tmakit {

// n / d for 32-bit n and a divisor known ahead: q = (umulhi(n, m) + n) >> s with
// s = ceil(log2 d), m = floor(2^32 (2^s - d) / d) + 1 (Granlund and Montgomery; exact for every
// 32-bit n, the sum taken in 64 bits).
struct FastDiv {
  std::uint32_t d = 1, m = 1, s = 0;
  FastDiv() = default;
  explicit FastDiv(std::uint32_t divisor) : d(divisor) {
    s = 0;
    while ((std::uint64_t{1} << s) < divisor) ++s;
    m = static_cast<std::uint32_t>(
        ((std::uint64_t{1} << 32) * ((std::uint64_t{1} << s) - divisor)) / divisor + 1);
  }
  TMAKIT_HD std::uint32_t div(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const std::uint64_t hi = __umulhi(n, m);
#else
    const std::uint64_t hi = (static_cast<std::uint64_t>(n) * m) >> 32;
#endif
    return static_cast<std::uint32_t>((hi + n) >> s);
  }
  // The same for n < 2^31 (a box's elements, a shared slot): umulhi(n, m) < n, so the sum fits
  // 32 bits and no 64-bit add or shift is needed.
  TMAKIT_HD std::uint32_t div31(std::uint32_t n) const {
#if defined(__CUDA_ARCH__)
    return (__umulhi(n, m) + n) >> s;
#else
    return static_cast<std::uint32_t>(((static_cast<std::uint64_t>(n) * m) >> 32) + n) >> s;
#endif
  }
};

inline constexpr int kBoxMaxDims = 5;    // dimensions inside a box
inline constexpr int kBoxMaxOuter = 10;  // the rest, plus the chunk counts of cut ones
// Shared memory of a box: its elements plus, per element, the tables a block builds once and
// reuses for every box it walks (kernels/permute/permute_tile.cu): the src offset, the dst offset
// and shared index of the dst-order element, and the coordinates along cut dimensions (edge
// boxes), kBoxTableBytes in all.
inline constexpr int kBoxTableBytes = 4 + 4 + 2 + 2 + 2;
inline constexpr int kBoxMaxSmemBytes = 48 * 1024 - 256;  // the static 48 KB, less the kernels'
                                                          // own (the box origins' slots)
// Boxes grow (longer runs) up to about this many elements, by default
// (DevicePolicy::permute_box_target_elems).
inline constexpr std::int64_t kBoxTargetElems = 2048;
// ...and where a box leaves too few boxes for the SMs (DevicePolicy::permute_box_min_boxes_per_sm),
// the target halves down to this many elements (the smallest target that rule was measured at).
inline constexpr int kBoxMinTargetElems = 512;
// Which boxes of the batch run one after another (make_box_plan's batch order,
// DevicePolicy::permute_box_cuts_first): dst order alone; src's innermost cut dimension's chunks
// first, then dst's, then dst order; or so only where src's chunk edges split 32-byte sectors
// (kBoxSectorBytes) and dst's do not, or dst's do too but src's cut has at most
// kBoxCutsFirstMaxSrcChunks chunks. With src's chunks first, the boxes that write a split dst
// sector run that many boxes apart: with a few they still run together, with many they do not.
inline constexpr int kBoxCutsDstOrder = 0;
inline constexpr int kBoxCutsFirstAlways = 1;
inline constexpr int kBoxCutsFirstSplitSrc = 2;
inline constexpr std::int64_t kBoxSectorBytes = 32;
inline constexpr std::int64_t kBoxCutsFirstMaxSrcChunks = 3;
// Whether the chunks of `box` elements along a cut extent `n` of stride `stride_elems` start
// inside 32-byte sectors (the overlapping last chunk's origin, n - box, included: set_box_edges).
TMAKIT_HD constexpr bool box_chunks_split_sectors(std::int64_t n, std::int64_t box,
                                                  std::int64_t stride_elems, int elem_bytes) {
  return (box * stride_elems * elem_bytes) % kBoxSectorBytes != 0 ||
         (n % box != 0 && ((n - box) * stride_elems * elem_bytes) % kBoxSectorBytes != 0);
}
// Whether the batch order (kBoxCuts*) runs src's innermost cut dimension's chunks first, from
// whether each side's cut's chunks split sectors and how many chunks src's cut has.
TMAKIT_HD constexpr bool box_src_cut_first(int cuts_first, bool src_splits, bool dst_splits,
                                           std::int64_t src_chunks) {
  return cuts_first == kBoxCutsFirstAlways ||
         (cuts_first == kBoxCutsFirstSplitSrc && src_splits &&
          (!dst_splits || src_chunks <= kBoxCutsFirstMaxSrcChunks));
}
// The least-waste rule (make_box_plan, DevicePolicy::permute_box_least_waste) takes another box
// where it copies at least this many fewer elements per element of the tensor (1%).
inline constexpr double kBoxLeastWasteGain = 0.01;
// Src words across a cut dimension that continues src's run (make_box_plan's chunks of it,
// box_vector_elems' words) from elements of this many bytes on: 1-byte boxes without them take the
// registers' walk, which 1-byte words across a cut dimension lost to (docs/perf-guide.md 4.13).
inline constexpr int kBoxSrcCutWordsMinBytes = 2;
// The cp.async walks copy a block's first box while its tables are built
// (DevicePolicy::permute_box_first_copies_early) from elements of this many bytes on: the 1-2-byte
// word walks ran slower with it, the 4-8-byte ones faster (docs/perf-guide.md 4.13).
inline constexpr int kBoxFirstCopiesMinBytes = 4;

// Each side's run, in elements: 32 (64 bytes at 2-byte elements), at least 128 bytes from 8-byte
// elements on.
TMAKIT_HD constexpr std::int64_t box_run_elems(int elem_bytes) {
  return elem_bytes >= 8 ? 128 / elem_bytes : 32;
}
inline std::int64_t box_smem_bytes(std::int64_t volume, int elem_bytes,
                                   int table_bytes = kBoxTableBytes) {
  return (volume * elem_bytes + 15) / 16 * 16 + volume * table_bytes;
}

// The most elements of a 16-byte word (a power of two) that divide n.
TMAKIT_HD constexpr std::int64_t word_elems(std::int64_t n, int elem_bytes) {
  std::int64_t w = 16 / elem_bytes;
  while (w > 1 && n % w != 0) w /= 2;
  return w < 1 ? 1 : w;
}

// The dst box dimensions after dst_order[0] whose rows a dst word may cross (box_vector_elems,
// the word kernel's gather): rows of dst_order[0] and of dst_order[1].
inline constexpr int kBoxDstCrossLevels = 2;

struct BoxPlan {
  int dims = 0;                         // box dimensions, innermost src first
  std::uint32_t box[kBoxMaxDims] = {};  // extent inside the box
  FastDiv box_div[kBoxMaxDims];
  std::int64_t full[kBoxMaxDims] = {};  // the dimension's extent (a cut one: > box)
  std::int64_t ss[kBoxMaxDims] = {}, ds[kBoxMaxDims] = {};  // strides, elements
  std::uint32_t smem_stride[kBoxMaxDims] = {};              // position in the box's src order
  int dst_order[kBoxMaxDims] = {};  // box dimensions innermost dst first (indices into the above)
  std::uint32_t volume = 1;         // elements per box
  int outer = 0;
  std::int64_t outer_n[kBoxMaxOuter] = {}, outer_ss[kBoxMaxOuter] = {}, outer_ds[kBoxMaxOuter] = {};
  int outer_cut[kBoxMaxOuter] = {};  // -1, or the box dimension this counts the chunks of
  FastDiv outer_div[kBoxMaxOuter];   // outer_n as divisors (boxes < 2^32)
  std::int64_t boxes = 1;
  int cut[2] = {-1, -1};    // box dimensions cut into chunks (at most one per side)
  bool origin_once = true;  // one warp of a block decodes each box's origin (for_each_box)
  bool pipeline = true;     // the word walk: the next box's loads before this box's stores
  bool row_tables = true;   // tables built from row tables (permute_tile.cu, build_box_entries)
  bool one_barrier = true;  // the cp.async walks: one barrier a box (permute_tile.cu)
  bool first_early = true;  // the cp.async walks: the first box copied as the src table is made
                            // (kBoxFirstCopiesMinBytes)
  bool src_runs = true;     // src words across whole dimensions that continue dim 0, and a cut one
                            // that ends such a run (box_vector_elems; host only)
  bool dst_runs = true;     // dst words across rows of dst_order[0] (box_vector_elems)
  // ...of every word size at elements of at most this many bytes, where src has words
  // (box_vector_elems).
  int narrow_dst_runs_max_bytes = 1;
  // The word walk's stores by src word (box_dst_by_src_words): the box's elements along the dst
  // dimensions before dimension 0 in dst order (box_dst_src_word_rows), as a divisor.
  FastDiv src_word_rows_div;
  // Each batch dimension's last index: its offsets and, for a cut one, its coordinate limit
  // (set_box_edges: a cut dimension's last chunk moved back to overlap the chunk before it, or
  // cut short).
  std::int64_t outer_last_ss[kBoxMaxOuter] = {}, outer_last_ds[kBoxMaxOuter] = {};
  std::uint32_t outer_last_lim[kBoxMaxOuter] = {};
};

// The batch order's inputs (box_src_cut_first), read off a box: each side's innermost cut box
// dimension (-1: none), whether its chunks start inside 32-byte sectors, and src's cut's chunks.
// make_box_plan orders its batch by it and explain says why from it.
struct BoxCutSectors {
  int src_cut = -1, dst_cut = -1;  // box dimensions (src order)
  bool src_splits = false, dst_splits = false;
  std::int64_t src_chunks = 0;
};
inline BoxCutSectors box_cut_sectors(const BoxPlan& p, int elem_bytes) {
  BoxCutSectors c;
  for (int k = 0; k < p.dims; ++k) {
    if (c.src_cut < 0 && p.box[k] < p.full[k]) c.src_cut = k;
    const int u = p.dst_order[k];
    if (c.dst_cut < 0 && p.box[u] < p.full[u]) c.dst_cut = u;
  }
  if (c.src_cut >= 0) {
    const int u = c.src_cut;
    c.src_splits = box_chunks_split_sectors(p.full[u], p.box[u], p.ss[u], elem_bytes);
    c.src_chunks = (p.full[u] + p.box[u] - 1) / p.box[u];
  }
  if (c.dst_cut >= 0) {
    const int u = c.dst_cut;
    c.dst_splits = box_chunks_split_sectors(p.full[u], p.box[u], p.ds[u], elem_bytes);
  }
  return c;
}

inline PermuteDims box_dims_of(const PermuteGeometry& g) {
  PermuteDims d;
  auto add = [&](std::int64_t n, std::int64_t ss, std::int64_t ds) {
    d.n[d.rank] = n;
    d.ss[d.rank] = ss;
    d.ds[d.rank] = ds;
    ++d.rank;
  };
  add(g.cols, g.src_col, g.dst_col);
  add(g.rows, g.src_row, g.dst_row);
  for (int k = 0; k < 3; ++k)
    if (g.batch_extent[k] > 1) add(g.batch_extent[k], g.src_batch[k], g.dst_batch[k]);
  return d;
}

// Where each batch dimension's last index starts and, for a cut dimension, how much of its last
// chunk is inside the tensor. overlap: the last chunk starts box[u] before the dimension's end
// (overlapping the chunk before it; every box whole); else where the chunks put it, cut short.
// box_origin reads these, so a box's decode is the same select either way.
inline void set_box_edges(BoxPlan* p, bool overlap) {
  for (int o = 0; o < p->outer; ++o) {
    const std::int64_t last = p->outer_n[o] - 1;
    const int u = p->outer_cut[o];
    p->outer_last_ss[o] = last * p->outer_ss[o];
    p->outer_last_ds[o] = last * p->outer_ds[o];
    p->outer_last_lim[o] = 0;
    if (u < 0) continue;
    const std::int64_t box = p->box[u], full = p->full[u];
    p->outer_last_lim[o] = static_cast<std::uint32_t>(full - last * box);
    if (overlap && full % box != 0) {
      p->outer_last_ss[o] = (full - box) * p->ss[u];
      p->outer_last_ds[o] = (full - box) * p->ds[u];
      p->outer_last_lim[o] = static_cast<std::uint32_t>(box);
    }
  }
}

// What chunks of `size` cover of an extent n: n rounded up to whole chunks (the overlapping last
// chunk of set_box_edges copies the difference twice).
inline std::int64_t chunks_cover(std::int64_t n, std::int64_t size) {
  return (n + size - 1) / size * size;
}

// Elements a walk of `p` copies per element of the tensor, with every box whole (set_box_edges'
// overlap): each cut dimension's chunks times the box's extent over its extent.
inline double box_copies_per_elem(const BoxPlan& p) {
  double r = 1;
  for (int u = 0; u < p.dims; ++u)
    if (p.full[u] > p.box[u]) r *= double(chunks_cover(p.full[u], p.box[u])) / double(p.full[u]);
  return r;
}

// The box of a reduced permutation: false when it has no such walk (more dimensions than fit).
// max_volume: the most elements a box may hold; table_bytes: the shared memory a kernel keeps
// per element beside the element itself (kBoxTableBytes for tables, 0 when it keeps its
// offsets in registers); target_elems: the volume boxes grow towards; max_smem_bytes: the most
// shared memory a box takes so counted (box_smem_bytes; DevicePolicy::permute_box_max_smem_bytes).
// least_waste (DevicePolicy::permute_box_least_waste): a box no smaller whose cut dimensions'
// chunks cover their extents with fewer elements past them, where one copies at least
// kBoxLeastWasteGain fewer (the overlapping last chunks, set_box_edges, copy those twice).
// whole_runs (DevicePolicy::permute_box_whole_runs): a side's contiguous dimension taken whole
// where the box cuts it and holds the next dimension of that side, which continues it, and the box
// so widened fits (dst's side first, then src's): that side's run is then the product, one dense
// region a box (words across its rows, no run edge inside a sector but at its ends).
inline bool make_box_plan(const PermuteDims& dims, int elem_bytes, std::int64_t max_volume,
                          int table_bytes, int cuts_first, BoxPlan* out,
                          std::int64_t target_elems = kBoxTargetElems, bool least_waste = false,
                          std::int64_t max_smem_bytes = kBoxMaxSmemBytes, bool whole_runs = false) {
  struct Dim {
    std::int64_t n, ss, ds;
  };
  if (dims.rank > kPermuteMaxRank) return false;
  Dim all[kPermuteMaxRank];
  int nd = 0;
  for (int k = 0; k < dims.rank; ++k)  // extents of 1 dropped (a single row: rows == 1)
    if (dims.n[k] > 1) all[nd++] = {dims.n[k], dims.ss[k], dims.ds[k]};
  if (nd == 0) all[nd++] = {1, 1, 1};
  int by_src[kPermuteMaxRank], by_dst[kPermuteMaxRank];
  for (int k = 0; k < nd; ++k) by_src[k] = by_dst[k] = k;
  std::sort(by_src, by_src + nd, [&](int a, int b) { return all[a].ss < all[b].ss; });
  std::sort(by_dst, by_dst + nd, [&](int a, int b) { return all[a].ds < all[b].ds; });
  std::int64_t box[kPermuteMaxRank] = {};  // 0: not in the box
  // Boxes for runs of `run` elements on both sides: a dimension already in the box (the src
  // side cut it) is widened when the dst side needs more of it. Returns the volume, or -1 when
  // the box would have more than kBoxMaxDims dimensions.
  auto plan_for = [&](std::int64_t run, std::int64_t* b, bool lw) -> std::int64_t {
    for (int k = 0; k < kPermuteMaxRank; ++k) b[k] = 0;
    auto fill = [&](const int* order) {
      std::int64_t product = 1;
      for (int k = 0; k < nd && product < run; ++k) {
        const int d = order[k];
        // The side's contiguous dimension is cut in whole 16-byte words (below): what a chunk
        // of `size` becomes.
        const bool in_words = k == 0 && (order == by_src ? all[d].ss : all[d].ds) == 1;
        auto as_cut = [&](std::int64_t size) {
          if (!in_words || size >= all[d].n) return size;
          const std::int64_t w = word_elems(all[d].n, elem_bytes);
          return std::min(all[d].n, (size + w - 1) / w * w);
        };
        // At least `need` of it: all of it when that is under twice `need`, else chunks of
        // equal size (101 for 32 -> 3 chunks of 34, not 32 + 32 + 32 + 5).
        const std::int64_t need = (run + product - 1) / product, n = all[d].n;
        std::int64_t take = n <= 2 * need ? n : (n + n / need - 1) / (n / need);
        if (lw && take < n) {
          // The chunk counts n / need down (chunks of need up to under 2 need), the one whose
          // equal chunks cover n with the fewest past it; ties the smaller chunk. At most 32.
          const std::int64_t most = n / need, least = std::max<std::int64_t>(
                                                  (n + 2 * need - 2) / (2 * need - 1), most - 31);
          for (std::int64_t c = most; c >= least && c >= 1; --c) {
            const std::int64_t size = (n + c - 1) / c;
            if (chunks_cover(n, as_cut(size)) < chunks_cover(n, as_cut(take))) take = size;
          }
        }
        b[d] = std::max(b[d], take);
        product *= b[d];
      }
    };
    fill(by_src);
    fill(by_dst);
    // Each side's contiguous dimension in whole 16-byte words where its extent allows: chunks of
    // a multiple of the word keep every box's runs word aligned (the vector box kernel's loads
    // and stores, box_vector_elems below).
    for (const int* side : {by_src, by_dst}) {
      const int d = side[0];
      if (b[d] == 0 || b[d] >= all[d].n || (side == by_src ? all[d].ss : all[d].ds) != 1) continue;
      const std::int64_t w = word_elems(all[d].n, elem_bytes);
      b[d] = std::min(all[d].n, (b[d] + w - 1) / w * w);
    }
    // Src's contiguous dimension whole and the next one continuing it cut: chunks of that one
    // whose runs (the whole dimension times the chunk) are whole words where the extent's are
    // (box_vector_elems' src words across a cut dimension; from kBoxSrcCutWordsMinBytes on).
    {
      const int d0 = by_src[0], d1 = nd > 1 ? by_src[1] : -1;
      if (elem_bytes >= kBoxSrcCutWordsMinBytes && d1 >= 0 && all[d0].ss == 1 &&
          b[d0] == all[d0].n && all[d1].ss == all[d0].n && b[d1] > 0 && b[d1] < all[d1].n) {
        const std::int64_t w = word_elems(all[d0].n * all[d1].n, elem_bytes);
        std::int64_t g = 1;  // the power of two that w and the whole dimension share
        while (g < w && all[d0].n % (2 * g) == 0) g *= 2;
        const std::int64_t c = w / g;  // the chunk's multiple: all[d0].n * c is whole words
        b[d1] = std::min(all[d1].n, (b[d1] + c - 1) / c * c);
      }
    }
    std::int64_t v = 1;
    int used = 0;
    for (int k = 0; k < nd; ++k)
      if (b[k] != 0) v *= b[k], ++used;
    return used > kBoxMaxDims ? -1 : v;
  };
  // Elements copied per element of the tensor (the overlapping last chunks copy theirs twice).
  auto waste = [&](const std::int64_t* b) {
    double w = 1;
    for (int k = 0; k < nd; ++k)
      if (b[k] > 0 && b[k] < all[k].n) w *= double(chunks_cover(all[k].n, b[k])) / double(all[k].n);
    return w;
  };
  // A box's offsets fit the kernels' 32 bits (the box chosen is checked below; the least-waste
  // rule skips the boxes that do not).
  auto offsets_fit = [&](const std::int64_t* b) {
    std::int64_t s = 0, d = 0;
    for (int k = 0; k < nd; ++k)
      if (b[k] > 0) s += (b[k] - 1) * all[k].ss, d += (b[k] - 1) * all[k].ds;
    return s < (std::int64_t{1} << 31) && d < (std::int64_t{1} << 31);
  };
  auto fits = [&](std::int64_t v) {
    return v > 0 && v <= max_volume && box_smem_bytes(v, elem_bytes, table_bytes) <= max_smem_bytes;
  };
  auto narrow_cuts = [&](const std::int64_t* b) {  // cut coordinates fit the tables' 8 bits
    bool narrow = true;
    for (int k = 0; k < nd; ++k) narrow = narrow && (b[k] >= all[k].n || b[k] < 256);
    return narrow;
  };
  // The shortest runs first (box_run_elems), halved until the box fits; then longer runs (in
  // steps of a quarter) while the box fits, keeping the largest box of at most twice
  // target_elems: bigger boxes, fewer barriers per element. (Doubling alone jumps past it:
  // (8, 9, 10, 11, 120) (4, 1, 3, 0, 2) goes from 360 elements to 9600.)
  std::int64_t run = box_run_elems(elem_bytes);
  std::int64_t volume = plan_for(run, box, false);
  while (!fits(volume)) {
    if (run <= 2) return false;
    run /= 2;
    volume = plan_for(run, box, false);
  }
  const std::int64_t first_run = run;
  const std::int64_t target = std::min<std::int64_t>(target_elems, max_volume / 2);
  for (std::int64_t r = run + (run + 3) / 4; r <= 4096 && volume < target; r += (r + 3) / 4) {
    std::int64_t wider[kPermuteMaxRank];
    const std::int64_t v = plan_for(r, wider, false);
    if (v <= volume || v > target * 2 || !fits(v) || !narrow_cuts(wider)) continue;
    volume = v;
    for (int k = 0; k < kPermuteMaxRank; ++k) box[k] = wider[k];
  }
  // least_waste: of the boxes no smaller than that one (and within twice the target), every run
  // length with its chunks by both rules, the one that copies the fewest elements, where it
  // copies at least kBoxLeastWasteGain fewer; ties the smaller box.
  // (A box that copies under 1% twice has nothing to gain: most, and the search costs a few
  // microseconds of host time. The runs stop where the largest-box rule's boxes outgrow the
  // bound.)
  if (least_waste && offsets_fit(box) && waste(box) > 1 + kBoxLeastWasteGain) {
    const double first = waste(box);
    double best = first;
    std::int64_t best_v = volume, chosen[kPermuteMaxRank];
    bool found = false, past = false;
    for (std::int64_t r = first_run; r <= 4096 && !past; r += (r + 3) / 4)
      for (const bool lw : {false, true}) {
        std::int64_t b[kPermuteMaxRank];
        const std::int64_t v = plan_for(r, b, lw);
        if (!lw) past = v > target * 2 || (v > 0 && !fits(v));
        if (v < volume || v > target * 2 || !fits(v) || !narrow_cuts(b) || !offsets_fit(b))
          continue;
        const double w = waste(b);
        const bool fewer = w < best - 1e-12,
                   as_few_smaller = found && w <= best + 1e-12 && v < best_v;
        if (w > first - kBoxLeastWasteGain || !(fewer || as_few_smaller)) continue;
        best = w, best_v = v, found = true;
        for (int k = 0; k < kPermuteMaxRank; ++k) chosen[k] = b[k];
      }
    if (found) {
      volume = best_v;
      for (int k = 0; k < kPermuteMaxRank; ++k) box[k] = chosen[k];
    }
  }
  // Whole runs, dst's side first (a run edge there is a sector two boxes write in part).
  for (const int* side : {by_dst, by_src}) {
    if (!whole_runs || nd < 2) break;
    const bool on_src = side == by_src;
    const int d = side[0], next = side[1];
    const std::int64_t d_stride = on_src ? all[d].ss : all[d].ds,
                       next_stride = on_src ? all[next].ss : all[next].ds;
    if (d_stride != 1 || box[d] == 0 || box[d] >= all[d].n || box[next] == 0 ||
        next_stride != all[d].n)
      continue;
    std::int64_t wider[kPermuteMaxRank];
    for (int k = 0; k < kPermuteMaxRank; ++k) wider[k] = box[k];
    wider[d] = all[d].n;
    const std::int64_t v = volume / box[d] * all[d].n;
    if (!fits(v) || !narrow_cuts(wider) || !offsets_fit(wider)) continue;
    volume = v;
    for (int k = 0; k < kPermuteMaxRank; ++k) box[k] = wider[k];
  }
  BoxPlan p;
  // Box dimensions in src order; smem strides follow it.
  int index_of[kPermuteMaxRank];
  std::uint32_t stride = 1;
  for (int k = 0; k < nd; ++k) {
    const int d = by_src[k];
    index_of[d] = -1;
    if (box[d] == 0) continue;
    const int u = p.dims++;
    index_of[d] = u;
    p.box[u] = static_cast<std::uint32_t>(box[d]);
    p.box_div[u] = FastDiv(p.box[u]);
    p.full[u] = all[d].n;
    p.ss[u] = all[d].ss;
    p.ds[u] = all[d].ds;
    p.smem_stride[u] = stride;
    stride *= p.box[u];
  }
  int dn = 0;
  for (int k = 0; k < nd; ++k)
    if (index_of[by_dst[k]] >= 0) p.dst_order[dn++] = index_of[by_dst[k]];
  p.volume = stride;
  // Offsets inside a box are kept as 32-bit values, shared indices as 16-bit ones.
  if (!offsets_fit(box) || p.volume > 65535) return false;
  // The batch: every dimension outside the box and the chunk counts of cut ones, in dst order
  // (consecutive boxes write near each other). cuts_first (kBoxCutsFirst*): the chunk counts first
  // (fastest), src's cut before dst's, so the boxes that share a sector of a cut row (odd extents
  // put chunk edges inside sectors) run at about the same time, while the sector is still in L2;
  // under kBoxCutsFirstSplitSrc only where src's chunk edges split sectors and dst's do not, or
  // src's cut has so few chunks that the boxes writing a split dst sector still run together
  // (else those are the ones to keep together: dst order).
  int order[kPermuteMaxRank], no = 0;
  const BoxCutSectors cuts = box_cut_sectors(p, elem_bytes);
  if (box_src_cut_first(cuts_first, cuts.src_splits, cuts.dst_splits, cuts.src_chunks)) {
    for (const int u : {cuts.src_cut, cuts.dst_cut}) {
      int d = -1;  // the all[] dimension of box dimension u
      for (int k = 0; k < nd && u >= 0; ++k)
        if (index_of[by_src[k]] == u) d = by_src[k];
      bool seen = false;
      for (int j = 0; j < no; ++j) seen = seen || order[j] == d;
      if (d >= 0 && !seen) order[no++] = d;
    }
  }
  for (int k = 0; k < nd; ++k) {
    bool seen = false;
    for (int j = 0; j < no; ++j) seen = seen || order[j] == by_dst[k];
    if (!seen) order[no++] = by_dst[k];
  }
  for (int k = 0; k < nd; ++k) {
    const int d = order[k];
    const int u = index_of[d];
    if (u >= 0 && p.box[u] >= all[d].n) continue;
    if (p.outer == kBoxMaxOuter) return false;
    const int o = p.outer++;
    const std::int64_t step = u >= 0 ? p.box[u] : 1;
    p.outer_n[o] = (all[d].n + step - 1) / step;
    p.outer_ss[o] = all[d].ss * step;
    p.outer_ds[o] = all[d].ds * step;
    p.outer_cut[o] = u;
    p.boxes *= p.outer_n[o];
    if (u >= 0) {
      if (p.cut[0] < 0)
        p.cut[0] = u;
      else if (p.cut[1] < 0)
        p.cut[1] = u;
      else
        return false;
    }
  }
  if (p.boxes >= (std::int64_t{1} << 32)) return false;
  for (int o = 0; o < p.outer; ++o)
    p.outer_div[o] = FastDiv(static_cast<std::uint32_t>(p.outer_n[o]));
  set_box_edges(&p, true);
  *out = p;
  return true;
}

inline bool make_box_plan(const PermuteGeometry& g, int elem_bytes, BoxPlan* out) {
  return make_box_plan(box_dims_of(g), elem_bytes, 65535, kBoxTableBytes, true, out);
}

// Box b of the batch -> where it starts on both sides and how much of its cut dimensions is
// inside the tensor (lim0, lim1: coordinates along cut[0], cut[1] stay below them; 256 when
// uncut). Every box kernel and the host tests decode a box with this.
// With set_box_edges' overlap, the last chunk of a cut dimension (an odd extent rarely divides into
// equal chunks: 23 in chunks of 12 is 12 + 11) starts box[u] before the dimension's end instead:
// it covers elements the chunk before it covers too, which are then copied twice (the same
// values to the same places), and every box is whole (the walks' fast path, no coordinate
// tables read). Word walks keep their alignment: box[u] and the extent are whole words there.
struct BoxOrigin {
  std::int64_t src = 0, dst = 0;  // element offsets of the box's first element
  std::uint32_t lim0 = 256, lim1 = 256;
};
TMAKIT_HD BoxOrigin box_origin(const BoxPlan& p, std::uint32_t b) {
  BoxOrigin at;
  TMAKIT_UNROLL
  for (int o = 0; o < kBoxMaxOuter; ++o) {
    if (o >= p.outer) break;
    const std::uint32_t q = p.outer_div[o].div(b);
    const std::uint32_t c = b - q * static_cast<std::uint32_t>(p.outer_n[o]);
    b = q;
    const bool last = c + 1 == static_cast<std::uint32_t>(p.outer_n[o]);  // set_box_edges
    at.src += last ? p.outer_last_ss[o] : c * p.outer_ss[o];
    at.dst += last ? p.outer_last_ds[o] : c * p.outer_ds[o];
    const int u = p.outer_cut[o];
    if (u >= 0) {
      const std::uint32_t l = last ? p.outer_last_lim[o] : p.box[u];
      if (u == p.cut[0])
        at.lim0 = l;
      else
        at.lim1 = l;
    }
  }
  return at;
}
// Whether box `at` holds all of its box (no cut dimension at its edge).
TMAKIT_HD bool box_is_whole(const BoxPlan& p, const BoxOrigin& at) {
  return (p.cut[0] < 0 || at.lim0 == p.box[p.cut[0]]) &&
         (p.cut[1] < 0 || at.lim1 == p.box[p.cut[1]]);
}

// Whether every box of `p` is whole (set_box_edges' overlap, or chunks that divide their extents).
inline bool box_all_whole(const BoxPlan& p) {
  for (int o = 0; o < p.outer; ++o)
    if (p.outer_cut[o] >= 0 && p.outer_last_lim[o] != p.box[p.outer_cut[o]]) return false;
  return true;
}

// Box element t (src order) or t (dst order) -> its coordinates in the box.
TMAKIT_HD void box_coords_src(const BoxPlan& p, std::uint32_t t, std::uint32_t* c) {
  TMAKIT_UNROLL
  for (int u = 0; u < kBoxMaxDims; ++u) {
    if (u >= p.dims) break;
    const std::uint32_t q = u + 1 < p.dims ? p.box_div[u].div(t) : 0;
    c[u] = t - q * p.box[u];
    t = q;
  }
}
TMAKIT_HD void box_coords_dst(const BoxPlan& p, std::uint32_t t, std::uint32_t* c) {
  TMAKIT_UNROLL
  for (int k = 0; k < kBoxMaxDims; ++k) {
    if (k >= p.dims) break;
    const int u = p.dst_order[k];
    const std::uint32_t q = k + 1 < p.dims ? p.box_div[u].div(t) : 0;
    c[u] = t - q * p.box[u];
    t = q;
  }
}

// Coordinates along the cut dimensions packed as the kernels' tables keep them: cut[0] in bits
// 0-7, cut[1] in bits 8-15 (a cut dimension's box is under 256).
TMAKIT_HD std::uint32_t box_cut_coords(const BoxPlan& p, const std::uint32_t* c) {
  return (p.cut[0] >= 0 ? c[p.cut[0]] : 0) | (p.cut[1] >= 0 ? c[p.cut[1]] << 8 : 0);
}
// Box element t in src order -> its offset in src from the box's origin (elements); *cuts: its
// packed cut coordinates.
TMAKIT_HD std::int64_t box_src_offset(const BoxPlan& p, std::uint32_t t, std::uint32_t* cuts) {
  std::uint32_t c[kBoxMaxDims];
  box_coords_src(p, t, c);
  std::int64_t off = 0;
  TMAKIT_UNROLL
  for (int u = 0; u < kBoxMaxDims; ++u)
    if (u < p.dims) off += c[u] * p.ss[u];
  *cuts = box_cut_coords(p, c);
  return off;
}
// Box element t in dst order -> its offset in dst from the box's origin; *smem: where the box's
// src-ordered shared copy holds it; *cuts: its packed cut coordinates.
TMAKIT_HD std::int64_t box_dst_offset(const BoxPlan& p, std::uint32_t t, std::uint32_t* smem,
                                      std::uint32_t* cuts) {
  std::uint32_t c[kBoxMaxDims];
  box_coords_dst(p, t, c);
  std::int64_t off = 0;
  std::uint32_t at = 0;
  TMAKIT_UNROLL
  for (int u = 0; u < kBoxMaxDims; ++u)
    if (u < p.dims) {
      off += c[u] * p.ds[u];
      at += c[u] * p.smem_stride[u];
    }
  *smem = at;
  *cuts = box_cut_coords(p, c);
  return off;
}

// The vector box kernel's word on one side (elements, a power of two up to 16 bytes; 1: none):
// the side's innermost box dimension must have stride 1 and hold whole words, every other
// stride (inside the box and between boxes) must be a multiple of the word, a cut dimension's
// extent too (an edge box then holds whole words), and `ptr` aligned to it. Then every word of
// every box lies in one run, aligned, and is inside the tensor exactly when its first element
// is. src side: box dimension 0 (src order); dst side: dst_order[0].
// Dst side with p.dst_runs: where dst_order[0] is whole and dst_order[1] continues it in dst
// (stride full[dst_order[0]]), and so on up to dst_order[kBoxDstCrossLevels] (whole box
// dimensions but the last), the box's rows of them are one run in dst, and a word may cross rows
// inside it (the word kernel's gather carries into the next row there:
// box_dst_words_cross_rows). (144, 2, 4, 37, 89, 8) (0,3,2,5,1,4) at 2 B writes runs of
// 89 x 2 x 8 elements, words of 8 where the 89 alone allowed none. Only where the rows alone
// allow no word, from 2 bytes on, and only for 16-byte words (box_vector_elems below).
inline int box_vector_elems_with(const BoxPlan& p, bool src_side, int elem_bytes,
                                 std::uintptr_t ptr, bool cross_rows) {
  if (p.dims == 0) return 1;
  const int u = src_side ? 0 : p.dst_order[0];
  const std::int64_t* inner = src_side ? p.ss : p.ds;
  const std::int64_t* outer = src_side ? p.outer_ss : p.outer_ds;
  if (inner[u] != 1) return 1;
  std::int64_t w = word_elems(p.box[u], elem_bytes);
  if (p.box[u] < p.full[u]) w = std::min(w, word_elems(p.full[u], elem_bytes));
  // Src side: whole box dimensions 0, 1, .., each the next's contiguous step in src (a stride
  // equal to the extents below it), are one run in src and in the src-ordered shared box, so a
  // src word may span them: (23, 20, 4, 128, 5) (2,0,4,1,3) at 2 B reads runs of 5 x 128
  // elements, words of 8 where the 5 alone allowed none. Whole dimensions only: no cut, no
  // coordinate check, inside a run.
  int run_dims = 1;
  if (src_side && p.src_runs && p.box[0] == p.full[0]) {
    std::int64_t run = p.full[0];
    while (run_dims < p.dims && inner[run_dims] == run && p.box[run_dims] == p.full[run_dims])
      run *= p.full[run_dims++];
    if (run_dims > 1) w = word_elems(run, elem_bytes);
    // ...and a cut dimension that continues them ends the run: a box's run is `run` times its
    // chunk, in whole words where the chunk and the extent both are (every chunk, the
    // overlapping or cut-short last one included, then starts and ends on a word).
    // A whole 5 and chunks of 8 of the 128 that continues it, at 4 B: runs of 40 elements,
    // words of 4 where the 5 alone allowed none (make_box_plan cuts such a dimension so). From
    // kBoxSrcCutWordsMinBytes on.
    if (elem_bytes >= kBoxSrcCutWordsMinBytes && run_dims < p.dims && inner[run_dims] == run &&
        p.box[run_dims] < p.full[run_dims]) {
      w = std::min(word_elems(run * p.box[run_dims], elem_bytes),
                   word_elems(run * p.full[run_dims], elem_bytes));
      ++run_dims;
    }
  }
  bool in_run[kBoxMaxDims] = {};  // dst side: dst_order[1..] inside the run words cross rows of
  if (!src_side && cross_rows && p.box[u] == p.full[u]) {
    std::int64_t run = p.full[u], whole = p.full[u];
    for (int k = 1; k < p.dims && k <= kBoxDstCrossLevels; ++k) {
      const int v = p.dst_order[k];
      if (inner[v] != run) break;
      in_run[v] = true;
      run *= p.box[v];
      whole *= p.full[v];
      if (p.box[v] < p.full[v]) break;  // a cut dimension ends the run
    }
    if (run > p.full[u]) {
      w = word_elems(run, elem_bytes);
      // A cut dimension's chunks (the overlapping last one included) start on whole words.
      w = std::min(w, word_elems(whole, elem_bytes));
    }
  }
  auto divides = [&](std::int64_t x) { return x % w == 0; };
  while (w > 1) {
    bool ok = ptr % static_cast<std::uintptr_t>(w * elem_bytes) == 0;
    for (int k = 0; k < p.dims; ++k)
      ok = ok && (k == u || in_run[k] || (src_side && k < run_dims) || divides(inner[k]));
    for (int o = 0; o < p.outer; ++o) ok = ok && divides(outer[o]);
    if (ok) break;
    w /= 2;
  }
  // Words of 2 bytes at 1-byte elements are not worth a kernel of their own.
  return w * elem_bytes >= 4 ? static_cast<int>(w) : 1;
}
// Dst words across rows (p.dst_runs) only where the rows alone take none (stores element by
// element): words of 16 bytes from 2 B on; at elements of at most p.narrow_dst_runs_max_bytes
// (1-2 B), words of 4-16 bytes where src (at `src_ptr`) has words. The crossing gather costs a
// few instructions an element, which 4-8-byte words of 4-8-byte elements did not win back, while
// 1-2-byte boxes loaded in src words otherwise store an element a shared load and a global store
// (boxes without src words take the registers' walk, which 1-byte crossing words lost to;
// docs/perf-guide.md section 4.13, "Dst words across rows" and "... at 1 B; at 2 B measured").
inline int box_vector_elems(const BoxPlan& p, bool src_side, int elem_bytes, std::uintptr_t ptr,
                            std::uintptr_t src_ptr = 0) {
  const int plain = box_vector_elems_with(p, src_side, elem_bytes, ptr, false);
  if (src_side || !p.dst_runs || plain > 1) return plain;
  const int across = box_vector_elems_with(p, false, elem_bytes, ptr, true);  // 4-16 bytes or 1
  if (elem_bytes >= 2 && across * elem_bytes == 16) return across;
  if (elem_bytes <= p.narrow_dst_runs_max_bytes &&
      box_vector_elems_with(p, true, elem_bytes, src_ptr, false) > 1)
    return across;
  return plain;
}

// Whether 1-byte box `p` is walked in src words with dst words inside rows of one byte on 16-byte
// aligned operands (DevicePolicy::permute_box_byte_stores_target_elems' boxes; their stores are
// single bytes, or words across rows where p.narrow_dst_runs_max_bytes allows them).
inline bool box_byte_stores(const BoxPlan& p, int elem_bytes) {
  return elem_bytes == 1 && box_vector_elems(p, true, elem_bytes, 0) > 1 &&
         box_vector_elems_with(p, false, elem_bytes, 0, false) == 1;
}

// Whether the word kernel's dst words of `wd` elements cross rows of dst_order[0] (box_vector_elems
// with p.dst_runs): its row does not hold whole words.
TMAKIT_HD bool box_dst_words_cross_rows(const BoxPlan& p, int wd) {
  return p.dims > 1 && p.box[p.dst_order[0]] % static_cast<std::uint32_t>(wd) != 0;
}

// Whether the word kernel swizzles its shared box: consecutive dst words (wd elements each, a
// shared stride of smem_stride[dst_order[0]] elements between a word's elements) start a multiple
// of `multiple_bytes` apart (DevicePolicy::permute_box_swizzle_bytes; 0: never). A stride of
// S bytes puts a warp's 32 gathers in 32 / gcd(S / 4, 32) banks: 128 bytes one bank (32-way),
// 64 two, 32 four; the XOR of each 128-byte row's 16-byte chunks with the row index spreads them
// (4-way at most for those), and makes 16-mod-32-byte strides worse (4-way to 5-8-way).
inline bool box_words_swizzled(const BoxPlan& p, int elem_bytes, int wd, int multiple_bytes) {
  if (multiple_bytes <= 0 || p.dims == 0) return false;
  const std::uint64_t step = p.smem_stride[p.dst_order[0]];
  return step * static_cast<std::uint64_t>(wd) * static_cast<std::uint64_t>(elem_bytes) %
             static_cast<std::uint64_t>(multiple_bytes) ==
         0;
}

// Bytes rounded up to whole 16 bytes (shared-memory regions a box walk lays side by side).
TMAKIT_HD constexpr std::uint32_t box_align16(std::uint32_t bytes) {
  return (bytes + 15) / 16 * 16;
}
// The bytes of a box walk's shared buffer (kernels/permute/permute_tile.cu), where its row tables
// go while the tables are built: the element walk's (whole 16 bytes); one of the cp.async
// element walk's two (padded one slot every `pad_every` elements, 1: unpadded); one of the word
// walk's (whole 128-byte rows, which its swizzle permutes; two with cp.async).
TMAKIT_HD constexpr std::uint32_t box_elems_buf_bytes(std::uint32_t volume,
                                                      std::uint32_t elem_bytes) {
  return box_align16(volume * elem_bytes);
}
TMAKIT_HD constexpr std::uint32_t box_async_buf_bytes(std::uint32_t volume, std::uint32_t pad_every,
                                                      std::uint32_t elem_bytes) {
  return box_elems_buf_bytes(pad_every > 1 ? volume + volume / pad_every : volume, elem_bytes);
}
TMAKIT_HD constexpr std::uint32_t box_words_buf_bytes(std::uint32_t volume,
                                                      std::uint32_t elem_bytes) {
  return (volume * elem_bytes + 127) / 128 * 128;
}

// A box's row tables (kernels/permute/permute_tile.cu, build_box_entries), per side where its rows
// are fewer than its table entries (words of `src_step`, `dst_step` elements): src rows of box[0]
// elements along box dimension 0, dst rows of box[dst_order[0]]; none where the policy's
// permute_box_row_tables is off (p.row_tables) or the box has one dimension.
TMAKIT_HD std::uint32_t box_src_rows(const BoxPlan& p, std::uint32_t src_step) {
  return p.row_tables && p.dims > 1 && p.box[0] > src_step ? p.volume / p.box[0] : 0;
}
TMAKIT_HD std::uint32_t box_dst_rows(const BoxPlan& p, std::uint32_t dst_step) {
  const std::uint32_t b = p.dims > 1 ? p.box[p.dst_order[0]] : 1;
  return p.row_tables && p.dims > 1 && b > dst_step ? p.volume / b : 0;
}
// Their shared bytes: per src row an offset and cut coordinates, per dst row an offset, a shared
// slot and cut coordinates.
TMAKIT_HD std::uint32_t box_row_tables_bytes(const BoxPlan& p, std::uint32_t src_step,
                                             std::uint32_t dst_step) {
  return box_src_rows(p, src_step) * (4 + 2) + box_dst_rows(p, dst_step) * (4 + 2 + 2);
}
// Where they go: the box's shared buffer (`buf_bytes`, free until the first box is loaded) where
// they fit, else this many bytes of shared memory after the tables (whole 16 bytes).
TMAKIT_HD std::uint32_t box_row_tables_extra_bytes(const BoxPlan& p, std::uint32_t buf_bytes,
                                                   std::uint32_t src_step, std::uint32_t dst_step) {
  const std::uint32_t need = box_row_tables_bytes(p, src_step, dst_step);
  return need <= buf_bytes ? 0 : box_align16(need);
}
// The word walk's tables (whole 16 bytes): per src word an offset and cut coordinates, per dst
// word an offset, a shared slot and cut coordinates.
TMAKIT_HD constexpr std::uint32_t box_words_tables_bytes(std::uint32_t src_words,
                                                         std::uint32_t dst_words) {
  return box_align16(src_words * (4 + 2) + dst_words * (4 + 2 + 2));
}

// The box walk with each thread's offsets in registers (permute_box_reg_kernel,
// kernels/permute/permute_tile.cu; DevicePolicy::permute_box_registers_min_bytes and
// permute_box_registers_elements_max_bytes): a block of at most `threads` threads, `per_thread`
// box elements each, held to `blocks_per_sm` blocks an SM by its launch bounds (the registers a
// thread: 40 from 8 bytes on, 80 below). Boxes of at most threads x per_thread elements; a smaller
// box gets a smaller block (reg_box_threads). Below 8 B, 8 elements a thread: at 1 B 1.12-1.19x
// the walk at 4 (the box origin's decode, once a warp a box, over twice the elements).
struct RegBoxShape {
  unsigned threads;
  int per_thread;
  int blocks_per_sm;
};
TMAKIT_HD constexpr RegBoxShape reg_box_shape(int elem_bytes) {
  return elem_bytes >= 8 ? RegBoxShape{256, 2, 6} : RegBoxShape{256, 8, 3};
}
TMAKIT_HD constexpr std::int64_t reg_box_volume(int elem_bytes) {
  return std::int64_t{reg_box_shape(elem_bytes).threads} * reg_box_shape(elem_bytes).per_thread;
}
// The block for a box of `volume` elements: its elements over per_thread, in whole warps.
TMAKIT_HD constexpr unsigned reg_box_threads(std::uint32_t volume, int elem_bytes) {
  const std::uint32_t per = static_cast<std::uint32_t>(reg_box_shape(elem_bytes).per_thread);
  const std::uint32_t warps = ((volume + per - 1) / per + 31) / 32;
  return warps * 32 < reg_box_shape(elem_bytes).threads ? warps * 32
                                                        : reg_box_shape(elem_bytes).threads;
}

// The registers' walk's words (permute_box_reg_kernel, kernels/permute/permute_tile.cu): from
// elements of `min_bytes` on (DevicePolicy::permute_box_registers_words_min_bytes; 0: never), a
// thread loads src words of `ws` elements and stores dst words of `wd` where box `p` (its fields
// set as the launcher sets them) and the addresses allow them (box_vector_elems; dst words inside
// their row: the registers' walk carries no crossing gather). Src words from 4 B on (at 1-2 B the
// registers' walk takes boxes the tables' walk loads element by element); none at 1 B or 16 B.
struct RegBoxWords {
  int ws = 1;  // elements a src word
  int wd = 1;  // elements a dst word
};
inline RegBoxWords reg_box_words(const BoxPlan& p, int elem_bytes, int min_bytes,
                                 std::uintptr_t src, std::uintptr_t dst) {
  RegBoxWords w;
  if (min_bytes <= 0 || elem_bytes < min_bytes || elem_bytes < 2 || elem_bytes >= 16) return w;
  if (elem_bytes >= 4) w.ws = box_vector_elems_with(p, true, elem_bytes, src, false);
  w.wd = box_vector_elems_with(p, false, elem_bytes, dst, false);
  return w;
}

// Whether the registers' walk takes tables' box `p` (its fields set as the launcher sets them):
// at elements of at most `max_bytes` (DevicePolicy::permute_box_registers_elements_max_bytes)
// where the tables' walk would move the box element by element on both sides (no words: `words`
// off, or box_vector_elems finds none on either side for src and dst at these addresses).
inline bool box_elements_in_registers(const BoxPlan& p, int elem_bytes, bool words, int max_bytes,
                                      std::uintptr_t src, std::uintptr_t dst) {
  return elem_bytes <= max_bytes &&
         (!words || (box_vector_elems(p, true, elem_bytes, src) == 1 &&
                     box_vector_elems(p, false, elem_bytes, dst, src) == 1));
}

// Whether the registers' walk takes tables' box `p` because it could take a box as large: at
// elements of at least `min_bytes` (DevicePolicy::permute_box_registers_box_fits_min_bytes; 0:
// never), a box of at most reg_box_volume elements. The registers' walk then plans its own box
// (under the same bound), keeps no tables and runs more blocks an SM (6 of 40 registers from 8 B
// on, where the tables' walks run 3-4).
inline bool box_fits_registers(const BoxPlan& p, int elem_bytes, int min_bytes) {
  return min_bytes > 0 && elem_bytes >= min_bytes &&
         static_cast<std::int64_t>(p.volume) <= reg_box_volume(elem_bytes);
}

// How a box walk with shared tables gets each box into shared memory
// (kernels/permute/permute_tile.cu): through registers, one box loaded then stored; through
// registers pipelined (the next box's loads in flight while this one is stored: words of 8-16
// bytes, at most kBoxPipelinedWords of them a thread); or by cp.async into two buffers (4-16-byte
// elements or src words), the next box's copies in flight while this one is stored.
enum class BoxLoads { registers, pipelined, async };
inline constexpr unsigned kBoxWordThreads = 256;  // permute_box_words_kernel's block
inline constexpr int kBoxPipelinedWords = 2;
// The word walk through registers (not cp.async) at elements of at most
// DevicePolicy::permute_box_words_small_block_max_bytes runs blocks of 128 threads, each thread
// holding twice the words, so a pipelined box is the same kBoxPipelinedWords * kBoxWordThreads
// src words either way. Those kernels exist at 1-2-byte elements only.
inline constexpr unsigned kBoxWordSmallThreads = 128;
inline constexpr int kBoxWordSmallMaxBytes = 2;
// ws: elements a src word (1: the element walk, permute_box_kernel); pipeline, async: the policy's
// permute_box_pipeline and permute_box_async. The pipelined register walk stays where it applies:
// cp.async measured about even with it there, and ahead of the unpipelined walks
// (docs/perf-guide.md, section 4.13).
inline BoxLoads box_loads(const BoxPlan& p, int elem_bytes, bool words, int ws, bool pipeline,
                          bool async) {
  const int word_bytes = (words ? ws : 1) * elem_bytes;
  if (words && pipeline && word_bytes >= 8 &&
      p.volume / static_cast<std::uint32_t>(ws) <=
          static_cast<std::uint32_t>(kBoxPipelinedWords) * kBoxWordThreads)
    return BoxLoads::pipelined;
  return async && word_bytes >= 4 ? BoxLoads::async : BoxLoads::registers;
}
// Whether the registers' walk takes tables' box `p` (its fields set as the launcher sets them)
// that the word walk would load element by element and store in words (no src word, a dst word:
// at 1-2 B its loads go through registers, one box loaded then stored, box_loads), at elements of
// `bytes` (DevicePolicy::permute_box_registers_src_elements_bytes, 1 or 2; 0: never) and these
// addresses.
inline bool box_words_in_registers(const BoxPlan& p, int elem_bytes, bool words, int bytes,
                                   std::uintptr_t src, std::uintptr_t dst) {
  return words && bytes > 0 && elem_bytes == bytes &&
         box_vector_elems(p, true, elem_bytes, src) == 1 &&
         box_vector_elems(p, false, elem_bytes, dst) > 1;
}
// Which of the policy's rules sends tables' box `p` (its fields set as the launcher sets them) to
// the registers' walk at these addresses: one place for the launcher (kernels/permute/
// permute_tile.cu) and explain_permute. The fields are DevicePolicy's permute_box_words,
// permute_box_registers_elements_max_bytes, _src_elements_bytes and _box_fits_min_bytes.
// small_box: a small tensor's tables' box of up to `small_box_ratio` times the registers' walk's
// (DevicePolicy::permute_box_registers_small_box_ratio where the tensor is at most
// permute_box_registers_small_tensor_bytes, else 0), from box_fits_min_bytes on.
enum class RegistersRule { none, elements, src_elements, box_fits, small_box };
struct RegistersRules {
  bool words = true;
  int elements_max_bytes = 0;
  int src_elements_bytes = 0;
  int box_fits_min_bytes = 0;
  int small_box_ratio = 0;
};
inline RegistersRule box_registers_rule(const BoxPlan& p, int elem_bytes, const RegistersRules& r,
                                        std::uintptr_t src, std::uintptr_t dst) {
  if (box_elements_in_registers(p, elem_bytes, r.words, r.elements_max_bytes, src, dst))
    return RegistersRule::elements;
  if (box_words_in_registers(p, elem_bytes, r.words, r.src_elements_bytes, src, dst))
    return RegistersRule::src_elements;
  if (box_fits_registers(p, elem_bytes, r.box_fits_min_bytes)) return RegistersRule::box_fits;
  if (r.small_box_ratio > 1 && r.box_fits_min_bytes > 0 && elem_bytes >= r.box_fits_min_bytes &&
      static_cast<std::int64_t>(p.volume) <= r.small_box_ratio * reg_box_volume(elem_bytes))
    return RegistersRule::small_box;
  return RegistersRule::none;
}
// ...and whether the registers' walk's own box (`reg`, planned under its bound) then replaces the
// tables' box `tables`: always (under the small-box rule its box is the smaller one by design), but
// under the box-fits rule below kBoxFitsSmallerBoxMinBytes only
// where it gives up neither the box nor the stores: its box as large, and its dst words
// (`reg_dst_word_elems`, reg_box_words: kept inside their row) as wide as the tables' walk's
// (`tables_dst_word_elems`, box_vector_elems: 0 where that walk moves no words, as 1). From 8 B
// on the registers' walk won on boxes it planned smaller (about 312 elements where the tables'
// box held 416-504); at 4 B a smaller box shortened the runs and lost, and so did 4-byte stores
// where the tables' walk stored 16-byte words across rows (docs/perf-guide.md section 4.13).
inline constexpr int kBoxFitsSmallerBoxMinBytes = 8;
inline bool box_registers_takes(RegistersRule rule, const BoxPlan& tables, const BoxPlan& reg,
                                int elem_bytes, int tables_dst_word_elems, int reg_dst_word_elems) {
  return rule != RegistersRule::none &&
         (rule != RegistersRule::box_fits || elem_bytes >= kBoxFitsSmallerBoxMinBytes ||
          (reg.volume >= tables.volume && reg_dst_word_elems >= tables_dst_word_elems));
}
// ...with each walk's dst words as it would store them at these addresses: the tables' walk's in
// words where `words` (DevicePolicy::permute_box_words; box_vector_elems), the registers' walk's
// from `reg_words_min_bytes` on (DevicePolicy::permute_box_registers_words_min_bytes;
// reg_box_words). The launcher and explain_permute (on aligned operands) both ask this.
inline bool box_registers_takes_at(RegistersRule rule, const BoxPlan& tables, const BoxPlan& reg,
                                   int elem_bytes, bool words, int reg_words_min_bytes,
                                   std::uintptr_t src, std::uintptr_t dst) {
  if (rule == RegistersRule::none) return false;
  const int tables_wd = words ? box_vector_elems(tables, false, elem_bytes, dst, src) : 1;
  const int reg_wd = reg_box_words(reg, elem_bytes, reg_words_min_bytes, src, dst).wd;
  return box_registers_takes(rule, tables, reg, elem_bytes, tables_wd, reg_wd);
}

// The whole runs rule (make_box_plan's whole_runs) yields to the registers' walk where it widened
// the tables' box past what that walk takes: the widened box (`widened`) goes to the tables' walk,
// and the box planned without the rule (`plain`, its fields set as the launcher sets them) differs
// and goes to the registers' walk by the box-fits rule (`plain_rule`, box_registers_rule), where
// box_registers_takes_at then takes the registers' box (also planned without the rule). At 4 B such
// boxes grew from about 1,400 elements in registers to 4,200 in shared tables and ran slower there
// (docs/perf-guide.md section 4.13). The launcher and explain_permute both ask this, unless
// DevicePolicy::permute_box_whole_runs_past_registers.
inline bool box_whole_runs_yield(const BoxPlan& widened, const BoxPlan& plain,
                                 RegistersRule plain_rule) {
  return plain.volume != widened.volume && plain_rule == RegistersRule::box_fits;
}

// A tables' box planned under more shared memory than the static 48 KB
// (DevicePolicy::permute_box_max_smem_bytes) replaces the box of the 48 KB (`static_box`), except
// at elements of at least kBoxPastStaticSmemKeepsPipelinedMinBytes where that box's walk (on
// aligned operands, the policy's defaults) is the pipelined one through registers: the larger box
// has too many words for it and goes through cp.async, and such cases ran 0.93-0.98x at 4-8 B,
// where the others gained (docs/perf-guide.md section 4.13).
inline constexpr int kBoxPastStaticSmemKeepsPipelinedMinBytes = 4;
inline bool box_past_static_smem(const BoxPlan& static_box, int elem_bytes) {
  if (elem_bytes < kBoxPastStaticSmemKeepsPipelinedMinBytes) return true;
  const int ws = box_vector_elems(static_box, true, elem_bytes, 0);
  const int wd = box_vector_elems(static_box, false, elem_bytes, 0);
  return (ws == 1 && wd == 1) ||
         box_loads(static_box, elem_bytes, true, ws, true, true) != BoxLoads::pipelined;
}
// ...except where the larger box (`large`, planned under the larger bound) stores wider dst words
// than the box of the 48 KB and loads src words no narrower (on aligned operands): a dst
// dimension whole in it, whose words cross its rows, or a dst run that reaches a word. The wider
// stores outweigh the pipelined walk there, where the larger box alone measured no better
// (docs/perf-guide.md section 4.13). DevicePolicy::permute_box_past_static_for_wider_words.
inline bool box_words_wider(const BoxPlan& large, const BoxPlan& static_box, int elem_bytes) {
  return box_vector_elems(large, false, elem_bytes, 0) >
             box_vector_elems(static_box, false, elem_bytes, 0) &&
         box_vector_elems(large, true, elem_bytes, 0) >=
             box_vector_elems(static_box, true, elem_bytes, 0);
}
// The box walks through cp.async whose dst words are single elements (wd == 1: an odd dst row, or
// dst strides no word divides; the word walk with src words and the element walk alike) store each
// element after two table reads (its dst offset and its shared slot) beside the gather itself:
// three shared loads an element, where the profile of such a walk shows the shared-memory pipe as
// the limit (docs/perf-guide.md section 4.13). Instead each thread reads its entries from the
// tables once a block into registers (at most kBoxDstRegisterEntries a thread, kBoxWordThreads
// threads), and a stored element costs the gather alone. From 2-byte elements on: the 1-byte word
// walk holds 99-103 registers a thread with them (80 from 2 B on, 32 without), and its cases ran
// slower. on: DevicePolicy::permute_box_dst_registers.
// A box over that, up to twice the elements, takes kBoxDstRegisterEntriesLarge entries a thread at
// elements of kBoxDstRegistersLargeMinBytes up to `large_max_bytes`
// (DevicePolicy::permute_box_dst_registers_large_max_bytes): such a box's two buffers and tables
// leave an SM 2-3 blocks already, so the registers cost few warps (at 4 B 1.07x held out; at 8 B
// even; docs/perf-guide.md section 4.13).
inline constexpr int kBoxDstRegisterEntries = 12;
inline constexpr int kBoxDstRegisterEntriesLarge = 24;
inline constexpr int kBoxDstRegistersMinBytes = 2;
inline constexpr int kBoxDstRegistersLargeMinBytes = 4;
// The dst entries a thread keeps in registers for box `p`: kBoxDstRegisterEntries,
// kBoxDstRegisterEntriesLarge, or 0 (the tables' reads).
inline int box_dst_register_entries(const BoxPlan& p, int elem_bytes, int wd, BoxLoads loads,
                                    bool on, int large_max_bytes) {
  if (!on || elem_bytes < kBoxDstRegistersMinBytes || wd != 1 || loads != BoxLoads::async) return 0;
  if (p.volume <= static_cast<std::uint32_t>(kBoxDstRegisterEntries) * kBoxWordThreads)
    return kBoxDstRegisterEntries;
  if (elem_bytes >= kBoxDstRegistersLargeMinBytes && elem_bytes <= large_max_bytes &&
      p.volume <= static_cast<std::uint32_t>(kBoxDstRegisterEntriesLarge) * kBoxWordThreads)
    return kBoxDstRegisterEntriesLarge;
  return 0;
}
inline bool box_dst_in_registers(const BoxPlan& p, int elem_bytes, int wd, BoxLoads loads, bool on,
                                 int large_max_bytes = 0) {
  return box_dst_register_entries(p, elem_bytes, wd, loads, on, large_max_bytes) > 0;
}
// The word walk's stores by src word (kernels/permute/permute_tile.cu,
// permute_box_words_kernel's Scatter): where dst takes no word (wd == 1: an odd dst row, or dst
// strides no word divides) but src does, the gather reads one element a lane `step` elements
// apart; `step` is a multiple of the src word, so a warp's 32 lanes find the element at the same
// place in their 16-byte chunks, 8 banks of 32 (a 4-way conflict at 4 B, Nsight Compute's MIO
// throttle on such walks, docs/perf-guide.md section 4.13). Instead a thread reads a whole src
// word (one shared load of 4-16 bytes) and stores its ws elements, each `ds[0]` apart in dst;
// the lanes take consecutive words along dst's contiguous dimension, so each of the ws stores of
// a warp is one run in dst, as the element gather's was. Words must lie inside box dimension 0
// (box[0] a multiple of ws; a word across dimensions would store its elements at two strides).
// A warp's store j covers its lanes' words' element j: runs of R elements (the box's elements
// along the dst dimensions before dimension 0, box_dst_src_word_rows), each ws R apart where the
// gather's covered 32 elements in a row; so only where R elements are at least
// kBoxDstBySrcWordsMinRunBytes (a whole sector). At elements of at most `max_bytes`
// (DevicePolicy::permute_box_dst_by_src_words_max_bytes): at 1-2 B a word saves 2-16 gathers; at
// 4-8 B, 2-4, and those cases ran about even (docs/perf-guide.md section 4.13).
inline constexpr std::uint32_t kBoxDstBySrcWordsMinRunBytes = 32;
TMAKIT_HD std::uint32_t box_dst_src_word_rows(const BoxPlan& p) {
  std::uint32_t r = 1;
  for (int k = 0; k < p.dims && p.dst_order[k] != 0; ++k) r *= p.box[p.dst_order[k]];
  return r;
}
inline bool box_dst_by_src_words(const BoxPlan& p, int elem_bytes, int ws, int wd, int max_bytes) {
  return elem_bytes <= max_bytes && ws > 1 && wd == 1 && p.dims > 1 && p.dst_order[0] != 0 &&
         p.box[0] % static_cast<std::uint32_t>(ws) == 0 &&
         box_dst_src_word_rows(p) * static_cast<std::uint32_t>(elem_bytes) >=
             kBoxDstBySrcWordsMinRunBytes;
}
// Src word g of the stores (words in dst order of their first elements) is dst-order element
// g mod R + ws R (g / R), R = box_dst_src_word_rows.
// The launcher sets R as a divisor on the plan it passes.
inline void set_box_dst_src_word_rows(BoxPlan* p) {
  p->src_word_rows_div = FastDiv(box_dst_src_word_rows(*p));
}
// Src word g's first element in dst order: g = lo + R m, lo along the dimensions before
// dimension 0 in dst order, m counting words along dimension 0 (ws elements each) and then the
// dimensions after it; the element is lo + ws R m.
TMAKIT_HD std::uint32_t box_dst_src_word_at(const BoxPlan& p, std::uint32_t ws, std::uint32_t g) {
  const std::uint32_t r = p.src_word_rows_div.d, m = p.src_word_rows_div.div(g);
  return g - m * r + ws * r * m;
}

// The word walk's stores in register blocks (kernels/permute/permute_tile.cu,
// permute_box_words_kernel's Blocks): at 1-2 B the dst gather reads its words' elements one by one
// (a shared load, a swizzled address and a pack an element; Nsight Compute: the walk is bound by
// instruction issue). Where dst takes words of at least 4 bytes (wd elements along dst_order[0])
// and src order keeps box dimension 0 in 4-byte units, a thread instead takes the kBoxDstBlockBytes
// / E dst words that differ only in the coordinate along box dimension 0 (a multiple of that
// many): wd 4-byte shared loads, each of those words' elements at one dst position, transposed in
// registers (byte permutes) into the words. Box dimension 0 and a cut extent of it must hold whole
// 4-byte units (every unit inside the tensor exactly when its first element is), and dst words must
// lie inside their rows (box_dst_words_cross_rows). At elements of at most `max_bytes`
// (DevicePolicy::permute_box_dst_blocks_max_bytes; 0: never), capped at kBoxDstBlocksMaxBytes:
// at 2 B the blocks ran slower (0.988x; docs/perf-guide.md section 4.13), so only the 1-byte
// kernels are compiled.
inline constexpr int kBoxDstBlockBytes = 4;
inline constexpr int kBoxDstBlocksMaxBytes = 1;
inline bool box_dst_blocks(const BoxPlan& p, int elem_bytes, int ws, int wd, int max_bytes) {
  if (elem_bytes > std::min(max_bytes, kBoxDstBlocksMaxBytes) || p.dims < 2 || p.dst_order[0] == 0)
    return false;
  const auto s = static_cast<std::uint32_t>(kBoxDstBlockBytes / elem_bytes);
  return ws * elem_bytes >= kBoxDstBlockBytes && wd * elem_bytes >= kBoxDstBlockBytes &&
         !box_dst_words_cross_rows(p, wd) && p.box[0] % s == 0 &&
         (p.box[0] == p.full[0] || p.full[0] % s == 0);
}

// The word walk's block (kernels/permute/permute_tile.cu, launch_words): 128 threads through
// registers at elements of at most small_max_bytes (capped at kBoxWordSmallMaxBytes), else 256.
inline unsigned box_words_threads(int elem_bytes, BoxLoads loads, int small_max_bytes) {
  const bool small =
      loads != BoxLoads::async && elem_bytes <= std::min(small_max_bytes, kBoxWordSmallMaxBytes);
  return small ? kBoxWordSmallThreads : kBoxWordThreads;
}
// The element walk through cp.async pads its shared box (DevicePolicy::permute_box_pad) where the
// stores gather elements an even shared stride S apart: a slot every S elements, so the stride is
// S + 1 (kernels/permute/permute_tile.cu, permute_box_async_kernel; the registers' walk,
// permute_box_reg_kernel, pads its one box by the same rule). 1: no padding.
inline std::uint32_t box_async_pad_every(const BoxPlan& p, bool pad) {
  const std::uint32_t gather = p.dims > 0 ? p.smem_stride[p.dst_order[0]] : 1;
  return pad && gather > 1 && gather % 2 == 0 ? gather : 1;
}

// The bytes of all of a box walk's shared buffers: one box, or two for cp.async (words: whole
// 128-byte rows; the cp.async element walk's padded a slot every `pad_every` elements). The
// launchers size shared memory with it, and explain_permute and the kernels look in it for room
// for the row tables (box_row_tables_extra_bytes).
inline std::uint32_t box_walk_bufs_bytes(const BoxPlan& p, std::uint32_t elem_bytes, bool words,
                                         BoxLoads loads, std::uint32_t pad_every) {
  const std::uint32_t n = loads == BoxLoads::async ? 2 : 1;
  if (words) return n * box_words_buf_bytes(p.volume, elem_bytes);
  return n == 2 ? 2 * box_async_buf_bytes(p.volume, pad_every, elem_bytes)
                : box_elems_buf_bytes(p.volume, elem_bytes);
}

}  // namespace tmakit
