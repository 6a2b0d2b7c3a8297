// vec_swizzled: vec_padded with the padding replaced by the XOR swizzle of smem_xor
// (Vitamin-CUDA's final kernel, "float4 + swizzle"): element (r, c) of the N x N tile lives
// at r*N + (c ^ (r mod N)). No wasted shared memory and rows stay 16-byte aligned; shared
// accesses are still one element wide.
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/vec_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_vec_swizzled(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    return launch_vec_tile<decltype(t), XorLayout>(a.src, a.dst, a.rows, a.cols, a.strides,
                                                   a.stream);
  });
}

}  // namespace tmakit
