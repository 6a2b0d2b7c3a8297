// Google Benchmark families, one per registered technique, plus cudaMemcpyAsync and cuBLAS
// geam peers. Timing: CUDA events around the launch only (UseManualTime), L2 flushed before
// each timed iteration, every result verified once against the CPU reference first.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <host/error.hpp>
#include <host/testdata.hpp>
#include <host/timing.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::bench {
namespace {

struct Shape {
  std::int64_t rows, cols;
};

// Device buffers for one (shape, element size), shared by all benchmarks of it.
struct Buffers {
  void* src = nullptr;
  void* dst = nullptr;
  std::size_t bytes = 0;
  std::vector<unsigned char> h_src, h_ref;
  ~Buffers() {
    cudaFree(src);
    cudaFree(dst);
  }
};

void skip(benchmark::State& state, const char* why) {
#if defined(TMAKIT_BENCH_HAS_SKIP_MESSAGE)
  state.SkipWithMessage(why);
#else
  state.SkipWithError((std::string("skipped: ") + why).c_str());
#endif
}

DeviceInfo g_dev;
std::unique_ptr<L2Flusher> g_flusher;
std::map<std::string, double> g_best_copy_gbps;  // key: shape/elem

std::string key_of(const Shape& s, int e) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + "/" + std::to_string(e);
}

Buffers* buffers_for(const Shape& s, int e) {
  static std::string current;
  static std::unique_ptr<Buffers> buf;
  const std::string key = key_of(s, e);
  if (current == key && buf) return buf.get();
  buf.reset();
  current.clear();
  auto b = std::make_unique<Buffers>();
  const std::int64_t n = s.rows * s.cols;
  b->bytes = static_cast<std::size_t>(n) * e;
  if (cudaMalloc(&b->src, b->bytes) != cudaSuccess || cudaMalloc(&b->dst, b->bytes) != cudaSuccess)
    return nullptr;
  fill_index_pattern(b->h_src, n, e);
  b->h_ref.resize(b->bytes);
  reference_transpose(b->h_src.data(), b->h_ref.data(), s.rows, s.cols, e);
  cudaMemcpy(b->src, b->h_src.data(), b->bytes, cudaMemcpyHostToDevice);
  buf = std::move(b);
  current = key;
  return buf.get();
}

// Times `launch` with events, one timed launch per benchmark iteration.
void run_timed(benchmark::State& state, const std::function<Status()>& launch, double moved_bytes,
               const std::string& key, bool is_copy) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; ++i) launch();
  for (auto _ : state) {
    g_flusher->flush(nullptr);
    cudaEventRecord(a);
    const Status s = launch();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    if (!s) {
      state.SkipWithError(s.message.c_str());
      break;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  state.counters["GBps"] =
      benchmark::Counter(moved_bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
  (void)key;
  (void)is_copy;
}

}  // namespace
}  // namespace tmakit::bench

int main(int argc, char** argv) {
  using namespace tmakit;
  using namespace tmakit::bench;
  if (Status s = query_device(&g_dev); !s) {
    std::fprintf(stderr, "tmakit_bench: %s\n", s.message.c_str());
    return 3;
  }
  g_flusher = std::make_unique<L2Flusher>();
  if (Status s = g_flusher->init(g_dev.l2_bytes); !s) {
    std::fprintf(stderr, "tmakit_bench: %s\n", s.message.c_str());
    return 1;
  }
  const std::vector<Shape> shapes = {{8192, 2048}, {2048, 2048}, {4096, 4096}, {16384, 16384}};
  for (const Shape& s : shapes)
    for (int e : {1, 2, 4, 8}) {
      const double moved = 2.0 * s.rows * s.cols * e;
      const std::string key = key_of(s, e);
      benchmark::RegisterBenchmark(
          ("memcpy/" + key).c_str(),
          [=](benchmark::State& st) {
            Buffers* b = buffers_for(s, e);
            run_timed(
                st,
                [b] {
                  return cuda_status(
                      cudaMemcpyAsync(b->dst, b->src, b->bytes, cudaMemcpyDeviceToDevice),
                      "memcpy");
                },
                moved, key, true);
          })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
      for (const VariantInfo& v : variants()) {
        const std::string token = v.token;
        benchmark::RegisterBenchmark(
            (token + "/" + key).c_str(),
            [=](benchmark::State& st) {
              if (!find_variant(token)->supports_elem_bytes(e)) {
                skip(st, "element size not supported");
                return;
              }
              Buffers* b = buffers_for(s, e);
              TransposeOptions o;
              o.variant = token;
              run_timed(
                  st, [&] { return transpose(b->src, b->dst, s.rows, s.cols, e, o); }, moved, key,
                  find_variant(token)->kind == VariantKind::kCopy);
            })
            ->UseManualTime()
            ->Unit(benchmark::kMicrosecond);
      }
    }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
