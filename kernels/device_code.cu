// Which device code this build has for the current GPU. Every kernel of the library is compiled
// for the same CMAKE_CUDA_ARCHITECTURES, so one empty kernel answers for all of them: the CUDA
// runtime picks its code exactly as it picks theirs (an sm_XY cubin for the device, else PTX
// JIT-compiled for it, else none).
//   - no code at all: cudaFuncGetAttributes fails with cudaErrorNoKernelImageForDevice, and so
//     would every launch;
//   - PTX of an older virtual architecture (a build for "80" run on an H100): ptxVersion 80,
//     and TMAKIT_DEVICE_HAS_TMA was 0 when that PTX was made, so a TMA kernel would reach
//     __trap() and kill the context. The host checks this before any TMA launch.
#include <kernels/launchers.hpp>

#ifndef TMAKIT_CUDA_ARCHITECTURES
#define TMAKIT_CUDA_ARCHITECTURES "unknown"
#endif

namespace tmakit::kernels {
namespace {
__global__ void device_code_probe() {}
}  // namespace

cudaError_t device_code_ptx_version(int* ptx_version) {
  cudaFuncAttributes attr{};
  const cudaError_t err = cudaFuncGetAttributes(&attr, device_code_probe);
  if (err != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so it is not blamed on a later call
    return err;
  }
  *ptx_version = attr.ptxVersion;  // major * 10 + minor of the virtual architecture
  return cudaSuccess;
}

const char* built_cuda_architectures() {
  return TMAKIT_CUDA_ARCHITECTURES;
}

}  // namespace tmakit::kernels
