// Plans: validate a problem once, pick its technique (named, wisdom, the heuristic table or
// measured), encode its tensor maps once; then run it on any operands, swapping only the maps'
// addresses. transpose() and transpose_accumulate() run through the same states (run_call),
// cached per problem.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/heuristic.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/wisdom.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {
namespace detail {
namespace {

std::string known_tokens() {
  std::string s = "auto";
  for (const VariantDef& d : registry()) s += ", " + d.info.token;
  return s;
}

std::string hex_ptr(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

Status invalid(std::string msg) {
  return make_status(StatusCode::kInvalidArgument, std::move(msg));
}

}  // namespace

Status check_device_pointer(const void* p, const char* name) {
  cudaPointerAttributes attr{};
  const cudaError_t err = cudaPointerGetAttributes(&attr, p);
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (is_sticky_error(err)) {
      int dev = 0;
      cudaGetDevice(&dev);
      return make_status(StatusCode::kCudaError, sticky_error_text(dev, err));
    }
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not a CUDA pointer: " + cuda_error_text(err));
  }
  if (attr.type == cudaMemoryTypeUnregistered)
    return invalid(std::string(name) + " (" + hex_ptr(p) +
                   ") is not device-accessible memory (pageable host memory?): allocate it with "
                   "cudaMalloc, cudaMallocManaged or cudaHostAlloc");
  return {};
}

Status check_stream(int device, cudaStream_t stream, bool synchronize) {
  if (synchronize) {
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone)
      return invalid(
          "synchronize = true on a stream that is being captured into a CUDA graph (a "
          "capturing stream cannot be synchronized)");
    cudaGetLastError();
  }
  return check_context_and_stream(device, stream);
}

namespace {

std::string swizzle_list(const std::vector<int>& axis) {
  std::string s;
  for (int b : axis)
    s += (s.empty() ? "" : ", ") + (b == 0 ? std::string("none") : std::to_string(b));
  return s;
}

// A technique's default swizzle: its widest (128B where it has one).
int default_swizzle_bytes(const VariantInfo& info) {
  return info.swizzle_axis_bytes.empty() ? 0 : info.swizzle_axis_bytes.back();
}

NumType num_type_of(DataType type) {
  switch (type) {
    case DataType::kF16:
      return NumType::kF16;
    case DataType::kBF16:
      return NumType::kBF16;
    case DataType::kF32:
      return NumType::kF32;
    case DataType::kF64:
      return NumType::kF64;
    case DataType::kI32:
      return NumType::kI32;
  }
  return NumType::kNone;
}

// Why an accumulate technique cannot take this call's type and scalars (empty: it can).
std::string accumulate_unsupported(const VariantDef& def, const AccumulateCall& acc) {
  if (def.info.token != "tma_reduce") return {};
  if (acc.beta != 1.0)
    return "tma_reduce adds into dst (cp.reduce.async.bulk.tensor .add), so beta must be 1 (got " +
           std::to_string(acc.beta) + ")";
  if (acc.type == DataType::kF64)
    return "tma_reduce: the TMA reduce store has no .add for f64 (it adds f16, bf16, f32 and "
           "32-bit integers)";
  return {};
}

std::string accumulate_tokens() {
  std::string s;
  for (const VariantDef& d : registry())
    if (d.info.kind == VariantKind::kAccumulate) s += (s.empty() ? "" : ", ") + d.info.token;
  return s;
}

// Any 16-byte aligned addresses for maps encoded before the operands are known (never
// dereferenced: a run swaps in its operands).
const void* const kPlanSrcAddress = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);
const void* const kPlanDstAddress = reinterpret_cast<const void*>(std::uintptr_t{1} << 41);

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// Bumped whenever the wisdom held changes, so that cached states pick it up.
std::atomic<unsigned> g_wisdom_generation{0};

std::string shape_class(const Request& r) {
  const std::int64_t e = r.elem_bytes;
  if (std::min(r.rows, r.cols) <= 32) return "skinny or small (a side <= 32)";
  if ((r.rows * e) % 16 == 0 && (r.cols * e) % 16 == 0) return "16-byte rows on both sides";
  return "odd (a side's rows not 16-byte multiples)";
}

std::string beta_class(double beta) {
  return beta == 0 ? "beta0" : beta == 1 ? "beta1" : "beta";
}

// The wisdom key of a problem: everything that changes which technique can run or wins.
std::string problem_key(const Request& r, const ResolvedLayout& lay, const DeviceCaps& caps,
                        bool operands_aligned16) {
  const BatchStrides& st = lay.strides;
  std::string k = r.accumulate ? std::string("accumulate ") + to_string(r.acc.type) + " " +
                                     beta_class(r.acc.beta)
                               : std::string("transpose e") + std::to_string(r.elem_bytes);
  k += " " + r.options.variant + " " + std::to_string(r.rows) + "x" + std::to_string(r.cols) +
       " b" + std::to_string(st.batch) + " ld" + std::to_string(st.src_ld_elems) + "," +
       std::to_string(st.dst_ld_elems) + " bs" + std::to_string(st.src_batch_elems) + "," +
       std::to_string(st.dst_batch_elems) + (operands_aligned16 ? " a16" : " a1") +
       (tma_unavailable(r.options.allow_tma, caps).empty() ? " tma" : " notma") + " cc" +
       std::to_string(caps.cc);
  return k;
}

// The heuristic's words for explain().
std::string heuristic_rule(const Request& r, const DeviceCaps& caps, const std::string& token) {
  const std::string table = kernels::is_hbm3e(caps.dram_gbps) ? "H200" : "H100";
  char gbps[32];
  std::snprintf(gbps, sizeof gbps, "%.0f", caps.dram_gbps);
  if (r.accumulate)
    return "the built-in accumulate table (host/transpose/auto_table.cpp) picks " + token +
           " for " + to_string(r.acc.type) + ", " + beta_class(r.acc.beta) + ", " + shape_class(r) +
           " (the " + table + " table: peak DRAM " + gbps + " GB/s)";
  return "the built-in table (host/transpose/auto_table.cpp) picks " + token + " for " +
         std::to_string(r.elem_bytes) + "-byte elements, " + shape_class(r) + ", batch " +
         std::to_string(r.layout.batch) + " (the " + table + " table: peak DRAM " + gbps + " GB/s)";
}

// The techniques of the request's kind that take its element size and layout on this device
// (their tensor-map rules are checked when each is prepared).
std::vector<const VariantDef*> candidate_defs(const Request& r, const ResolvedLayout& lay,
                                              const DeviceCaps& caps) {
  const VariantKind kind = r.accumulate ? VariantKind::kAccumulate : VariantKind::kTranspose;
  std::vector<const VariantDef*> out;
  for (const VariantDef& d : registry()) {
    if (d.info.kind != kind || !d.info.supports_elem_bytes(r.elem_bytes)) continue;
    if (!d.info.strided && !lay.dense) continue;
    if (caps.cc < d.info.min_cc) continue;
    if (r.accumulate && !accumulate_unsupported(d, r.acc).empty()) continue;
    out.push_back(&d);
  }
  return out;
}

}  // namespace

Status check_null(const void* src, const void* dst) {
  if (src == nullptr) return invalid("src is a null pointer");
  if (dst == nullptr) return invalid("dst is a null pointer");
  return {};
}

Status check_aligned_to_element(const void* src, const void* dst, int elem_bytes) {
  for (const auto& [p, name] : {std::pair<const void*, const char*>{src, "src"}, {dst, "dst"}})
    if (reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(elem_bytes) != 0)
      return invalid(std::string(name) + " (" + hex_ptr(p) + ") is not aligned to the " +
                     std::to_string(elem_bytes) + "-byte element size");
  return {};
}

Status check_no_overlap(const void* src, std::int64_t src_span_bytes, const void* dst,
                        std::int64_t dst_span_bytes, const char* operation) {
  const auto s0 = reinterpret_cast<std::uintptr_t>(src), d0 = reinterpret_cast<std::uintptr_t>(dst);
  if (s0 < d0 + static_cast<std::uintptr_t>(dst_span_bytes) &&
      d0 < s0 + static_cast<std::uintptr_t>(src_span_bytes))
    return invalid("src [" + hex_ptr(src) + ", +" + std::to_string(src_span_bytes) + ") and dst [" +
                   hex_ptr(dst) + ", +" + std::to_string(dst_span_bytes) +
                   ") overlap: " + operation + " is out-of-place");
  return {};
}

Request transpose_request(std::int64_t rows, std::int64_t cols, int elem_bytes,
                          const MatrixLayout& layout, const TransposeOptions& options) {
  Request req;
  req.rows = rows;
  req.cols = cols;
  req.elem_bytes = elem_bytes;
  req.layout = layout;
  req.options = options;
  return req;
}

Status accumulate_request(std::int64_t rows, std::int64_t cols, DataType type, double alpha,
                          double beta, const MatrixLayout& layout, const TransposeOptions& options,
                          Request* req) {
  const int e = data_type_bytes(type);
  if (e == 0)
    return invalid("unknown data type " + std::to_string(static_cast<int>(type)) +
                   " (known: f16, bf16, f32, f64, i32)");
  *req = transpose_request(rows, cols, e, layout, options);
  req->accumulate = true;
  req->acc = {type, alpha, beta};
  return {};
}

Status check_request(const Request& req, const void* src, const void* dst, bool check_operands,
                     const VariantDef** named, ResolvedLayout* lay) {
  const TransposeOptions& options = req.options;
  const AccumulateCall* acc = req.accumulate ? &req.acc : nullptr;
  // 1. The variant and its axes.
  const bool is_auto = options.variant == "auto";
  const VariantDef* def = nullptr;
  if (!is_auto) {
    def = find_variant_def(options.variant);
    if (def == nullptr)
      return invalid("unknown variant '" + options.variant + "' (known: " + known_tokens() + ")");
    const bool accumulates = def->info.kind == VariantKind::kAccumulate;
    if (acc == nullptr && accumulates)
      return invalid("variant '" + def->info.token +
                     "' is a transpose-accumulate technique: call transpose_accumulate()");
    if (acc != nullptr && !accumulates)
      return invalid("variant '" + def->info.token +
                     "' is not a transpose-accumulate technique (those are: auto, " +
                     accumulate_tokens() + ")");
  }
  if (acc != nullptr && acc->type == DataType::kI32)
    for (const auto& [v, name] :
         {std::pair<double, const char*>{acc->alpha, "alpha"}, {acc->beta, "beta"}})
      if (!(v == static_cast<double>(static_cast<std::int64_t>(v))) || v < -2147483648.0 ||
          v > 2147483647.0)
        return invalid(std::string(name) + " must be an integer in int32's range for i32 (got " +
                       std::to_string(v) + ")");
  const int sw = options.swizzle_bytes;
  if (sw != -1 && sw != 0 && sw != 32 && sw != 64 && sw != 128)
    return invalid("swizzle_bytes must be -1 (default), 0, 32, 64 or 128 (got " +
                   std::to_string(sw) + ")");
  if (is_auto && (sw != -1 || options.barrier != TmaBarrier::kDefault))
    return invalid(
        "swizzle_bytes and barrier choose among a TMA technique's variants: name the "
        "technique instead of 'auto'");
  if (def != nullptr && sw != -1) {
    const std::vector<int>& axis = def->info.swizzle_axis_bytes;
    if (std::find(axis.begin(), axis.end(), sw) == axis.end())
      return invalid("variant '" + def->info.token + "' does not take swizzle_bytes = " +
                     std::to_string(sw) + " (its swizzle modes: " + swizzle_list(axis) + ")");
  }
  if (def != nullptr && options.barrier != TmaBarrier::kDefault && !def->info.barrier_axis)
    return invalid("variant '" + def->info.token +
                   "' has no barrier-style axis (barrier = " + to_string(options.barrier) + ")");

  // 2. Arguments, all before touching the device.
  if (check_operands)
    if (Status s = check_null(src, dst); !s) return s;
  const std::int64_t rows = req.rows, cols = req.cols;
  const int elem_bytes = req.elem_bytes;
  if (rows < 1) return invalid("rows must be >= 1 (got " + std::to_string(rows) + ")");
  if (cols < 1) return invalid("cols must be >= 1 (got " + std::to_string(cols) + ")");
  if (elem_bit(elem_bytes) == 0)
    return invalid("element size " + std::to_string(elem_bytes) +
                   " bytes is not one of 1, 2, 4, 8, 16");
  if (def != nullptr && !def->info.supports_elem_bytes(elem_bytes))
    return make_status(StatusCode::kUnsupported, "variant '" + def->info.token +
                                                     "' does not support " +
                                                     std::to_string(elem_bytes) + "-byte elements");
  if (check_operands)
    if (Status s = check_aligned_to_element(src, dst, elem_bytes); !s) return s;
  const bool copy = def != nullptr && def->info.kind == VariantKind::kCopy;
  if (Status s = resolve_layout(rows, cols, elem_bytes, req.layout, copy, lay); !s) return s;
  if (def != nullptr && !def->info.strided && !lay->dense)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def->info.token +
                           "' takes dense operands only (leading dimensions and batch strides "
                           "must be the defaults)");
  if (check_operands)
    if (Status s =
            check_no_overlap(src, lay->src_span_bytes, dst, lay->dst_span_bytes, "transpose");
        !s)
      return s;
  *named = def;
  return {};
}

namespace {

// Fills st->args (everything but the operands and the stream) for technique `def`.
void fill_args(PlanState* st, const VariantDef* def, const void* src, const void* dst) {
  const Request& r = st->req;
  kernels::LaunchArgs& args = st->args;
  args = kernels::LaunchArgs{};
  args.src = src;
  args.dst = const_cast<void*>(dst);
  args.rows = r.rows;
  args.cols = r.cols;
  args.elem_bytes = r.elem_bytes;
  args.strides = st->lay.strides;
  args.sm_count = st->caps.sm_count;
  args.dram_gbps = st->caps.dram_gbps;
  args.cc = st->caps.cc;
  const int sw = r.options.swizzle_bytes;
  args.swizzle = tma_swizzle_mode_from_bytes(sw == -1 ? default_swizzle_bytes(def->info) : sw);
  args.barrier = r.options.barrier == TmaBarrier::kCudaBarrier ? BarrierStyle::kCudaBarrier
                                                               : BarrierStyle::kPtx;
  if (r.accumulate) {
    args.num_type = num_type_of(r.acc.type);
    args.alpha = r.acc.alpha;
    args.beta = r.acc.beta;
  }
}

// Why planned technique `def` cannot run `req` with these arguments (their operands' addresses
// included): the accumulate's type and scalars, then every TMA / vector rule (prepare_tma,
// which on success encodes the maps into *maps and points *args at them).
std::string planned_needs(const Request& req, const VariantDef& def, const DeviceCaps& caps,
                          kernels::LaunchArgs* args, TmaMaps* maps) {
  std::string why = req.accumulate ? accumulate_unsupported(def, req.acc) : std::string();
  if (why.empty()) why = prepare_tma(def, req.options.allow_tma, caps, args, maps);
  return why;
}

// The classic fallback of a technique that cannot run the call.
const VariantDef* classic_fallback(const Request& req, const VariantDef& def) {
  return find_variant_def(fallback_variant(def.info.token, req.rows, req.cols, req.elem_bytes));
}

// The refusals of a technique that cannot run a call (`why`) when its fallback `fb` may not
// replace it: the caller forbade fallbacks, or fb takes dense operands only and these are not.
Status fallback_refusal(const VariantDef& def, const std::string& why, const VariantDef& fb,
                        bool fallback_allowed, bool dense) {
  if (!fallback_allowed)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def.info.token + "' cannot run this call: " + why +
                           " (allow_fallback = false, so its classic fallback '" + fb.info.token +
                           "' did not run)");
  if (!fb.info.strided && !dense)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def.info.token + "' cannot run this call: " + why +
                           "; its fallback '" + fb.info.token + "' takes dense operands only");
  return {};
}

// Why `def` cannot run st's problem on operands at map_src / map_dst (empty: it can; its maps
// are then encoded into st->maps). Fills st->args for it either way.
std::string try_prepare(PlanState* st, const VariantDef* def, const void* map_src,
                        const void* map_dst) {
  fill_args(st, def, map_src, map_dst);
  st->src_map = st->dst_map = false;
  if (def->plan == nullptr) return {};
  const std::string why = planned_needs(st->req, *def, st->caps, &st->args, &st->maps);
  if (why.empty()) {
    st->src_map = st->args.src_map != nullptr;
    st->dst_map = st->args.dst_map != nullptr;
  }
  return why;
}

}  // namespace

Status make_state(const Request& req, const TuneOptions& tune, const void* map_src,
                  const void* map_dst, PlanState* st) {
  st->req = req;
  st->tuning = tune.mode;
  const VariantDef* named = nullptr;
  if (Status s = check_request(req, nullptr, nullptr, false, &named, &st->lay); !s) return s;
  st->is_auto = named == nullptr;
  if (Status s = current_device_caps(&st->caps); !s) return s;
  if (std::string why = missing_device_code(st->caps); !why.empty())
    return make_status(StatusCode::kUnsupported, why);
  const DeviceCaps& caps = st->caps;
  const bool ops16 = aligned16(map_src) && aligned16(map_dst);
  st->problem_key = problem_key(req, st->lay, caps, ops16);
  GpuKey gpu;
  bool have_gpu = false;
  auto gpu_key = [&]() -> const GpuKey* {
    if (!have_gpu) {
      have_gpu = current_gpu_key(&gpu).ok();
      cudaGetLastError();
    }
    return have_gpu ? &gpu : nullptr;
  };

  // Measures among `cands` (skipping those that cannot run), records the winner as wisdom.
  auto measure = [&](std::vector<const VariantDef*> cands) -> Status {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::pair<std::string, double>> timings;
    if (Status s = measure_candidates(req, tune, cands, &timings); !s) return s;
    st->tune_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (timings.empty())
      return make_status(StatusCode::kUnsupported, "no technique can run this call");
    st->timings = timings;
    st->measured_us = timings[0].second;
    st->source = "measured";
    if (const GpuKey* g = gpu_key()) {
      wisdom_store().record(
          *g, st->problem_key,
          {timings[0].first, timings[0].second, static_cast<int>(timings.size())});
      g_wisdom_generation.fetch_add(1);
    }
    return {};
  };
  auto from_wisdom = [&](const VariantDef** out) {
    if (!tune.use_wisdom) return false;
    const GpuKey* g = gpu_key();
    WisdomEntry e;
    if (g == nullptr || !wisdom_store().find(*g, st->problem_key, &e)) return false;
    const VariantDef* d = find_variant_def(e.variant);
    if (d == nullptr) return false;
    // Only a technique that can still run the call (the entry may predate a switch).
    PlanState probe;
    probe.req = req;
    probe.lay = st->lay;
    probe.caps = caps;
    if (caps.cc < d->info.min_cc || !try_prepare(&probe, d, map_src, map_dst).empty()) return false;
    st->measured_us = e.us;
    st->source = "wisdom";
    st->rule = "wisdom for " + g->describe() + ": " + e.variant + " measured fastest of " +
               std::to_string(e.candidates) + " techniques";
    *out = d;
    return true;
  };

  // The tuning table's ranking (host/transpose/heuristic.hpp): its first technique that can
  // run the call; when that is not its first, the first's reason is the fallback reason.
  auto from_table = [&](const VariantDef** out) {
    const GpuKey* g = gpu_key();
    const HeuristicRanking hr =
        rank_techniques(g != nullptr ? g->name : std::string(), caps.dram_gbps, req.rows, req.cols,
                        req.elem_bytes, st->lay.strides.batch);
    std::string first, first_why;
    for (const auto& [token, ratio] : hr.ranked) {
      const VariantDef* d = find_variant_def(token);
      if (d == nullptr || d->info.kind != VariantKind::kTranspose ||
          !d->info.supports_elem_bytes(req.elem_bytes) || (!d->info.strided && !st->lay.dense))
        continue;
      std::string why = caps.cc < d->info.min_cc
                            ? "it needs compute capability " + std::to_string(d->info.min_cc / 10) +
                                  "." + std::to_string(d->info.min_cc % 10)
                            : try_prepare(st, d, map_src, map_dst);
      if (first.empty()) {
        first = token;
        first_why = why;
      }
      if (!why.empty()) continue;
      char buf[64];
      std::snprintf(buf, sizeof buf, "%d nearest measured cell%s (distance %.2f)", hr.cells,
                    hr.cells == 1 ? "" : "s", hr.distance);
      st->rule = "the " + hr.table +
                 " tuning table (host/transpose/tuning/, scripts/tuning_table.py) ranks " + first +
                 " first over its " + buf;
      std::string next;
      for (std::size_t i = 0; i < hr.ranked.size() && i < 4; ++i) {
        std::snprintf(buf, sizeof buf, "%s%s %.3f", i ? ", " : "", hr.ranked[i].first.c_str(),
                      hr.ranked[i].second);
        next += buf;
      }
      st->rule += " (time over their fastest: " + next + ")";
      st->source = "heuristic";
      st->asked = first;
      if (token != first) st->fallback_reason = first_why;
      *out = d;
      return true;
    }
    return false;
  };

  // 3. The technique.
  const VariantDef* def = named;
  if (named != nullptr) {
    st->source = "named";
    st->rule = "named by TransposeOptions::variant";
  } else if (from_wisdom(&def)) {
  } else if (tune.mode == Tuning::kMeasure) {
    if (Status s = measure(candidate_defs(req, st->lay, caps)); !s) return s;
    def = find_variant_def(st->timings[0].first);
  } else if (!req.accumulate && std::min(req.rows, req.cols) > 1 && from_table(&def)) {
    // (A single row or column is a copy: the built-in rules send it to smem_strip, which
    // copies it, with cudaMemcpyAsync from kLineMemcpyMinBytes; no table cell is a line.)
  } else {
    std::string token = req.accumulate ? auto_accumulate_variant(req.rows, req.cols, req.acc.type,
                                                                 req.acc.beta, caps.dram_gbps)
                                       : auto_variant(req.rows, req.cols, req.elem_bytes,
                                                      st->lay.strides.batch, caps.dram_gbps);
    // auto_variant sees the shape, not the layout: bulk_flat's batch form takes dense batches
    // only, and smem_flat (its gather without the TMA unit) moves strided ones itself.
    if (token == "bulk_flat" && !st->lay.dense) token = "smem_flat";
    def = find_variant_def(token);
    st->source = "heuristic";
    st->rule = heuristic_rule(req, caps, token);
  }
  if (st->asked.empty()) st->asked = def->info.token;

  // 4. Its needs (tensor maps, vectors, the device); where they fail, the fallback.
  if (std::string why = try_prepare(st, def, map_src, map_dst); !why.empty()) {
    if (named != nullptr && !req.options.allow_fallback)
      return fallback_refusal(*def, why, *classic_fallback(req, *def), false, st->lay.dense);
    const VariantDef* fb = nullptr;
    if (tune.mode == Tuning::kMeasure) {
      std::vector<const VariantDef*> cands;
      for (const VariantDef* c : candidate_defs(req, st->lay, caps))
        if (c != def) cands.push_back(c);
      // A wisdom entry for a named technique's fallback is keyed by that technique's token.
      if (!from_wisdom(&fb)) {
        if (Status s = measure(cands); !s) return s;
        fb = find_variant_def(st->timings[0].first);
      }
    } else {
      fb = classic_fallback(req, *def);
    }
    if (Status s = fallback_refusal(*def, why, *fb, true, st->lay.dense); !s) return s;
    if (std::string why2 = try_prepare(st, fb, map_src, map_dst); !why2.empty())
      return make_status(StatusCode::kUnsupported,
                         "variant '" + def->info.token + "' cannot run this call: " + why +
                             "; nor can its fallback '" + fb->info.token + "': " + why2);
    def = fb;
    st->fallback_reason = why;
  }
  if (caps.cc < def->info.min_cc)
    return make_status(StatusCode::kUnsupported,
                       "variant '" + def->info.token + "' needs compute capability " +
                           std::to_string(def->info.min_cc / 10) + "." +
                           std::to_string(def->info.min_cc % 10) + "; device " +
                           std::to_string(caps.device) + " has " + std::to_string(caps.cc / 10) +
                           "." + std::to_string(caps.cc % 10) + simulated_cc_note(caps.cc));
  st->def = def;
  st->map_src = map_src;
  st->map_dst = map_dst;
  st->needs_align16 = def->plan != nullptr;
  return {};
}

Status launch_state(const PlanState& st, const void* src, void* dst, cudaStream_t stream,
                    bool synchronize, bool checked) {
  if (!checked) {
    if (Status s = check_null(src, dst); !s) return s;
    if (Status s = check_aligned_to_element(src, dst, st.req.elem_bytes); !s) return s;
    if (Status s =
            check_no_overlap(src, st.lay.src_span_bytes, dst, st.lay.dst_span_bytes, "transpose");
        !s)
      return s;
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev != st.caps.device) {
      cudaGetLastError();
      return invalid("the plan was made for device " + std::to_string(st.caps.device) +
                     "; the current device is " + std::to_string(dev) +
                     " (make a plan per device)");
    }
    if (Status s = check_stream(st.caps.device, stream, synchronize); !s) return s;
  }
  for (const auto& [p, name] : {std::pair<const void*, const char*>{src, "src"}, {dst, "dst"}}) {
    {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      if (std::find(st.checked.begin(), st.checked.end(), p) != st.checked.end()) continue;
    }
    if (Status s = check_device_pointer(p, name); !s) return s;
    std::lock_guard<std::mutex> lock(st.recent_mu);
    st.checked[st.checked_next++ % st.checked.size()] = p;
  }

  const VariantDef* def = st.def;
  Status result;
  result.fallback_reason = st.fallback_reason;
  kernels::LaunchArgs args = st.args;
  args.src = src;
  args.dst = dst;
  args.stream = stream;
  TmaMaps maps;
  const bool same_alignment =
      aligned16(src) == aligned16(st.map_src) && aligned16(dst) == aligned16(st.map_dst);
  if (st.needs_align16 && !same_alignment) {
    // Operands whose alignment differs from the plan's: the whole preparation again, on them.
    args.src_map = args.dst_map = nullptr;
    if (std::string why = planned_needs(st.req, *def, st.caps, &args, &maps); !why.empty()) {
      const VariantDef* fb = classic_fallback(st.req, *def);
      if (Status s = fallback_refusal(*def, why, *fb, st.is_auto || st.req.options.allow_fallback,
                                      st.lay.dense);
          !s)
        return s;
      def = fb;
      args.src_map = args.dst_map = nullptr;
      result.fallback_reason = why;
    }
  } else if ((st.src_map || st.dst_map) && (src != st.map_src || dst != st.map_dst)) {
    // The plan's maps with the operands' addresses (cuTensorMapReplaceAddress), or the same
    // made for these operands recently.
    bool found = false;
    {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      for (const PlanState::Recent& r : st.recent)
        if (r.src == src && r.dst == dst) {
          maps = r.maps;
          found = true;
          break;
        }
    }
    if (found) {
      if (st.src_map) args.src_map = &maps.src;
      if (st.dst_map) args.dst_map = &maps.dst;
    }
    // Each map of the plan with the operand's address.
    auto swapped = [&](const CUtensorMap& planned, const void* planned_at, const void* at,
                       const char* side, CUtensorMap* out) -> Status {
      *out = planned;
      if (at == planned_at) return {};
      Status why;
      if (replace_address_unchecked(out, at, &why) == CUDA_SUCCESS) return {};
      return why.ok() ? make_status(
                            StatusCode::kCudaError,
                            std::string("cuTensorMapReplaceAddress failed on the ") + side + " map")
                      : why;
    };
    if (!found && st.src_map) {
      if (Status s = swapped(st.maps.src, st.map_src, src, "src", &maps.src); !s) return s;
      args.src_map = &maps.src;
    }
    if (!found && st.dst_map) {
      if (Status s = swapped(st.maps.dst, st.map_dst, dst, "dst", &maps.dst); !s) return s;
      args.dst_map = &maps.dst;
    }
    if (!found) {
      std::lock_guard<std::mutex> lock(st.recent_mu);
      PlanState::Recent& r = st.recent[st.recent_next++ % st.recent.size()];
      r.src = src;
      r.dst = dst;
      r.maps = maps;
    }
  } else if (st.src_map || st.dst_map) {  // the operands the maps were encoded for
    if (st.src_map) args.src_map = &st.maps.src;
    if (st.dst_map) args.dst_map = &st.maps.dst;
  }
  const std::string& token = def->info.token;
  result.variant = token;
  auto failed = [&](cudaError_t err, const char* what) {
    Status s = cuda_status(err, (std::string(what) + " '" + token + "'").c_str());
    s.variant = token;
    s.fallback_reason = result.fallback_reason;
    return s;
  };
  if (const cudaError_t err = def->launch(args); err != cudaSuccess) {
    if (is_sticky_error(err)) {  // an earlier fault: say so, not "launching failed"
      Status s = make_status(StatusCode::kCudaError, sticky_error_text(st.caps.device, err));
      s.variant = token;
      return s;
    }
    return failed(err, "launching");
  }
  if (synchronize)
    if (const cudaError_t err = cudaStreamSynchronize(stream); err != cudaSuccess)
      return failed(err, "running");
  return result;
}

namespace {

// transpose()'s states, by everything a state depends on but the operands' addresses.
struct CacheKey {
  std::int64_t rows = 0, cols = 0;
  int elem_bytes = 0;
  MatrixLayout layout;
  std::string variant;
  int swizzle = 0;
  TmaBarrier barrier = TmaBarrier::kDefault;
  bool allow_tma = true, allow_fallback = true, accumulate = false;
  AccumulateCall acc;
  int device = 0, cc = 0;
  bool tma_disabled = false, src16 = false, dst16 = false;
  unsigned wisdom_generation = 0;
  bool operator==(const CacheKey& o) const {
    return rows == o.rows && cols == o.cols && elem_bytes == o.elem_bytes &&
           layout.batch == o.layout.batch && layout.src_ld_elems == o.layout.src_ld_elems &&
           layout.dst_ld_elems == o.layout.dst_ld_elems &&
           layout.src_batch_stride_elems == o.layout.src_batch_stride_elems &&
           layout.dst_batch_stride_elems == o.layout.dst_batch_stride_elems &&
           variant == o.variant && swizzle == o.swizzle && barrier == o.barrier &&
           allow_tma == o.allow_tma && allow_fallback == o.allow_fallback &&
           accumulate == o.accumulate && acc.type == o.acc.type && acc.alpha == o.acc.alpha &&
           acc.beta == o.acc.beta && device == o.device && cc == o.cc &&
           tma_disabled == o.tma_disabled && src16 == o.src16 && dst16 == o.dst16 &&
           wisdom_generation == o.wisdom_generation;
  }
};

class StateCache {
 public:
  std::shared_ptr<const PlanState> find(const CacheKey& k) {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < ring_.size(); ++i)
      if (ring_[i].second && ring_[i].first == k) return ring_[i].second;
    return nullptr;
  }
  void put(const CacheKey& k, std::shared_ptr<const PlanState> st) {
    std::lock_guard<std::mutex> lock(mu_);
    ring_[next_++ % ring_.size()] = {k, std::move(st)};
  }

 private:
  std::mutex mu_;
  std::array<std::pair<CacheKey, std::shared_ptr<const PlanState>>, 32> ring_{};
  std::size_t next_ = 0;
};

StateCache& state_cache() {
  static StateCache cache;
  return cache;
}

}  // namespace

Status run_call(const Request& req, const void* src, void* dst) {
  const VariantDef* named = nullptr;
  ResolvedLayout lay;
  if (Status s = check_request(req, src, dst, true, &named, &lay); !s) return s;
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  if (Status s = check_stream(caps.device, req.options.stream, req.options.synchronize); !s)
    return s;
  CacheKey k;
  k.rows = req.rows;
  k.cols = req.cols;
  k.elem_bytes = req.elem_bytes;
  k.layout = req.layout;
  k.variant = req.options.variant;
  k.swizzle = req.options.swizzle_bytes;
  k.barrier = req.options.barrier;
  k.allow_tma = req.options.allow_tma;
  k.allow_fallback = req.options.allow_fallback;
  k.accumulate = req.accumulate;
  if (req.accumulate) k.acc = req.acc;
  k.device = caps.device;
  k.cc = caps.cc;
  k.tma_disabled = env_settings().tma_disabled;
  k.src16 = aligned16(src);
  k.dst16 = aligned16(dst);
  k.wisdom_generation = g_wisdom_generation.load(std::memory_order_relaxed);
  std::shared_ptr<const PlanState> st = state_cache().find(k);
  if (!st) {
    auto fresh = std::make_shared<PlanState>();
    if (Status s = make_state(req, TuneOptions{}, src, dst, fresh.get()); !s) return s;
    st = fresh;
    state_cache().put(k, st);
  }
  return launch_state(*st, src, dst, req.options.stream, req.options.synchronize, true);
}

void bump_wisdom_generation() {
  g_wisdom_generation.fetch_add(1);
}

}  // namespace detail

// ---- The public Plan ----

namespace {

const std::string& empty_string() {
  static const std::string s;
  return s;
}

Status make_any(Plan* plan, std::shared_ptr<const detail::PlanState>* out,
                const detail::Request& req, const TuneOptions& tune) {
  if (plan == nullptr) return make_status(StatusCode::kInvalidArgument, "plan is a null pointer");
  if (tune.rounds < 1)
    return make_status(StatusCode::kInvalidArgument, "TuneOptions::rounds must be >= 1 (got " +
                                                         std::to_string(tune.rounds) + ")");
  if ((tune.src == nullptr) != (tune.dst == nullptr))
    return make_status(StatusCode::kInvalidArgument,
                       "TuneOptions: give both src and dst to measure on, or neither (scratch "
                       "buffers)");
  if (tune.mode != Tuning::kHeuristic && tune.mode != Tuning::kMeasure)
    return make_status(StatusCode::kInvalidArgument, "TuneOptions::mode is not a Tuning value");
  if (tune.src != nullptr) {  // the operands to measure on must be a valid call
    const VariantDef* named = nullptr;
    ResolvedLayout lay;
    if (Status s = detail::check_request(req, tune.src, tune.dst, true, &named, &lay); !s) {
      s.message = "TuneOptions::src/dst: " + s.message;
      return s;
    }
  }
  auto st = std::make_shared<detail::PlanState>();
  const void* ms = tune.src != nullptr ? tune.src : detail::kPlanSrcAddress;
  const void* md = tune.dst != nullptr ? tune.dst : detail::kPlanDstAddress;
  if (Status s = detail::make_state(req, tune, ms, md, st.get()); !s) return s;
  *out = st;
  return {};
}

}  // namespace

Status make_plan(Plan* plan, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout, const TransposeOptions& options,
                 const TuneOptions& tune) {
  std::shared_ptr<const detail::PlanState> st;
  if (Status s = make_any(plan, &st,
                          detail::transpose_request(rows, cols, elem_bytes, layout, options), tune);
      !s)
    return s;
  plan->state_ = st;
  return {};
}

Status make_accumulate_plan(Plan* plan, std::int64_t rows, std::int64_t cols, DataType type,
                            double alpha, double beta, const MatrixLayout& layout,
                            const TransposeOptions& options, const TuneOptions& tune) {
  detail::Request req;
  if (Status s = detail::accumulate_request(rows, cols, type, alpha, beta, layout, options, &req);
      !s)
    return s;
  std::shared_ptr<const detail::PlanState> st;
  if (Status s = make_any(plan, &st, req, tune); !s) return s;
  plan->state_ = st;
  return {};
}

Status Plan::run(const void* src, void* dst) const {
  if (!state_)
    return make_status(StatusCode::kInvalidArgument, "an empty Plan: make it with make_plan()");
  return run(src, dst, state_->req.options.stream);
}

Status Plan::run(const void* src, void* dst, cudaStream_t stream) const {
  if (!state_)
    return make_status(StatusCode::kInvalidArgument, "an empty Plan: make it with make_plan()");
  return detail::launch_state(*state_, src, dst, stream, state_->req.options.synchronize, false);
}

const std::string& Plan::variant() const {
  return state_ ? state_->def->info.token : empty_string();
}
const std::string& Plan::fallback_reason() const {
  return state_ ? state_->fallback_reason : empty_string();
}
Tuning Plan::tuning() const {
  return state_ ? state_->tuning : Tuning::kHeuristic;
}
const std::string& Plan::source() const {
  return state_ ? state_->source : empty_string();
}
double Plan::measured_us() const {
  return state_ ? state_->measured_us : 0;
}
double Plan::tune_ms() const {
  return state_ ? state_->tune_ms : 0;
}
const std::vector<std::pair<std::string, double>>& Plan::timings() const {
  static const std::vector<std::pair<std::string, double>> none;
  return state_ ? state_->timings : none;
}

std::string Plan::explain() const {
  if (!state_) return "an empty plan\n";
  const detail::PlanState& st = *state_;
  const detail::Request& r = st.req;
  const BatchStrides& s = st.lay.strides;
  char buf[160];
  std::string out = "problem:  ";
  out += r.accumulate
             ? std::string("transpose-accumulate ") + to_string(r.acc.type) + " (alpha " +
                   std::to_string(r.acc.alpha) + ", beta " + std::to_string(r.acc.beta) + "), "
             : std::string("transpose, ") + std::to_string(r.elem_bytes) + "-byte elements, ";
  out += std::to_string(s.batch) + " x " + std::to_string(r.rows) + " x " + std::to_string(r.cols) +
         " (src ld " + std::to_string(s.src_ld_elems) + ", dst ld " +
         std::to_string(s.dst_ld_elems) + (st.lay.dense ? ", dense" : ", strided") + ")\n";
  out += "device:   " + std::to_string(st.caps.device) + ", compute capability " +
         std::to_string(st.caps.cc / 10) + "." + std::to_string(st.caps.cc % 10) + ", " +
         std::to_string(st.caps.sm_count) + " SMs\n";
  out += "asked:    " + r.options.variant + " (tuning: " + to_string(st.tuning) + ")\n";
  out += "runs:     " + st.def->info.token + "\n";
  out += "chosen:   " + st.source + ": ";
  if (st.source == "measured") {
    std::snprintf(
        buf, sizeof buf,
        "the fastest of %zu techniques timed (median of the launches, L2 flushed), in %.1f ms:",
        st.timings.size(), st.tune_ms);
    out += buf;
    for (const auto& [token, us] : st.timings) {
      std::snprintf(buf, sizeof buf, "\n            %-16s %10.2f us  %+6.1f%%", token.c_str(), us,
                    100.0 * (us / st.timings[0].second - 1));
      out += buf;
    }
    out += "\n";
  } else if (st.source == "wisdom") {
    std::snprintf(buf, sizeof buf, " (%.2f us)", st.measured_us);
    out += st.rule + buf + "\n";
  } else {
    out += st.rule + "\n";
  }
  if (!st.fallback_reason.empty())
    out += "fallback: " + st.asked + " cannot run this call: " + st.fallback_reason + "; runs " +
           st.def->info.token + " instead\n";
  if (st.needs_align16)
    out += "operands: " + st.def->info.token +
           " needs 16-byte aligned src and dst; other operands run its classic fallback " +
           detail::classic_fallback(r, *st.def)->info.token + "\n";
  out += "key:      " + st.problem_key + "\n";
  return out;
}

}  // namespace tmakit
