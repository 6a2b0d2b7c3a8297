// permute(): check, reduce, then transpose() for what is a copy or a transpose, or a
// permutation technique (the registry below) for the rest. Host compiler only.
//
// Adding a permutation technique: one kernel file in kernels/permute/, one launcher in
// kernels/launchers.hpp, one row in permute_registry() (host/transpose/registry.cpp).
#include <tmakit/permute.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>
#include <host/device.hpp>
#include <host/device_policy.hpp>
#include <host/error.hpp>
#include <host/permute/reduce.hpp>
#include <host/permute/tune.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/registry.hpp>
#include <host/transpose/tma_dispatch.hpp>
#include <kernels/common/reg_tile.hpp>
#include <kernels/launchers.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

Status invalid(std::string msg) {
  return make_status(StatusCode::kInvalidArgument, std::move(msg));
}

// One operand as a rank-5 map, outermost first: (b2, b1, b0, outer, inner), pitches in bytes
// (a dimension of extent 1 takes 16: it is never stepped).
struct MapSide {
  const char* name;
  const void* address;
  std::int64_t outer, inner;  // extents (inner in the map's elements)
  std::int64_t outer_pitch_bytes;
  const std::int64_t* batch_pitch_elems;  // 3, b0 first
};

TensorMapSpec side_spec(const MapSide& s, const PermuteGeometry& g, int elem_bytes,
                        const kernels::PermuteTmaPlan& plan) {
  TensorMapSpec spec;
  spec.type = tma_unsigned_type(plan.type_bytes);
  spec.rank = 5;
  spec.address = s.address;
  auto pitch = [](std::int64_t extent, std::int64_t bytes) {
    return static_cast<std::uint64_t>(extent > 1 ? bytes : 16);
  };
  spec.shape = {static_cast<std::uint64_t>(g.batch_extent[2]),
                static_cast<std::uint64_t>(g.batch_extent[1]),
                static_cast<std::uint64_t>(g.batch_extent[0]), static_cast<std::uint64_t>(s.outer),
                static_cast<std::uint64_t>(s.inner)};
  spec.pitch_bytes = {pitch(g.batch_extent[2], s.batch_pitch_elems[2] * elem_bytes),
                      pitch(g.batch_extent[1], s.batch_pitch_elems[1] * elem_bytes),
                      pitch(g.batch_extent[0], s.batch_pitch_elems[0] * elem_bytes),
                      pitch(s.outer, s.outer_pitch_bytes), 0};
  spec.box = {1, 1, 1, static_cast<std::uint32_t>(plan.box_rows),
              static_cast<std::uint32_t>(plan.box_cols)};
  spec.swizzle = static_cast<TmaSwizzle>(plan.swizzle);
  return spec;
}

std::string side_name(const MapSide& s, const kernels::PermuteTmaPlan& plan) {
  return std::string(s.name) + " tensor map (dims: b2, b1, b0, " +
         (plan.rows          ? "rows, row words"
          : s.name[0] == 's' ? "rows, cols"
                             : "cols, rows") +
         ")";
}

std::string encode_side(const MapSide& s, const PermuteGeometry& g, int elem_bytes,
                        const kernels::PermuteTmaPlan& plan, int cc, CUtensorMap* out) {
  return validate_and_encode(side_spec(s, g, elem_bytes, plan), cc, side_name(s, plan), out);
}

// The two maps of permute_tma: src as (b2, b1, b0, rows, cols) with src's strides; dst as
// (b2, b1, b0, cols, rows) for a transposing tile, or like src, in 8-byte words, for rows.
void map_sides(const kernels::PermuteArgs& a, const kernels::PermuteTmaPlan& plan, MapSide* src,
               MapSide* dst) {
  const PermuteGeometry& g = a.geo;
  const std::int64_t e = a.elem_bytes;
  const std::int64_t inner = g.cols * e / plan.type_bytes;
  *src = {"src", a.src, g.rows, inner, g.src_row * e, g.src_batch};
  *dst = plan.rows ? MapSide{"dst", a.dst, g.rows, inner, g.dst_row * e, g.dst_batch}
                   : MapSide{"dst",         a.dst,      g.cols, g.rows * e / plan.type_bytes,
                             g.dst_col * e, g.dst_batch};
}

// Empty when permute_tma can run `a` (its maps then encoded into *maps and pointed at);
// else why not.
std::string prepare_permute_tma(bool allow_tma, const DeviceCaps& caps, kernels::PermuteArgs* a,
                                TmaMaps* maps) {
  if (std::string why = tma_unavailable(allow_tma, caps); !why.empty()) return why;
  const kernels::PermuteTmaPlan plan = kernels::plan_permute_tma(*a);
  if (plan.rule != nullptr) return plan.rule;
  const PermuteGeometry& g = a->geo;
  const std::int64_t e = a->elem_bytes;
  const std::int64_t inner = g.cols * e / plan.type_bytes;
  for (std::int64_t n : {g.rows, inner, g.batch_extent[0], g.batch_extent[1], g.batch_extent[2]})
    if (n >= (std::int64_t{1} << 31))
      return "permute_tma: extent " + std::to_string(n) +
             " does not fit a 32-bit TMA coordinate (at most 2^31 - 1)";
  MapSide src, dst;
  map_sides(*a, plan, &src, &dst);
  if (std::string why = encode_side(src, g, a->elem_bytes, plan, caps.cc, &maps->src); !why.empty())
    return why;
  if (std::string why = encode_side(dst, g, a->elem_bytes, plan, caps.cc, &maps->dst); !why.empty())
    return why;
  a->src_map = &maps->src;
  a->dst_map = &maps->dst;
  return {};
}

// auto between permute_tma and permute_tile: for row permutations permute_tile wherever its flat
// rows walk runs them (a dense dst: as fast as permute_tma or faster on every measured row
// form), else permute_tma for rows of the policy's permute_tma_min_row_bytes or more
// (permute_tile's row-by-row kernels below); in the tile form
// where its tiles (128 bytes square) are filled at least to the policy's permute_tma_min_fill_pct
// over the two tile dimensions (below that a TMA copy moves mostly nothing), unless permute_tile
// walks boxes that carry more than the policy's permute_tma_max_box_ratio times the bytes a TMA
// tile carries (its fill x its size): the box walk groups dimensions on both sides, a TMA tile
// takes one from each (docs/perf-guide.md section 4.13, "auto between permute_tma and
// permute_tile").
struct TmaChoice {
  bool tma = false;
  double fill = 0, tile_bytes = 0;  // the TMA tile's fill and the bytes it carries
  std::int64_t box_bytes = 0;       // permute_tile's box (0: no box walk)
  bool rows_flat = false;           // a row permutation permute_tile's flat rows walk runs
};
TmaChoice auto_tma_choice(const kernels::PermuteArgs& a, const DevicePolicy& policy) {
  TmaChoice c;
  if (a.moves_rows()) {
    c.rows_flat = kernels::permute_rows_flat(a);
    c.tma = !c.rows_flat && a.geo.cols * a.elem_bytes >= policy.tma_min_row_bytes(a.elem_bytes);
    return c;
  }
  const std::int64_t side = 128 / std::min(a.elem_bytes, 8);
  auto fill = [&](std::int64_t n) { return double(n) / double((n + side - 1) / side * side); };
  c.fill = fill(a.geo.rows) * fill(a.geo.cols);
  c.tile_bytes = c.fill * double(side * side * a.elem_bytes);
  if (c.fill * 100 < policy.permute_tma_min_fill_pct) return c;
  // The box under the static 48 KB (permute_tile_box_plan's default bound), whatever
  // permute_box_max_smem_bytes, and the tables' box below permute_box_registers_min_bytes, whatever
  // the rules that give small 8-byte tensors the registers' walk (box_registers):
  // permute_tma_max_box_ratio was fitted on those boxes.
  BoxPlan box;
  const bool registers_box = a.elem_bytes >= policy.permute_box_registers_min_bytes;
  if (kernels::permute_tile_prefers_box(a) &&
      kernels::permute_tile_box_plan(a.dims, a.elem_bytes, &box, registers_box, a.box_cuts_first,
                                     a.box_target_elems, a.box_least_waste, nullptr,
                                     kBoxMaxSmemBytes, false, false, a.box_min_boxes))
    c.box_bytes = std::int64_t{box.volume} * a.elem_bytes;
  c.tma = c.box_bytes == 0 ||
          double(c.box_bytes) <= double(policy.permute_tma_max_box_ratio) * c.tile_bytes;
  return c;
}
bool auto_prefers_tma(const kernels::PermuteArgs& a, const DevicePolicy& policy) {
  return auto_tma_choice(a, policy).tma;
}

// The tile form as a batch of transposes (permute_transpose): the tile's cols (contiguous in
// src) and rows (contiguous in dst) are a rows x cols matrix with src_ld = rows' src stride and
// dst_ld = cols' dst stride; the batch dimensions keep their own strides (BatchStrides'
// batch_n0, batch_n1). Empty when it can run it, else why not.
std::string transpose_batch(const kernels::PermuteArgs& a, BatchStrides* st) {
  const PermuteGeometry& g = a.geo;
  if (a.moves_rows()) return "the innermost dimension stays innermost (whole rows move)";
  if (g.src_col != 1 || g.dst_row != 1)
    return "a transpose reads its rows and writes its columns at unit stride; the tile's src side "
           "has stride " +
           std::to_string(g.src_col) + " and its dst side " + std::to_string(g.dst_row);
  st->batch = g.batch();
  st->src_ld_elems = g.src_row;
  st->dst_ld_elems = g.dst_col;
  st->src_batch_elems = g.src_batch[0];
  st->dst_batch_elems = g.dst_batch[0];
  // One batch dimension (b1 and b2 of extent 1): the kernels' one-dimension form.
  const bool one = g.batch_extent[1] == 1 && g.batch_extent[2] == 1;
  st->batch_n0 = one ? 0 : g.batch_extent[0];
  st->batch_n1 = g.batch_extent[1];
  st->src_batch1_elems = g.src_batch[1];
  st->dst_batch1_elems = g.dst_batch[1];
  st->src_batch2_elems = g.src_batch[2];
  st->dst_batch2_elems = g.dst_batch[2];
  return {};
}

// auto's permute_transpose: where it can run, with both tile dimensions at least the policy's
// permute_transpose_min_side_bytes long at this element size (the transposes' tiles are 32-64
// elements a side; shorter sides leave them mostly empty, where the boxes group more dimensions),
// and a matrix of at least permute_transpose_min_matrix_bytes unless permute_tile would run its
// 2-D tile (transposes_matrix_small).
bool transposes_matrix_small(const kernels::PermuteArgs& a, const DevicePolicy& policy) {
  return a.geo.rows * a.geo.cols * a.elem_bytes < policy.transpose_min_matrix_bytes(a.elem_bytes) &&
         kernels::permute_tile_prefers_box(a);
}
bool auto_prefers_transpose(const kernels::PermuteArgs& a, const DevicePolicy& policy) {
  BatchStrides st;
  const std::int64_t min_side = policy.transpose_min_side_bytes(a.elem_bytes);
  return min_side > 0 && transpose_batch(a, &st).empty() &&
         std::min(a.geo.rows, a.geo.cols) * a.elem_bytes >= min_side &&
         !transposes_matrix_small(a, policy);
}

// auto's reg_tile (DevicePolicy::permute_reg_tile_max_bytes): the tile form as one launch of
// reg_tile where its blocks take the batch and auto_prefers_transpose does not take it.
bool auto_prefers_reg_tile(const kernels::PermuteArgs& a, const DevicePolicy& policy) {
  BatchStrides st;
  if (a.elem_bytes > policy.permute_reg_tile_max_bytes || !transpose_batch(a, &st).empty() ||
      auto_prefers_transpose(a, policy))
    return false;
  return reg_tile_plan(a.geo.rows, a.geo.cols, a.elem_bytes, st,
                       reinterpret_cast<std::uintptr_t>(a.src),
                       reinterpret_cast<std::uintptr_t>(a.dst))
      .ok;
}

// auto at rank 6-8 where both tile dimensions (src's and dst's contiguous ones, at unit stride)
// are at least permute_wide_transpose_min_side_bytes long: rank-5 permutations over the outer
// dimensions (split_permutation), each a batch of transposes where its own rule takes it, instead
// of the box walk in one launch. At most kWideTransposeMaxLaunches of them: a launch each.
constexpr std::int64_t kWideTransposeMaxLaunches = 8;
// src's and dst's contiguous dimensions (unit stride) of a reduction: {i, j}, each
// r.extents.size() where there is none.
std::pair<std::size_t, std::size_t> contiguous_dims(const PermuteReduction& r) {
  std::size_t i = r.extents.size(), j = i;
  for (std::size_t k = 0; k < r.extents.size(); ++k) {
    if (r.src_strides_elems[k] == 1) i = k;
    if (r.dst_strides_elems[k] == 1) j = k;
  }
  return {i, j};
}
// Both tile dimensions of a rank 6-8 reduction at least permute_wide_transpose_min_side_bytes
// long: the matrix's bytes (src's contiguous extent x dst's x the element size), else 0.
std::int64_t wide_long_sides_matrix_bytes(const PermuteReduction& r, int elem_bytes,
                                          const DevicePolicy& policy) {
  const std::size_t red = r.extents.size();
  const auto [i, j] = contiguous_dims(r);
  const std::int64_t min_side = policy.wide_transpose_min_side_bytes(elem_bytes);
  return i < red && j < red && i != j && min_side > 0 &&
                 std::min(r.extents[i], r.extents[j]) * elem_bytes >= min_side
             ? r.extents[i] * r.extents[j] * elem_bytes
             : 0;
}
bool auto_splits_for_transposes(const PermuteReduction& r, int elem_bytes,
                                const DevicePolicy& policy, detail::PermuteSplit* sp) {
  if (r.extents.size() <= 5 || r.form != PermuteForm::kTile) return false;
  const std::int64_t matrix = wide_long_sides_matrix_bytes(r, elem_bytes, policy);
  return matrix > 0 && matrix >= policy.transpose_min_matrix_bytes(elem_bytes) &&
         detail::split_permutation(r, sp).empty() && sp->launches <= kWideTransposeMaxLaunches;
}

PermuteDims dims_of(const PermuteReduction& r) {
  PermuteDims d;
  d.rank = static_cast<int>(std::min<std::size_t>(r.extents.size(), kPermuteMaxRank));
  for (int k = 0; k < d.rank; ++k) {
    d.n[k] = r.extents[k];
    d.ss[k] = r.src_strides_elems[k];
    d.ds[k] = r.dst_strides_elems[k];
  }
  return d;
}

// Which boxes run one after another (make_box_plan's batch order, box_src_cut_first) and why, for
// a box that cuts a dimension.
std::string describe_batch_order(const BoxPlan& p, int elem_bytes, int cuts_first) {
  const BoxCutSectors c = box_cut_sectors(p, elem_bytes);
  const int us = c.src_cut, ud = c.dst_cut;
  const bool src_splits = c.src_splits, dst_splits = c.dst_splits;
  const std::int64_t src_chunks = c.src_chunks;
  std::string out = "batch order (permute_box_cuts_first = " + std::to_string(cuts_first) + "): ";
  if (cuts_first == kBoxCutsFirstAlways)
    return out + "the cut dimensions' chunks first, src's before dst's\n";
  if (us >= 0 && box_src_cut_first(cuts_first, src_splits, dst_splits, src_chunks))
    return out + "src's cut dimension's chunks first (" + std::to_string(p.full[us]) + " in " +
           std::to_string(src_chunks) + "): they start inside 32-byte sectors" +
           (ud < 0        ? ", and dst has no cut\n"
            : !dst_splits ? ", and dst's cut's do not\n"
                          : ", and so do dst's cut's, but src's cut has at most " +
                                std::to_string(kBoxCutsFirstMaxSrcChunks) + " chunks\n");
  out += "dst order";
  if (cuts_first == kBoxCutsDstOrder || us < 0) return out + "\n";
  if (!src_splits) return out + ": src's cut's chunks start on 32-byte sectors\n";
  return out + ": both sides' cut chunks start inside 32-byte sectors and src's cut has " +
         std::to_string(src_chunks) + " chunks, more than " +
         std::to_string(kBoxCutsFirstMaxSrcChunks) + "\n";
}

// permute_tile's box in words: the dimensions grouped into it, the contiguous runs it reads and
// writes, the boxes. largest: the largest-box rule's box where the least-waste rule took another.
// registers_why: the line that says which of the policy's rules took the registers' walk (none
// where the element size alone does, permute_box_registers_min_bytes); widened_why: the lines that
// say which rule widened or shrank the box (none where none did).
std::string describe_box(const BoxPlan& p, int elem_bytes, bool registers,
                         const DevicePolicy& policy, const std::string& registers_why,
                         const BoxPlan* largest = nullptr, const std::string& widened_why = {}) {
  auto run = [&](bool src_side) {  // elements contiguous on one side, from the innermost
    std::int64_t elems = 1, expect = 1;
    for (int k = 0; k < p.dims; ++k) {
      const int u = src_side ? k : p.dst_order[k];
      const std::int64_t stride = src_side ? p.ss[u] : p.ds[u];
      if (stride != expect) break;
      elems *= p.box[u];
      if (p.box[u] != p.full[u]) break;
      expect *= p.full[u];
    }
    return elems;
  };
  std::string out = std::string("box walk (permute_tile, each thread's offsets in ") +
                    (registers ? "registers" : "shared tables") + "): a box of ";
  for (int u = 0; u < p.dims; ++u)
    out += (u ? " x " : "") + std::to_string(p.box[u]) +
           (p.box[u] < p.full[u] ? " of " + std::to_string(p.full[u]) : std::string()) +
           " (src stride " + std::to_string(p.ss[u]) + ", dst stride " + std::to_string(p.ds[u]) +
           ")";
  const std::int64_t rs = run(true), rd = run(false);
  out += " = " + std::to_string(p.volume) + " elements, src order first; runs of " +
         std::to_string(rs) + " elements (" + std::to_string(rs * elem_bytes) + " bytes) read, " +
         std::to_string(rd) + " (" + std::to_string(rd * elem_bytes) + " bytes) written; " +
         std::to_string(p.boxes) + " boxes over " + std::to_string(p.outer) +
         " batch dimensions (the cut ones' chunks included)\n" + widened_why;
  if (p.cut[0] >= 0) {  // the edge chunks (box_origin)
    out += "edge boxes: ";
    for (int u : p.cut) {
      if (u < 0) continue;
      const std::int64_t n = p.full[u], b = p.box[u], chunks = (n + b - 1) / b;
      out += (u == p.cut[0] ? "" : "; ") + std::to_string(n) + " in " + std::to_string(chunks) +
             " chunks of " + std::to_string(b);
      if (n % b == 0)
        out += " (whole)";
      else if (policy.permute_box_overlap_edges)
        out += ", the last from " + std::to_string(n - b) + " (" + std::to_string(chunks * b - n) +
               " copied twice)";
      else
        out += ", the last " + std::to_string(n - (chunks - 1) * b) + " long";
    }
    out += policy.permute_box_overlap_edges ? ": every box whole\n"
                                            : " (permute_box_overlap_edges = 0)\n";
    out += describe_batch_order(p, elem_bytes, policy.permute_box_cuts_first);
  }
  if (largest != nullptr && policy.permute_box_overlap_edges) {
    char copies[64];
    std::snprintf(copies, sizeof copies, "%.3f (the largest box: %.3f)", box_copies_per_elem(p),
                  box_copies_per_elem(*largest));
    out += std::string(
               "the least-waste box (permute_box_least_waste): elements copied per "
               "element of the tensor ") +
           copies + "\n";
  }
  BoxPlan as_run = p;  // with the policy's choices, as the launcher sets them
  as_run.src_runs = policy.permute_box_src_runs;
  as_run.dst_runs = policy.permute_box_dst_runs;
  as_run.narrow_dst_runs_max_bytes = policy.permute_box_narrow_dst_runs_max_bytes;
  as_run.row_tables = policy.permute_box_row_tables;
  if (registers) {  // permute_box_reg_kernel (kernels/permute/permute_tile.cu)
    out += registers_why;
    const std::uint32_t pad = box_async_pad_every(p, policy.permute_box_pad);
    out += "loads: blocks of " + std::to_string(reg_box_threads(p.volume, elem_bytes)) +
           " threads, " + std::to_string(reg_box_shape(elem_bytes).per_thread) +
           " elements a thread, the next box's loads in flight (registers) while this one is "
           "stored";
    // Its words at aligned addresses (the launcher's reg_box_words, at the operands' addresses).
    const RegBoxWords w =
        reg_box_words(as_run, elem_bytes, policy.permute_box_registers_words_min_bytes, 0, 0);
    if (w.ws > 1 || w.wd > 1)
      out += "; src words of " + std::to_string(w.ws * elem_bytes) + " bytes, dst words of " +
             std::to_string(w.wd * elem_bytes) +
             " bytes where src and dst are aligned to them "
             "(permute_box_registers_words_min_bytes = " +
             std::to_string(policy.permute_box_registers_words_min_bytes) + ")";
    if (pad > 1)
      out += "; a slot of padding every " + std::to_string(pad) + " elements (gathers " +
             std::to_string(pad + 1) + " apart)";
    return out + "\n";
  }
  static const char* const kLoads[] = {
      "each box loaded into registers, then stored",
      "the next box's loads in flight (registers) while this one is stored",
      "by cp.async into two shared buffers, the next box's copies in flight while this one is "
      "stored"};
  const int ws = policy.permute_box_words ? box_vector_elems(as_run, true, elem_bytes, 0) : 1;
  const int wd = policy.permute_box_words ? box_vector_elems(as_run, false, elem_bytes, 0) : 1;
  const bool words = ws > 1 || wd > 1;
  if (words)  // 16-byte aligned operands
    out += "in words (16-byte aligned operands): loads of " + std::to_string(ws * elem_bytes) +
           " bytes, stores of " + std::to_string(wd * elem_bytes) + " bytes" +
           (wd > 1 && box_dst_words_cross_rows(as_run, wd)
                ? " across dst rows of " + std::to_string(p.box[p.dst_order[0]]) + " elements"
                : "") +
           (box_words_swizzled(p, elem_bytes, wd, policy.permute_box_swizzle_bytes)
                ? ", the shared box swizzled"
                : "") +
           "\n";
  const bool by_src_words =
      words &&
      box_dst_by_src_words(p, elem_bytes, ws, wd, policy.permute_box_dst_by_src_words_max_bytes);
  if (by_src_words)  // permute_box_words_kernel's Scatter
    out += "stores by src word: a thread reads a " + std::to_string(ws * elem_bytes) +
           "-byte src word from the box whole and stores its " + std::to_string(ws) +
           " elements, " + std::to_string(p.ds[0]) +
           " apart in dst, the lanes along dst's contiguous dimension, " +
           std::to_string(box_dst_src_word_rows(p) * static_cast<std::uint32_t>(elem_bytes)) +
           " bytes a run (permute_box_dst_by_src_words_max_bytes = " +
           std::to_string(policy.permute_box_dst_by_src_words_max_bytes) + ")\n";
  if (words && wd > 1 &&
      box_dst_blocks(p, elem_bytes, ws, wd, policy.permute_box_dst_blocks_max_bytes)) {
    const int s = kBoxDstBlockBytes / elem_bytes;  // permute_box_words_kernel's Blocks
    out += "stores in register blocks: a thread gathers the " + std::to_string(s) +
           " dst words along box dimension 0 together, " + std::to_string(wd) + " " +
           std::to_string(kBoxDstBlockBytes) +
           "-byte shared loads transposed in registers (permute_box_dst_blocks_max_bytes = " +
           std::to_string(policy.permute_box_dst_blocks_max_bytes) + ")\n";
  }
  const BoxLoads loads =
      box_loads(p, elem_bytes, words, ws, policy.permute_box_pipeline, policy.permute_box_async);
  out += std::string("loads: ") + kLoads[static_cast<int>(loads)];
  if (words &&
      box_words_threads(elem_bytes, loads, policy.permute_box_words_small_block_max_bytes) ==
          kBoxWordSmallThreads)
    out += "; blocks of " + std::to_string(kBoxWordSmallThreads) +
           " threads (permute_box_words_small_block_max_bytes = " +
           std::to_string(policy.permute_box_words_small_block_max_bytes) + ")";
  const int entries = by_src_words ? 0
                                   : box_dst_register_entries(
                                         p, elem_bytes, wd, loads, policy.permute_box_dst_registers,
                                         policy.permute_box_dst_registers_large_max_bytes);
  if (entries > 0)
    out +=
        "; each thread's dst offsets and shared slots in registers, read from the tables once "
        "(permute_box_dst_registers" +
        (entries == kBoxDstRegisterEntriesLarge
             ? std::string(": ") + std::to_string(entries) + " a thread, the box over " +
                   std::to_string(kBoxDstRegisterEntries * kBoxWordThreads) +
                   " elements; permute_box_dst_registers_large_max_bytes = " +
                   std::to_string(policy.permute_box_dst_registers_large_max_bytes)
             : std::string()) +
        ")";
  const std::uint32_t pad = box_async_pad_every(p, policy.permute_box_pad);
  if (loads == BoxLoads::async && !words && pad > 1)
    out += "; a slot of padding every " + std::to_string(pad) + " elements (gathers " +
           std::to_string(pad + 1) + " apart)";
  out += "\n";
  // The tables: from row tables where they fit in the box's shared buffer (one box, two for
  // cp.async), as the kernels decide (kernels/permute/permute_tile.cu, build_box_entries).
  const auto e = static_cast<std::uint32_t>(elem_bytes);
  const std::uint32_t buf_bytes = box_walk_bufs_bytes(p, e, words, loads, pad);
  const auto ss = static_cast<std::uint32_t>(ws), sd = static_cast<std::uint32_t>(wd);
  const std::uint32_t rows_src = box_src_rows(as_run, ss), rows_dst = box_dst_rows(as_run, sd);
  const std::uint32_t rows_bytes = box_row_tables_bytes(as_run, ss, sd);
  auto side = [](const char* name, std::uint32_t rows) {
    return rows > 0 ? std::to_string(rows) + " " + name + " rows decoded in full"
                    : std::string(name) + " entries decoded in full";
  };
  if (rows_bytes > 0)
    out += "tables: " + side("src", rows_src) + ", " + side("dst", rows_dst) +
           ", the rest a division an entry (row tables of " + std::to_string(rows_bytes) +
           " bytes, " +
           (box_row_tables_extra_bytes(as_run, buf_bytes, ss, sd) == 0
                ? std::string("in the box's buffer")
                : "after the tables: the box's buffer holds " + std::to_string(buf_bytes)) +
           ")\n";
  else
    out += std::string("tables: every entry decoded in full (") +
           (!policy.permute_box_row_tables ? "permute_box_row_tables = 0"
                                           : "no row shorter than its entries") +
           ")\n";
  // The cp.async walks' first box (kernels/permute/permute_tile.cu, first_box): its copies go
  // out while the src entries are made, unless the row tables fill both of its buffers.
  if (loads == BoxLoads::async) {
    out += "first box: ";
    if (!policy.permute_box_first_copies_early)
      out += "copied after the tables (permute_box_first_copies_early = 0)\n";
    else if (elem_bytes < kBoxFirstCopiesMinBytes)
      out += "copied after the tables (the early copies start at " +
             std::to_string(kBoxFirstCopiesMinBytes) + "-byte elements)\n";
    else if (rows_bytes > buf_bytes && rows_bytes <= 2 * buf_bytes)
      out += "copied after the tables (the row tables take both of its buffers)\n";
    else
      out +=
          "each block's first box copied while its tables are built "
          "(permute_box_first_copies_early)\n";
  }
  return out;
}

}  // namespace

const std::vector<VariantInfo>& permute_variants() {
  static const std::vector<VariantInfo> infos = [] {
    std::vector<VariantInfo> v;
    for (const PermuteDef& d : permute_registry()) v.push_back(d.info);
    return v;
  }();
  return infos;
}

const VariantInfo* find_permute_variant(const std::string& token) {
  for (const VariantInfo& v : permute_variants())
    if (v.token == token) return &v;
  return nullptr;
}

Status permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
               const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout,
               const TransposeOptions& options) {
  // 1. The technique and its options.
  const std::string& token = options.variant;
  const PermuteDef* named = find_permute_def(token);
  const VariantDef* transpose_def = nullptr;
  if (token != "auto" && named == nullptr) {
    transpose_def = find_variant_def(token);
    if (transpose_def == nullptr || transpose_def->info.kind == VariantKind::kAccumulate) {
      std::string known = "auto";
      for (const PermuteDef& d : permute_registry()) known += ", " + d.info.token;
      return invalid("unknown variant '" + token + "' (known: " + known +
                     ", or a transpose() technique where the permutation reduces to a transpose)");
    }
  }
  if (transpose_def == nullptr &&
      (options.swizzle_bytes != -1 || options.barrier != TmaBarrier::kDefault))
    return invalid(
        "swizzle_bytes and barrier choose among a transpose() technique's variants; "
        "permute_tma and permute_tile take neither (leave them default)");
  // 2. Arguments, all before touching the device.
  detail::PermuteProblem p;
  if (Status s = detail::check_permute_call(src, dst, extents, perm, elem_bytes, layout, &p); !s)
    return s;
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  const PermuteReduction r = detail::reduce(p);
  // auto: the technique wisdom holds for the problem, or measured now in measure mode
  // (host/permute/tune.cpp); else the rules below.
  if (token == "auto") {
    bool ran = false;
    const Status tuned =
        detail::permute_auto_tuned(src, dst, extents, perm, elem_bytes, layout, options, r, &ran);
    if (ran) return tuned;
  }
  // Whole rows of 2-16 bytes move as elements of that size (widen_rows) where the operands are
  // aligned to it: the walks' runs, words and row tables then count those elements, where rows
  // of one word each had their tables decoded in full; TMA and transpose() may take the result.
  if (r.form == PermuteForm::kRows) {
    detail::PermuteWidened w;
    DeviceCaps wc;
    if (detail::widen_rows(r, elem_bytes, &w).empty() &&
        (s0 | d0) % static_cast<std::uintptr_t>(w.elem_bytes) == 0 &&
        current_device_caps(&wc).ok() && wc.policy.permute_rows_as_elements)
      return permute(src, dst, w.extents, w.perm, w.elem_bytes, w.layout, options);
    cudaGetLastError();
  }

  // 3. A copy or a transpose: transpose() runs it (unless a permutation technique is named),
  // when the operands are aligned to its elements (wider ones for whole short rows).
  const bool transposes = r.form == PermuteForm::kCopy || r.form == PermuteForm::kTranspose;
  const int te = r.transpose_elem_bytes;
  const bool aligned = transposes && s0 % static_cast<std::uintptr_t>(te) == 0 &&
                       d0 % static_cast<std::uintptr_t>(te) == 0;
  if (named == nullptr && aligned)
    return transpose(src, dst, r.rows, r.cols, te, r.layout, options);
  // permute_transpose named on a transpose (a batch of dense matrices): transpose()'s own call, as
  // auto's, ranked over every technique. The batch route below takes only the techniques that
  // walk a strided batch of several dimensions, which run such matrices (many tiny ones, or one
  // with a short side) far slower than the best of all (docs/permute.md section 3c).
  const PermuteDef* batched = find_permute_def("permute_transpose");
  if (named == batched && aligned && r.form == PermuteForm::kTranspose) {
    TransposeOptions o = options;
    o.variant = "auto";
    return transpose(src, dst, r.rows, r.cols, te, r.layout, o);
  }
  const bool tile_form = r.form == PermuteForm::kTile && r.extents.size() <= 5;
  if (transpose_def != nullptr && !tile_form)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + token + "' is a transpose() technique, and this permutation " +
                           (transposes ? "reduces to a transpose of " + std::to_string(te) +
                                             "-byte elements that the operands are not aligned to"
                                       : "reduces to " + r.to_string()) +
                           ": use auto, permute_tma or permute_tile (a transpose() technique "
                           "runs a permutation's tile form of rank 5 or less, as a batch)");

  // 4. Rank 6-8 after the reduction: permute_tile's box walk takes it in one launch where a box
  // fits (auto, or permute_tile named); else rank-5 permutations over the outer dimensions, one
  // launch each (each checked and run as a call of its own, on the same stream).
  const PermuteDef* tile = find_permute_def("permute_tile");
  const PermuteDef* tma = find_permute_def("permute_tma");
  kernels::PermuteArgs a;
  a.dims = dims_of(r);
  const bool wide = r.extents.size() > 5;
  BoxPlan box;
  bool split_for_transposes = false;
  if (wide && named == nullptr) {
    DeviceCaps wc;
    detail::PermuteSplit sp;
    if (current_device_caps(&wc).ok())
      split_for_transposes = auto_splits_for_transposes(r, elem_bytes, wc.policy, &sp);
    else
      cudaGetLastError();  // asked again below, where its error is reported
  }
  if (wide && (split_for_transposes || named == tma || named == batched ||
               !kernels::permute_tile_box_plan(a.dims, elem_bytes, &box))) {
    detail::PermuteSplit sp;
    if (std::string why = detail::split_permutation(r, &sp); !why.empty())
      return make_status(StatusCode::kUnsupported, "this permutation cannot run: " + why);
    const auto* s8 = static_cast<const unsigned char*>(src);
    auto* d8 = static_cast<unsigned char*>(dst);
    std::vector<std::int64_t> idx(sp.loop_extents.size(), 0);
    Status last;
    for (std::int64_t launch = 0; launch < sp.launches; ++launch) {
      std::int64_t so = 0, dof = 0;
      for (std::size_t k = 0; k < idx.size(); ++k) {
        so += idx[k] * sp.loop_src[k];
        dof += idx[k] * sp.loop_dst[k];
      }
      last = permute(s8 + so * elem_bytes, d8 + dof * elem_bytes, sp.extents, sp.perm, elem_bytes,
                     sp.layout, options);
      if (!last) return last;
      for (std::size_t k = idx.size(); k-- > 0;)  // the next looped index, last fastest
        if (++idx[k] < sp.loop_extents[k])
          break;
        else
          idx[k] = 0;
    }
    return last;
  }

  // 5. The permutation techniques.
  if (!wide)
    if (std::string why = detail::permute_geometry(r, &a.geo); !why.empty())
      return make_status(StatusCode::kUnsupported, "this permutation cannot run: " + why);
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  if (std::string why = missing_device_code(caps); !why.empty())
    return make_status(StatusCode::kUnsupported, why);
  if (Status s = detail::check_stream(caps.device, options.stream, options.synchronize); !s)
    return s;
  if (Status s = detail::check_device_pointer(src, "src"); !s) return s;
  if (Status s = detail::check_device_pointer(dst, "dst"); !s) return s;
  a.src = src;
  a.dst = dst;
  a.elem_bytes = elem_bytes;
  a.src_span_bytes = p.src_span_bytes;
  a.stream = options.stream;
  a.sm_count = caps.sm_count;
  a.cc = caps.cc;
  kernels::set_permute_policy(caps.policy, elem_bytes, p.tensor_bytes(), caps.sm_count, &a);
  Status result;
  // The tile form as a batch of transposes: permute_transpose or a transpose() technique
  // named, or auto where both tile dimensions are long (auto_prefers_transpose). transpose()'s
  // plans run it, its checks and its one decider's ranking included.
  const bool reg_tile = !wide && named == nullptr && auto_prefers_reg_tile(a, caps.policy);
  if (!wide && (transpose_def != nullptr || named == batched || reg_tile ||
                (named == nullptr && auto_prefers_transpose(a, caps.policy)))) {
    BatchStrides st;
    const std::string why = transpose_batch(a, &st);
    if (why.empty()) {
      detail::Request req =
          detail::transpose_request(a.geo.rows, a.geo.cols, elem_bytes, MatrixLayout{}, options);
      req.options.variant = transpose_def != nullptr ? token : reg_tile ? "reg_tile" : "auto";
      req.permute_batch = true;
      req.batch_strides = st;
      req.src_span_bytes = p.src_span_bytes;
      req.dst_span_bytes = p.dst_span_bytes;
      return detail::run_call(req, src, dst);
    }
    if (transpose_def != nullptr)
      return make_status(StatusCode::kUnsupported,
                         "variant '" + token +
                             "' is a transpose() technique, and this "
                             "permutation's tile cannot run as a batch of transposes: " +
                             why);
    if (named == batched && !options.allow_fallback)
      return make_status(StatusCode::kUnsupported,
                         "permute_transpose cannot run this call (allow_fallback = false): " + why);
    if (named == batched) result.fallback_reason = why;
  }
  const PermuteDef* def = named != nullptr && named != batched ? named : tma;
  if ((named == nullptr || named == batched) && (wide || !auto_prefers_tma(a, caps.policy)))
    def = tile;
  TmaMaps maps;
  if (def == tma) {
    if (std::string why = prepare_permute_tma(options.allow_tma, caps, &a, &maps); !why.empty()) {
      if (named != nullptr && !options.allow_fallback)
        return make_status(StatusCode::kUnsupported,
                           "permute_tma cannot run this call (allow_fallback = false): " + why);
      if (named != nullptr) result.fallback_reason = why;
      def = tile;
      a.src_map = a.dst_map = nullptr;
    }
  }
  result.variant = def->info.token;
  auto failed = [&](cudaError_t err, const char* what) {
    Status s = cuda_status(err, (std::string(what) + " '" + def->info.token + "'").c_str());
    s.variant = def->info.token;
    s.fallback_reason = result.fallback_reason;
    return s;
  };
  if (const cudaError_t err = def->launch(a); err != cudaSuccess) {
    if (is_sticky_error(err)) {
      Status s = make_status(StatusCode::kCudaError, sticky_error_text(caps.device, err));
      s.variant = def->info.token;
      return s;
    }
    return failed(err, "launching");
  }
  if (options.synchronize)
    if (const cudaError_t err = cudaStreamSynchronize(options.stream); err != cudaSuccess)
      return failed(err, "running");
  return result;
}

std::string explain_permute(const std::vector<std::int64_t>& extents, const std::vector<int>& perm,
                            int elem_bytes, const PermuteLayout& layout) {
  detail::PermuteProblem p;
  if (Status s = detail::check_permute_args(extents, perm, elem_bytes, layout, &p); !s)
    return "error: " + s.message + "\n";
  const PermuteReduction r = detail::reduce(p);
  std::string out = "reduces to " + r.to_string() + "\n";
  // The default policy's choices, with TMAKIT_POLICY's overrides (no device: the H100's row,
  // whose permute_transpose_min_matrix_bytes is its own; the H200's row takes the struct's).
  const DevicePolicy policy = device_policy(0);
  // The boxes the SMs need (DevicePolicy::box_min_boxes), counted on the H100's and H200's SMs.
  constexpr int kExplainSmCount = 132;
  const std::int64_t min_boxes = policy.box_min_boxes(elem_bytes, kExplainSmCount);
  const int byte_stores = policy.permute_box_byte_stores_target_elems;
  detail::PermuteWidened w;
  if (policy.permute_rows_as_elements && detail::widen_rows(r, elem_bytes, &w).empty())
    return out + "rows of " + std::to_string(w.elem_bytes) + " bytes: moved as " +
           std::to_string(w.elem_bytes) + "-byte elements where src and dst are aligned to " +
           std::to_string(w.elem_bytes) + " bytes (permute_rows_as_elements), which is\n" +
           explain_permute(w.extents, w.perm, w.elem_bytes, w.layout);
  if (r.form == PermuteForm::kCopy || r.form == PermuteForm::kTranspose)
    out += "auto: transpose() runs it (when src and dst are aligned to " +
           std::to_string(r.transpose_elem_bytes) + " bytes" +
           (r.form == PermuteForm::kTranspose ? "; so does permute_transpose, when named" : "") +
           "); permute_tma and permute_tile, when named, run the walk below\n";
  kernels::PermuteArgs a;
  a.dims = dims_of(r);
  const bool registers = policy.box_registers(elem_bytes, p.tensor_bytes());
  // The box of the registers' walk (reg) or the tables', and the largest-box rule's box where the
  // least-waste rule took another (explained beside it).
  BoxPlan box, largest_box;
  bool in_registers = false, other_box = false;
  auto box_of = [&](bool reg, bool whole_runs) {
    if (!kernels::permute_tile_box_plan(
            a.dims, elem_bytes, &box, reg, policy.permute_box_cuts_first,
            policy.permute_box_target_elems, policy.permute_box_least_waste, &in_registers,
            policy.permute_box_max_smem_bytes, whole_runs,
            policy.permute_box_past_static_for_wider_words, min_boxes, byte_stores))
      return false;
    other_box =
        policy.permute_box_least_waste &&
        kernels::permute_tile_box_plan(
            a.dims, elem_bytes, &largest_box, in_registers, policy.permute_box_cuts_first,
            policy.permute_box_target_elems, false, nullptr, policy.permute_box_max_smem_bytes,
            whole_runs, policy.permute_box_past_static_for_wider_words, min_boxes, byte_stores) &&
        box_copies_per_elem(largest_box) > box_copies_per_elem(box);
    return true;
  };
  const bool has_box = box_of(registers, policy.permute_box_whole_runs);
  std::string registers_why;  // which rule took the registers' walk (describe_box)
  // A tables' box moved element by element on both sides at small elements, loaded so at the
  // policy's size, or one the registers' walk could hold: the registers' walk takes it where its
  // box fits, as permute_tile's launcher decides (box_registers_rule, box_registers_takes).
  if (has_box && !in_registers) {
    BoxPlan as_run = box;
    as_run.src_runs = policy.permute_box_src_runs;
    as_run.dst_runs = policy.permute_box_dst_runs;
    as_run.narrow_dst_runs_max_bytes = policy.permute_box_narrow_dst_runs_max_bytes;
    const BoxPlan tables_box = box;
    const bool tables_other = other_box;
    const BoxPlan tables_largest = largest_box;
    const RegistersRules rules = {policy.permute_box_words,
                                  policy.permute_box_registers_elements_max_bytes,
                                  policy.permute_box_registers_src_elements_bytes,
                                  policy.permute_box_registers_box_fits_min_bytes,
                                  policy.box_registers_small_box_ratio(p.tensor_bytes())};
    const RegistersRule rule = box_registers_rule(as_run, elem_bytes, rules, 0, 0);
    const std::uint32_t tables_volume = box.volume;
    // The registers' box with its fields as the launcher sets them (on aligned operands).
    auto reg_as_run = [&] {
      BoxPlan reg = box;
      reg.src_runs = policy.permute_box_src_runs;
      reg.dst_runs = policy.permute_box_dst_runs;
      reg.narrow_dst_runs_max_bytes = policy.permute_box_narrow_dst_runs_max_bytes;
      return reg;
    };
    if (rule != RegistersRule::none &&
        !(box_of(true, policy.permute_box_whole_runs) && in_registers &&
          box_registers_takes_at(rule, as_run, reg_as_run(), elem_bytes, policy.permute_box_words,
                                 policy.permute_box_registers_words_min_bytes, 0, 0))) {
      box = tables_box, other_box = tables_other, largest_box = tables_largest;
      in_registers = false;
    }
    // ...or the box without whole runs where they widened it past the registers' walk
    // (box_whole_runs_yield).
    BoxPlan plain;
    bool plain_registers = true;
    std::uint32_t plain_volume = 0;
    if (!in_registers && policy.permute_box_whole_runs &&
        !policy.permute_box_whole_runs_past_registers &&
        kernels::permute_tile_box_plan(
            a.dims, elem_bytes, &plain, false, policy.permute_box_cuts_first,
            policy.permute_box_target_elems, policy.permute_box_least_waste, &plain_registers,
            policy.permute_box_max_smem_bytes, false,
            policy.permute_box_past_static_for_wider_words, min_boxes, byte_stores) &&
        !plain_registers) {
      plain.src_runs = policy.permute_box_src_runs;
      plain.dst_runs = policy.permute_box_dst_runs;
      plain.narrow_dst_runs_max_bytes = policy.permute_box_narrow_dst_runs_max_bytes;
      const RegistersRule plain_rule = box_registers_rule(plain, elem_bytes, rules, 0, 0);
      if (box_whole_runs_yield(as_run, plain, plain_rule)) {
        if (box_of(true, false) && in_registers &&
            box_registers_takes_at(plain_rule, plain, reg_as_run(), elem_bytes,
                                   policy.permute_box_words,
                                   policy.permute_box_registers_words_min_bytes, 0, 0))
          plain_volume = plain.volume;
        else {
          box = tables_box, other_box = tables_other, largest_box = tables_largest;
          in_registers = false;
        }
      }
    }
    if (in_registers && plain_volume > 0)
      registers_why = "in registers: whole runs would widen the tables' box to " +
                      std::to_string(tables_volume) +
                      " elements, which the registers' walk does not take; without them the box, " +
                      std::to_string(plain_volume) + " elements, fits the registers' walk's " +
                      std::to_string(reg_box_volume(elem_bytes)) + " at " +
                      std::to_string(elem_bytes) +
                      " B (permute_box_whole_runs_past_registers = 0)\n";
    else if (in_registers && rule == RegistersRule::small_box)
      registers_why = "in registers: a tensor of " + std::to_string(p.tensor_bytes()) +
                      " bytes, at most permute_box_registers_small_tensor_bytes = " +
                      std::to_string(policy.permute_box_registers_small_tensor_bytes) +
                      ", whose tables' box, " + std::to_string(tables_volume) +
                      " elements, is at most permute_box_registers_small_box_ratio = " +
                      std::to_string(policy.permute_box_registers_small_box_ratio) +
                      " times the registers' walk's " + std::to_string(reg_box_volume(elem_bytes)) +
                      " at " + std::to_string(elem_bytes) + " B\n";
    else if (in_registers && rule == RegistersRule::elements)
      registers_why =
          "in registers: the tables' walk would move its box element by element on "
          "both sides (no 4-16-byte words) at " +
          std::to_string(elem_bytes) + " B (permute_box_registers_elements_max_bytes = " +
          std::to_string(policy.permute_box_registers_elements_max_bytes) + ")\n";
    else if (in_registers && rule == RegistersRule::src_elements)
      registers_why =
          "in registers: the tables' walk would load its box element by element "
          "through registers (no src word) at " +
          std::to_string(elem_bytes) + " B (permute_box_registers_src_elements_bytes = " +
          std::to_string(policy.permute_box_registers_src_elements_bytes) + ")\n";
    else if (in_registers)
      registers_why =
          "in registers: the tables' box, " + std::to_string(tables_volume) +
          " elements, fits the registers' walk's " + std::to_string(reg_box_volume(elem_bytes)) +
          (elem_bytes < kBoxFitsSmallerBoxMinBytes
               ? ", which plans a box as large and stores dst words as wide,"
               : "") +
          " at " + std::to_string(elem_bytes) + " B (permute_box_registers_box_fits_min_bytes = " +
          std::to_string(policy.permute_box_registers_box_fits_min_bytes) + ")\n";
  } else if (has_box && registers && elem_bytes < policy.permute_box_registers_min_bytes) {
    registers_why = "in registers: a tensor of " + std::to_string(p.tensor_bytes()) +
                    " bytes, at 8 B or more and at most "
                    "permute_box_registers_small_tensor_bytes = " +
                    std::to_string(policy.permute_box_registers_small_tensor_bytes) + "\n";
  }
  // The whole runs rule (make_box_plan's whole_runs): the box it widened, said beside it.
  std::string widened_why;
  if (has_box && policy.permute_box_whole_runs) {
    BoxPlan plain;
    bool plain_registers = false;
    if (kernels::permute_tile_box_plan(
            a.dims, elem_bytes, &plain, in_registers, policy.permute_box_cuts_first,
            policy.permute_box_target_elems, policy.permute_box_least_waste, &plain_registers,
            policy.permute_box_max_smem_bytes, false,
            policy.permute_box_past_static_for_wider_words, min_boxes, byte_stores) &&
        plain_registers == in_registers && plain.dims == box.dims && plain.volume != box.volume) {
      // Box dimension 0 is src's contiguous one, dst_order[0] dst's (make_box_plan).
      const int d0 = box.dst_order[0];
      const bool dst = box.box[d0] != plain.box[d0], src = d0 != 0 && box.box[0] != plain.box[0];
      widened_why = std::string("whole runs: ") +
                    (dst && src ? "dst's and src's contiguous dimensions"
                     : dst      ? "dst's contiguous dimension"
                                : "src's contiguous dimension") +
                    " taken whole, the run continuing into the next dimension of that side in "
                    "the box (permute_box_whole_runs; " +
                    std::to_string(plain.volume) + " elements without it)\n";
    }
  }
  // The larger box taken for its wider words (box_words_wider), said beside it.
  if (has_box && !in_registers && policy.permute_box_past_static_for_wider_words &&
      policy.permute_box_max_smem_bytes > kBoxMaxSmemBytes) {
    BoxPlan small;
    bool small_registers = false;
    if (kernels::permute_tile_box_plan(
            a.dims, elem_bytes, &small, in_registers, policy.permute_box_cuts_first,
            policy.permute_box_target_elems, policy.permute_box_least_waste, &small_registers,
            kBoxMaxSmemBytes, policy.permute_box_whole_runs, false, min_boxes, byte_stores) &&
        small_registers == in_registers && small.volume != box.volume &&
        !box_past_static_smem(small, elem_bytes) && box_words_wider(box, small, elem_bytes))
      widened_why += "past the static 48 KB for wider words: " +
                     std::to_string(box_vector_elems(box, false, elem_bytes, 0) * elem_bytes) +
                     "-byte dst words, where the box under 48 KB (" + std::to_string(small.volume) +
                     " elements, walked pipelined through registers) stores " +
                     std::to_string(box_vector_elems(small, false, elem_bytes, 0) * elem_bytes) +
                     " bytes (permute_box_past_static_for_wider_words)\n";
  }
  // The box the policy's target plans with one of the rules below left out (min_boxes_at,
  // byte_stores_at: box_plan_for's), to say beside the box a rule chose why it differs.
  const auto plan_at_target = [&](std::int64_t min_boxes_at, int byte_stores_at, BoxPlan* at_target,
                                  bool* target_registers) {
    return kernels::permute_tile_box_plan(
        a.dims, elem_bytes, at_target, in_registers, policy.permute_box_cuts_first,
        policy.permute_box_target_elems, policy.permute_box_least_waste, target_registers,
        policy.permute_box_max_smem_bytes, policy.permute_box_whole_runs,
        policy.permute_box_past_static_for_wider_words, min_boxes_at, byte_stores_at);
  };
  // The box of a smaller target where the target's leaves too few boxes (box_plan_for's
  // min_boxes), said beside it.
  if (has_box && min_boxes > 0) {
    BoxPlan at_target;
    bool target_registers = false;
    if (plan_at_target(0, byte_stores, &at_target, &target_registers) &&
        target_registers == in_registers && at_target.boxes != box.boxes)
      widened_why +=
          "too few boxes for the SMs: the target's box (" + std::to_string(at_target.volume) +
          " elements) leaves " + std::to_string(at_target.boxes) + ", under " +
          std::to_string(policy.permute_box_min_boxes_per_sm) + " an SM on " +
          std::to_string(kExplainSmCount) +
          " SMs (permute_box_min_boxes_per_sm); so the box of a smaller target, down "
          "to " +
          std::to_string(kBoxMinTargetElems) + " elements" +
          (box.boxes < min_boxes ? " (none leaves as many: the one with the most)\n" : "\n");
  }
  // The larger box of 1-byte boxes whose dst rows hold no word (box_plan_for's
  // byte_stores_target_elems), said beside it.
  if (has_box && !in_registers && byte_stores > policy.permute_box_target_elems) {
    BoxPlan at_target;
    bool target_registers = false;
    if (plan_at_target(min_boxes, 0, &at_target, &target_registers) && !target_registers &&
        at_target.volume != box.volume && box_byte_stores(box, elem_bytes))
      widened_why += "byte-wide dst rows: the box of a " + std::to_string(byte_stores) +
                     "-element target (permute_box_byte_stores_target_elems), fewer barriers "
                     "a byte than the target's (" +
                     std::to_string(at_target.volume) + " elements)\n";
  }
  const BoxPlan* largest = other_box ? &largest_box : nullptr;
  a.rows_min_bytes = policy.rows_min_bytes(elem_bytes);
  a.rows_flat_max_vector_bytes = policy.permute_rows_flat_max_vector_bytes;
  a.tile_min_fill_pct = policy.tile_min_fill_pct(elem_bytes);
  a.box_registers = registers;  // what auto's choices below weigh, as permute() sets them
  a.box_cuts_first = policy.permute_box_cuts_first;
  a.box_target_elems = policy.permute_box_target_elems;
  a.box_byte_stores_target_elems = byte_stores;
  a.box_min_boxes = min_boxes;
  a.box_least_waste = policy.permute_box_least_waste;
  if (r.extents.size() > 5) {
    const std::string rank = "rank " + std::to_string(r.extents.size());
    detail::PermuteSplit sp;
    auto launches = [&] {
      std::string looped;
      for (std::size_t k = 0; k < sp.loop_extents.size(); ++k)
        looped += (k ? ", " : "") + std::to_string(sp.loop_extents[k]) + " (src stride " +
                  std::to_string(sp.loop_src[k]) + ", dst stride " +
                  std::to_string(sp.loop_dst[k]) + ")";
      return std::to_string(sp.launches) + " launches of a rank-" +
             std::to_string(sp.extents.size()) + " permutation, the host looping over " + looped +
             "; each:\n" + explain_permute(sp.extents, sp.perm, elem_bytes, sp.layout);
    };
    if (auto_splits_for_transposes(r, elem_bytes, policy, &sp))
      return out + rank + ", both tile dimensions at least " +
             std::to_string(policy.wide_transpose_min_side_bytes(elem_bytes)) +
             " bytes (permute_wide_transpose_min_side_bytes): auto runs it as " + launches();
    // Why not the split, where only the matrix rule stopped it.
    std::string why_one;
    const auto [si, sj] = contiguous_dims(r);
    if (const std::int64_t matrix = wide_long_sides_matrix_bytes(r, elem_bytes, policy);
        matrix > 0 && matrix < policy.transpose_min_matrix_bytes(elem_bytes))
      why_one = "; not split into transposes: the " + std::to_string(r.extents[sj]) + " x " +
                std::to_string(r.extents[si]) + " matrix, " + std::to_string(matrix) +
                " bytes, is under the " +
                std::to_string(policy.transpose_min_matrix_bytes(elem_bytes)) +
                " of permute_transpose_min_matrix_bytes";
    if (has_box)
      return out + rank + ": permute_tile's box walk in one launch (auto runs it" + why_one +
             ")\n" +
             describe_box(box, elem_bytes, in_registers, policy, registers_why, largest,
                          widened_why);
    if (std::string why = detail::split_permutation(r, &sp); !why.empty())
      return out + "the permutation kernels cannot run it: " + why + "\n";
    return out + rank + " and no box fits: " + launches();
  }
  if (std::string why = detail::permute_geometry(r, &a.geo); !why.empty())
    return out + "the permutation kernels cannot run it: " + why + "\n";
  a.elem_bytes = elem_bytes;
  a.src = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);  // placeholders: 16-byte
  a.dst = reinterpret_cast<void*>(std::uintptr_t{1} << 41);        // aligned operands
  const PermuteGeometry& g = a.geo;
  auto dim = [](std::int64_t n, std::int64_t ss, std::int64_t ds) {
    return std::to_string(n) + " (src stride " + std::to_string(ss) + ", dst stride " +
           std::to_string(ds) + ")";
  };
  out += std::string("walk (strides in elements): ") +
         (a.moves_rows() ? "whole rows of " : "tiles of ") + "cols " +
         dim(g.cols, g.src_col, g.dst_col) + " x rows " + dim(g.rows, g.src_row, g.dst_row);
  for (int k = 0; k < 3; ++k)
    if (g.batch_extent[k] > 1)
      out += ", batch b" + std::to_string(k) + " " +
             dim(g.batch_extent[k], g.src_batch[k], g.dst_batch[k]);
  out += "\n";
  const kernels::PermuteTmaPlan tma_plan = kernels::plan_permute_tma(a);
  if (r.form != PermuteForm::kCopy && r.form != PermuteForm::kTranspose) {
    const TmaChoice c = auto_tma_choice(a, policy);
    std::string why;
    if (!c.tma && c.box_bytes > 0)
      why = " (its box under 48 KB, " + std::to_string(c.box_bytes) + " bytes, carries more than " +
            std::to_string(policy.permute_tma_max_box_ratio) + " times the " +
            std::to_string(std::llround(c.tile_bytes)) + " bytes of a TMA tile " +
            std::to_string(std::llround(c.fill * 100)) + "% full)";
    else if (!c.tma && !a.moves_rows())
      why = " (TMA tiles " + std::to_string(std::llround(c.fill * 100)) + "% full)";
    else if (!c.tma && c.rows_flat)
      why = " (its flat rows walk: a dense dst)";
    else if (!c.tma)
      why = " (rows of " + std::to_string(g.cols * elem_bytes) + " bytes: permute_tma from " +
            std::to_string(policy.tma_min_row_bytes(elem_bytes)) + " on)";
    BatchStrides st;
    const std::string no_batch = transpose_batch(a, &st);
    const std::int64_t min_side = policy.transpose_min_side_bytes(elem_bytes);
    const std::int64_t matrix_bytes = g.rows * g.cols * elem_bytes;
    const std::string min_matrix = std::to_string(policy.transpose_min_matrix_bytes(elem_bytes));
    if (auto_prefers_reg_tile(a, policy))
      out += "auto: reg_tile over the batch (its blocks of " +
             std::to_string(reg_tile_side(elem_bytes)) + " x " +
             std::to_string(reg_tile_side(elem_bytes)) + " elements take both tile dimensions, " +
             std::to_string(g.rows) + " and " + std::to_string(g.cols) +
             ", and every stride; transposed in registers, no shared memory; "
             "permute_reg_tile_max_bytes = " +
             std::to_string(policy.permute_reg_tile_max_bytes) + ")\n";
    else if (auto_prefers_transpose(a, policy))
      out += "auto: permute_transpose (both tile dimensions at least " + std::to_string(min_side) +
             " bytes: " + std::to_string(g.rows * elem_bytes) + " and " +
             std::to_string(g.cols * elem_bytes) + "; " +
             (kernels::permute_tile_prefers_box(a)
                  ? "a matrix of " + std::to_string(matrix_bytes) + " bytes, at least " + min_matrix
                  : std::string("permute_tile would run its 2-D tile, not the box walk")) +
             ")\n";
    else
      out += std::string("auto: ") +
             (tma_plan.rule != nullptr ? "permute_tile (permute_tma cannot run it)"
              : !c.tma                 ? "permute_tile" + why
                       : "permute_tma (permute_tile where its maps cannot be made)") +
             (!no_batch.empty() ? std::string()
              : std::min(g.rows, g.cols) * elem_bytes < min_side
                  ? "; not permute_transpose: a tile dimension is shorter than " +
                        std::to_string(min_side) + " bytes"
                  : "; not permute_transpose: its " + std::to_string(g.rows) + " x " +
                        std::to_string(g.cols) + " matrix, " + std::to_string(matrix_bytes) +
                        " bytes, is under the " + min_matrix +
                        " from which the transposes beat the box walk "
                        "(permute_transpose_min_matrix_bytes)") +
             "\n";
    if (no_batch.empty()) {
      // The plan's pick: the first of the decider's ranking (the H100's table without a device)
      // that takes a batch of several dimensions.
      const Problem prob{ProblemKind::kTranspose, elem_bytes, st.batch, g.rows, g.cols};
      const Ranking rk = rank_techniques(std::string(), 0, prob);
      std::string pick;
      for (const auto& [token, ratio] : rk.ranked)
        if (const VariantDef* d = find_variant_def(token);
            pick.empty() && d != nullptr && detail::auto_batch_candidate(*d) &&
            d->info.supports_elem_bytes(elem_bytes))
          pick = token;
      out += "permute_transpose: a batch of " + std::to_string(st.batch) + " transposes of " +
             std::to_string(g.rows) + " x " + std::to_string(g.cols) + " (src_ld " +
             std::to_string(st.src_ld_elems) + ", dst_ld " + std::to_string(st.dst_ld_elems) +
             ") over the batch dimensions above, in one launch of " +
             (pick.empty() ? "the first technique that takes such a batch" : pick) +
             " (the decider's first of those that take a batch of several dimensions: " +
             detail::batch_dims_tokens() +
             "; reg_tile only named or by permute_reg_tile_max_bytes)\n";
    } else {
      out += "permute_transpose: cannot run it: " + no_batch + "\n";
    }
  }
  if (kernels::permute_tile_prefers_box(a) && has_box) {
    if (a.moves_rows() && r.extents.size() <= 5)
      out += "permute_tile: rows of " + std::to_string(g.cols * elem_bytes) + " bytes, under the " +
             std::to_string(a.rows_min_bytes) + " bytes from which the " +
             "rows kernels take them at " + std::to_string(elem_bytes) +
             " B (permute_rows_min_bytes), so the box walk\n";
    out += describe_box(box, elem_bytes, in_registers, policy, registers_why, largest, widened_why);
  } else if (a.moves_rows() && kernels::permute_rows_flat(a)) {
    out += "permute_tile: whole rows of " + std::to_string(g.cols * elem_bytes) +
           " bytes into a dense dst, written as one run of aligned 16-byte chunks (rows whose "
           "widest vector is at most " +
           std::to_string(policy.permute_rows_flat_max_vector_bytes) +
           " bytes, permute_rows_flat_max_vector_bytes)\n";
  } else if (a.moves_rows()) {
    out += "permute_tile: whole rows, the widest vector every offset allows";
    PermuteGeometry bytes = g;  // the rows kernels' walk in bytes
    bytes.cols *= elem_bytes, bytes.src_row *= elem_bytes, bytes.dst_row *= elem_bytes;
    for (int k = 0; k < 3; ++k) bytes.src_batch[k] *= elem_bytes, bytes.dst_batch[k] *= elem_bytes;
    constexpr int kSms = 132;  // the H100's and the H200's
    if (const std::int64_t seg = kernels::permute_row_segment_bytes(bytes, kSms); seg > 0)
      out += "; few long rows (" + std::to_string(g.rows * g.batch()) + " of " +
             std::to_string(bytes.cols) + " bytes), so each is cut into " +
             std::to_string(bytes.cols / seg) + " segments of " + std::to_string(seg) +
             " bytes, the rest of each row (" + std::to_string(bytes.cols % seg) +
             " bytes) a second launch (on " + std::to_string(kSms) + " SMs)";
    out += "\n";
  } else
    out += "permute_tile: " + std::to_string(permute_tile_side_elems(elem_bytes)) + " x " +
           std::to_string(permute_tile_side_elems(elem_bytes) + 1) +
           " shared tiles of cols x rows\n";
  const kernels::PermuteTmaPlan plan = kernels::plan_permute_tma(a);
  if (plan.rule != nullptr) return out + "permute_tma: " + plan.rule + "\n";
  MapSide src, dst;
  map_sides(a, plan, &src, &dst);
  for (const MapSide* side : {&src, &dst}) {
    const TensorMapSpec spec = side_spec(*side, g, elem_bytes, plan);
    const ValidationReport rep = validate(spec, 90);
    out += "permute_tma " + side_name(*side, plan) + ":\n" + describe(spec);
    if (!rep.ok()) out += "  not valid: " + rep.to_string() + "\n";
  }
  return out;
}

}  // namespace tmakit
