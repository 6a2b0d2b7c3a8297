// smem_wide: smem_xor with a 64x64 tile. The same 32x8 threads now move 16 elements each
// instead of 4: four times the bytes in flight per thread and a quarter of the blocks (and
// of the per-tile index math and barriers). This is the shape cuBLAS geam's transpose kernel
// uses on the H100 (ncu, 2026-11-21: 64x64 tiles, 256 threads, 65,536 blocks at 16384^2),
// where it outran the 32x32 rungs (docs/perf-guide.md). Element (r, c) of the tile lives at
// r*64 + (c ^ (r mod 64)): a column read by lanes tx+i (i = 0 or 32) of one warp hits banks
// (c ^ (tx+i)) mod 32, all distinct for 4-byte elements.
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/smem_tile.cuh>

namespace tmakit {

inline constexpr int kWideTile = 64;

// Hopper, 2-8 B: the hinted loads-first form (kernels/primitives/smem_tile.cuh), 2026-11-25
// (docs/perf-guide.md; two runs each, % of memcpy, shipped -> hinted). H100: batches of 64 x 64
// and up 2 B 87.6-88.8 -> 91.4-93.8 (32 x 32 -1.2, 97 x 75 0.0), 4 B 3000x97x75 81.5 -> 93.1
// (others -1.1 to +2.8), 8 B 3000x97x75 89.5 -> 97.5 and 16384x32x32 83.8 -> 90.1 (others -1.2
// to +0.2); square 2 B +4.2 to +9.4; odd 2-4 B +0.1 to +3.8, 8 B -0.7 to -2.0. H200 (session
// 27's run): batches 2 B +4.7 to +6.6 (-1.4 / -1.5 at 97 x 75 and 32 x 32), 4 B +0.1 to +6.4,
// 8 B 3000x97x75 81.8 -> 94.7, 32 x 32 +3.2 (others -0.7 to -2.0); odd -0.3 to +7.2. At 1 B it
// lost on batches (H100 -4.7 to +0.8, H200 -3.4 to -0.5): plain loads there.
cudaError_t kernels::launch_smem_wide(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    auto go = [&](auto l2b) {
      return launch_smem_tile<T, XorLayout<kWideTile>, decltype(l2b)::value>(
          a.src, a.dst, a.rows, a.cols, a.strides, a.stream);
    };
    if constexpr (sizeof(T) >= 2) return with_l2_hint<256>(kernels::l2_hint_pays(a), go);
    return go(std::integral_constant<int, 0>{});
  });
}

}  // namespace tmakit
