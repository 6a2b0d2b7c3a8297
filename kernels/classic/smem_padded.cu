// smem_padded: the smem tile padded to 32x33 (Harris; every seed): each tile row starts one
// element later, so the column read of 4-byte elements walks through all 32 banks
// (bank = (r*33 + c) mod 32 = (r + c) mod 32) instead of hitting one 32 times.
//
// Also here: the LeetGPU article's kernel, 16x16 threads on a 16x17 float tile, behind its
// `extern "C" void solve(const float*, float*, int rows, int cols)` entry point.
#include <kernels/common/grid.hpp>
#include <kernels/common/smem_layouts.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/smem_tile.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {

cudaError_t kernels::launch_smem_padded(const LaunchArgs& a) {
  auto go = [&](auto t, auto l2b) {
    return launch_smem_tile<decltype(t), PaddedLayout<kSmemTile>, decltype(l2b)::value>(
        a.src, a.dst, a.rows, a.cols, a.strides, a.stream);
  };
  // 16-byte elements too: the classic fallback of int4_8x8 (a 32x33 tile of uint4 is 16.5 KB).
  // On Hopper they take the hinted loads-first form (kernels/primitives/smem_tile.cuh), which
  // gained on batches, odd and skinny shapes at 16 B on the H100 (not measured there on the
  // H200); at 1-8 B it was mixed, so they keep plain loads (docs/perf-guide.md section 6).
  if (a.elem_bytes == 16)
    return with_l2_hint<256>(kernels::l2_hint_pays(a), [&](auto l2b) { return go(uint4{}, l2b); });
  return dispatch_elem_1248(a.elem_bytes,
                            [&](auto t) { return go(t, std::integral_constant<int, 0>{}); });
}

namespace {

constexpr int kLeetTile = 16;

// One thread per element of a 16x16 tile at (r0, c0):
//   load : tile[y][x] <- in[r0+y][c0+x]      (x = threadIdx.x walks an input row)
//   store: out[c0+y][r0+x] <- tile[x][y]     (x walks an output row; tile read down a column,
//                                             17-element rows keep it conflict-free)
__global__ void __launch_bounds__(kLeetTile* kLeetTile)
    leetgpu_tiled_kernel(const float* __restrict__ input, float* __restrict__ output, int rows,
                         int cols) {
  __shared__ float tile[kLeetTile][kLeetTile + 1];
  const int x = threadIdx.x, y = threadIdx.y;
  for_each_tile(1, ceil_div(rows, kLeetTile), ceil_div(cols, kLeetTile),
                [&](std::int64_t, std::int64_t tile_y, std::int64_t tile_x) {
                  const std::int64_t r0 = tile_y * kLeetTile, c0 = tile_x * kLeetTile;
                  if (r0 + y < rows && c0 + x < cols)
                    tile[y][x] = input[(r0 + y) * cols + (c0 + x)];
                  __syncthreads();
                  if (c0 + y < cols && r0 + x < rows)
                    output[(c0 + y) * rows + (r0 + x)] = tile[x][y];
                  __syncthreads();
                });
}

}  // namespace
}  // namespace tmakit

extern "C" void solve(const float* input, float* output, int rows, int cols) {
  using namespace tmakit;
  if (input == nullptr || output == nullptr || rows <= 0 || cols <= 0) return;
  const TileGrid g = tile_grid(ceil_div(rows, kLeetTile), ceil_div(cols, kLeetTile));
  leetgpu_tiled_kernel<<<dim3(g.x, g.y), dim3(kLeetTile, kLeetTile)>>>(input, output, rows, cols);
  cudaDeviceSynchronize();
}
