// Host time per call of a call that does not wait for the GPU (host_overhead/* and
// host_calls/*): `calls_per_iter` calls per benchmark iteration on a host clock, the device
// drained between iterations outside the timed region (so the launch queue never fills);
// counter us_per_call. Returns false if any call returned false.
#pragma once
#include <chrono>
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

namespace tmakit::bench {

template <class Call>
bool time_host_calls(benchmark::State& st, int calls_per_iter, Call&& call) {
  double total_s = 0;
  bool ok = true;
  for (auto _ : st) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls_per_iter; ++i) ok = call() && ok;
    const auto t1 = std::chrono::steady_clock::now();
    cudaDeviceSynchronize();
    const double dt = std::chrono::duration<double>(t1 - t0).count();
    total_s += dt;
    st.SetIterationTime(dt);
  }
  st.counters["us_per_call"] =
      1e6 * total_s / (static_cast<double>(st.iterations()) * calls_per_iter);
  return ok;
}

}  // namespace tmakit::bench
