// tmakit_bench: every registered technique (iterating the registry), `auto`, and the libraries
// a user would pick instead (bench/peers.hpp: cudaMemcpyAsync, cuBLAS geam, cuBLASLt, cuTENSOR
// when found), over shape classes that real callers pass, for element sizes 1, 2, 4, 8, 16.
//
// Names: <token>/e<bytes>/<class>/<shape>, shape = <rows>x<cols> or <batch>x<rows>x<cols>;
// classes: square (large, 16-byte-aligned rows), odd (no row a multiple of 16 bytes), skinny
// (k x N and N x k, k <= 32, N in the millions), batched (thousands of small matrices, one
// batch of odd-sized ones), accumulate (dst += src^T against the peers' beta = 1 forms, at a
// square, an odd and a skinny shape; GB/s counts src + dst read + dst written). Plus
// host_overhead/<token>/e4/64x64: host microseconds per transpose() call (synchronize = false),
// 10,000 calls, run before the cells (host_overhead_end/...: the same rows after them).
//
// Timing: CUDA events around the launch only (UseManualTime); buffers, verification,
// descriptors and plans stay outside; 3 warm-up launches; L2 flushed by overwriting a 2 x L2
// scratch buffer (persisting lines demoted first) before every timed launch, then the stream
// held (bench/launch_gate.hpp) until the call is enqueued, so a late host is not timed; each
// cell's benchmarks run in 3 shuffled rounds (--order=rounds, the default; --order=fixed:
// registration order with 3 repetitions each) and bench/report.py takes the median.
// Counters: GBps (decimal, bytes read + written) and pct_of_copy (over the best copy measured
// so far in this process for the same shape and element size: cudaMemcpyAsync, `copy`,
// `tma_copy`; absent before a copy of the cell has run; bench/report.py recomputes it from the
// medians). Every result, peers included, is verified
// bit for bit against the CPU reference before it is timed; a TMA technique that cannot run a
// call is skipped with its reason (allow_fallback = false), never timed as its fallback.
//
//   tmakit_bench --preset=quick|full|probe [--order=rounds|fixed] [--gate=off]
//   tmakit_bench --preset=survey [--survey-count=120] [--survey-seed=20261127]   plans: the
//                random survey and the host-cost rows only (bench/plan_rows.cpp)
//                [--survey-dist=classic|train|domain|channels|channels_aligned|permute|skinny|heldout]
//                the cells' distribution (host/cli/shapes.hpp: the decider's training data and its
//                held-out judge)
//                [--survey-kind=transpose|accumulate]  time the accumulate techniques instead
//                [--survey-plans=0]  no measure plan per cell (training data needs none)
//   tmakit_bench --preset=permute [--permute-random=40] [--permute-seed=1]
//                [--permute-min-mb=16] [--permute-max-mb=256]  (the random cases' sizes)
//                [--permute-min-rank=1]  (1-6: the random cases' least rank after the reduction)
//                [--permute-min-matrix-bytes=LO] [--permute-max-matrix-bytes=HI]  (the random
//                cases instead tiles whose transposed matrix is LO-HI bytes, both its sides at
//                least the transposes' side threshold: host/cli/shapes.hpp, matrix_permutations)
//                permutations against cuTENSOR (bench/permute_rows.cpp)
//   tmakit_bench --survey-cells=E:SHAPE,...   the same for named cells (E: element bytes)
//                [google benchmark flags]
//   tmakit_bench --shapes=[CLASS:]RxC|BxRxC,... [--list-shapes] ...   any shapes (preset
//                "custom"): members of a class that no preset names; --list-shapes prints the
//                parsed shapes with their classes and exits before any GPU is touched
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <random>
#include <memory>
#include <set>
#include <string>
#include <vector>
#include <benchmark/benchmark.h>
#include <bench/launch_gate.hpp>
#include <host/cli/args.hpp>
#include <host/cli/shapes.hpp>
#include <host/error.hpp>
#include <host/tools/reference.hpp>
#include <host/tools/testdata.hpp>
#include <host/tools/timing.hpp>
#include <tmakit/tmakit.hpp>
#include "cell_data.hpp"
#include "device_compare.hpp"
#include "host_timing.hpp"
#include "peers.hpp"
#include "timed_launches.hpp"

namespace tmakit::bench {
namespace {

using Shape = cli::Shape;  // host/cli/shapes.hpp: the presets and --shapes

// One buffer larger than this is not run (32768^2 of 16-byte elements would be 17 GB).
constexpr std::size_t kMaxBufferBytes = 9'000'000'000ull;

void skip(benchmark::State& state, const std::string& why) {
#if defined(TMAKIT_BENCH_HAS_SKIP_MESSAGE)
  state.SkipWithMessage(why.c_str());
#else
  state.SkipWithError(("skipped: " + why).c_str());
#endif
}

// Device buffers and the host reference for one (shape, element size): built once, kept while
// the benchmarks of that shape and size run (they are registered consecutively).
struct Problem {
  Shape shape{};
  int elem_bytes = 0;
  std::size_t bytes = 0;  // one operand: batch * rows * cols * elem_bytes
  void* src = nullptr;
  void* dst = nullptr;
  void* ref = nullptr;  // the CPU reference's transpose, on the device (outputs are compared there)
  ~Problem() {
    cudaFree(src);
    cudaFree(dst);
    cudaFree(ref);
  }
  std::int64_t elems() const { return shape.batch * shape.rows * shape.cols; }
};

Problem* problem_for(const Shape& s, int e, std::string* error) {
  static std::unique_ptr<Problem> current;
  if (current && current->shape.batch == s.batch && current->shape.rows == s.rows &&
      current->shape.cols == s.cols && current->elem_bytes == e)
    return current.get();
  current.reset();
  auto p = std::make_unique<Problem>();
  p->shape = s;
  p->elem_bytes = e;
  const std::int64_t n = p->elems();
  p->bytes = static_cast<std::size_t>(n) * e;
  if (p->bytes > kMaxBufferBytes) {
    *error = "not run: one operand would be " + std::to_string(p->bytes) + " bytes (limit " +
             std::to_string(kMaxBufferBytes) + ")";
    return nullptr;
  }
  if (cudaMalloc(&p->src, p->bytes) != cudaSuccess ||
      cudaMalloc(&p->dst, p->bytes) != cudaSuccess ||
      cudaMalloc(&p->ref, p->bytes) != cudaSuccess) {
    cudaGetLastError();
    *error = "cannot allocate 3 x " + std::to_string(p->bytes) + " bytes";
    return nullptr;
  }
  std::vector<unsigned char> h_src(p->bytes), h_ref(p->bytes);
  unsigned char* src = h_src.data();
  unsigned char* ref = h_ref.data();
  // Integer-valued floats of each peer's type: every library's alpha = 1 is then bit-exact.
  fill_input_and_reference(s.batch, s.rows, s.cols, e, fill_peer_values_range, src, ref);
  if (cudaMemcpy(p->src, src, p->bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(p->ref, ref, p->bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    *error = "cudaMemcpy of the input or the reference failed";
    return nullptr;
  }
  current = std::move(p);
  return current.get();
}

DeviceInfo g_dev;
std::unique_ptr<L2Flusher> g_flusher;
LaunchGate g_gate;  // off with --gate=off (the runs before 2026-11-24)
std::vector<std::unique_ptr<Peer>> g_peers;
std::map<std::string, double> g_best_copy_gbps;  // "<shape>/e<bytes>" -> GB/s

// What a timed call does: a transpose (or a peer's), a copy, or a transpose-accumulate with
// alpha = beta = 1 (dst += src^T: dst is read too, 3 operands of traffic instead of 2).
enum class Op { kTranspose, kCopy, kAccumulate };

// Verify once (output poisoned, or zeroed for an accumulate so that dst + src^T = the reference
// transpose; bit for bit against the CPU reference, compared on the device), then time each
// iteration with events.
void run(benchmark::State& state, const std::string& name, Problem& p, Op op,
         const std::function<Status()>& launch) {
  static std::set<std::string> verified;  // repetitions call this function again
  const bool is_copy = op == Op::kCopy;
  Status st;
  if (!verified.count(name)) {
    cudaMemset(p.dst, op == Op::kAccumulate ? 0 : kPoisonByte, p.bytes);
    st = launch();
    if (st) st = cuda_status(cudaDeviceSynchronize(), "kernel");
    if (!st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
    unsigned long long diffs = 0;
    st = cuda_status(count_differences(p.dst, is_copy ? p.src : p.ref, p.bytes, &diffs),
                     "verification");
    if (!st || diffs != 0) {
      state.SkipWithError(!st ? st.message.c_str()
                              : ("verification failed: " + std::to_string(diffs) +
                                 " words differ from the CPU reference")
                                    .c_str());
      return;
    }
    verified.insert(name);
  }
  const double total_ms = time_gated_launches(state, *g_flusher, g_gate, launch);
  if (total_ms < 0 || state.iterations() == 0) return;
  const double moved = (op == Op::kAccumulate ? 3.0 : 2.0) * static_cast<double>(p.bytes);
  const double gbps = moved / (total_ms / state.iterations() * 1e6);
  const std::string key = p.shape.name() + "/e" + std::to_string(p.elem_bytes);
  if (is_copy) g_best_copy_gbps[key] = std::max(g_best_copy_gbps[key], gbps);
  state.counters["GBps"] =
      benchmark::Counter(moved / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  const auto best = g_best_copy_gbps.find(key);
  if (best != g_best_copy_gbps.end() && best->second > 0)
    state.counters["pct_of_copy"] = 100.0 * gbps / best->second;
  state.counters["bytes_moved"] = moved;
}

// How a cell's benchmarks (one shape and element size: copies, techniques, auto, peers) are
// ordered. kRounds (the default since 2026-11-24): `repetitions` rounds, each registering every
// benchmark of the cell once in its own seeded shuffle, so no technique always follows the same
// one; the median over the rounds is computed by bench/report.py. In registration order
// (kFixed, --order=fixed: the runs before 2026-11-24), `auto`, which always ran right after
// bulk_copy, timed the same kernel as the named technique at 0.93-0.97 (tma_pipeline, 1 B) and,
// before the flush demoted evict_last lines, at up to 1.21x (docs/perf-guide.md).
enum class Order { kRounds, kFixed };
Order g_order = Order::kRounds;

using BenchFn = std::function<void(benchmark::State&)>;

void add(const std::string& name, BenchFn fn, int iterations, int repetitions) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(iterations)
      ->Repetitions(repetitions)
      ->ReportAggregatesOnly(false);
}

// Registers one cell's benchmarks (see Order). Copies stay first in kFixed order, so the live
// pct_of_copy counter has its copy; bench/report.py recomputes that percentage anyway.
void add_cell(const std::string& cell, const std::vector<std::pair<std::string, BenchFn>>& benches,
              int iterations, int repetitions) {
  if (g_order == Order::kFixed) {
    for (const auto& [name, fn] : benches) add(name, fn, iterations, repetitions);
    return;
  }
  std::vector<std::size_t> order(benches.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(cell)));
  for (int round = 0; round < repetitions; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) add(benches[i].first, benches[i].second, iterations, 1);
  }
}

// A copy peer (cudaMemcpyAsync) on shape s: the roofline of any class.
BenchFn peer_bench_copy(Peer* peer, const Shape& s, int e) {
  return [=](benchmark::State& st) {
    std::string err;
    Problem* p = problem_for(s, e, &err);
    if (p == nullptr) return skip(st, err);
    const PeerCall call{p->src, p->dst, s.batch, s.rows, s.cols, e};
    if (Status ps = peer->prepare(call); !ps) return st.SkipWithError(ps.message.c_str());
    st.SetLabel(peer->type_name(e));
    run(st, std::string(peer->token()) + "/e" + std::to_string(e) + "/" + s.cls + "/" + s.name(),
        *p, Op::kCopy, [peer] { return peer->launch(); });
  };
}

void register_shape(const Shape& s, int e, int iterations, int repetitions) {
  const std::string suffix = "/e" + std::to_string(e) + "/" + s.cls + "/" + s.name();
  auto peer_bench = [=](Peer* peer) {
    return [=](benchmark::State& st) {
      const PeerCall probe{nullptr, nullptr, s.batch, s.rows, s.cols, e};
      if (std::string why = peer->unsupported(probe); !why.empty()) return skip(st, why);
      std::string err;
      Problem* p = problem_for(s, e, &err);
      if (p == nullptr) return skip(st, err);
      const PeerCall call{p->src, p->dst, s.batch, s.rows, s.cols, e};
      if (Status ps = peer->prepare(call); !ps) return st.SkipWithError(ps.message.c_str());
      st.SetLabel(peer->type_name(e));
      run(st, peer->token() + suffix, *p, peer->is_copy() ? Op::kCopy : Op::kTranspose,
          [peer] { return peer->launch(); });
    };
  };
  auto technique_bench = [=](const std::string& token) {
    return [=](benchmark::State& st) {
      const VariantInfo* info = token == "auto" ? nullptr : find_variant(token);
      if (info != nullptr && !info->supports_elem_bytes(e))
        return skip(st, token + " does not support " + std::to_string(e) + "-byte elements");
      if (info != nullptr && g_dev.cc < info->min_cc)
        return skip(st, token + " needs compute capability " + std::to_string(info->min_cc));
      std::string err;
      Problem* p = problem_for(s, e, &err);
      if (p == nullptr) return skip(st, err);
      TransposeOptions o;
      o.variant = token;
      o.allow_fallback = false;  // time the technique itself or nothing
      MatrixLayout lay;
      lay.batch = s.batch;
      // Which technique runs (auto's pick; a refusal is a skip with its reason).
      Status probe = transpose(p->src, p->dst, s.rows, s.cols, e, lay, o);
      if (probe.code == StatusCode::kUnsupported) return skip(st, probe.message);
      if (!probe) return st.SkipWithError(probe.message.c_str());
      if (token == "auto") st.SetLabel("ran " + probe.variant);
      const bool is_copy = info != nullptr && info->kind == VariantKind::kCopy;
      run(st, token + suffix, *p, is_copy ? Op::kCopy : Op::kTranspose,
          [=] { return transpose(p->src, p->dst, s.rows, s.cols, e, lay, o); });
    };
  };
  // Copies first (in kFixed order), so the transposes of this shape can be put against the
  // best of them.
  std::vector<std::pair<std::string, BenchFn>> benches;
  for (auto& peer : g_peers)
    if (peer->is_copy()) benches.emplace_back(peer->token() + suffix, peer_bench(peer.get()));
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kCopy)
      benches.emplace_back(v.token + suffix, technique_bench(v.token));
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kTranspose)
      benches.emplace_back(v.token + suffix, technique_bench(v.token));
  benches.emplace_back("auto" + suffix, technique_bench("auto"));
  for (auto& peer : g_peers)
    if (!peer->is_copy()) benches.emplace_back(peer->token() + suffix, peer_bench(peer.get()));
  add_cell(suffix, benches, iterations, repetitions);
}

// Transpose-accumulate with alpha = beta = 1 (dst += src^T), class `accumulate`: the copies
// (the roofline, 2 operands), every accumulate technique, auto, and the peers' beta = 1 forms.
// Types: bf16 (2 B), f32 (4 B), f64 (8 B), the types the peers' integer-valued inputs have.
void register_accumulate(const Shape& shape, int e, int iterations, int repetitions) {
  const Shape s{"accumulate", shape.batch, shape.rows, shape.cols};
  const std::string suffix = "/e" + std::to_string(e) + "/" + s.cls + "/" + s.name();
  const DataType type = e == 2 ? DataType::kBF16 : e == 4 ? DataType::kF32 : DataType::kF64;
  auto copy_bench = [=](const std::string& token) {
    return [=](benchmark::State& st) {
      std::string err;
      Problem* p = problem_for(s, e, &err);
      if (p == nullptr) return skip(st, err);
      TransposeOptions o;
      o.variant = token;
      run(st, token + suffix, *p, Op::kCopy,
          [=] { return transpose(p->src, p->dst, s.rows, s.cols, e, o); });
    };
  };
  auto technique_bench = [=](const std::string& token) {
    return [=](benchmark::State& st) {
      std::string err;
      Problem* p = problem_for(s, e, &err);
      if (p == nullptr) return skip(st, err);
      TransposeOptions o;
      o.variant = token;
      o.allow_fallback = false;
      MatrixLayout lay;
      lay.batch = s.batch;
      Status probe = transpose_accumulate(p->src, p->dst, s.rows, s.cols, type, 1, 1, lay, o);
      if (probe.code == StatusCode::kUnsupported) return skip(st, probe.message);
      if (!probe) return st.SkipWithError(probe.message.c_str());
      st.SetLabel(token == "auto" ? "ran " + probe.variant : std::string(to_string(type)));
      run(st, token + suffix, *p, Op::kAccumulate,
          [=] { return transpose_accumulate(p->src, p->dst, s.rows, s.cols, type, 1, 1, lay, o); });
    };
  };
  auto peer_bench = [=](Peer* peer) {
    return [=](benchmark::State& st) {
      PeerCall call{nullptr, nullptr, s.batch, s.rows, s.cols, e, true};
      if (std::string why = peer->unsupported(call); !why.empty()) return skip(st, why);
      std::string err;
      Problem* p = problem_for(s, e, &err);
      if (p == nullptr) return skip(st, err);
      call.src = p->src;
      call.dst = p->dst;
      if (Status ps = peer->prepare(call); !ps) return st.SkipWithError(ps.message.c_str());
      st.SetLabel(peer->type_name(e) + ", beta = 1");
      run(st, peer->token() + suffix, *p, Op::kAccumulate, [peer] { return peer->launch(); });
    };
  };
  std::vector<std::pair<std::string, BenchFn>> benches;
  for (auto& peer : g_peers)
    if (peer->is_copy())
      benches.emplace_back(peer->token() + suffix, peer_bench_copy(peer.get(), s, e));
  benches.emplace_back("copy" + suffix, copy_bench("copy"));
  for (const VariantInfo& v : variants())
    if (v.kind == VariantKind::kAccumulate)
      benches.emplace_back(v.token + suffix, technique_bench(v.token));
  benches.emplace_back("auto" + suffix, technique_bench("auto"));
  for (auto& peer : g_peers)
    if (!peer->is_copy()) benches.emplace_back(peer->token() + suffix, peer_bench(peer.get()));
  add_cell(suffix, benches, iterations, repetitions);
}

// Host time of one transpose() call that does not wait (a 64x64 fp32 matrix): what a caller
// pays per call on the CPU, tensor-map encoding included (host_timing.hpp: 100 calls per
// iteration on a host clock, the device drained between iterations outside the timed region).
void host_overhead(benchmark::State& st, const std::string& token, int calls_per_iter) {
  const VariantInfo* info = token == "auto" ? nullptr : find_variant(token);
  if (info != nullptr && g_dev.cc < info->min_cc) return skip(st, token + " needs a newer GPU");
  void *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, 64 * 64 * 4);
  cudaMalloc(&dst, 64 * 64 * 4);
  TransposeOptions o;
  o.variant = token;
  Status s = transpose(src, dst, 64, 64, 4, o);
  const std::string ran = s.variant;
  if (s.ok()) s = cuda_status(cudaDeviceSynchronize(), "kernel");
  if (s) {
    st.SetLabel("ran " + ran);
    time_host_calls(st, calls_per_iter, [&] {
      s = transpose(src, dst, 64, 64, 4, o);
      return s.ok();
    });
  }
  cudaFree(src);
  cudaFree(dst);
  if (!s) st.SkipWithError(s.message.c_str());
}

// `prefix`: host_overhead (the figure bench/report.py reports) or host_overhead_end (the same
// rows again after every cell, a diagnostic). The 2026-11-24 full runs had the rows only at the
// end, 0.6-3.2 us above host_calls/copy_launch (the same launch without the dispatcher). In
// 2026-11-24 no step of a benchmark run slowed a bare launch (a since-deleted launch-state
// experiment), and host_overhead/copy ran 0.8-2.1 us above host_calls/copy_launch at the start
// of the final run (docs/perf-guide.md).
void register_overhead(const std::string& prefix, int calls_per_iter, int iters) {
  std::vector<std::string> tokens = {"auto"};
  for (const VariantInfo& v : variants())
    if (v.kind != VariantKind::kAccumulate && v.supports_elem_bytes(4)) tokens.push_back(v.token);
  for (const std::string& token : tokens) {
    benchmark::RegisterBenchmark(
        (prefix + "/" + token + "/e4/64x64").c_str(),
        [=](benchmark::State& st) { host_overhead(st, token, calls_per_iter); })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(iters)
        ->Repetitions(3)
        ->ReportAggregatesOnly(false);
  }
}

}  // namespace
}  // namespace tmakit::bench

namespace tmakit::bench {
void register_tensor_map_host();  // bench/tensor_map_host.cpp
void register_plan_host_cost();   // bench/plan_rows.cpp
void register_plan_survey(const std::vector<cli::SurveyCell>& cells, bool accumulate,
                          bool plans);  // bench/plan_rows.cpp
void register_permute_cases(
    int random_count, unsigned random_seed, double random_min_bytes, double random_max_bytes,
    int random_min_rank, double random_min_matrix_bytes, double random_max_matrix_bytes,
    L2Flusher* flusher, LaunchGate* gate,
    const std::vector<std::unique_ptr<Peer>>* peers);  // bench/permute_rows.cpp
}  // namespace tmakit::bench

namespace tmakit::bench {

// The drawn survey cells of a distribution (--survey-dist).
std::vector<cli::SurveyCell> survey_cells_of(const std::string& dist, long long count,
                                             long long seed) {
  return dist == "classic" ? cli::survey_cells(static_cast<int>(count), static_cast<unsigned>(seed))
                           : cli::decider_survey_cells(dist, static_cast<int>(count),
                                                       static_cast<unsigned>(seed));
}

// Every preset but "permute": the host-cost rows, the survey (preset survey), the shapes'
// cells, transpose-accumulate, the host-cost rows again, the tensor maps' host cost.
void register_transpose_presets(const std::string& preset, const std::vector<Shape>& shapes,
                                const std::vector<cli::SurveyCell>& survey_list,
                                long long survey_count, long long survey_seed,
                                const std::string& survey_dist, bool survey_accumulate,
                                bool survey_plans) {
  const int iterations = 10, repetitions = 3;
  register_overhead("host_overhead", 100, 100);  // first, next to host_calls (see there)
  register_plan_host_cost();
  if (preset == "survey") {
    benchmark::AddCustomContext(
        "survey", !survey_list.empty() ? std::to_string(survey_list.size()) + " named cells"
                                       : std::to_string(survey_count) + " cells, seed " +
                                             std::to_string(survey_seed) + ", " + survey_dist);
    benchmark::AddCustomContext("survey_kind", survey_accumulate ? "accumulate" : "transpose");
    register_plan_survey(!survey_list.empty()
                             ? survey_list
                             : survey_cells_of(survey_dist, survey_count, survey_seed),
                         survey_accumulate, survey_plans);
  }
  for (const Shape& s : shapes)
    for (int e : {1, 2, 4, 8, 16}) register_shape(s, e, iterations, repetitions);
  // Transpose-accumulate: a large square, an odd shape, a skinny one each way and a batch of
  // small matrices (the full preset; `--benchmark_filter=/accumulate/` runs only these), one
  // square (quick).
  std::vector<Shape> acc;
  if (preset != "survey") acc.push_back({"square", 1, 16384, 16384});
  if (preset == "full") {
    acc.push_back({"odd", 1, 12345, 6789});
    acc.push_back({"skinny", 1, 4000000, 16});
    acc.push_back({"skinny", 1, 16, 4000000});
    acc.push_back({"batched", 16384, 32, 32});
  }
  for (const Shape& s : acc)
    for (int e : {2, 4, 8}) register_accumulate(s, e, iterations, repetitions);
  register_overhead("host_overhead_end", 100, 100);
  register_tensor_map_host();
}

}  // namespace tmakit::bench

// "--name=N": -1 when `arg` is not that flag; else 0 with *out set, or 2 after saying why N is
// not an integer in [lo, hi].
int integer_flag(const char* arg, const char* flag, long long lo, long long hi, long long* out) {
  const std::size_t n = std::strlen(flag);
  if (std::strncmp(arg, flag, n) != 0) return -1;
  if (tmakit::cli::parse_integer(arg + n, lo, hi, out)) return 0;
  std::fprintf(stderr, "tmakit_bench: %.*s: '%s' is not an integer from %lld to %lld\n",
               static_cast<int>(n - 1), flag, arg + n, lo, hi);
  return 2;
}

int main(int argc, char** argv) {
  using namespace tmakit;
  using namespace tmakit::bench;
  std::string preset = "quick";
  std::string shape_list;
  bool gate = true, list_shapes = false, have_shapes = false;
  long long survey_count = 120, survey_seed = 20261127;
  long long permute_random = 40, permute_seed = 1, permute_min_mb = 16, permute_max_mb = 256,
            permute_min_rank = 1, permute_min_matrix_bytes = 0, permute_max_matrix_bytes = 0;
  std::vector<cli::SurveyCell> survey_list;  // --survey-cells
  std::string survey_dist = "classic";
  bool survey_accumulate = false, survey_plans = true;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--preset=", 9) == 0)
      preset = argv[i] + 9;
    else if (std::strncmp(argv[i], "--shapes=", 9) == 0)
      shape_list = argv[i] + 9, have_shapes = true;
    else if (int rc = integer_flag(argv[i], "--permute-random=", 0, 10000, &permute_random);
             rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-seed=", 0, 4294967295ll, &permute_seed);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-min-mb=", 1, 65536, &permute_min_mb);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-max-mb=", 1, 65536, &permute_max_mb);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-min-rank=", 1, 6, &permute_min_rank);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-min-matrix-bytes=", 1, 1ll << 30,
                                     &permute_min_matrix_bytes);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--permute-max-matrix-bytes=", 1, 1ll << 30,
                                     &permute_max_matrix_bytes);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--survey-count=", 1, 100000, &survey_count);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (int rc = integer_flag(argv[i], "--survey-seed=", 0, 4294967295ll, &survey_seed);
               rc >= 0) {
      if (rc > 0) return rc;
    } else if (std::strncmp(argv[i], "--survey-cells=", 15) == 0) {
      // E:SHAPE,E:SHAPE,...: survey cells of these shapes and element sizes instead of drawn ones
      std::string list = argv[i] + 15, why;
      std::size_t at = 0;
      while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        const std::size_t colon = item.find(':');
        long long e = 0;
        std::vector<Shape> one;
        if (colon != std::string::npos && cli::parse_integer(item.substr(0, colon), 1, 16, &e) &&
            (e == 1 || e == 2 || e == 4 || e == 8 || e == 16))
          one = cli::parse_shapes(item.substr(colon + 1), &why);
        if (one.size() != 1) {
          std::fprintf(
              stderr,
              "tmakit_bench: --survey-cells: '%s' is not E:SHAPE (E 1, 2, 4, 8 or 16%s%s)\n",
              item.c_str(), why.empty() ? "" : "; ", why.c_str());
          return 2;
        }
        survey_list.push_back({one[0], static_cast<int>(e)});
        at = comma + 1;
      }
      preset = "survey";
    } else if (std::strncmp(argv[i], "--survey-dist=", 14) == 0) {
      survey_dist = argv[i] + 14;
      if (survey_dist != "classic" && survey_dist != "train" && survey_dist != "heldout" &&
          survey_dist != "domain" && survey_dist != "channels" &&
          survey_dist != "channels_aligned" && survey_dist != "permute" &&
          survey_dist != "skinny") {
        std::fprintf(stderr,
                     "tmakit_bench: --survey-dist must be classic, train, domain, channels, "
                     "channels_aligned, permute, skinny or heldout\n");
        return 2;
      }
    } else if (std::strncmp(argv[i], "--survey-kind=", 14) == 0) {
      const std::string kind = argv[i] + 14;
      if (kind != "transpose" && kind != "accumulate") {
        std::fprintf(stderr, "tmakit_bench: --survey-kind must be transpose or accumulate\n");
        return 2;
      }
      survey_accumulate = kind == "accumulate";
    } else if (std::strcmp(argv[i], "--survey-plans=0") == 0) {
      survey_plans = false;
    } else if (std::strcmp(argv[i], "--list-shapes") == 0)
      list_shapes = true;
    else if (std::strcmp(argv[i], "--order=fixed") == 0)
      g_order = Order::kFixed;
    else if (std::strcmp(argv[i], "--order=rounds") == 0)
      g_order = Order::kRounds;
    else if (std::strcmp(argv[i], "--gate=off") == 0)
      gate = false;
    else
      args.push_back(argv[i]);
  }
  std::vector<Shape> shapes;
  if (have_shapes) {
    std::string why;
    shapes = cli::parse_shapes(shape_list, &why);
    if (shapes.empty()) {
      std::fprintf(stderr, "tmakit_bench: --shapes: %s\n", why.c_str());
      return 2;
    }
    preset = "custom";
  } else if (preset != "survey" && preset != "permute") {
    shapes = cli::preset_shapes(preset);
  }
  if (shapes.empty() && preset != "survey" && preset != "permute") {
    std::fprintf(
        stderr, "tmakit_bench: --preset must be quick, full, probe, survey or permute (got '%s')\n",
        preset.c_str());
    return 2;
  }
  if (list_shapes) {
    for (const cli::SurveyCell& c : survey_list)
      std::printf("%s %s e%d\n", c.shape.cls, c.shape.name().c_str(), c.elem_bytes);
    if (preset == "survey" && survey_list.empty())
      for (const cli::SurveyCell& c : survey_cells_of(survey_dist, survey_count, survey_seed))
        std::printf("%s %s e%d\n", c.shape.cls, c.shape.name().c_str(), c.elem_bytes);
    for (const Shape& s : shapes) std::printf("%s %s\n", s.cls, s.name().c_str());
    return 0;
  }
  if (Status s = query_device(&g_dev); !s) {
    std::fprintf(stderr, "tmakit_bench: %s\n", s.message.c_str());
    return 3;
  }
  g_flusher = std::make_unique<L2Flusher>();
  if (Status s = g_flusher->init(static_cast<std::size_t>(g_dev.l2_bytes)); !s) {
    std::fprintf(stderr, "tmakit_bench: %s\n", s.message.c_str());
    return 1;
  }
  std::string gate_state = "off";
  if (gate) {
    const cudaError_t err = g_gate.init();
    gate_state = err == cudaSuccess ? "on" : std::string("off: ") + cudaGetErrorString(err);
  }
  std::string cutensor;
  g_peers = make_peers(&cutensor);
  std::string peer_list;
  for (const auto& p : g_peers)
    peer_list += (peer_list.empty() ? "" : ", ") + std::string(p->token());
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  benchmark::AddCustomContext("gpu", g_dev.name);
  benchmark::AddCustomContext("compute_capability",
                              std::to_string(g_dev.cc / 10) + "." + std::to_string(g_dev.cc % 10));
  benchmark::AddCustomContext("sm_count", std::to_string(g_dev.sm_count));
  benchmark::AddCustomContext("sm_clock_mhz", std::to_string(g_dev.sm_clock_khz / 1000));
  benchmark::AddCustomContext("mem_clock_mhz", std::to_string(g_dev.mem_clock_khz / 1000));
  benchmark::AddCustomContext("l2_bytes", std::to_string(g_dev.l2_bytes));
  benchmark::AddCustomContext("driver_version", std::to_string(g_dev.driver_version));
  benchmark::AddCustomContext("runtime_version", std::to_string(g_dev.runtime_version));
  benchmark::AddCustomContext("date", date);
  benchmark::AddCustomContext("preset", preset);
  benchmark::AddCustomContext("cutensor", cutensor);
  benchmark::AddCustomContext("peers", peer_list);
  benchmark::AddCustomContext("order", g_order == Order::kRounds ? "rounds" : "fixed");
  benchmark::AddCustomContext("launch_gate", gate_state);
  // The policy overrides the run was made under (an A/B of a policy field is two runs).
  const char* policy_env = std::getenv("TMAKIT_POLICY");
  benchmark::AddCustomContext("policy", policy_env != nullptr ? policy_env : "");
  std::string tokens;  // the registry's order, which bench/report.py keeps in its tables
  for (const VariantInfo& v : variants()) tokens += (tokens.empty() ? "" : ",") + v.token;
  benchmark::AddCustomContext("tokens", tokens);
  if (preset == "permute") {  // permutations only (bench/permute_rows.cpp)
    if (permute_min_mb > permute_max_mb) {
      std::fprintf(stderr,
                   "tmakit_bench: --permute-min-mb (%lld) is above --permute-max-mb (%lld)\n",
                   permute_min_mb, permute_max_mb);
      return 2;
    }
    const bool matrices = permute_min_matrix_bytes > 0 || permute_max_matrix_bytes > 0;
    if (matrices && permute_max_matrix_bytes == 0) permute_max_matrix_bytes = 1ll << 30;
    if (matrices && permute_min_matrix_bytes > permute_max_matrix_bytes) {
      std::fprintf(stderr,
                   "tmakit_bench: --permute-min-matrix-bytes (%lld) is above "
                   "--permute-max-matrix-bytes (%lld)\n",
                   permute_min_matrix_bytes, permute_max_matrix_bytes);
      return 2;
    }
    benchmark::AddCustomContext(
        "permute_random",
        std::to_string(permute_random) + " cases, seed " + std::to_string(permute_seed) + ", " +
            std::to_string(permute_min_mb) + "-" + std::to_string(permute_max_mb) + " MB" +
            (permute_min_rank > 1
                 ? ", rank " + std::to_string(permute_min_rank) + " or more after the reduction"
                 : std::string()) +
            (matrices ? ", tiles whose matrix is " + std::to_string(permute_min_matrix_bytes) +
                            "-" + std::to_string(permute_max_matrix_bytes) + " bytes"
                      : std::string()));
    register_permute_cases(
        static_cast<int>(permute_random), static_cast<unsigned>(permute_seed),
        static_cast<double>(permute_min_mb) * 1e6, static_cast<double>(permute_max_mb) * 1e6,
        static_cast<int>(permute_min_rank), static_cast<double>(permute_min_matrix_bytes),
        static_cast<double>(permute_max_matrix_bytes), g_flusher.get(), &g_gate, &g_peers);
  } else {
    register_transpose_presets(preset, shapes, survey_list, survey_count, survey_seed, survey_dist,
                               survey_accumulate, survey_plans);
  }
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  g_peers.clear();
  return 0;
}
