// The im2col worked example (docs/tensor-maps.md): TMA im2col loads gather convolution
// patches of an NHWC tensor, one copy per (filter tap, block of output pixels), into a column
// matrix that tests/sm90/test_im2col.cpp compares with a CPU im2col.
#pragma once
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace tmakit::test {

struct Im2colExample {
  int n, h, w, c;       // NHWC input, 4-byte elements, c * 4 a multiple of 16
  int r, s;             // filter extent along H and W (stride 1, dilation 1)
  int pad_h, pad_w;     // output is n x (h + 2 pad_h - r + 1) x (w + 2 pad_w - s + 1)
  int pixels_per_copy;  // the map's pixels_per_column
};

// out: (output pixels) x (r * s * c) floats, row = output pixel (n, oh, ow) in that order,
// column = (tap (i, j) = i * s + j) * c + channel. Copy (tap, block b) loads pixels
// b * pixels_per_copy .. of the bounding-box walk at filter offsets (j, i) (W first) and writes
// the valid ones. Returns the first CUDA error (cudaErrorNoKernelImageForDevice, launching
// nothing, when this build has no sm_90 device code); *timeouts counts copies whose mbarrier did
// not complete within about a second.
cudaError_t run_im2col_example(const CUtensorMap& map, const Im2colExample& ex, float* out,
                               int* timeouts);

}  // namespace tmakit::test
