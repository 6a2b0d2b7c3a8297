// tmakit_bench: one Google Benchmark family per registered technique (iterating the registry),
// plus the peers cudaMemcpyAsync D2D and cuBLAS geam (OP_T), for element sizes 1, 2, 4, 8 and
// the preset's shapes.
//
// Names: <technique>/e<bytes>/<rows>x<cols>; peers are memcpy/... and cublas_geam/....
// Timing: CUDA events around the launch only (UseManualTime); buffers, verification and any
// descriptor encoding stay outside; 3 warm-up launches; L2 (50 MB) flushed by overwriting a
// 2 x L2 scratch buffer before every timed launch; --benchmark_repetitions with the median
// aggregate (set by the presets). Counters: GBps (decimal, bytes read + written) and
// pct_of_copy (this run's GB/s over the best copy measured so far in this process for the same
// shape and element size: cudaMemcpyAsync, `copy`, and `tma_copy` when registered; copies run
// first for each shape). Every result is verified once against the CPU reference first.
//
//   tmakit_bench --preset=quick|full [google benchmark flags]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <host/error.hpp>
#include <host/reference.hpp>
#include <host/testdata.hpp>
#include <host/timing.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::bench {
namespace {

struct Shape {
  std::int64_t rows, cols;
};

void skip(benchmark::State& state, const std::string& why) {
#if defined(TMAKIT_BENCH_HAS_SKIP_MESSAGE)
  state.SkipWithMessage(why.c_str());
#else
  state.SkipWithError(("skipped: " + why).c_str());
#endif
}

unsigned hw_threads() {
  return std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
}

template <class F>
void parallel_for(std::int64_t n, F&& f) {  // f(begin, end) over [0, n) in bands
  const unsigned t = hw_threads();
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < t; ++k) pool.emplace_back([&, k] { f(n * k / t, n * (k + 1) / t); });
  for (auto& th : pool) th.join();
}

// Device buffers and the host reference for one (shape, element size): built once, kept while
// the benchmarks of that shape and size run (they are registered consecutively).
struct Problem {
  Shape shape{};
  int elem_bytes = 0;
  std::size_t bytes = 0;
  void* src = nullptr;
  void* dst = nullptr;
  std::vector<unsigned char> h_src, h_ref;
  ~Problem() {
    cudaFree(src);
    cudaFree(dst);
  }
};

Problem* problem_for(const Shape& s, int e, std::string* error) {
  static std::unique_ptr<Problem> current;
  if (current && current->shape.rows == s.rows && current->shape.cols == s.cols &&
      current->elem_bytes == e)
    return current.get();
  current.reset();
  auto p = std::make_unique<Problem>();
  p->shape = s;
  p->elem_bytes = e;
  const std::int64_t n = s.rows * s.cols;
  p->bytes = static_cast<std::size_t>(n) * e;
  if (cudaMalloc(&p->src, p->bytes) != cudaSuccess ||
      cudaMalloc(&p->dst, p->bytes) != cudaSuccess) {
    cudaGetLastError();
    *error = "cannot allocate 2 x " + std::to_string(p->bytes) + " bytes";
    return nullptr;
  }
  p->h_src.resize(p->bytes);
  p->h_ref.resize(p->bytes);
  unsigned char* src = p->h_src.data();
  unsigned char* ref = p->h_ref.data();
  parallel_for(n, [&](std::int64_t b, std::int64_t en) {
    fill_index_pattern_range(src + b * e, b, en - b, e);
  });
  // The CPU reference, by bands of input rows (each band writes its own output columns).
  parallel_for(s.rows, [&](std::int64_t r0, std::int64_t r1) {
    reference_transpose_rows(src, ref, s.rows, s.cols, e, r0, r1);
  });
  if (cudaMemcpy(p->src, src, p->bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    *error = "cudaMemcpy of the input failed";
    return nullptr;
  }
  current = std::move(p);
  return current.get();
}

DeviceInfo g_dev;
std::unique_ptr<L2Flusher> g_flusher;
cublasHandle_t g_cublas = nullptr;
std::map<std::string, double> g_best_copy_gbps;  // "<rows>x<cols>/e<bytes>" -> GB/s

std::string key_of(const Shape& s, int e) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + "/e" + std::to_string(e);
}

// Verify once (poisoned output, bit-for-bit), then time each iteration with events.
void run(benchmark::State& state, const std::string& name, const Shape& s, int e, bool is_copy,
         const std::function<Status(Problem&)>& launch) {
  std::string err;
  Problem* p = problem_for(s, e, &err);
  if (p == nullptr) {
    state.SkipWithError(err.c_str());
    return;
  }
  // Verified once per benchmark (repetitions call this function again).
  static std::set<std::string> verified;
  Status st;
  if (!verified.count(name)) {
    cudaMemset(p->dst, kPoisonByte, p->bytes);
    st = launch(*p);
    if (st) st = cuda_status(cudaDeviceSynchronize(), "kernel");
    if (!st) {
      state.SkipWithError(st.message.c_str());
      return;
    }
    std::vector<unsigned char> out(p->bytes);
    cudaMemcpy(out.data(), p->dst, p->bytes, cudaMemcpyDeviceToHost);
    const std::int64_t bad =
        first_mismatch(out.data(), is_copy ? p->h_src.data() : p->h_ref.data(), s.rows * s.cols, e);
    if (bad >= 0) {
      state.SkipWithError(("verification failed at element " + std::to_string(bad)).c_str());
      return;
    }
    verified.insert(name);
  }
  for (int i = 0; i < 3; ++i) launch(*p);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  double total_ms = 0;
  for (auto _ : state) {
    g_flusher->flush(nullptr);
    cudaEventRecord(a);
    st = launch(*p);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    if (!st) {
      state.SkipWithError(st.message.c_str());
      break;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    total_ms += ms;
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  if (!st || state.iterations() == 0) return;
  const double moved = 2.0 * static_cast<double>(p->bytes);
  const double gbps = moved / (total_ms / state.iterations() * 1e6);
  const std::string key = key_of(s, e);
  if (is_copy) g_best_copy_gbps[key] = std::max(g_best_copy_gbps[key], gbps);
  state.counters["GBps"] =
      benchmark::Counter(moved / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  const auto best = g_best_copy_gbps.find(key);
  if (best != g_best_copy_gbps.end() && best->second > 0)
    state.counters["pct_of_copy"] = 100.0 * gbps / best->second;
  state.counters["bytes_moved"] = moved;
}

void register_all(const std::vector<Shape>& shapes, int iterations, int repetitions) {
  auto add = [&](const std::string& name, std::function<void(benchmark::State&)> fn) {
    benchmark::RegisterBenchmark(name.c_str(), fn)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->Iterations(iterations)
        ->Repetitions(repetitions)
        ->ReportAggregatesOnly(false);
  };
  for (const Shape& s : shapes)
    for (int e : {1, 2, 4, 8}) {
      const std::string suffix =
          "/e" + std::to_string(e) + "/" + std::to_string(s.rows) + "x" + std::to_string(s.cols);
      // Copies first, so the transposes of this shape can be put against the best of them.
      add("memcpy" + suffix, [=](benchmark::State& st) {
        run(st, "memcpy" + suffix, s, e, true, [](Problem& p) {
          return cuda_status(
              cudaMemcpyAsync(p.dst, p.src, p.bytes, cudaMemcpyDeviceToDevice, nullptr),
              "cudaMemcpyAsync");
        });
      });
      std::vector<const VariantInfo*> ordered;
      for (const VariantInfo& v : variants())
        if (v.kind == VariantKind::kCopy) ordered.push_back(&v);
      for (const VariantInfo& v : variants())
        if (v.kind != VariantKind::kCopy) ordered.push_back(&v);
      for (const VariantInfo* v : ordered) {
        const std::string token = v->token;
        const bool is_copy = v->kind == VariantKind::kCopy;
        add(token + suffix, [=](benchmark::State& st) {
          const VariantInfo* info = find_variant(token);
          if (!info->supports_elem_bytes(e))
            return skip(st, token + " does not support " + std::to_string(e) + "-byte elements");
          if (g_dev.cc < info->min_cc)
            return skip(st, token + " needs compute capability " + std::to_string(info->min_cc));
          TransposeOptions o;
          o.variant = token;
          run(st, token + suffix, s, e, is_copy,
              [&](Problem& p) { return transpose(p.src, p.dst, s.rows, s.cols, e, o); });
        });
      }
      add("cublas_geam" + suffix, [=](benchmark::State& st) {
        if (e != 4 && e != 8)
          return skip(st, "cuBLAS geam has no " + std::to_string(e) + "-byte type");
        // Row-major rows x cols is column-major cols x rows (lda = cols); C = A^T is column-major
        // rows x cols = row-major cols x rows (ldc = rows).
        run(st, "cublas_geam" + suffix, s, e, false, [&](Problem& p) {
          const int m = static_cast<int>(s.rows), n = static_cast<int>(s.cols);
          cublasStatus_t r;
          if (e == 4) {
            const float one = 1, zero = 0;
            r = cublasSgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                            static_cast<const float*>(p.src), n, &zero,
                            static_cast<const float*>(p.dst), m, static_cast<float*>(p.dst), m);
          } else {
            const double one = 1, zero = 0;
            r = cublasDgeam(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one,
                            static_cast<const double*>(p.src), n, &zero,
                            static_cast<const double*>(p.dst), m, static_cast<double*>(p.dst), m);
          }
          return r == CUBLAS_STATUS_SUCCESS
                     ? Status{}
                     : make_status(StatusCode::kCudaError,
                                   "cublas geam failed: " + std::to_string(r));
        });
      });
    }
}

}  // namespace
}  // namespace tmakit::bench

int main(int argc, char** argv) {
  using namespace tmakit;
  using namespace tmakit::bench;
  std::string preset = "quick";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--preset=", 9) == 0)
      preset = argv[i] + 9;
    else
      args.push_back(argv[i]);
  }
  // quick: a few shapes, every technique, a few minutes; full: the articles' shapes plus
  // 4096^2 and 16384^2 (32768^2 is 4.3 GB per fp32 buffer).
  std::vector<Shape> shapes;
  int iterations = 10, repetitions = 3;
  if (preset == "quick") {
    shapes = {{8192, 2048}, {16384, 16384}};
  } else if (preset == "full") {
    shapes = {{2048, 2048}, {4096, 4096}, {8192, 2048}, {16384, 16384}, {32768, 32768}};
  } else {
    std::fprintf(stderr, "tmakit_bench: --preset must be quick or full\n");
    return 2;
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
  if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "tmakit_bench: cublasCreate failed\n");
    return 1;
  }
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
  register_all(shapes, iterations, repetitions);
  int bargc = static_cast<int>(args.size());
  benchmark::Initialize(&bargc, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  cublasDestroy(g_cublas);
  return 0;
}
