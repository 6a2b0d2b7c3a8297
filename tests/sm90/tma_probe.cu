#include <tests/sm90/tma_probe.hpp>
#include <cuda/ptx>
#include <kernels/primitives/tma.cuh>

namespace tmakit::test {
namespace {

constexpr std::uint32_t kProbeSmemBytes = 32 * 1024;

__global__ void probe_kernel(const __grid_constant__ CUtensorMap map, int x, int y,
                             std::uint32_t expect_bytes, std::uint32_t copy_bytes,
                             unsigned char* out, int* completed) {
  extern __shared__ unsigned char probe_smem_raw[];
  __shared__ std::uint64_t bar;
  unsigned char* smem = tma::align_smem<unsigned char>(probe_smem_raw, 1024);
  for (std::uint32_t i = threadIdx.x; i < copy_bytes; i += blockDim.x) smem[i] = 0xEE;
  if (threadIdx.x == 0) {
    tma::mbar_init(&bar, 1);
    tma::fence_proxy_async_smem();  // the init and the 0xEE fill, before the TMA writes
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::mbar_arrive_expect_tx(&bar, expect_bytes);
    tma::load_2d(smem, &map, x, y, &bar);
  }
  // Bounded wait: a wrong byte count must fail the test, not hang it.
  const long long start = clock64();
  bool done = false;
  while (!(done = tma::mbar_try_wait_parity(&bar, 0)) && clock64() - start < 2000000000ll) {
  }
  if (threadIdx.x == 0) *completed = done ? 1 : 0;
  if (!done) return;
  for (std::uint32_t i = threadIdx.x; i < copy_bytes; i += blockDim.x) out[i] = smem[i];
}

__global__ void store_probe_kernel(const __grid_constant__ CUtensorMap map, int x, int y,
                                   std::uint32_t box_bytes) {
#if TMAKIT_DEVICE_HAS_TMA
  extern __shared__ unsigned char probe_smem_raw[];
  unsigned char* smem = tma::align_smem<unsigned char>(probe_smem_raw, 1024);
  for (std::uint32_t i = threadIdx.x; i < box_bytes; i += blockDim.x)
    smem[i] = static_cast<unsigned char>(1 + i % 200);
  // The generic-proxy writes above, before the async proxy (the TMA unit) reads them.
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::int32_t coords[2] = {x, y};
    cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, &map, coords,
                                    smem);
    cuda::ptx::cp_async_bulk_commit_group();
    cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{});  // writes complete
  }
  __syncthreads();
#else
  __trap();
#endif
}

}  // namespace

cudaError_t tma_probe_store(const CUtensorMap& map, int x, int y, std::uint32_t box_bytes) {
  if (box_bytes > kProbeSmemBytes) return cudaErrorInvalidValue;
  const std::uint32_t smem = kProbeSmemBytes + 1024;
  cudaFuncSetAttribute(store_probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  store_probe_kernel<<<1, 128, smem>>>(map, x, y, box_bytes);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return e;
}

cudaError_t tma_probe_load(const CUtensorMap& map, int x, int y, std::uint32_t expect_bytes,
                           std::uint32_t copy_bytes, unsigned char* out, ProbeResult* result) {
  int* d_completed = nullptr;
  cudaError_t e = cudaMalloc(&d_completed, sizeof(int));
  if (e != cudaSuccess) return e;
  cudaMemset(d_completed, 0xFF, sizeof(int));
  const std::uint32_t smem = kProbeSmemBytes + 1024;
  cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  probe_kernel<<<1, 128, smem>>>(map, x, y, expect_bytes, copy_bytes, out, d_completed);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess)
    e = cudaMemcpy(&result->completed, d_completed, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_completed);
  return e;
}

}  // namespace tmakit::test
