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
// the store's column walk (consecutive r) spreads over the banks. 1- and 2-byte elements move
// as 4-byte words on each global side whose rows start on a word (a scalar byte per thread
// leaves the load/store units, not DRAM, as the limit). A single row or column is a copy.
#include <algorithm>
#include <type_traits>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/launch_smem.cuh>
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

StripTile strip_tile(std::int64_t rows, std::int64_t cols, int elem_bytes,
                     const DevicePolicy& policy) {
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
    // The policy's tile of this case (docs/perf-guide.md, odd shapes), e.g. 256x64: multiples
    // of 32 (so word accesses stay aligned) that fit in 48 KB of shared memory.
    const int r = policy.strip_tile_rows, c = policy.strip_tile_cols;
    if (r >= 32 && c >= 32 && r % 32 == 0 && c % 32 == 0 &&
        std::int64_t(r) * (c | 1) * elem_bytes <= 48 * 1024) {
      t.rows = r;
      t.cols = c;
    }
  }
  t.stride = t.cols | 1;
  return t;
}

// One global access of VL (load) or VS (store) consecutive elements: a 4-byte word for 1- and
// 2-byte elements where the matrix allows it (see strip_vectors), else one element.
template <class T, int V>
struct Unit {
  using type = typename std::conditional<V == 1, T, std::uint32_t>::type;
};

template <class T, int VL, int VS>
__global__ void __launch_bounds__(kThreads)
    smem_strip_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                      std::int64_t cols, BatchStrides st, StripTile t) {
  using LU = typename Unit<T, VL>::type;
  using SU = typename Unit<T, VS>::type;
  extern __shared__ unsigned char strip_smem_raw[];
  T* tile = reinterpret_cast<T*>(strip_smem_raw);
  const std::int64_t tiles_y = ceil_div(rows, t.rows), tiles_x = ceil_div(cols, t.cols);
  for_each_tile(st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
    const T* src = src_base + b * st.src_batch_elems;
    T* dst = dst_base + b * st.dst_batch_elems;
    const std::int64_t r0 = ty * t.rows, c0 = tx * t.cols;
    const unsigned h = static_cast<unsigned>(std::min<std::int64_t>(t.rows, rows - r0));
    const unsigned w = static_cast<unsigned>(std::min<std::int64_t>(t.cols, cols - c0));
    // Load: unit i covers tile (r, c..c+VL-1) = src (r0 + r, c0 + c..), row-major in the tile
    // (w is a multiple of VL when VL > 1).
    const unsigned wu = w / VL;
    for (unsigned i = threadIdx.x; i < h * wu; i += kThreads) {
      const unsigned r = i / wu, c = (i - r * wu) * VL;
      const LU u = *reinterpret_cast<const LU*>(src + (r0 + r) * st.src_ld_elems + c0 + c);
#pragma unroll
      for (int k = 0; k < VL; ++k) tile[r * t.stride + c + k] = reinterpret_cast<const T*>(&u)[k];
    }
    __syncthreads();
    // Store: unit j covers dst (c0 + c, r0 + r..r+VS-1) = tile (r.., c), row-major in dst (h is a
    // multiple of VS when VS > 1).
    const unsigned hu = h / VS;
    for (unsigned j = threadIdx.x; j < w * hu; j += kThreads) {
      const unsigned c = j / hu, r = (j - c * hu) * VS;
      SU u;
#pragma unroll
      for (int k = 0; k < VS; ++k) reinterpret_cast<T*>(&u)[k] = tile[(r + k) * t.stride + c];
      *reinterpret_cast<SU*>(dst + (c0 + c) * st.dst_ld_elems + r0 + r) = u;
    }
    __syncthreads();  // the tile is reused by the block's next tile
  });
}

// VL (VS): the elements of one 4-byte word, when every row segment a tile loads (stores) starts
// on a word: the matrix start, the leading dimension, the batch stride and the row length (cols
// for loads, rows for stores; tile sides are multiples of 32 or the whole side) all multiples
// of it. Else 1.
template <class T>
int strip_vector(const void* base, std::int64_t line, std::int64_t ld, std::int64_t batch,
                 std::int64_t batch_stride) {
  constexpr int W = sizeof(T) < 4 ? 4 / static_cast<int>(sizeof(T)) : 1;
  const bool ok = W > 1 && reinterpret_cast<std::uintptr_t>(base) % 4 == 0 && line % W == 0 &&
                  ld % W == 0 && (batch == 1 || batch_stride % W == 0);
  return ok ? W : 1;
}

template <class T, int VL, int VS>
cudaError_t launch_strip_with(const kernels::LaunchArgs& a, const StripTile& t, std::size_t smem) {
  const TileGrid g = tile_grid(ceil_div(a.rows, t.rows), ceil_div(a.cols, t.cols), a.strides.batch);
  return launch_with_smem(smem_strip_kernel<T, VL, VS>, dim3(g.x, g.y, g.z), dim3(kThreads),
                          static_cast<std::uint32_t>(smem), a.stream, static_cast<const T*>(a.src),
                          static_cast<T*>(a.dst), a.rows, a.cols, a.strides, t);
}

template <class T>
cudaError_t launch_strip(const kernels::LaunchArgs& a) {
  // A single row or column, dense on both sides: the transpose is a copy of the same bytes.
  const BatchStrides& st = a.strides;
  const std::int64_t n = a.rows * a.cols;
  if ((a.rows == 1 || a.cols == 1) && st.src_ld_elems == (a.rows == 1 ? a.cols : 1) &&
      st.dst_ld_elems == (a.rows == 1 ? 1 : a.rows) &&
      (st.batch == 1 || (st.src_batch_elems == n && st.dst_batch_elems == n))) {
    // From kLineMemcpyMinBytes the copy is cudaMemcpyAsync's own (what the benchmark measures
    // every transpose against): below it the `copy` kernel is faster, from it memcpy is
    // (docs/perf-guide.md 4.3).
    const std::int64_t bytes = n * st.batch * static_cast<std::int64_t>(sizeof(T));
    if (bytes >= kernels::kLineMemcpyMinBytes)
      return cudaMemcpyAsync(a.dst, a.src, static_cast<std::size_t>(bytes), cudaMemcpyDefault,
                             a.stream);
    // `copy` moves 1-8 byte elements: a 16-byte element is two 8-byte ones.
    const std::int64_t f = sizeof(T) == 16 ? 2 : 1;
    kernels::LaunchArgs c = a;
    c.elem_bytes = static_cast<int>(sizeof(T) / f);
    c.rows = 1;
    c.cols = n * f;
    c.strides.src_ld_elems = c.strides.dst_ld_elems = n * f;
    c.strides.src_batch_elems = c.strides.dst_batch_elems = n * f;
    return kernels::launch_copy(c);
  }
  const StripTile t = strip_tile(a.rows, a.cols, static_cast<int>(sizeof(T)), a.policy);
  const std::size_t smem = static_cast<std::size_t>(t.rows) * t.stride * sizeof(T);
  const int vl = strip_vector<T>(a.src, a.cols, st.src_ld_elems, st.batch, st.src_batch_elems);
  const int vs = strip_vector<T>(a.dst, a.rows, st.dst_ld_elems, st.batch, st.dst_batch_elems);
  constexpr int W = sizeof(T) < 4 ? 4 / static_cast<int>(sizeof(T)) : 1;
  if constexpr (W > 1) {
    if (vl > 1 && vs > 1) return launch_strip_with<T, W, W>(a, t, smem);
    if (vl > 1) return launch_strip_with<T, W, 1>(a, t, smem);
    if (vs > 1) return launch_strip_with<T, 1, W>(a, t, smem);
  }
  return launch_strip_with<T, 1, 1>(a, t, smem);
}

}  // namespace

cudaError_t kernels::launch_smem_strip(const LaunchArgs& a) {
  if (a.elem_bytes == 16) return launch_strip<uint4>(a);
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) { return launch_strip<decltype(t)>(a); });
}

}  // namespace tmakit
