// The host clock of the launch experiments (launch_state.cu, launch_paths.cu): 7 repetitions
// of 20 batches of 100 calls, the device drained after each batch outside the timed region
// (bench/host_timing.hpp's protocol); each repetition's us per call, sorted ascending. And
// their device allocation.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

namespace tmakit::experiments {

template <class Call>
std::vector<double> sorted_us_per_call(Call&& call) {
  std::vector<double> reps;
  for (int rep = 0; rep < 7; ++rep) {
    double total_s = 0;
    for (int batch = 0; batch < 20; ++batch) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < 100; ++i) call();
      const auto t1 = std::chrono::steady_clock::now();
      cudaDeviceSynchronize();
      total_s += std::chrono::duration<double>(t1 - t0).count();
    }
    reps.push_back(1e6 * total_s / 2000);
  }
  std::sort(reps.begin(), reps.end());
  return reps;
}

// cudaMalloc, or exit with a message: the experiments have nothing to fall back on.
inline void* dalloc(size_t bytes) {
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc(%zu) failed\n", bytes);
    std::exit(1);
  }
  return p;
}

}  // namespace tmakit::experiments
