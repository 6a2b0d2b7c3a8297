// Experiment (issue 16, target 4: <= 5 us of host time per 64x64 transpose): which state of the
// process makes kernel launches slower late in a benchmark run. Session 15's full runs timed the
// host_overhead rows at the end of the run 0.1-2.9 us above the same launches at its start
// (docs/perf-notes.md). One process walks the steps a tmakit_bench run takes, one at a time, and
// after each times (a) a bare empty launch and (b) tmakit::transpose of a 64x64 fp32 matrix with
// synchronize = false ("auto"): 7 repetitions of 20 x 100 calls, the device drained between
// batches outside the timed region (bench/host_timing.hpp's protocol); median us per call.
// Steps:
//   start          nothing yet (the library's first call is warmed up)
//   big_buffers    two 4 GiB device buffers allocated and kept
//   reset_l2       1,000 cudaCtxResetPersistingL2Cache calls (L2Flusher::flush's demotion)
//   flushes        200 flushes of a 2 x L2 buffer (cudaMemsetAsync)
//   evict_last     20 tma_wide transposes of 8192 x 8192 fp32 (loads with evict_last)
//   gate           200 launches held by the benchmark's launch gate (bench/launch_gate.hpp)
//   cublas         a cuBLAS handle and 100 Sgeam transposes of 4096^2
//   every_variant  each registered technique once at 1024 x 1024 of each element size
//   events         20,000 event records (the benchmark's timing)
//   again          nothing new: the drift of the machine since `start`
// Not part of the build; scripts/launch-state.sh compiles it on the GPU machine.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <bench/experiments/host_reps.hpp>
#include <bench/launch_gate.hpp>
#include <tmakit/tmakit.hpp>

namespace {

__global__ void empty_kernel() {}

template <class Call>
double us_per_call(Call&& call) {
  const std::vector<double> reps = tmakit::experiments::sorted_us_per_call(call);
  return reps[reps.size() / 2];
}

using tmakit::experiments::dalloc;

}  // namespace

int main() {
  void* src = dalloc(64 * 64 * 4);
  void* dst = dalloc(64 * 64 * 4);
  tmakit::TransposeOptions o;
  auto tiny = [&] {
    const tmakit::Status s = tmakit::transpose(src, dst, 64, 64, 4, o);
    if (!s.ok()) {
      std::fprintf(stderr, "transpose failed: %s\n", s.message.c_str());
      std::exit(1);
    }
  };
  tiny();
  cudaDeviceSynchronize();
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s; us per call, median of 7 x 2000 calls\n%-14s %8s %10s\n", prop.name, "step",
              "launch", "transpose");
  auto report = [&](const char* step) {
    const double launch = us_per_call([] { empty_kernel<<<1, 32>>>(); });
    const double call = us_per_call(tiny);
    std::printf("%-14s %8.2f %10.2f\n", step, launch, call);
    std::fflush(stdout);
  };
  report("start");

  const size_t big = size_t(4) << 30;
  void* a = dalloc(big);
  void* b = dalloc(big);
  report("big_buffers");

  for (int i = 0; i < 1000; ++i) cudaCtxResetPersistingL2Cache();
  cudaDeviceSynchronize();
  report("reset_l2");

  const size_t flush_bytes = 2 * size_t(prop.l2CacheSize);
  for (int i = 0; i < 200; ++i) cudaMemsetAsync(a, i & 0xff, flush_bytes);
  cudaDeviceSynchronize();
  report("flushes");

  tmakit::TransposeOptions wide;
  wide.variant = "tma_wide";
  for (int i = 0; i < 20; ++i) {
    const tmakit::Status s = tmakit::transpose(a, b, 8192, 8192, 4, wide);
    if (!s.ok()) std::printf("# tma_wide: %s\n", s.message.c_str());
  }
  cudaDeviceSynchronize();
  report("evict_last");

  tmakit::bench::LaunchGate gate;
  if (const cudaError_t err = gate.init(); err != cudaSuccess) {
    std::fprintf(stderr, "launch gate: %s\n", cudaGetErrorString(err));
    return 1;
  }
  for (int i = 0; i < 200; ++i) {
    gate.close(nullptr);
    empty_kernel<<<1, 32>>>();
    gate.open();
    cudaDeviceSynchronize();
  }
  report("gate");

  cublasHandle_t h;
  cublasCreate(&h);
  const float one = 1, zero = 0;
  for (int i = 0; i < 100; ++i)
    cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, 4096, 4096, &one, static_cast<float*>(a), 4096, &zero,
                static_cast<float*>(a), 4096, static_cast<float*>(b), 4096);
  cudaDeviceSynchronize();
  report("cublas");

  for (const tmakit::VariantInfo& v : tmakit::variants())
    for (int e : {1, 2, 4, 8, 16}) {
      if (!v.supports_elem_bytes(e)) continue;
      tmakit::TransposeOptions ov;
      ov.variant = v.token;
      tmakit::transpose(a, b, 1024, 1024, e, ov);  // a refused call is fine: the launch path
    }
  cudaDeviceSynchronize();
  report("every_variant");

  cudaEvent_t ev[2];
  cudaEventCreate(&ev[0]);
  cudaEventCreate(&ev[1]);
  for (int i = 0; i < 10000; ++i) {
    cudaEventRecord(ev[0]);
    cudaEventRecord(ev[1]);
  }
  cudaDeviceSynchronize();
  report("events");
  report("again");

  cublasDestroy(h);
  cudaFree(a);
  cudaFree(b);
  cudaFree(src);
  cudaFree(dst);
  return 0;
}
