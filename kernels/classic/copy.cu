// copy: not a transpose. A 16-byte LDG/STG copy of the same bytes, the roofline every
// transpose is measured against: a transpose reads and writes each byte once, exactly like a
// copy, so the copy's bandwidth is what a perfect transpose reaches. A grid of a few blocks
// per SM strides over the buffer, each thread keeping kUnroll independent 16-byte loads in
// flight before it stores. Unaligned pointers take an element-wide path. A batch of dense
// matrices is one longer buffer. Pitched rows and batch strides (MatrixLayout) take a row-wise
// path: one grid-stride loop over every row's elements (16-byte vectors where every row start
// and row length allows), so `copy` is also the strided fallback of tma_copy.
#include <algorithm>
#include <kernels/common/elem.hpp>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/vec.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kUnroll = 4;

// Vector path: vectors [0, n_vecs) in strides of (grid threads * kUnroll); then the last
// n_elems - n_vecs*W elements (less than one vector) one per thread.
template <class T>
__global__ void __launch_bounds__(kThreads)
    copy_vec_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t n_elems) {
  constexpr int W = kElemsPerVec<T>;
  const std::int64_t n_vecs = n_elems / W;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t tid = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4* s = reinterpret_cast<const uint4*>(src);
  uint4* d = reinterpret_cast<uint4*>(dst);
  std::int64_t v = tid;
  for (; v + (kUnroll - 1) * threads < n_vecs; v += kUnroll * threads) {
    uint4 x[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) x[u] = __ldg(s + v + u * threads);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) d[v + u * threads] = x[u];
  }
  for (; v < n_vecs; v += threads) d[v] = __ldg(s + v);
  const std::int64_t tail = n_vecs * W + tid;
  if (tail < n_elems) dst[tail] = src[tail];
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    copy_scalar_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t n_elems) {
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n_elems;
       i += threads)
    dst[i] = src[i];
}

// Strided path: element (b, r, c) of the batch, c counted in V-sized units (a 16-byte vector
// when every row start is 16-byte aligned and the row a whole number of vectors, else T):
// src[b * src_batch + r * src_ld + c] -> dst[b * dst_batch + r * dst_ld + c].
template <class T, class V>
__global__ void __launch_bounds__(kThreads)
    copy_rows_kernel(const T* __restrict__ src, T* __restrict__ dst, std::int64_t rows,
                     std::int64_t cols, BatchStrides st) {
  constexpr int W = static_cast<int>(sizeof(V) / sizeof(T));
  const std::int64_t row_units = cols / W;
  const std::int64_t n = st.batch * rows * row_units;
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += threads) {
    const std::int64_t c = i % row_units, br = i / row_units;  // column unit, batch-row
    const std::int64_t r = br % rows, b = br / rows;
    const V* s = reinterpret_cast<const V*>(src + b * st.src_batch_elems + r * st.src_ld_elems);
    V* d = reinterpret_cast<V*>(dst + b * st.dst_batch_elems + r * st.dst_ld_elems);
    d[c] = s[c];
  }
}

bool is_dense_copy(const kernels::LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  return st.src_ld_elems == a.cols && st.dst_ld_elems == a.cols &&
         (st.batch == 1 ||
          (st.src_batch_elems == a.rows * a.cols && st.dst_batch_elems == a.rows * a.cols));
}

}  // namespace

cudaError_t kernels::launch_copy(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    const std::int64_t n = a.strides.batch * a.rows * a.cols;
    const unsigned blocks = static_cast<unsigned>(std::max<std::int64_t>(
        1, std::min<std::int64_t>(ceil_div(n, kThreads), std::int64_t(a.sm_count) * kBlocksPerSm)));
    const T* s = static_cast<const T*>(a.src);
    T* d = static_cast<T*>(a.dst);
    if (!is_dense_copy(a)) {
      const BatchStrides& st = a.strides;
      const std::int64_t e = sizeof(T);
      auto m16 = [](std::int64_t bytes) { return bytes % kVecBytes == 0; };
      const bool vec =
          is_aligned(s, kVecBytes) && is_aligned(d, kVecBytes) && m16(a.cols * e) &&
          m16(st.src_ld_elems * e) && m16(st.dst_ld_elems * e) &&
          (st.batch == 1 || (m16(st.src_batch_elems * e) && m16(st.dst_batch_elems * e)));
      const std::int64_t units = n / (vec ? kElemsPerVec<T> : 1);
      const unsigned rb = static_cast<unsigned>(std::max<std::int64_t>(
          1, std::min<std::int64_t>(ceil_div(units, kThreads),
                                    std::int64_t(a.sm_count) * kBlocksPerSm)));
      if (vec)
        copy_rows_kernel<T, uint4><<<rb, kThreads, 0, a.stream>>>(s, d, a.rows, a.cols, st);
      else
        copy_rows_kernel<T, T><<<rb, kThreads, 0, a.stream>>>(s, d, a.rows, a.cols, st);
      return cudaGetLastError();
    }
    if (is_aligned(s, kVecBytes) && is_aligned(d, kVecBytes))
      copy_vec_kernel<T><<<blocks, kThreads, 0, a.stream>>>(s, d, n);
    else
      copy_scalar_kernel<T><<<blocks, kThreads, 0, a.stream>>>(s, d, n);
    return cudaGetLastError();
  });
}

}  // namespace tmakit
