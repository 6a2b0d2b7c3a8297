#include <tests/gpu/device_check.hpp>
#include <host/tools/testdata.hpp>

namespace tmakit::test {
namespace {

__device__ __forceinline__ unsigned char byte_pattern(std::uint64_t i) {
  std::uint64_t x = i * 0x9E3779B97F4A7C15ull;
  const unsigned char v = static_cast<unsigned char>((x >> 56) ^ (i >> 32) ^ i);
  return v == kPoisonByte ? static_cast<unsigned char>(v ^ 1) : v;
}

__global__ void fill_kernel(unsigned char* p, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    p[i] = byte_pattern(static_cast<std::uint64_t>(i));
}

// out is a batch of cols x rows matrices: out[b][c][r] must be in[b][r][c] =
// byte_pattern(b*rows*cols + r*cols + c).
__global__ void check_kernel(const unsigned char* out, std::int64_t batch, std::int64_t rows,
                             std::int64_t cols, unsigned long long* errors) {
  const std::int64_t per = rows * cols, n = batch * per;
  unsigned long long bad = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = i / per, k = i % per, c = k / rows, r = k % rows;
    bad += out[i] != byte_pattern(static_cast<std::uint64_t>(b * per + r * cols + c));
  }
  if (bad) atomicAdd(errors, bad);
}

}  // namespace

cudaError_t fill_byte_pattern(unsigned char* p, std::int64_t n) {
  fill_kernel<<<4096, 256>>>(p, n);
  return cudaGetLastError();
}

cudaError_t count_transpose_errors_u8(const unsigned char* out, std::int64_t rows,
                                      std::int64_t cols, unsigned long long* errors,
                                      std::int64_t batch) {
  unsigned long long* d_err = nullptr;
  cudaError_t e = cudaMalloc(&d_err, sizeof *d_err);
  if (e != cudaSuccess) return e;
  cudaMemset(d_err, 0, sizeof *d_err);
  check_kernel<<<4096, 256>>>(out, batch, rows, cols, d_err);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaMemcpy(errors, d_err, sizeof *d_err, cudaMemcpyDeviceToHost);
  cudaFree(d_err);
  return e;
}

}  // namespace tmakit::test
