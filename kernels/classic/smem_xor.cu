// smem_xor: the smem tile without padding; instead the column index is XOR-ed with the row
// (CuTe's Swizzle<5,0,5>, Colfax's tutorial): element (r, c) lives at r*32 + (c ^ r). A column
// read then visits 32 distinct banks for 4-byte elements, and the array keeps its 32x32 shape
// and alignment (which padding breaks, and which 16-byte shared accesses need).
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/smem_tile.cuh>

namespace tmakit {

// Hopper, 1-4 B: the hinted loads-first form (kernels/primitives/smem_tile.cuh): batches and
// squares gained on both GPUs; at 8 B it split by shape and GPU, so 8 B keeps plain loads
// (docs/perf-guide.md section 6).
cudaError_t kernels::launch_smem_xor(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    auto go = [&](auto l2b) {
      return launch_smem_tile<T, XorLayout<kSmemTile>, decltype(l2b)::value>(
          a.src, a.dst, a.rows, a.cols, a.strides, a.stream);
    };
    if constexpr (sizeof(T) <= 4) return with_l2_hint<256>(kernels::l2_hint_pays(a), go);
    return go(std::integral_constant<int, 0>{});
  });
}

}  // namespace tmakit
