// Host and device helpers the standalone TMA experiments share (tma_levers.cu, tma_residue.cu):
// a CUDA error check that exits, a hash fill, an element-by-element check of a transpose or a
// copy on the device, and the driver's cuTensorMapEncodeTiled through the runtime's entry-point
// query (no libcuda link). Not part of the build; each experiment's header says how to compile it.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>

#include <kernels/common/elem.hpp>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

namespace tmakit::experiment {

template <int E>
__global__ void fill_kernel(unsigned char* p, std::size_t n_elems) {
  using U = typename ::tmakit::ElemOf<E>::type;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n_elems;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    U v{};
    memcpy(&v, &h, sizeof(U) < 8 ? sizeof(U) : 8);
    reinterpret_cast<U*>(p)[i] = v;
  }
}

// dst == src^T (transposed) or dst == src (copy), element by element; mismatches counted.
template <int E>
__global__ void verify_kernel(const unsigned char* src, const unsigned char* dst, int rows,
                              int cols, bool transposed, unsigned long long* bad) {
  using U = typename ::tmakit::ElemOf<E>::type;
  const std::size_t n = std::size_t(rows) * cols;
  unsigned long long local = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t r = i / cols, c = i % cols;  // source (r, c) -> dst (c, r)
    const std::size_t j = transposed ? c * rows + r : i;
    const U a = reinterpret_cast<const U*>(src)[i], b = reinterpret_cast<const U*>(dst)[j];
    if (a != b) ++local;
  }
  if (local != 0) atomicAdd(bad, local);
}

using EncodeFn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                              const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                              const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                              CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeFn encode_fn() {
  static EncodeFn fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                           &q));
    if (p == nullptr) std::exit(2);
    return reinterpret_cast<EncodeFn>(p);
  }();
  return fn;
}

// Median of 15 timed launches (CUDA events around the launch alone) after 3 warm-up launches,
// in ms. Before each timed one the flush buffer is rewritten (the L2 holds none of the operands)
// and, unless keep_persisting, persisting L2 lines are demoted to normal first.
template <class Launch>
double median_ms(unsigned char* flush, std::size_t flush_bytes, cudaEvent_t t0, cudaEvent_t t1,
                 bool keep_persisting, Launch&& launch) {
  for (int i = 0; i < 3; ++i) launch();
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int i = 0; i < 15; ++i) {
    if (!keep_persisting) CHECK(cudaCtxResetPersistingL2Cache());
    CHECK(cudaMemsetAsync(flush, i & 0xff, flush_bytes));
    CHECK(cudaEventRecord(t0));
    launch();
    CHECK(cudaEventRecord(t1));
    CHECK(cudaEventSynchronize(t1));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, t0, t1));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace tmakit::experiment
