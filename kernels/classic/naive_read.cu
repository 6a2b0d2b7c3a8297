// naive_read: the first rung. One thread per element, 16x16 threads per block; a warp walks
// along an input row, so the read is coalesced and the write strides by `rows` elements
// (each lane hits a different output row: 32 separate sectors per warp store).
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kBlock = 16;

// Thread (x, y) of tile (ty, tx) of matrix b reads input (r, c) = (ty*16 + y, tx*16 + x), at
// src_b + r*src_ld + c, and writes it to output (c, r), at dst_b + c*dst_ld + r (matrix b at
// src_b, dst_b: BatchStrides::batch_offsets).
template <class T>
__global__ void __launch_bounds__(kBlock* kBlock)
    naive_read_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t rows,
                      std::int64_t cols, BatchStrides st) {
  for_each_tile(st.batch, ceil_div(rows, kBlock), ceil_div(cols, kBlock),
                [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
                  const std::int64_t r = tile_y * kBlock + threadIdx.y;
                  const std::int64_t c = tile_x * kBlock + threadIdx.x;
                  std::int64_t so, dof;
                  st.batch_offsets(b, &so, &dof);
                  if (r < rows && c < cols)
                    dst[dof + c * st.dst_ld_elems + r] = src[so + r * st.src_ld_elems + c];
                });
}

}  // namespace

cudaError_t kernels::launch_naive_read(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    const TileGrid g =
        tile_grid(ceil_div(a.rows, kBlock), ceil_div(a.cols, kBlock), a.strides.batch);
    naive_read_kernel<T><<<dim3(g.x, g.y, g.z), dim3(kBlock, kBlock), 0, a.stream>>>(
        static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides);
    return cudaGetLastError();
  });
}

}  // namespace tmakit
