// smem_wide: smem_xor with a 64x64 tile. The same 32x8 threads now move 16 elements each
// instead of 4: four times the bytes in flight per thread and a quarter of the blocks (and
// of the per-tile index math and barriers). This is the shape cuBLAS geam's transpose kernel
// uses on the H100 (ncu: 64x64 tiles, 256 threads, 65,536 blocks at 16384^2),
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

// Hopper, 2-8 B: the hinted loads-first form (kernels/primitives/smem_tile.cuh): batches,
// squares and odd shapes gained on both GPUs (3000x97x75 8 B most: docs/perf-guide.md 4.2); at
// 1 B it lost on batches, so 1 B keeps plain loads (docs/perf-guide.md section 6).
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
