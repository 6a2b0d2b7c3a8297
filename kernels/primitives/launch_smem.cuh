// The dynamic shared-memory opt-in a launch needs when its dynamic and static shared memory
// together pass 48 KB, asked for any dynamic size (a kernel's static bytes count against the
// 48 KB too: a box walk with 49,120 dynamic bytes and its own origins' slots was refused when
// only dynamic sizes above 48 KB opted in). Remembered per kernel and device:
// cudaFuncSetAttribute is a driver call on every launch otherwise (the per-call host overhead). The
// setting belongs to the function in the device's context and stays until changed, so once per
// kernel, device and size is enough, except that cudaDeviceReset drops it with the context:
// launch_with_smem then sees the launch refused (cudaErrorInvalidValue), opts in again and
// relaunches once.
#pragma once
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>
#include <cuda_runtime.h>

namespace tmakit {

struct SmemOptIn {
  const void* kernel;
  int device;
  std::uint32_t bytes;  // the largest opted in so far
};
inline std::mutex& smem_opt_in_mutex() {
  static std::mutex mu;
  return mu;
}
inline std::vector<SmemOptIn>& smem_opt_ins() {
  static std::vector<SmemOptIn> done;
  return done;
}

// Lets `kernel` launch with up to `bytes` of dynamic shared memory on the current device.
// force: set the attribute even if it is remembered (after a reset dropped it).
inline cudaError_t allow_dynamic_smem_bytes(const void* kernel, std::uint32_t bytes,
                                            bool force = false) {
  if (bytes == 0) return cudaSuccess;
  std::mutex& mu = smem_opt_in_mutex();
  std::vector<SmemOptIn>& done = smem_opt_ins();
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  if (device >= 0 && !force) {
    std::lock_guard<std::mutex> lock(mu);
    for (const SmemOptIn& d : done)
      if (d.kernel == kernel && d.device == device && d.bytes >= bytes) return cudaSuccess;
  }
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(bytes));
  if (err == cudaSuccess && device >= 0) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = std::find_if(done.begin(), done.end(), [&](const SmemOptIn& d) {
      return d.kernel == kernel && d.device == device;
    });
    if (it == done.end())
      done.push_back({kernel, device, bytes});
    else
      it->bytes = std::max(it->bytes, bytes);
  }
  return err;
}

template <class Kernel>
cudaError_t allow_dynamic_smem(Kernel* kernel, std::uint32_t bytes) {
  return allow_dynamic_smem_bytes(reinterpret_cast<const void*>(kernel), bytes);
}

// Blocks of `threads` threads and `smem_bytes` of dynamic shared memory that one SM holds at once
// (cudaOccupancyMaxActiveBlocksPerMultiprocessor after the opt-in: registers, shared memory and
// the device's limits), at least 1. The answer for the last few (kernel, device, threads, bytes)
// is remembered: the query is host time on every launch otherwise.
struct ResidentBlocks {
  const void* kernel;
  int device, threads;
  std::uint32_t bytes;
  int blocks;
};
inline int resident_blocks_per_sm(const void* kernel, int threads, std::uint32_t smem_bytes) {
  static std::mutex mu;
  static std::vector<ResidentBlocks> seen;
  int device = -1;
  if (cudaGetDevice(&device) != cudaSuccess) device = -1;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const ResidentBlocks& r : seen)
      if (r.kernel == kernel && r.device == device && r.threads == threads && r.bytes == smem_bytes)
        return r.blocks;
  }
  int n = 0;
  if (allow_dynamic_smem_bytes(kernel, smem_bytes) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, smem_bytes) != cudaSuccess)
    n = 1;
  n = std::max(n, 1);
  std::lock_guard<std::mutex> lock(mu);
  if (seen.size() >= 64) seen.erase(seen.begin());
  seen.push_back({kernel, device, threads, smem_bytes, n});
  return n;
}

// kernel<<<grid, block, smem_bytes, stream>>>(args...) with the opt-in above; the error of the
// launch (cudaGetLastError).
template <class... Params, class... Args>
cudaError_t launch_with_smem(void (*kernel)(Params...), dim3 grid, dim3 block,
                             std::uint32_t smem_bytes, cudaStream_t stream, const Args&... args) {
  const void* k = reinterpret_cast<const void*>(kernel);
  if (cudaError_t err = allow_dynamic_smem_bytes(k, smem_bytes); err != cudaSuccess) return err;
  kernel<<<grid, block, smem_bytes, stream>>>(args...);
  cudaError_t err = cudaGetLastError();
  if (err == cudaErrorInvalidValue && smem_bytes > 0) {  // the opt-in was dropped
    if (err = allow_dynamic_smem_bytes(k, smem_bytes, true); err != cudaSuccess) return err;
    kernel<<<grid, block, smem_bytes, stream>>>(args...);
    err = cudaGetLastError();
  }
  return err;
}

}  // namespace tmakit
