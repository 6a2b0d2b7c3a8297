// The launch gate (bench/launch_gate.hpp): a one-thread kernel that spins on a flag in mapped
// host memory until the host sets it, or for at most 1 s.
#include <bench/launch_gate.hpp>
#include <cuda/atomic>

namespace tmakit::bench {
namespace {

__global__ void gate_kernel(int* flag) {
  cuda::atomic_ref<int, cuda::thread_scope_system> open(flag[0]);
  const long long start = clock64();
  // ~1 s at the SM clock (1.98 GHz on both GPUs here): a gate that is never opened only slows
  // the run down, and says so (timed_out).
  constexpr long long kTimeoutCycles = 2'000'000'000LL;
  while (open.load(cuda::std::memory_order_relaxed) == 0) {
    if (clock64() - start > kTimeoutCycles) {
      cuda::atomic_ref<int, cuda::thread_scope_system>(flag[1]).store(1);
      return;
    }
    __nanosleep(200);
  }
}

}  // namespace

LaunchGate::~LaunchGate() {
  if (flag_ != nullptr) cudaFreeHost(const_cast<int*>(flag_));
}

cudaError_t LaunchGate::init() {
  void* p = nullptr;
  const cudaError_t err = cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped);
  if (err != cudaSuccess) return err;
  flag_ = static_cast<volatile int*>(p);
  flag_[0] = flag_[1] = 0;
  return cudaSuccess;
}

cudaError_t LaunchGate::close(cudaStream_t stream) {
  flag_[0] = 0;
  flag_[1] = 0;
  gate_kernel<<<1, 1, 0, stream>>>(const_cast<int*>(flag_));
  return cudaGetLastError();
}

void LaunchGate::open() {
  __atomic_store_n(const_cast<int*>(flag_), 1, __ATOMIC_SEQ_CST);
}

bool LaunchGate::timed_out() const {
  return flag_[1] != 0;
}

}  // namespace tmakit::bench
