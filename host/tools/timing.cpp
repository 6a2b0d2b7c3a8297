#include <algorithm>
#include <cstdlib>
#include <string>
#include <host/error.hpp>
#include <host/tools/timing.hpp>

namespace tmakit {

L2Flusher::~L2Flusher() {
  if (buf_ != nullptr) cudaFree(buf_);
}

Status L2Flusher::init(std::size_t l2_bytes) {
  bytes_ = 2 * std::max<std::size_t>(l2_bytes, 1 << 20);
  TMAKIT_CUDA_TRY(cudaMalloc(&buf_, bytes_));
  const char* keep = std::getenv("TMAKIT_FLUSH_KEEP_PERSISTING");
  reset_persisting_ = keep == nullptr || std::string(keep) != "1";
  return {};
}

Status L2Flusher::flush(cudaStream_t stream) {
  // Lines read or written with an evict_last policy (tma_wide's loads: .L2::cache_hint with
  // cuda::access_property::persisting) outlive the memset below: it evicts normal lines first.
  // Left alone, they are still in the L2 when the next timed launch reads the same buffer
  // (docs/perf-guide.md: up to 1.2x on 8-16 MB calls). So they are demoted to
  // normal first; the memset then evicts them like any other line.
  if (reset_persisting_ && cudaCtxResetPersistingL2Cache() != cudaSuccess)
    cudaGetLastError();  // not supported here (MIG, MPS): nothing was marked persisting either
  TMAKIT_CUDA_TRY(cudaMemsetAsync(buf_, ++generation_ & 0xff, bytes_, stream));
  return {};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Status time_launches(const std::function<Status()>& launch, int warmup, int iters,
                     L2Flusher* flusher, cudaStream_t stream, TimingStats* stats) {
  if (iters < 1) return make_status(StatusCode::kInvalidArgument, "iters must be >= 1");
  for (int i = 0; i < warmup; ++i)
    if (Status s = launch(); !s) return s;
  cudaEvent_t start = nullptr, stop = nullptr;
  TMAKIT_CUDA_TRY(cudaEventCreate(&start));
  TMAKIT_CUDA_TRY(cudaEventCreate(&stop));
  stats->samples_ms.clear();
  Status result;
  for (int i = 0; i < iters && result.ok(); ++i) {
    if (flusher != nullptr) result = flusher->flush(stream);
    if (!result) break;
    cudaEventRecord(start, stream);
    result = launch();
    cudaEventRecord(stop, stream);
    if (!result) break;
    const cudaError_t err = cudaEventSynchronize(stop);
    if (err != cudaSuccess) {
      result = cuda_status(err, "cudaEventSynchronize");
      break;
    }
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    stats->samples_ms.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!result) return result;
  stats->median_ms = median(stats->samples_ms);
  stats->min_ms = *std::min_element(stats->samples_ms.begin(), stats->samples_ms.end());
  stats->max_ms = *std::max_element(stats->samples_ms.begin(), stats->samples_ms.end());
  return {};
}

}  // namespace tmakit
