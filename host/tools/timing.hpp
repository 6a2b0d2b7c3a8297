// Event timing shared by the CLI and the benchmarks: CUDA events around the launch only,
// warm-up first, L2 flushed (a scratch buffer twice the L2 size overwritten) before each timed
// run, median reported.
#pragma once
#include <functional>
#include <vector>
#include <tmakit/tmakit.hpp>

namespace tmakit {

class L2Flusher {
 public:
  L2Flusher() = default;
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  Status init(std::size_t l2_bytes);  // allocates 2 x l2_bytes
  // Demotes persisting (evict_last) L2 lines to normal, then overwrites the scratch buffer.
  // TMAKIT_FLUSH_KEEP_PERSISTING=1 skips the demotion: the flush of the runs made before
  // the demotion existed, kept to reproduce them.
  Status flush(cudaStream_t stream);

 private:
  void* buf_ = nullptr;
  std::size_t bytes_ = 0;
  int generation_ = 0;
  bool reset_persisting_ = true;
};

struct TimingStats {
  double median_ms = 0, min_ms = 0, max_ms = 0;
  std::vector<double> samples_ms;
};

// The median of v (the mean of the middle two for an even count); v must not be empty.
double median(std::vector<double> v);

// Runs `launch` warmup times, then `iters` times each between two events (after an L2 flush
// when flusher is not null).
Status time_launches(const std::function<Status()>& launch, int warmup, int iters,
                     L2Flusher* flusher, cudaStream_t stream, TimingStats* stats);

// Decimal GB/s for `bytes` moved in `ms`.
inline double gbps(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0;
}

}  // namespace tmakit
