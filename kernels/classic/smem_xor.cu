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

// Hopper, 1-4 B: the hinted loads-first form (kernels/primitives/smem_tile.cuh), 2026-11-25
// (docs/perf-guide.md; two runs each, % of memcpy, shipped -> hinted). H100: batches 2 B 63.8-
// 70.2 -> 70.9-76.3 (3000x97x75 43.5 -> 46.0), 4 B 90.4-93.0 -> 97.8-98.8 (3000x97x75 71.9 ->
// 79.0); odd 2 B +1.2 to +3.2, 4 B -0.9 to -3.3; square 2 B +5.7 to +7.9; 1 B -0.3 to +2.9.
// H200 (the 2026-11-25 run): batches 2 B +1.9 to +4.3, 4 B +4.6 to +7.5; odd 2 B +4.3 to +6.5,
// 4 B -2.3 to -2.9; 1 B +0.2 to +2.9. At 8 B it split by shape (3000x97x75 H100 91.1 -> 82.7,
// H200 81.3 -> 91.1; odd shapes -1.7 to -2.9): plain loads there.
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
