// A plan's selection (plan_state.hpp's make_state): the technique, named, from wisdom, measured,
// or the first of the one decider's ranking that can run the call (host/transpose/decider.hpp);
// its fallback, and what runs operands that break its alignment.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <host/device_policy.hpp>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/wisdom.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit::detail {

std::atomic<unsigned> g_wisdom_generation{0};

namespace {

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
       (tma_unavailable(r.options.allow_tma, caps).empty() ? " tma" : " notma") +
       (r.permute_batch
            ? " pb" + std::to_string(st.batch_n0) + "," + std::to_string(st.batch_n1) + "," +
                  std::to_string(st.src_batch1_elems) + "," + std::to_string(st.dst_batch1_elems) +
                  "," + std::to_string(st.src_batch2_elems) + "," +
                  std::to_string(st.dst_batch2_elems)
            : std::string()) +
       " cc" + std::to_string(caps.cc) + " policy " + caps.policy_key;
  return k;
}

// The kind of technique a request runs: the named technique's (a copy stays a copy), else a
// transpose or an accumulate.
VariantKind kind_of(const Request& r, const VariantDef* named) {
  return named != nullptr ? named->info.kind
         : r.accumulate   ? VariantKind::kAccumulate
                          : VariantKind::kTranspose;
}

// The techniques of `kind` that take the request's element size and layout on this device
// (their tensor-map rules are checked when each is prepared).
std::vector<const VariantDef*> candidate_defs(const Request& r, const ResolvedLayout& lay,
                                              const DeviceCaps& caps, VariantKind kind) {
  std::vector<const VariantDef*> out;
  for (const VariantDef& d : registry()) {
    if (d.info.kind != kind || !d.info.supports_elem_bytes(r.elem_bytes)) continue;
    if (!d.info.strided && !lay.dense) continue;
    if (r.permute_batch && d.info.batch_dims < 3) continue;
    if (r.permute_batch && r.options.variant != d.info.token && !auto_batch_candidate(d)) continue;
    if (caps.cc < d.info.min_cc) continue;
    if (r.accumulate && !accumulate_unsupported(d, r.acc).empty()) continue;
    out.push_back(&d);
  }
  return out;
}

// The decider's problem for a request.
Problem problem_of(const Request& r, const ResolvedLayout& lay) {
  const ProblemKind kind = !r.accumulate     ? ProblemKind::kTranspose
                           : r.acc.beta == 0 ? ProblemKind::kAccumulateBeta0
                                             : ProblemKind::kAccumulate;
  return {kind, r.elem_bytes, lay.strides.batch, r.rows, r.cols};
}

// The candidates in the order a plan tries them: the decider's ranking of those it ranks, then
// the last resort of a class without data, then every other candidate in the registry's order
// (so a technique the data never saw run still backs the rest up). *ranking: the decider's.
std::vector<const VariantDef*> ranked_candidates(const Request& r, const ResolvedLayout& lay,
                                                 const DeviceCaps& caps, VariantKind kind,
                                                 const std::string& gpu_name, Ranking* ranking) {
  const Problem p = problem_of(r, lay);
  const std::vector<const VariantDef*> cands = candidate_defs(r, lay, caps, kind);
  std::vector<const VariantDef*> out;
  auto add = [&](const std::string& token) {
    for (const VariantDef* d : cands)
      if (d->info.token == token && std::find(out.begin(), out.end(), d) == out.end())
        out.push_back(d);
  };
  if (kind == VariantKind::kCopy) {
    add("copy");  // a copy has no ranking: the plain copy, which runs every call, first
  } else {
    *ranking = rank_techniques(gpu_name, caps.dram_gbps, p);
    for (const auto& [token, ratio] : ranking->ranked) add(token);
    add(last_resort_technique(p));
  }
  for (const VariantDef* d : cands) add(d->info.token);
  return out;
}

// "needs compute capability X.Y; device N has A.B" when `def` needs more than the device has
// (a simulated capability says so), else "".
std::string capability_shortfall(const VariantDef& def, const DeviceCaps& caps) {
  if (caps.cc >= def.info.min_cc) return {};
  return "needs compute capability " + std::to_string(def.info.min_cc / 10) + "." +
         std::to_string(def.info.min_cc % 10) + "; device " + std::to_string(caps.device) +
         " has " + std::to_string(caps.cc / 10) + "." + std::to_string(caps.cc % 10) +
         simulated_cc_note(caps.cc);
}

// The ranking's words for explain(): its table, its cells and its first entries.
std::string ranking_rule(const Ranking& r) {
  if (r.table.empty())
    return "no tuning table has cells of this kind and element size: the last resort, then the "
           "registry's order";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%d nearest measured cell%s (distance %.2f)", r.cells,
                r.cells == 1 ? "" : "s", r.distance);
  std::string out = "the " + r.table + " tuning table (host/transpose/tuning/, " +
                    "scripts/tuning_table.py) ranks over its " + buf + ":";
  for (std::size_t i = 0; i < r.ranked.size() && i < 4; ++i) {
    std::snprintf(buf, sizeof buf, "%s %s %.3f", i ? "," : "", r.ranked[i].first.c_str(),
                  r.ranked[i].second);
    out += buf;
  }
  return out + " (predicted time over the fastest)";
}

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
  args.policy = st->caps.policy;
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

// Why planned technique `def` cannot run `req` with these arguments (their operands' addresses
// included): the accumulate's type and scalars, then every TMA / vector rule (prepare_tma,
// which on success encodes the maps into *maps and points *args at them).
std::string planned_needs(const Request& req, const VariantDef& def, const DeviceCaps& caps,
                          kernels::LaunchArgs* args, TmaMaps* maps) {
  std::string why = req.accumulate ? accumulate_unsupported(def, req.acc) : std::string();
  if (why.empty()) why = prepare_tma(def, req.options.allow_tma, caps, args, maps);
  return why;
}

// The refusal of a technique that cannot run a call (`why`) when the caller forbade fallbacks.
Status fallback_refusal(const VariantDef& def, const std::string& why) {
  return make_status(StatusCode::kUnsupported,
                     "variant '" + def.info.token + "' cannot run this call: " + why +
                         " (allow_fallback = false, so the next technique of the ranking did "
                         "not run)");
}

// The device a plan made with TuneOptions::gpu is described for: its table's GPU, compute
// capability 9.0 and the policy its DRAM bandwidth selects, as a build with sm_90 code sees it.
Status described_caps(const std::string& gpu, DeviceCaps* caps) {
  TableGpu t;
  if (!tuning_table_gpu(gpu, &t)) {
    std::string names;
    for (const std::string& n : tuning_tables()) names += (names.empty() ? "" : ", ") + n;
    return invalid("TuneOptions::gpu: no tuning table is for '" + gpu + "' (the tables: " + names +
                   "; name one as h100 or h200)");
  }
  DeviceCaps c;
  c.cc = 90;
  c.sm_count = t.sm_count;
  c.dram_gbps = t.dram_gbps;
  c.code_ptx_version = 90;
  c.policy = device_policy(c.dram_gbps, &c.policy_key);
  c.described = true;
  c.name = t.name;
  *caps = c;
  return {};
}

Status make_state(const Request& req, const TuneOptions& asked_tune, const void* map_src,
                  const void* map_dst, PlanState* st) {
  TuneOptions tune = asked_tune;
  if (tune.mode == Tuning::kDefault)
    tune.mode = tune.gpu.empty() ? default_tuning() : Tuning::kHeuristic;
  st->req = req;
  st->tuning = tune.mode;
  const VariantDef* named = nullptr;
  if (Status s = check_request(req, nullptr, nullptr, false, &named, &st->lay); !s) return s;
  st->is_auto = named == nullptr;
  if (!tune.gpu.empty()) {
    if (tune.mode == Tuning::kMeasure)
      return invalid(
          "TuneOptions::gpu describes a plan for a GPU without using one, so it "
          "cannot measure: use mode kHeuristic (or leave gpu empty to measure here)");
    if (Status s = described_caps(tune.gpu, &st->caps); !s) return s;
    tune.use_wisdom = false;  // wisdom is this machine's GPU's
  } else {
    if (Status s = current_device_caps(&st->caps); !s) return s;
    if (std::string why = missing_device_code(st->caps); !why.empty())
      return make_status(StatusCode::kUnsupported, why);
  }
  const DeviceCaps& caps = st->caps;
  const bool ops16 = aligned16(map_src) && aligned16(map_dst);
  st->problem_key = problem_key(req, st->lay, caps, ops16);
  GpuKey gpu;
  bool have_gpu = false;
  auto gpu_key = [&]() -> const GpuKey* {
    if (caps.described) return nullptr;
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

  // The decider's order (host/transpose/decider.hpp); a technique's reason where it cannot run.
  Ranking ranking;
  const GpuKey* g = gpu_key();
  const std::vector<const VariantDef*> order =
      ranked_candidates(req, st->lay, caps, kind_of(req, named),
                        caps.described ? caps.name
                        : g != nullptr ? g->name
                                       : std::string(),
                        &ranking);
  for (const VariantDef* d : order) st->ranking.push_back(d->info.token);
  // (The preparation first: a TMA technique's reason names the device and a simulated
  // capability; then the capability any technique needs.)
  auto why_not = [&](const VariantDef* d) {
    std::string why = try_prepare(st, d, map_src, map_dst);
    if (why.empty())
      if (std::string cc = capability_shortfall(*d, caps); !cc.empty()) why = "it " + cc;
    return why;
  };
  // The first of the order, `skip` aside, that can run the call (nullptr: none can).
  auto first_runnable = [&](const VariantDef* skip) -> const VariantDef* {
    for (const VariantDef* d : order)
      if (d != skip && why_not(d).empty()) return d;
    return nullptr;
  };

  // 3. The technique.
  const VariantDef* def = named;
  if (named != nullptr) {
    st->source = "named";
    st->rule = "named by TransposeOptions::variant";
  } else if (from_wisdom(&def)) {
  } else if (tune.mode == Tuning::kMeasure) {
    if (Status s = measure(candidate_defs(req, st->lay, caps, kind_of(req, named))); !s) return s;
    def = find_variant_def(st->timings[0].first);
  } else {
    def = first_runnable(nullptr);
    if (def == nullptr)
      return make_status(StatusCode::kUnsupported, "no technique can run this call");
    st->source = "heuristic";
    st->rule = ranking_rule(ranking);
    // The ranking's first, when it could not run, is what the plan asked for.
    if (!order.empty() && order[0] != def) {
      st->asked = order[0]->info.token;
      st->fallback_reason = why_not(order[0]);
    }
  }
  if (st->asked.empty()) st->asked = def->info.token;

  // 4. Its needs (tensor maps, vectors, the device); where they fail, the next technique of the
  // ranking that can run the call (measured instead, in measure mode).
  if (std::string why = why_not(def); !why.empty()) {
    if (named != nullptr && !req.options.allow_fallback) return fallback_refusal(*def, why);
    const VariantDef* fb = nullptr;
    if (tune.mode == Tuning::kMeasure) {
      std::vector<const VariantDef*> cands;
      for (const VariantDef* c : candidate_defs(req, st->lay, caps, kind_of(req, named)))
        if (c != def) cands.push_back(c);
      // A wisdom entry for a named technique's fallback is keyed by that technique's token.
      if (!from_wisdom(&fb)) {
        if (Status s = measure(cands); !s) return s;
        fb = find_variant_def(st->timings[0].first);
      }
    } else {
      fb = first_runnable(def);
    }
    if (fb == nullptr)
      return make_status(StatusCode::kUnsupported,
                         "variant '" + def->info.token + "' cannot run this call: " + why +
                             (st->lay.dense ? "; nor can any other technique of its kind"
                                            : "; every other technique of its kind that could "
                                              "takes dense operands only"));
    if (std::string why2 = why_not(fb); !why2.empty())
      return make_status(StatusCode::kUnsupported,
                         "variant '" + def->info.token + "' cannot run this call: " + why +
                             "; nor can its fallback '" + fb->info.token + "': " + why2);
    def = fb;
    st->fallback_reason = why;
  }
  // Operands that break def's alignment at run time: the next technique of the ranking that
  // needs none (no planner: any alignment runs).
  st->unaligned_def = nullptr;
  for (const VariantDef* d : order)
    if (d != def && d->plan == nullptr && caps.cc >= d->info.min_cc) {
      st->unaligned_def = d;
      break;
    }
  if (std::string cc = capability_shortfall(*def, caps); !cc.empty())
    return make_status(StatusCode::kUnsupported, "variant '" + def->info.token + "' " + cc);
  st->def = def;
  st->map_src = map_src;
  st->map_dst = map_dst;
  st->needs_align16 = def->plan != nullptr;
  return {};
}

}  // namespace tmakit::detail
