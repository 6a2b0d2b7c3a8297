// The only kernels/ header that host code includes: one launcher per technique, all with the
// same signature so the registry (host/registry.cpp) can hold them in one table.
// Launchers assume validated arguments (host/transpose.cpp checks them) and return the launch
// error, if any; they never synchronise.
#pragma once
#include <cstdint>
#include <cuda_runtime_api.h>

namespace tmakit::kernels {

struct LaunchArgs {
  const void* src = nullptr;  // rows x cols, row-major (copy: rows*cols elements)
  void* dst = nullptr;        // cols x rows, row-major
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int elem_bytes = 0;  // 1, 2, 4, 8 (16 for int4_8x8)
  cudaStream_t stream = nullptr;
  int sm_count = 1;  // for grids sized from the machine (copy, persistent kernels)
};

using Launcher = cudaError_t (*)(const LaunchArgs&);

// kernels/classic/
cudaError_t launch_naive_read(const LaunchArgs&);
cudaError_t launch_naive_write(const LaunchArgs&);
cudaError_t launch_smem(const LaunchArgs&);
cudaError_t launch_smem_padded(const LaunchArgs&);
cudaError_t launch_smem_xor(const LaunchArgs&);
cudaError_t launch_vec_padded(const LaunchArgs&);
cudaError_t launch_vec_swizzled(const LaunchArgs&);
cudaError_t launch_copy(const LaunchArgs&);

}  // namespace tmakit::kernels

// The LeetGPU entry point, exactly as that article declares it (kernels/classic/smem_padded.cu):
// 4-byte floats, 16x16 tile padded to 16x17, synchronises before returning.
extern "C" void solve(const float* input, float* output, int rows, int cols);
