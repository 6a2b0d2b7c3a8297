// Example (d): an im2col tensor map loading convolution input tiles. The input is an NHWC float
// tensor; a 3 x 3 convolution with padding 1 reads, for every output pixel and filter tap
// (i, j), the C channels of input pixel (oh - 1 + i, ow - 1 + j), or zeros off the image. One TMA
// im2col copy gathers those rows for 32 consecutive output pixels at one tap, padding included,
// into a 32 x C tile: the column matrix of an implicit GEMM without materialising it.
//
// The map (tmakit's conv2d_im2col_spec, validated and encoded by tmakit::encode): the bounding
// box of each image spans rows [-pad, H - 1 + pad - (r - 1)] (the same for columns), so walking
// it visits exactly the output pixels' top-left taps; the copy instruction's offsets {j, i}
// shift every pixel of the walk to tap (i, j). libcu++ (CUDA 13.0) wraps only the tile mode of
// cp.async.bulk.tensor, so the im2col load is inline PTX.
//
//   build: CMake target example_im2col_load (links tmakit for tensor_map.hpp)
// Prints "im2col_load: ok" and exits 0 when the column matrix matches a CPU im2col; 1 if not,
// 77 without TMA.
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <tmakit/tensor_map.hpp>

namespace ptx = cuda::ptx;

constexpr int kN = 2, kH = 12, kW = 12, kC = 8;  // NHWC input; C * 4 bytes a multiple of 16
constexpr int kR = 3, kS = 3, kPad = 1;          // filter rows x columns, stride 1
constexpr int kOH = kH + 2 * kPad - kR + 1, kOW = kW + 2 * kPad - kS + 1;
constexpr int kPixels = 32;  // output pixels per copy (pixels_per_column)

// cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes
//   [tile], [map, {c, w, h, n}], [bar], {off_w, off_h}: the first pixel's coordinates (innermost
//   first, the bounding box's own: w = -pad + ow), then the filter offsets added to every pixel.
__device__ void im2col_load(void* tile, const CUtensorMap* map, int c, int w, int h, int n,
                            std::uint16_t off_w, std::uint16_t off_h, std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4, %5}], [%6], {%7, %8};" ::"r"(
          static_cast<unsigned>(__cvta_generic_to_shared(tile))),
      "l"(map), "r"(c), "r"(w), "r"(h), "r"(n),
      "r"(static_cast<unsigned>(__cvta_generic_to_shared(bar))), "h"(off_w), "h"(off_h)
      : "memory");
}

// CTA (block of 32 output pixels, tap): one copy, then the tile's rows to the column matrix
// out[pixel][tap * C + channel].
__global__ void im2col_rows(const __grid_constant__ CUtensorMap map, float* out) {
  __shared__ alignas(128) float tile[kPixels][kC];
  __shared__ std::uint64_t bar;
  const int p0 = blockIdx.x * kPixels;  // first output pixel (n, oh, ow), row-major
  const int tap = blockIdx.y, i = tap / kS, j = tap % kS;
  const int n = p0 / (kOH * kOW), oh = p0 / kOW % kOH, ow = p0 % kOW;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
    // The copy always delivers pixels x channels elements (zeros for padding and past the end).
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(tile));
    im2col_load(tile, &map, 0, ow - kPad, oh - kPad, n, static_cast<std::uint16_t>(j),
                static_cast<std::uint16_t>(i), &bar);
  }
  __syncthreads();
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  for (int k = threadIdx.x; k < kPixels * kC; k += blockDim.x) {
    const int p = k / kC, ch = k % kC;
    if (p0 + p < kN * kOH * kOW) out[(p0 + p) * (kR * kS * kC) + tap * kC + ch] = tile[p][ch];
  }
}

int main() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      major < 9) {
    std::printf("im2col_load: needs a GPU with TMA (compute capability 9.0)\n");
    return 77;
  }
  std::vector<float> x(kN * kH * kW * kC);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>(k % 1013) + 1;
  const int rows = kN * kOH * kOW, cols = kR * kS * kC;
  std::vector<float> want(rows * cols, 0.0f), got(rows * cols);
  for (int n = 0; n < kN; ++n)  // the CPU im2col
    for (int oh = 0; oh < kOH; ++oh)
      for (int ow = 0; ow < kOW; ++ow)
        for (int i = 0; i < kR; ++i)
          for (int j = 0; j < kS; ++j)
            for (int c = 0; c < kC; ++c) {
              const int h = oh - kPad + i, w = ow - kPad + j;
              if (h >= 0 && h < kH && w >= 0 && w < kW)
                want[((n * kOH + oh) * kOW + ow) * cols + (i * kS + j) * kC + c] =
                    x[((n * kH + h) * kW + w) * kC + c];
            }
  float *d_x = nullptr, *d_out = nullptr;
  cudaMalloc(&d_x, x.size() * sizeof(float));
  cudaMalloc(&d_out, got.size() * sizeof(float));
  cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  const tmakit::Im2colSpec spec = tmakit::conv2d_im2col_spec(tmakit::TmaType::kF32, d_x, kN, kH, kW,
                                                             kC, kR, kS, kPad, kPad, kC, kPixels);
  std::printf("%s\n", tmakit::describe(spec).c_str());
  CUtensorMap map;
  if (const tmakit::Status s = tmakit::encode(spec, &map); !s) {
    std::fprintf(stderr, "im2col_load: %s\n", s.message.c_str());
    return 1;
  }
  im2col_rows<<<dim3((rows + kPixels - 1) / kPixels, kR * kS), 128>>>(map, d_out);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "im2col_load: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(got.data(), d_out, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (std::size_t k = 0; k < got.size(); ++k) wrong += got[k] != want[k];
  std::printf(
      "im2col_load: %d x %d x %d x %d input, 3 x 3 filter, padding 1: a %d x %d column "
      "matrix in %d copies: %s (%d wrong)\n",
      kN, kH, kW, kC, rows, cols, (rows + kPixels - 1) / kPixels * kR * kS, wrong ? "WRONG" : "ok",
      wrong);
  cudaFree(d_x);
  cudaFree(d_out);
  return wrong ? 1 : 0;
}
