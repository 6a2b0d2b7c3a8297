// smem_xor: the smem tile without padding; instead the column index is XOR-ed with the row
// (CuTe's Swizzle<5,0,5>, Colfax's tutorial): element (r, c) lives at r*32 + (c ^ r). A column
// read then visits 32 distinct banks for 4-byte elements, and the array keeps its 32x32 shape
// and alignment (which padding breaks, and which 16-byte shared accesses need).
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/smem_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_smem_xor(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    return launch_smem_tile<decltype(t), XorLayout<kSmemTile>>(a.src, a.dst, a.rows, a.cols,
                                                               a.strides, a.stream);
  });
}

}  // namespace tmakit
