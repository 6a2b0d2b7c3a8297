// copy: not a transpose. A 16-byte LDG/STG copy of the same bytes, the roofline every
// transpose is measured against: a transpose reads and writes each byte once, exactly like a
// copy, so the copy's bandwidth is what a perfect transpose reaches. A grid of a few blocks
// per SM strides over the buffer, each thread keeping kUnroll independent 16-byte loads in
// flight before it stores. Unaligned pointers take an element-wide path. It copies a dense
// buffer only: a batch of dense matrices is one longer buffer (the host refuses leading
// dimensions and batch strides other than dense for it: the registry's `strided` flag).
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

}  // namespace

cudaError_t kernels::launch_copy(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    const std::int64_t n = a.strides.batch * a.rows * a.cols;
    const unsigned blocks = static_cast<unsigned>(std::max<std::int64_t>(
        1, std::min<std::int64_t>(ceil_div(n, kThreads), std::int64_t(a.sm_count) * kBlocksPerSm)));
    const T* s = static_cast<const T*>(a.src);
    T* d = static_cast<T*>(a.dst);
    if (is_aligned(s, kVecBytes) && is_aligned(d, kVecBytes))
      copy_vec_kernel<T><<<blocks, kThreads, 0, a.stream>>>(s, d, n);
    else
      copy_scalar_kernel<T><<<blocks, kThreads, 0, a.stream>>>(s, d, n);
    return cudaGetLastError();
  });
}

}  // namespace tmakit
