// The im2col worked example's kernel: one CTA per (filter tap, block of output pixels).
// Thread 0 arms an mbarrier with the copy's bytes (pixels_per_copy x c x 4, also when pixels
// fall outside the image: TMA fills those with zeros) and issues one im2col load; then every
// thread copies the valid rows of the pixels x channels tile to the column matrix.
//
// Coordinates (driver order, innermost first): {c0, w, h, n} is the first pixel of the block
// in the bounding-box walk, w = lower_w + ow, h = lower_h + oh for output pixel (n, oh, ow);
// the im2col offsets {j, i} move every pixel of the copy by the filter tap (W first).
// libcu++ (CUDA 13.0's cuda::ptx) wraps only the tile mode of cp.async.bulk.tensor, so the
// im2col load is inline PTX; the mbarrier calls are tmakit's cuda::ptx wrappers.
#include <tests/sm90/im2col_example.hpp>
#include <cuda/ptx>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tma.cuh>

namespace tmakit::test {
namespace {

constexpr int kMaxTileBytes = 32 * 1024;

__device__ void im2col_load_4d(void* smem, const CUtensorMap* map, int c, int w, int h, int n,
                               std::uint16_t off_w, std::uint16_t off_h, std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(
          static_cast<unsigned>(__cvta_generic_to_shared(smem))),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(n),
      "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "h"(off_w), "h"(off_h)
      : "memory");
#else
  __trap();
#endif
}

__global__ void im2col_example_kernel(const __grid_constant__ CUtensorMap map, Im2colExample ex,
                                      float* out, int* timeouts) {
  extern __shared__ unsigned char raw[];
  __shared__ std::uint64_t bar;
  float* tile = tma::align_smem<float>(raw, 128);
  const int oh_n = ex.h + 2 * ex.pad_h - ex.r + 1, ow_n = ex.w + 2 * ex.pad_w - ex.s + 1;
  const int pixels = ex.n * oh_n * ow_n;
  const int tap = blockIdx.y, i = tap / ex.s, j = tap % ex.s;  // filter row i (H), column j (W)
  const int p0 = blockIdx.x * ex.pixels_per_copy;              // first output pixel
  const int n = p0 / (oh_n * ow_n), oh = (p0 / ow_n) % oh_n, ow = p0 % ow_n;
  const std::uint32_t bytes = static_cast<std::uint32_t>(ex.pixels_per_copy * ex.c * 4);
  if (threadIdx.x == 0) {
    tma::mbar_init(&bar, 1);
    tma::fence_proxy_async_smem();
    tma::mbar_arrive_expect_tx(&bar, bytes);
    im2col_load_4d(tile, &map, 0, -ex.pad_w + ow, -ex.pad_h + oh, n, static_cast<std::uint16_t>(j),
                   static_cast<std::uint16_t>(i), &bar);
  }
  __syncthreads();
  const long long start = clock64();
  bool done = false;
  while (!(done = tma::mbar_try_wait_parity(&bar, 0)) && clock64() - start < 2000000000ll) {
  }
  if (!done) {
    if (threadIdx.x == 0) atomicAdd(timeouts, 1);
    return;
  }
  const int cols = ex.r * ex.s * ex.c;
  for (int k = threadIdx.x; k < ex.pixels_per_copy * ex.c; k += blockDim.x) {
    const int p = k / ex.c, ch = k % ex.c;
    if (p0 + p < pixels) out[static_cast<long long>(p0 + p) * cols + tap * ex.c + ch] = tile[k];
  }
}

}  // namespace

cudaError_t run_im2col_example(const CUtensorMap& map, const Im2colExample& ex, float* out,
                               int* timeouts) {
  const int tile_bytes = ex.pixels_per_copy * ex.c * 4;
  if (tile_bytes > kMaxTileBytes) return cudaErrorInvalidValue;
  // Never launch a kernel that can only trap: without sm_90 device code in this build the
  // im2col load is compiled out.
  int ptx_version = 0;
  if (kernels::device_code_ptx_version(&ptx_version) != cudaSuccess || ptx_version < 90)
    return cudaErrorNoKernelImageForDevice;
  const int oh_n = ex.h + 2 * ex.pad_h - ex.r + 1, ow_n = ex.w + 2 * ex.pad_w - ex.s + 1;
  const int pixels = ex.n * oh_n * ow_n;
  int* d_timeouts = nullptr;
  cudaError_t e = cudaMalloc(&d_timeouts, sizeof(int));
  if (e != cudaSuccess) return e;
  cudaMemset(d_timeouts, 0, sizeof(int));
  const dim3 grid((pixels + ex.pixels_per_copy - 1) / ex.pixels_per_copy, ex.r * ex.s);
  im2col_example_kernel<<<grid, 128, tile_bytes + 128>>>(map, ex, out, d_timeouts);
  e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) e = cudaMemcpy(timeouts, d_timeouts, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(d_timeouts);
  return e;
}

}  // namespace tmakit::test
