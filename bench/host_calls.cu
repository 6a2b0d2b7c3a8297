// Where the host time of one transpose() call goes (the host-cost target: <= 5 us for a 64x64
// matrix with synchronize = false): each CUDA runtime call the dispatcher makes per call, timed
// alone, next to a bare kernel launch and the registry's own launch of `copy` without the
// dispatcher. Same protocol as host_overhead (bench_transpose.cpp): 100 calls per iteration on
// a host clock, the device drained between iterations outside the timed region, 3 repetitions.
//   host_calls/<part>: us_per_call
#include <functional>
#include <string>
#include <benchmark/benchmark.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <host/device.hpp>
#include <host/transpose/registry.hpp>
#include <kernels/launchers.hpp>
#include "host_timing.hpp"

namespace tmakit::bench {
namespace {

__global__ void empty_kernel() {}
// The parameters of a two-map TMA kernel (256 bytes of tensor maps), never read.
__global__ void empty_maps_kernel(const __grid_constant__ CUtensorMap a,
                                  const __grid_constant__ CUtensorMap b) {}

constexpr int kCallsPerIter = 100;

template <class Call>
void time_calls(benchmark::State& st, Call&& call) {
  if (!time_host_calls(st, kCallsPerIter, call)) st.SkipWithError("a timed call failed");
}

struct Buffers {
  void *src = nullptr, *dst = nullptr;
  Buffers() {
    cudaMalloc(&src, 64 * 64 * 4);
    cudaMalloc(&dst, 64 * 64 * 4);
  }
  ~Buffers() {
    cudaFree(src);
    cudaFree(dst);
  }
};

void add(const char* part, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark((std::string("host_calls/") + part).c_str(), std::move(fn))
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Iterations(100)
      ->Repetitions(3)
      ->ReportAggregatesOnly(false);
}

int register_host_calls() {
  add("device_caps", [](benchmark::State& st) {
    DeviceCaps caps;
    time_calls(st, [&] { return current_device_caps(&caps).ok(); });
  });
  add("context_and_stream", [](benchmark::State& st) {
    time_calls(st, [] { return check_context_and_stream(0, nullptr).ok(); });
  });
  add("stream_query", [](benchmark::State& st) {
    time_calls(st, [] {
      const cudaError_t e = cudaStreamQuery(nullptr);
      return e == cudaSuccess || e == cudaErrorNotReady;
    });
  });
  add("pointer_attributes", [](benchmark::State& st) {
    Buffers b;
    time_calls(st, [&] {
      cudaPointerAttributes attr{};
      return cudaPointerGetAttributes(&attr, b.src) == cudaSuccess;
    });
  });
  add("empty_launch", [](benchmark::State& st) {
    time_calls(st, [] {
      empty_kernel<<<1, 32>>>();
      return cudaGetLastError() == cudaSuccess;
    });
  });
  // The same launch with a TMA kernel's two tensor-map parameters: what the parameter size
  // adds to a launch (the TMA rows of host_overhead run 0.5-1.5 us above the classic ones on
  // the H200 machine, docs/perf-guide.md).
  add("empty_launch_two_maps", [](benchmark::State& st) {
    CUtensorMap a{}, b{};
    time_calls(st, [&] {
      empty_maps_kernel<<<1, 32>>>(a, b);
      return cudaGetLastError() == cudaSuccess;
    });
  });
  // The registry's launcher of `copy` for a 64x64 fp32 matrix: the launch tmakit makes once
  // the dispatcher has checked everything.
  add("copy_launch", [](benchmark::State& st) {
    Buffers b;
    kernels::LaunchArgs a;
    a.src = b.src;
    a.dst = b.dst;
    a.rows = a.cols = 64;
    a.elem_bytes = 4;
    a.strides.batch = 1;
    a.strides.src_ld_elems = a.strides.dst_ld_elems = 64;
    a.strides.src_batch_elems = a.strides.dst_batch_elems = 64 * 64;
    DeviceCaps caps;
    if (!current_device_caps(&caps)) return st.SkipWithError("no device");
    a.sm_count = caps.sm_count;
    const VariantDef* copy = find_variant_def("copy");
    time_calls(st, [&] { return copy->launch(a) == cudaSuccess; });
  });
  return 0;
}

const int registered = register_host_calls();

}  // namespace
}  // namespace tmakit::bench
