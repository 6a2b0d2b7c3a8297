// Permutations in the benchmark (tmakit/permute.hpp), tmakit_bench --preset=permute:
//
// permute/e<bytes>/<case>/<extents>/<perm>/<who>: one permutation, timed like every cell of the
// benchmark (L2 flushed, the launch gate, CUDA events; 10 launches per round, rounds shuffled
// inside the case, the median over rounds taken by bench/permute_report.py). <who> is
//   memcpy        cudaMemcpyAsync of the same bytes (the roofline)
//   auto          permute() as a user calls it (its label: what ran)
//   permute_tma, permute_tile, permute_transpose   each technique named (a refusal is a skip
//                 with the reason)
//   measured      the technique tune_permute measured fastest on the case (what `auto` runs in
//                 measure mode), named (its label: what ran, of how many timed)
//   cutensor      cutensorPermute with the same modes (2-16 B; built only with cuTENSOR)
// Every output is verified bit for bit against reference_permute before it is timed.
// Cases: the named layouts (attention's heads, NCHW <-> NHWC, odd rank-4 reorders, a rank-5
// reversals of rank 3-5, (1,0,2) with 16- and 256-byte rows, the qkv split, ViT heads, pixel
// shuffle, NCDHW -> NDHWC) and `random` ones: --permute-random=N cases (default 40) of rank 3-6,
// 1-16 bytes, extents 2-600, 16-256 MB (--permute-min-mb, --permute-max-mb), drawn from
// --permute-seed (default 1), never a copy; --permute-min-rank=R keeps those that reduce to rank R
// or more (6: the rank-6 cases alone).
// Counters: GBps (bytes read + written), contig_bytes (the innermost run that stays contiguous
// on both sides: a row permutation's row, else one element), form (0 copy, 1 transpose, 2 rows,
// 3 tile).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>
#include <benchmark/benchmark.h>
#include <bench/launch_gate.hpp>
#include <host/cli/shapes.hpp>
#include <host/device_policy.hpp>
#include <host/error.hpp>
#include <host/tools/testdata.hpp>
#include <host/tools/timing.hpp>
#include <tmakit/permute.hpp>
#include <tmakit/plan.hpp>
#include "cell_data.hpp"
#include "device_compare.hpp"
#include "peers.hpp"
#include "timed_launches.hpp"

namespace tmakit::bench {
namespace {

struct Case {
  std::string name;  // "attention", "nchw_to_nhwc", ..., "random"
  std::vector<std::int64_t> n;
  std::vector<int> perm;
  int e;
};

// The cell's buffers and reference, kept while its benchmarks run (registered together).
struct Cell {
  Case c;
  std::size_t bytes = 0;
  void* src = nullptr;
  void* dst = nullptr;
  void* ref = nullptr;
  PermuteReduction red;
  ~Cell() {
    cudaFree(src);
    cudaFree(dst);
    cudaFree(ref);
  }
};

Cell* cell_for(const Case& c, std::string* error) {
  static std::unique_ptr<Cell> current;
  if (current && current->c.n == c.n && current->c.perm == c.perm && current->c.e == c.e)
    return current.get();
  current.reset();
  auto cell = std::make_unique<Cell>();
  cell->c = c;
  if (Status s = reduce_permutation(c.n, c.perm, c.e, {}, &cell->red); !s) {
    *error = s.message;
    return nullptr;
  }
  std::int64_t elems = 1;
  for (auto x : c.n) elems *= x;
  cell->bytes = static_cast<std::size_t>(elems) * c.e;
  if (cudaMalloc(&cell->src, cell->bytes) != cudaSuccess ||
      cudaMalloc(&cell->dst, cell->bytes) != cudaSuccess ||
      cudaMalloc(&cell->ref, cell->bytes) != cudaSuccess) {
    cudaGetLastError();
    *error = "cannot allocate 3 x " + std::to_string(cell->bytes) + " bytes";
    return nullptr;
  }
  std::vector<unsigned char> h_src(cell->bytes), h_ref(cell->bytes);
  parallel_for(elems, [&](std::int64_t b, std::int64_t en) {
    fill_peer_values_range(h_src.data() + b * c.e, b, en - b, c.e);
  });
  if (Status s = reference_permute(h_src.data(), h_ref.data(), c.n, c.perm, c.e); !s) {
    *error = s.message;
    return nullptr;
  }
  if (cudaMemcpy(cell->src, h_src.data(), cell->bytes, cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(cell->ref, h_ref.data(), cell->bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    *error = "cudaMemcpy of the input or the reference failed";
    return nullptr;
  }
  current = std::move(cell);
  return current.get();
}

// The benchmark's own (bench_transpose.cpp's main makes them; register_permute_cases gets them).
L2Flusher* g_flush = nullptr;
LaunchGate* g_permute_gate = nullptr;
const std::vector<std::unique_ptr<Peer>>* g_permute_peers = nullptr;

// Verify once per name (dst poisoned first; a copy against src), then time.
void run_timed(benchmark::State& state, const std::string& name, Cell& cell, bool copy,
               const std::function<Status()>& launch) {
  static std::set<std::string> verified;
  Status st;
  if (!verified.count(name)) {
    cudaMemset(cell.dst, kPoisonByte, cell.bytes);
    st = launch();
    if (st) st = cuda_status(cudaDeviceSynchronize(), "kernel");
    if (!st) return state.SkipWithError(st.message.c_str());
    unsigned long long diffs = 0;
    st = cuda_status(count_differences(cell.dst, copy ? cell.src : cell.ref, cell.bytes, &diffs),
                     "verification");
    if (!st || diffs != 0)
      return state.SkipWithError(!st ? st.message.c_str()
                                     : ("verification failed: " + std::to_string(diffs) +
                                        " words differ from reference_permute")
                                           .c_str());
    verified.insert(name);
  }
  const double total_ms = time_gated_launches(state, *g_flush, *g_permute_gate, launch);
  if (total_ms < 0 || state.iterations() == 0) return;
  const double moved = 2.0 * static_cast<double>(cell.bytes);
  state.counters["GBps"] =
      benchmark::Counter(moved / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_moved"] = moved;
  const PermuteReduction& r = cell.red;
  state.counters["form"] = static_cast<double>(r.form);
  double contig = cell.c.e;
  if (r.form == PermuteForm::kCopy) contig = static_cast<double>(cell.bytes);
  if (r.form == PermuteForm::kRows) contig = static_cast<double>(r.extents.back() * cell.c.e);
  if (r.form == PermuteForm::kTranspose && r.transpose_elem_bytes > cell.c.e)
    contig = r.transpose_elem_bytes;
  state.counters["contig_bytes"] = contig;
}

using BenchFn = std::function<void(benchmark::State&)>;

void register_case(const Case& c, int rounds) {
  const std::string prefix = "permute/" + cli::permutation_case_name(c.e, c.name, c.n, c.perm);
  std::vector<std::pair<std::string, BenchFn>> benches;
  for (auto& peer : *g_permute_peers) {
    Peer* pp = peer.get();
    if (!pp->is_copy() && std::string(pp->token()) != "cutensor") continue;
    benches.emplace_back(prefix + pp->token(), [=](benchmark::State& st) {
      PeerCall probe;
      probe.elem_bytes = c.e;
      probe.extents = &c.n;
      probe.perm = &c.perm;
      if (std::string why = pp->unsupported(probe); !why.empty())
        return st.SkipWithError(("skipped: " + why).c_str());
      std::string err;
      Cell* cell = cell_for(c, &err);
      if (cell == nullptr) return st.SkipWithError(err.c_str());
      PeerCall call;
      call.src = cell->src;
      call.dst = cell->dst;
      call.rows = 1;
      call.cols = static_cast<std::int64_t>(cell->bytes / c.e);
      call.elem_bytes = c.e;
      if (!pp->is_copy()) {
        call.extents = &cell->c.n;
        call.perm = &cell->c.perm;
      }
      if (Status s = pp->prepare(call); !s) return st.SkipWithError(s.message.c_str());
      st.SetLabel(pp->type_name(c.e));
      run_timed(st, prefix + pp->token(), *cell, pp->is_copy(), [pp] { return pp->launch(); });
    });
  }
  std::vector<std::string> tokens = {"auto"};  // then every permutation technique
  for (const VariantInfo& v : permute_variants()) tokens.push_back(v.token);
  for (const std::string& t : tokens) {
    benches.emplace_back(prefix + t, [=](benchmark::State& st) {
      std::string err;
      Cell* cell = cell_for(c, &err);
      if (cell == nullptr) return st.SkipWithError(err.c_str());
      TransposeOptions o;
      o.variant = t;
      o.allow_fallback = false;  // time the technique itself or nothing
      const Status probe = permute(cell->src, cell->dst, c.n, c.perm, c.e, {}, o);
      if (probe.code == StatusCode::kUnsupported)
        return st.SkipWithError(("skipped: " + probe.message).c_str());
      if (!probe) return st.SkipWithError(probe.message.c_str());
      st.SetLabel("ran " + probe.variant + "; " + cell->red.to_string());
      run_timed(st, prefix + t, *cell, false,
                [=] { return permute(cell->src, cell->dst, c.n, c.perm, c.e, {}, o); });
    });
  }
  // measured: tune_permute once a case (every technique that can run it timed on the case's
  // operands, the fastest kept), then that technique named: what `auto` runs in measure mode or
  // with the wisdom measure mode saves. The wisdom is dropped after each tuning, so `auto` stays
  // the rules' pick.
  benches.emplace_back(prefix + "measured", [=](benchmark::State& st) {
    std::string err;
    Cell* cell = cell_for(c, &err);
    if (cell == nullptr) return st.SkipWithError(err.c_str());
    static std::map<std::string, PermuteTuning> tuned;
    auto it = tuned.find(prefix);
    if (it == tuned.end()) {
      PermuteTuning t;
      const Status s = tune_permute(cell->src, cell->dst, c.n, c.perm, c.e, {}, {}, &t);
      clear_wisdom();
      if (!s) return st.SkipWithError(s.message.c_str());
      it = tuned.emplace(prefix, t).first;
    }
    TransposeOptions o;
    o.variant = it->second.variant;
    o.allow_fallback = false;
    st.SetLabel("ran " + o.variant + " (the fastest of " +
                std::to_string(it->second.timings.size()) + " measured); " + cell->red.to_string());
    run_timed(st, prefix + "measured", *cell, false,
              [=] { return permute(cell->src, cell->dst, c.n, c.perm, c.e, {}, o); });
  });
  std::vector<std::size_t> order(benches.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(prefix)));
  for (int round = 0; round < rounds; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order)
      benchmark::RegisterBenchmark(benches[i].first.c_str(), benches[i].second)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(10)
          ->Repetitions(1);
  }
}

// The random set (host/cli/shapes.hpp, random_permutations), or with a matrix range the tiles of
// matrix_permutations (the default policy's side thresholds, so every GPU gets the same cases).
std::vector<Case> random_cases(int count, unsigned seed, double min_bytes, double max_bytes,
                               int min_rank, double min_matrix_bytes, double max_matrix_bytes) {
  std::vector<Case> out;
  for (cli::PermutationCell& c :
       max_matrix_bytes > 0 ? cli::matrix_permutations(
                                  count, seed, min_bytes, max_bytes, min_matrix_bytes,
                                  max_matrix_bytes, DevicePolicy{}.permute_transpose_min_side_bytes)
                            : cli::random_permutations(count, seed, min_bytes, max_bytes, min_rank))
    out.push_back({"random", std::move(c.extents), std::move(c.perm), c.elem_bytes});
  return out;
}

}  // namespace

void register_permute_cases(int random_count, unsigned random_seed, double random_min_bytes,
                            double random_max_bytes, int random_min_rank,
                            double random_min_matrix_bytes, double random_max_matrix_bytes,
                            L2Flusher* flusher, LaunchGate* gate,
                            const std::vector<std::unique_ptr<Peer>>* peers) {
  g_flush = flusher;
  g_permute_gate = gate;
  g_permute_peers = peers;
  std::vector<Case> cases;  // the named ones (host/cli/shapes.cpp), then the random set
  for (cli::NamedPermutation& c : cli::named_permutations())
    cases.push_back(
        {c.label, std::move(c.cell.extents), std::move(c.cell.perm), c.cell.elem_bytes});
  for (const Case& c :
       random_cases(random_count, random_seed, random_min_bytes, random_max_bytes, random_min_rank,
                    random_min_matrix_bytes, random_max_matrix_bytes))
    cases.push_back(c);
  for (const Case& c : cases) register_case(c, 5);
}

}  // namespace tmakit::bench
