// The timed part of every benchmark cell (bench_transpose.cpp's cells, permute_rows.cpp's):
// 3 warm-up launches, then per benchmark iteration the L2 flushed, the launch gate closed
// (bench/launch_gate.hpp: the stream held until the call is enqueued, so the events time the
// GPU's work only, not a late host), CUDA events around the launch, the gate opened.
// Returns the summed milliseconds, or a negative value after reporting an error to `state`
// (a failed launch, or a gate that timed out because the call waits on its own stream).
#pragma once
#include <functional>
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <bench/launch_gate.hpp>
#include <host/tools/timing.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::bench {

inline double time_gated_launches(benchmark::State& state, L2Flusher& flusher, LaunchGate& gate,
                                  const std::function<Status()>& launch) {
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  double total_ms = 0;
  for (auto _ : state) {
    flusher.flush(nullptr);
    const bool gated = gate.ready() && gate.close(nullptr) == cudaSuccess;
    cudaEventRecord(a);
    const Status st = launch();
    cudaEventRecord(b);
    if (gated) gate.open();
    cudaEventSynchronize(b);
    if (!st) {
      state.SkipWithError(st.message.c_str());
      total_ms = -1;
      break;
    }
    if (gated && gate.timed_out()) {
      state.SkipWithError("the launch gate timed out after 1 s: this call waits on its stream");
      total_ms = -1;
      break;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    total_ms += ms;
    state.SetIterationTime(ms / 1e3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return total_ms;
}

}  // namespace tmakit::bench
