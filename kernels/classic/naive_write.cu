// naive_write: naive_read with the roles swapped. A warp walks along an output row, so the
// write is coalesced and the read strides by `cols` elements. Reads that miss are cheaper to
// absorb than writes (L1/L2 keep the other elements of each sector for the next lanes), so
// this rung is usually a little faster than naive_read.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kBlock = 16;

// The grid covers the OUTPUT (cols x rows). Thread (x, y) of output tile (ty, tx) writes
// output (i, j) = (ty*16 + y, tx*16 + x) of matrix b, which is input (j, i): dst at
// dst_b + i*dst_ld + j, src at src_b + j*src_ld + i (matrix b at src_b, dst_b:
// BatchStrides::batch_offsets).
template <class T>
__global__ void __launch_bounds__(kBlock* kBlock)
    naive_write_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t rows,
                       std::int64_t cols, BatchStrides st) {
  for_each_tile(st.batch, ceil_div(cols, kBlock), ceil_div(rows, kBlock),
                [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
                  const std::int64_t i = tile_y * kBlock + threadIdx.y;  // output row
                  const std::int64_t j = tile_x * kBlock + threadIdx.x;  // output col
                  std::int64_t so, dof;
                  st.batch_offsets(b, &so, &dof);
                  if (i < cols && j < rows)
                    dst[dof + i * st.dst_ld_elems + j] = src[so + j * st.src_ld_elems + i];
                });
}

}  // namespace

cudaError_t kernels::launch_naive_write(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    const TileGrid g =
        tile_grid(ceil_div(a.cols, kBlock), ceil_div(a.rows, kBlock), a.strides.batch);
    naive_write_kernel<T><<<dim3(g.x, g.y, g.z), dim3(kBlock, kBlock), 0, a.stream>>>(
        static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides);
    return cudaGetLastError();
  });
}

}  // namespace tmakit
