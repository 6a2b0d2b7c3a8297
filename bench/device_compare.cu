// Verification on the device for tmakit_bench: counts the bytes where two device buffers
// differ, so a multi-gigabyte output is checked without copying it back to the host.
#include <cstdint>
#include <cuda_runtime.h>
#include "device_compare.hpp"

namespace tmakit::bench {
namespace {

__global__ void count_diff_kernel(const unsigned char* a, const unsigned char* b, std::size_t bytes,
                                  unsigned long long* count) {
  unsigned long long local = 0;
  const std::size_t threads = std::size_t(gridDim.x) * blockDim.x;
  const std::size_t tid = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  // 16-byte words where both buffers allow it (cudaMalloc'd: they do), then the tail bytes.
  const bool vec =
      (reinterpret_cast<std::uintptr_t>(a) | reinterpret_cast<std::uintptr_t>(b)) % 16 == 0;
  const std::size_t words = vec ? bytes / 16 : 0;
  const uint4* a4 = reinterpret_cast<const uint4*>(a);
  const uint4* b4 = reinterpret_cast<const uint4*>(b);
  for (std::size_t i = tid; i < words; i += threads) {
    const uint4 x = a4[i], y = b4[i];
    local += (x.x != y.x) + (x.y != y.y) + (x.z != y.z) + (x.w != y.w);
  }
  for (std::size_t i = words * 16 + tid; i < bytes; i += threads) local += a[i] != b[i];
  if (local != 0) atomicAdd(count, local);
}

}  // namespace

cudaError_t count_differences(const void* a, const void* b, std::size_t bytes,
                              unsigned long long* differences) {
  unsigned long long* d_count = nullptr;
  cudaError_t e = cudaMalloc(&d_count, sizeof *d_count);
  if (e != cudaSuccess) return e;
  cudaMemset(d_count, 0, sizeof *d_count);
  count_diff_kernel<<<1024, 256>>>(static_cast<const unsigned char*>(a),
                                   static_cast<const unsigned char*>(b), bytes, d_count);
  e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpy(differences, d_count, sizeof *d_count, cudaMemcpyDeviceToHost);
  cudaFree(d_count);
  return e;
}

}  // namespace tmakit::bench
