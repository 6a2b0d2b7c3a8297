// vec_padded: smem_padded with 16-byte global accesses (Vitamin-CUDA's "float4 + padding",
// for any element size): each thread loads one LDG.128 of an input row, unpacks it into the
// padded tile element by element, then gathers 16 bytes down a tile column and writes one
// STG.128 of an output row. A quarter as many global instructions as smem_padded for 4-byte
// elements; shared memory is still accessed one element at a time (padding breaks the 16-byte
// alignment that vector shared accesses need). Unaligned pointers or row lengths fall back
// to a scalar path per side (kernels/primitives/vec_tile.cuh).
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/vec_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_vec_padded(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    return launch_vec_tile<decltype(t), PaddedLayout>(a.src, a.dst, a.rows, a.cols, a.strides,
                                                      a.stream);
  });
}

}  // namespace tmakit
