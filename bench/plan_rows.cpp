// Plans in the benchmark (tmakit/plan.hpp):
//
// plan_host/<token>/e4/64x64: host microseconds per call of the same kernel launched four ways,
// interleaved in rotating order (60 iterations of 100 calls each way on a host clock, the device
// drained after each 100), medians as counters:
//   bare_us       the registry's launcher with the plan's prepared arguments (the floor)
//   plan_us       Plan::run on the same operands each call
//   plan_swap_us  Plan::run alternating two operand pairs (the tensor maps' addresses swapped)
//   transpose_us  the one-call transpose() (its cached state found each call)
// and each one's difference from bare_us (*_above_bare_us).
//
// plan_survey/e<bytes>/<class>/<shape>: one cell of the random survey (host/cli/shapes.hpp,
// survey_cells: fixed seed, every class, 1-16 B, no preset's shape). In one process per cell:
// every technique that can run it verified against the CPU reference and timed (21 rounds,
// shuffled, L2 flushed before each launch, median: the protocol of Tuning::kMeasure with more
// rounds, run separately; counters t_<token>, microseconds); then a measure plan made on the cell's
// operands (its dst verified afterwards), and a heuristic plan. Counters: best_us, measure_us and
// heuristic_us (the first timing's figure of each plan's pick), measure_ratio and heuristic_ratio
// (best_us over it: 1 = the best technique), tune_ms (make_plan's wall time in measure mode),
// candidates.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>
#include <benchmark/benchmark.h>
#include <host/cli/shapes.hpp>
#include <host/error.hpp>
#include <host/tools/reference.hpp>
#include <host/tools/testdata.hpp>
#include <host/tools/timing.hpp>
#include <host/transpose/plan_state.hpp>
#include <tmakit/plan.hpp>
#include "cell_data.hpp"
#include "device_compare.hpp"
#include "host_timing.hpp"

namespace tmakit::bench {
namespace {

struct DeviceBuf {
  void* p = nullptr;
  explicit DeviceBuf(std::size_t bytes) {
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      cudaGetLastError();
      p = nullptr;
    }
  }
  ~DeviceBuf() {
    if (p != nullptr) cudaFree(p);
  }
};

void plan_host(benchmark::State& st, const std::string& token) {
  DeviceBuf src(64 * 64 * 4), dst(64 * 64 * 4), src2(64 * 64 * 4), dst2(64 * 64 * 4);
  if (!src.p || !dst.p || !src2.p || !dst2.p) return st.SkipWithError("cudaMalloc failed");
  TransposeOptions o;
  o.variant = token;
  Plan plan;
  if (Status s = make_plan(&plan, 64, 64, 4, {}, o); !s) return st.SkipWithError(s.message.c_str());
  st.SetLabel("ran " + plan.variant());
  // The bare launch: the plan's own prepared state, through the registry without any check.
  detail::Request req;
  req.rows = req.cols = 64;
  req.elem_bytes = 4;
  req.options = o;
  detail::PlanState state;
  if (Status m = detail::make_state(req, TuneOptions{}, src.p, dst.p, &state); !m)
    return st.SkipWithError(m.message.c_str());
  kernels::LaunchArgs args = state.args;
  args.src = src.p;
  args.dst = dst.p;
  if (state.src_map) args.src_map = &state.maps.src;
  if (state.dst_map) args.dst_map = &state.maps.dst;
  const VariantDef* def = state.def;
  bool ok = true;
  int k = 0;
  const std::function<bool()> forms[4] = {
      [&] { return def->launch(args) == cudaSuccess; }, [&] { return plan.run(src.p, dst.p).ok(); },
      [&] { return ((++k & 1) ? plan.run(src.p, dst.p) : plan.run(src2.p, dst2.p)).ok(); },
      [&] { return transpose(src.p, dst.p, 64, 64, 4, o).ok(); }};
  std::vector<double> us[4];
  int round = 0;
  for (auto _ : st) {
    // The four forms interleaved, in a rotating order, so that drift in the host's speed falls
    // on all of them alike: 100 calls each on a host clock, the device drained after each.
    double total = 0;
    for (int j = 0; j < 4; ++j) {
      const int f = (j + round) % 4;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) ok = forms[f]() && ok;
      const auto t1 = std::chrono::steady_clock::now();
      cudaDeviceSynchronize();
      const double dt = std::chrono::duration<double>(t1 - t0).count();
      us[f].push_back(1e6 * dt / 100);
      total += dt;
    }
    ++round;
    st.SetIterationTime(total);
  }
  if (!ok) return st.SkipWithError("a timed call failed");
  const char* names[4] = {"bare_us", "plan_us", "plan_swap_us", "transpose_us"};
  for (int f = 0; f < 4; ++f) st.counters[names[f]] = median(us[f]);
  st.counters["plan_above_bare_us"] = median(us[1]) - median(us[0]);
  st.counters["plan_swap_above_bare_us"] = median(us[2]) - median(us[0]);
  st.counters["transpose_above_bare_us"] = median(us[3]) - median(us[0]);
}

// The separate timing that judges the plans: more rounds than Tuning::kMeasure's default.
constexpr int kSurveyRounds = 21;

// Times each of `runs` (a launch each) in kSurveyRounds rounds of a shuffled order, each launch
// after an L2 flush between two events; the median microseconds of each. Empty on an error.
std::vector<double> time_rounds(const std::vector<std::function<void()>>& runs, unsigned seed) {
  DeviceInfo dev;
  query_device(&dev);
  L2Flusher flusher;
  if (!flusher.init(static_cast<std::size_t>(dev.l2_bytes)).ok()) return {};
  const std::size_t k = runs.size();
  std::vector<std::vector<double>> us(k);
  std::vector<cudaEvent_t> ev(2 * k);
  for (auto& x : ev) cudaEventCreate(&x);
  std::vector<std::size_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < k; ++i) runs[i]();  // warm up
  for (int round = 0; round < kSurveyRounds; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      flusher.flush(nullptr);
      cudaEventRecord(ev[2 * i]);
      runs[i]();
      cudaEventRecord(ev[2 * i + 1]);
    }
    cudaDeviceSynchronize();
    for (std::size_t i = 0; i < k; ++i) {
      float ms = 0;
      cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
      us[i].push_back(1e3 * ms);
    }
  }
  for (auto& x : ev) cudaEventDestroy(x);
  std::vector<double> out(k);
  for (std::size_t i = 0; i < k; ++i) out[i] = median(us[i]);
  return out;
}

// A survey cell's operands on the device: src filled by `fill`, dst, and ref, src's transpose
// computed on the host. Empty why: ready.
struct CellOperands {
  DeviceBuf src, dst, ref;
  std::string why;
  CellOperands(const cli::Shape& s, int e, FillRange fill, std::size_t bytes)
      : src(bytes), dst(bytes), ref(bytes) {
    if (!src.p || !dst.p || !ref.p) {
      why = "cudaMalloc failed";
      return;
    }
    std::vector<unsigned char> h_src(bytes), h_ref(bytes);
    fill_input_and_reference(s.batch, s.rows, s.cols, e, fill, h_src.data(), h_ref.data());
    if (cudaMemcpy(src.p, h_src.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(ref.p, h_ref.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      why = "cudaMemcpy failed";
  }
};

void survey_cell(benchmark::State& st, const cli::Shape& s, int e, bool plans) {
  const std::int64_t n = s.batch * s.rows * s.cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * e;
  CellOperands ops(s, e, fill_index_pattern_range, bytes);
  if (!ops.why.empty()) return st.SkipWithError(ops.why.c_str());
  DeviceBuf &src = ops.src, &dst = ops.dst, &ref = ops.ref;
  MatrixLayout lay;
  lay.batch = s.batch;
  auto verify = [&](const char* what) -> std::string {
    unsigned long long diffs = 0;
    if (cudaDeviceSynchronize() != cudaSuccess ||
        count_differences(dst.p, ref.p, bytes, &diffs) != cudaSuccess)
      return std::string(what) + ": a CUDA error";
    return diffs == 0 ? std::string()
                      : std::string(what) + ": " + std::to_string(diffs) + " words differ";
  };
  // Every technique that runs the cell as itself, verified.
  std::vector<std::pair<std::string, Plan>> techs;
  for (const VariantInfo& v : variants()) {
    if (v.kind != VariantKind::kTranspose || !v.supports_elem_bytes(e)) continue;
    TransposeOptions o;
    o.variant = v.token;
    o.allow_fallback = false;
    Plan p;
    if (!make_plan(&p, s.rows, s.cols, e, lay, o).ok() || !p.fallback_reason().empty()) continue;
    cudaMemset(dst.p, kPoisonByte, bytes);
    if (Status r = p.run(src.p, dst.p); !r) return st.SkipWithError(r.message.c_str());
    if (std::string bad = verify(v.token.c_str()); !bad.empty())
      return st.SkipWithError(bad.c_str());
    techs.emplace_back(v.token, p);
  }
  if (techs.empty()) return st.SkipWithError("no technique runs this cell");
  std::vector<std::function<void()>> runs;
  for (auto& [token, plan] : techs) runs.push_back([&, p = &plan] { p->run(src.p, dst.p); });
  const std::vector<double> medians = time_rounds(runs, static_cast<unsigned>(n * 31 + e));
  if (medians.empty()) return st.SkipWithError("the L2 flush buffer could not be allocated");
  std::map<std::string, double> t;
  std::string best;
  for (std::size_t i = 0; i < techs.size(); ++i) {
    t[techs[i].first] = medians[i];
    if (best.empty() || medians[i] < t[best]) best = techs[i].first;
  }
  auto time_of = [&](const std::string& token) {
    const auto it = t.find(token);
    return it == t.end() ? 0.0 : it->second;
  };
  // The heuristic plan: what `auto` runs on this cell.
  TuneOptions heur;
  heur.use_wisdom = false;
  Plan heuristic;
  if (Status h = make_plan(&heuristic, s.rows, s.cols, e, lay, {}, heur); !h)
    return st.SkipWithError(h.message.c_str());
  cudaMemset(dst.p, kPoisonByte, bytes);
  heuristic.run(src.p, dst.p);
  if (std::string bad = verify("the heuristic plan"); !bad.empty())
    return st.SkipWithError(bad.c_str());
  const double h_us = time_of(heuristic.variant());
  std::string label = "best " + best + "; heuristic " + heuristic.variant();
  double m_us = h_us;
  if (plans) {
    // The measure plan, on the cell's operands (dst poisoned first: make_plan must leave the
    // transpose there).
    cudaMemset(dst.p, kPoisonByte, bytes);
    TuneOptions tune;
    tune.mode = Tuning::kMeasure;
    tune.use_wisdom = false;
    tune.src = src.p;
    tune.dst = dst.p;
    Plan measured;
    const auto t0 = std::chrono::steady_clock::now();
    if (Status m = make_plan(&measured, s.rows, s.cols, e, lay, {}, tune); !m)
      return st.SkipWithError(m.message.c_str());
    const double tune_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (std::string bad = verify("dst after make_plan(measure)"); !bad.empty())
      return st.SkipWithError(bad.c_str());
    m_us = time_of(measured.variant());
    st.counters["measure_us"] = m_us;
    st.counters["measure_ratio"] = m_us > 0 ? t[best] / m_us : 0;
    st.counters["tune_ms"] = tune_ms;
    label += "; measure " + measured.variant();
  }
  for (auto _ : st) st.SetIterationTime(std::max(m_us, 1e-3) * 1e-6);
  st.counters["best_us"] = t[best];
  st.counters["heuristic_us"] = h_us;
  st.counters["heuristic_ratio"] = h_us > 0 ? t[best] / h_us : 0;
  st.counters["candidates"] = static_cast<double>(techs.size());
  st.counters["bytes"] = static_cast<double>(bytes);
  for (const auto& [token, us_median] : t) st.counters["t_" + token] = us_median;
  st.SetLabel(label);
}

// plan_survey_acc/e<bytes>/<class>/<shape>: one cell of the accumulate survey. Every accumulate
// technique that runs the cell as itself (bf16, f32, f64 at 2, 4, 8 B), verified with alpha = 1,
// beta = 1 on a zeroed dst (integer-valued inputs: dst + src^T is the CPU reference, bit for bit),
// then timed with beta = 1 (counters t_<token>, the class every beta other than 0 shares) and
// with beta = 0 (t0_<token>: dst not read), and what `auto` runs for each (heuristic_ratio,
// heuristic0_ratio).
void survey_accumulate_cell(benchmark::State& st, const cli::Shape& s, int e) {
  const std::int64_t n = s.batch * s.rows * s.cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * e;
  const DataType type = e == 2 ? DataType::kBF16 : e == 4 ? DataType::kF32 : DataType::kF64;
  CellOperands ops(s, e, fill_peer_values_range, bytes);
  if (!ops.why.empty()) return st.SkipWithError(ops.why.c_str());
  DeviceBuf &src = ops.src, &dst = ops.dst, &ref = ops.ref;
  MatrixLayout lay;
  lay.batch = s.batch;
  std::string label;
  for (const double beta : {1.0, 0.0}) {
    std::vector<std::pair<std::string, Plan>> techs;
    for (const VariantInfo& v : variants()) {
      if (v.kind != VariantKind::kAccumulate || !v.supports_elem_bytes(e)) continue;
      TransposeOptions o;
      o.variant = v.token;
      o.allow_fallback = false;
      Plan p;
      if (!make_accumulate_plan(&p, s.rows, s.cols, type, 1, beta, lay, o).ok() ||
          !p.fallback_reason().empty())
        continue;
      cudaMemset(dst.p, 0, bytes);
      if (Status r = p.run(src.p, dst.p); !r) return st.SkipWithError(r.message.c_str());
      unsigned long long diffs = 0;
      if (cudaDeviceSynchronize() != cudaSuccess ||
          count_differences(dst.p, ref.p, bytes, &diffs) != cudaSuccess || diffs != 0)
        return st.SkipWithError((v.token + ": " + std::to_string(diffs) + " words differ").c_str());
      techs.emplace_back(v.token, p);
    }
    if (techs.empty()) return st.SkipWithError("no accumulate technique runs this cell");
    std::vector<std::function<void()>> runs;
    for (auto& [token, plan] : techs) runs.push_back([&, p = &plan] { p->run(src.p, dst.p); });
    const std::vector<double> medians = time_rounds(runs, static_cast<unsigned>(n * 37 + e));
    if (medians.empty()) return st.SkipWithError("the L2 flush buffer could not be allocated");
    const std::string prefix = beta == 0 ? "t0_" : "t_";
    double best = 0;
    for (std::size_t i = 0; i < techs.size(); ++i) {
      st.counters[prefix + techs[i].first] = medians[i];
      if (best == 0 || medians[i] < best) best = medians[i];
    }
    TuneOptions heur;
    heur.use_wisdom = false;
    Plan h;
    if (Status hs = make_accumulate_plan(&h, s.rows, s.cols, type, 1, beta, lay, {}, heur); !hs)
      return st.SkipWithError(hs.message.c_str());
    double h_us = 0;
    for (std::size_t i = 0; i < techs.size(); ++i)
      if (techs[i].first == h.variant()) h_us = medians[i];
    st.counters[beta == 0 ? "heuristic0_ratio" : "heuristic_ratio"] = h_us > 0 ? best / h_us : 0;
    label +=
        std::string(label.empty() ? "" : "; ") + (beta == 0 ? "beta 0 " : "beta 1 ") + h.variant();
  }
  for (auto _ : st) st.SetIterationTime(1e-6);
  st.counters["bytes"] = static_cast<double>(bytes);
  st.SetLabel(label);
}

}  // namespace

void register_plan_host_cost() {
  std::vector<std::string> tokens = {"auto"};
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kTranspose && v.supports_elem_bytes(4)) tokens.push_back(v.token);
  for (const std::string& token : tokens)
    benchmark::RegisterBenchmark(("plan_host/" + token + "/e4/64x64").c_str(),
                                 [=](benchmark::State& st) { plan_host(st, token); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(60)
        ->Repetitions(1);
}

void register_plan_survey(const std::vector<cli::SurveyCell>& cells, bool accumulate, bool plans) {
  for (const cli::SurveyCell& c : cells) {
    const cli::Shape s = c.shape;
    const int e = c.elem_bytes;
    if (accumulate && (e == 1 || e == 16)) continue;  // no accumulate type of that size
    benchmark::RegisterBenchmark(((accumulate ? "plan_survey_acc/e" : "plan_survey/e") +
                                  std::to_string(e) + "/" + s.cls + "/" + s.name())
                                     .c_str(),
                                 [=](benchmark::State& st) {
                                   if (accumulate)
                                     survey_accumulate_cell(st, s, e);
                                   else
                                     survey_cell(st, s, e, plans);
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(1)
        ->Repetitions(1);
  }
}

}  // namespace tmakit::bench
