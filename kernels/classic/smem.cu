// smem: stage a 32x32 tile in shared memory so that BOTH global sides are coalesced: a warp
// reads 32 consecutive elements of an input row and writes 32 consecutive elements of an
// output row; the transpose happens in shared memory. 32x8 threads, 4 elements per thread,
// a full-tile fast path without bounds checks and an edge path with them
// (kernels/primitives/smem_tile.cuh). New problem: the shared read walks a column of a
// row-major 32x32 array, so for 4-byte elements all 32 lanes hit one bank (32-way conflict).
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/smem_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_smem(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    return launch_smem_tile<decltype(t), RowMajorLayout<kSmemTile>>(a.src, a.dst, a.rows, a.cols,
                                                                    a.strides, a.stream);
  });
}

}  // namespace tmakit
