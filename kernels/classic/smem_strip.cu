// smem_strip: a shared tile shaped to the matrix instead of a fixed square. On skinny shapes
// (k x N or N x k with k <= 32) and on small matrices, the 32x32 and 64x64 rungs waste most of
// each tile: a 4 x N matrix fills 4 of a 64x64 tile's rows, so each block moves 1/16 of a tile
// and its global runs are 4 elements long. Here a tile spans the short side whole and about
// 16 KB of the long side, so both global sides are long contiguous runs:
//   k x N: the tile is k rows x C columns; the read is k runs of C elements, the write (dst is
//          N x k, dense rows of k) one contiguous run of C*k elements;
//   N x k: the tile is R rows x k columns; the read is one run of R*k elements, the write k
//          runs of R elements.
// Any shape works: when neither side is <= 32 the tile is 64 x 64 (32 x 32 for 8- and 16-byte
// elements), like smem_wide without its vectors.
// Both phases walk the tile linearly in the order of the global side they touch, so
// consecutive threads touch consecutive addresses:
//   load:  i -> tile (r, c) = (i / w, i % w),  src (r0 + r, c0 + c)
//   store: j -> tile (r, c) = (j % h, j / h),  dst (c0 + c, r0 + r)
// with h x w the tile's extent inside the matrix. The tile row stride is odd (in elements), so
// the store's column walk (consecutive r) spreads over the banks.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;
constexpr int kTileBytes = 16384;  // the long side fills about this much shared memory
constexpr int kShortSide = 32;     // a side this short is taken whole

struct StripTile {
  int rows, cols;  // the tile's extent (the last tile of each side may be cut by the matrix)
  int stride;      // shared row stride in elements: cols rounded up to odd
};

StripTile strip_tile(std::int64_t rows, std::int64_t cols, int elem_bytes) {
  const int elems = kTileBytes / elem_bytes;
  auto long_side = [&](std::int64_t short_len, std::int64_t long_len) {
    const int run = std::max(32, elems / static_cast<int>(short_len) / 32 * 32);
    return static_cast<int>(std::min<std::int64_t>(long_len, run));
  };
  StripTile t;
  if (rows <= kShortSide) {
    t.rows = static_cast<int>(rows);
    t.cols = long_side(rows, cols);
  } else if (cols <= kShortSide) {
    t.cols = static_cast<int>(cols);
    t.rows = long_side(cols, rows);
  } else {
    t.rows = t.cols = elem_bytes >= 8 ? 32 : 64;
    // Experiment knob (docs/perf-notes.md, odd shapes): TMAKIT_STRIP_TILE=RxC sets the tile of
    // this case, e.g. 256x64, as long as it fits in 48 KB of shared memory.
    if (const char* env = std::getenv("TMAKIT_STRIP_TILE")) {
      int r = 0, c = 0;
      if (std::sscanf(env, "%dx%d", &r, &c) == 2 && r >= 1 && c >= 1 &&
          std::int64_t(r) * (c | 1) * elem_bytes <= 48 * 1024) {
        t.rows = r;
        t.cols = c;
      }
    }
  }
  t.stride = t.cols | 1;
  return t;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    smem_strip_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                      std::int64_t cols, BatchStrides st, StripTile t) {
  extern __shared__ unsigned char strip_smem_raw[];
  T* tile = reinterpret_cast<T*>(strip_smem_raw);
  const std::int64_t tiles_y = ceil_div(rows, t.rows), tiles_x = ceil_div(cols, t.cols);
  for_each_tile(st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
    const T* src = src_base + b * st.src_batch_elems;
    T* dst = dst_base + b * st.dst_batch_elems;
    const std::int64_t r0 = ty * t.rows, c0 = tx * t.cols;
    const unsigned h = static_cast<unsigned>(std::min<std::int64_t>(t.rows, rows - r0));
    const unsigned w = static_cast<unsigned>(std::min<std::int64_t>(t.cols, cols - c0));
    const unsigned n = h * w;
    for (unsigned i = threadIdx.x; i < n; i += kThreads) {
      const unsigned r = i / w, c = i - r * w;  // src (r0 + r, c0 + c), row-major in the tile
      tile[r * t.stride + c] = src[(r0 + r) * st.src_ld_elems + c0 + c];
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < n; j += kThreads) {
      const unsigned c = j / h, r = j - c * h;  // dst (c0 + c, r0 + r), row-major in dst
      dst[(c0 + c) * st.dst_ld_elems + r0 + r] = tile[r * t.stride + c];
    }
    __syncthreads();  // the tile is reused by the block's next tile
  });
}

template <class T>
cudaError_t launch_strip(const kernels::LaunchArgs& a) {
  const StripTile t = strip_tile(a.rows, a.cols, static_cast<int>(sizeof(T)));
  const std::size_t smem = static_cast<std::size_t>(t.rows) * t.stride * sizeof(T);
  if (smem > 48 * 1024)
    if (const cudaError_t e = cudaFuncSetAttribute(
            smem_strip_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
        e != cudaSuccess)
      return e;
  const TileGrid g = tile_grid(ceil_div(a.rows, t.rows), ceil_div(a.cols, t.cols), a.strides.batch);
  smem_strip_kernel<T><<<dim3(g.x, g.y, g.z), kThreads, smem, a.stream>>>(
      static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides, t);
  return cudaGetLastError();
}

}  // namespace

cudaError_t kernels::launch_smem_strip(const LaunchArgs& a) {
  if (a.elem_bytes == 16) return launch_strip<uint4>(a);
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) { return launch_strip<decltype(t)>(a); });
}

}  // namespace tmakit
