// Experiment (issue 16, session 29): TMA on rows that are not 16-byte multiples. A tensor map
// needs a 16-byte aligned base and 16-byte multiple strides, so a row pitch of ld * E bytes
// shuts it out. But the rows r = j, j + M, j + 2M, ... (one residue class j mod M, M = 16 /
// gcd(ld * E, 16)) lie M * ld * E bytes apart, a 16-byte multiple: each class is a legal 2-D
// tensor whose base is its first row aligned down to 16 bytes, with the row starting mis_j =
// (address of row j mod 16) / E elements in. A box at x = col + mis_j would read exactly the
// row's columns col.., aligned in shared memory, if TMA took any start coordinate.
//
// RESULT (H200, driver 580.159.04, 2026-11-26): it does not. Every residue load faulted with
// cudaErrorIllegalInstruction (715); on an aligned map, a load at x = 1 or 4 bytes faulted with
// swizzle none and 128B (argv[2] = x offset, RES_SWZ0=1 for no swizzle), x = 16 ran. The H100
// had said the same twice (docs/tensor-maps.md, "A box's inner coordinate must be a 16-byte
// multiple", sessions 11 and 13), which this design did not read first. What did run: the
// identity maps on the aligned shape (`aligned`, M = 1) at 88.7% of memcpy (12352x6800 1 B), and
// maps indexed at run time in a __grid_constant__ struct of 32 maps (RES_FORCE_M=2 on the
// aligned shape) at 84.7%.
//
// Map j (of M): base_j = (src + j * ld * E) & ~15, dims {cols + mis_j, ceil((rows - j) / M), 1},
// stride M * ld * E, box {128 / E, T / M, 1}: T = 128 / E rows of a tile as M boxes of T / M rows;
// residue j's box lands at shared rows j * (T / M) .. (physical row of tile row i: (i % M) * (T /
// M) + i / M). The store side is the same with the destination's pitch (M' classes).
//
// Variants (argv[1] runs one), each against cudaMemcpyAsync of the same bytes in one process
// (medians of 15, L2 flushed before each):
//   aligned    the transpose below on the aligned shape (rows and cols rounded up to 16 bytes)
//   loadonly   residue loads only (timed, not verified)
//   copy       residue loads stored back through residue maps of a same-shape destination
//   transpose  residue loads, the 64 V x V chunk blocks of the tile transposed in registers
//              (rows remapped), residue stores
// Not part of the build: nvcc -O3 -DNDEBUG -std=c++17 -arch=sm_90 -I.
// bench/experiments/tma_residue.cu
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <bench/experiments/exp_common.cuh>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/tma_tile.hpp>
#include <kernels/primitives/tma.cuh>
#include <kernels/primitives/tma_barrier.cuh>

using namespace tmakit;
using namespace tmakit::experiment;

constexpr int kMode = kSwizzle128B;
constexpr int kMaxRes = 16;

struct ResidueMaps {
  CUtensorMap src[kMaxRes], dst[kMaxRes];
  int src_mis[kMaxRes], dst_mis[kMaxRes];
  int m_src, m_dst;
};

int g_xoff = 0;  // argv[2]: added to every load's x (diagnostic)

enum Op : int { kCopy = 0, kTranspose = 1, kLoadOnly = 2 };

// Physical shared row of tile row i when T rows come as M boxes of T / M rows.
__device__ __forceinline__ std::uint32_t phys_row(std::uint32_t i, std::uint32_t m,
                                                  std::uint32_t t) {
  return (i % m) * (t / m) + i / m;
}

template <int E, int O>
__global__ void __launch_bounds__(64)
    residue_kernel(const __grid_constant__ ResidueMaps maps, int rows, int cols, int xoff) {
  constexpr std::uint32_t T = 128 / E, V = 16 / E, kBytes = T * 128;
  extern __shared__ unsigned char smem[];
  unsigned char* in = tma::align_smem<unsigned char>(smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  const int ms = maps.m_src, md = maps.m_dst;
  if (tid == 0) {
    full.init(1);
    tma::fence_proxy_async_smem();
  }
  __syncthreads();
  const unsigned tiles_r = (rows + T - 1) / T;
  // Column-major tile order: consecutive CTAs fill one output row band (tma_wide's order).
  const unsigned n = blockIdx.x, tr = n % tiles_r, tc = n / tiles_r;
  const int row0 = int(tr * T), col0 = int(tc * T);
  if (tid == 0) {
    full.arrive_expect_tx(kBytes);
    for (int j = 0; j < ms; ++j)
      tma::load_3d(in + j * (T / ms) * 128, &maps.src[j], col0 + maps.src_mis[j] + xoff, row0 / ms,
                   0, full.handle());
  }
  full.wait({0, 0, kBytes});
  const unsigned char* buf = in;
  if constexpr (O == kTranspose) {
    // Block (bq, bc): tile rows V*bq .. + V - 1, chunk bc (columns V*bc ..). 8 consecutive
    // lanes share bq with distinct bc.
    const std::uint32_t bq = tid / 8, bc = tid % 8;
    Chunk16 x[V], y[V];
#pragma unroll
    for (std::uint32_t i = 0; i < V; ++i)
      *reinterpret_cast<uint4*>(&x[i]) = *reinterpret_cast<const uint4*>(
          in + tma_tile_offset(phys_row(V * bq + i, ms, T), 16 * bc, T, kMode));
    transpose_chunks<E>(x, y);
#pragma unroll
    for (std::uint32_t r = 0; r < V; ++r)
      *reinterpret_cast<uint4*>(out +
                                tma_tile_offset(phys_row(V * bc + r, md, T), 16 * bq, T, kMode)) =
          *reinterpret_cast<const uint4*>(&y[r]);
    buf = out;
  }
  tma::fence_proxy_async_smem();
  __syncthreads();
  if (tid == 0 && O != kLoadOnly) {
    if constexpr (O == kCopy) {
      for (int j = 0; j < md; ++j)
        tma::store_3d(&maps.dst[j], col0 + maps.dst_mis[j], row0 / md, 0, buf + j * (T / md) * 128);
    } else {
      for (int j = 0; j < md; ++j)
        tma::store_3d(&maps.dst[j], row0 + maps.dst_mis[j], col0 / md, 0, buf + j * (T / md) * 128);
    }
    tma::store_commit();
    tma::store_wait_read<0>();
  }
}

// The residue maps of a rows x cols matrix at p with pitch ld (elements), boxes of 128 B x
// (T / M) rows; returns M, fills maps and mis.
int make_residue_maps(unsigned char* p, int e, std::int64_t rows, std::int64_t cols,
                      std::int64_t ld, CUtensorMap* maps, int* mis, int force_m) {
  const CUtensorMapDataType type = e == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : e == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : e == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                            : CU_TENSOR_MAP_DATA_TYPE_INT64;
  const std::int64_t pitch = ld * e;
  int g = 16;
  while (pitch % g != 0) g /= 2;
  const int m = force_m > 0 ? force_m : 16 / g;
  const unsigned t = 128 / e;
  for (int j = 0; j < m; ++j) {
    const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p) + std::uintptr_t(j * pitch);
    const std::uintptr_t base = a & ~std::uintptr_t(15);
    mis[j] = int((a - base) / e);
    const cuuint64_t dims[3] = {cuuint64_t(cols + mis[j]), cuuint64_t((rows - j + m - 1) / m), 1};
    const cuuint64_t strides[2] = {cuuint64_t(m * pitch), cuuint64_t(m * pitch) * dims[1]};
    const cuuint32_t box[3] = {128u / e, t / m, 1}, estr[3] = {1, 1, 1};
    const CUresult r = encode_fn()(
        &maps[j], type, 3, reinterpret_cast<void*>(base), dims, strides, box, estr,
        CU_TENSOR_MAP_INTERLEAVE_NONE,
        std::getenv("RES_SWZ0") ? CU_TENSOR_MAP_SWIZZLE_NONE : CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      std::fprintf(stderr, "encode failed: %d (residue %d of %d)\n", int(r), j, m);
      std::exit(3);
    }
  }
  return m;
}

struct Ctx {
  unsigned char *src, *dst, *flush;
  std::size_t flush_bytes;
  unsigned long long* bad;
  cudaEvent_t t0, t1;
};

template <class Launch>
double median_ms(Ctx& c, Launch&& launch) {
  return experiment::median_ms(c.flush, c.flush_bytes, c.t0, c.t1, true, launch);
}

template <int E, int O>
void run(Ctx& c, const char* name, int rows, int cols, double memcpy_gbps) {
  auto* k = residue_kernel<E, O>;
  constexpr unsigned kSmem = 1024 + 2 * 128 * 128 + 8;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  fill_kernel<E><<<528, 256>>>(c.src, std::size_t(rows) * cols);
  CHECK(cudaMemset(c.dst, 0, std::size_t(rows) * cols * E));
  ResidueMaps m{};
  const int fm0 = std::getenv("RES_FORCE_M") ? std::atoi(std::getenv("RES_FORCE_M")) : 0;
  m.m_src = make_residue_maps(c.src, E, rows, cols, cols, m.src, m.src_mis, fm0);
  m.m_dst = O != kTranspose ? make_residue_maps(c.dst, E, rows, cols, cols, m.dst, m.dst_mis, fm0)
                            : make_residue_maps(c.dst, E, cols, rows, rows, m.dst, m.dst_mis, fm0);
  const unsigned t = 128 / E, grid = unsigned((rows + t - 1) / t) * unsigned((cols + t - 1) / t);
  k<<<grid, 64, kSmem>>>(m, rows, cols, g_xoff);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemset(c.bad, 0, sizeof *c.bad));
  unsigned long long bad = 0;
  if (O != kLoadOnly) {
    verify_kernel<E><<<528, 256>>>(c.src, c.dst, rows, cols, O == kTranspose, c.bad);
    CHECK(cudaMemcpy(&bad, c.bad, sizeof bad, cudaMemcpyDeviceToHost));
  }
  const double ms = median_ms(c, [&] { k<<<grid, 64, kSmem>>>(m, rows, cols, g_xoff); });
  const double gbps = 2.0 * rows * double(cols) * E / (ms * 1e6);
  std::printf("e%d %6dx%-6d %-10s M %2d/%2d %7.0f GB/s %6.1f%% of memcpy  %s\n", E, rows, cols,
              name, m.m_src, m.m_dst, gbps, 100 * gbps / memcpy_gbps,
              bad == 0 ? "verified" : "WRONG");
}

template <int E>
double run_memcpy(Ctx& c, int rows, int cols) {
  const std::size_t bytes = std::size_t(rows) * cols * E;
  const double ms =
      median_ms(c, [&] { CHECK(cudaMemcpyAsync(c.dst, c.src, bytes, cudaMemcpyDeviceToDevice)); });
  return 2.0 * bytes / (ms * 1e6);
}

const char* g_only = nullptr;  // argv[1]: run only this variant
bool want(const char* v) {
  return g_only == nullptr || std::strcmp(g_only, v) == 0;
}

template <int E>
void shape(Ctx& c, int rows, int cols) {
  const double mc = run_memcpy<E>(c, rows, cols);
  std::printf("e%d %6dx%-6d memcpy %7.0f GB/s\n", E, rows, cols, mc);
  const int ra = (rows * E + 15) / 16 * 16 / E, ca = (cols * E + 15) / 16 * 16 / E;
  if (want("aligned")) {
    const double mca = run_memcpy<E>(c, ra, ca);
    run<E, kTranspose>(c, "aligned", ra, ca, mca);
  }
  if (want("loadonly")) run<E, kLoadOnly>(c, "loadonly", rows, cols, mc);
  if (want("copy")) run<E, kCopy>(c, "copy", rows, cols, mc);
  if (want("transpose")) run<E, kTranspose>(c, "transpose", rows, cols, mc);
}

int main(int argc, char** argv) {
  if (argc > 1) g_only = argv[1];
  if (argc > 2) g_xoff = std::atoi(argv[2]);
  Ctx c{};
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  CHECK(cudaDriverGetVersion(&drv));
  std::printf("# %s, %d SMs, driver %d\n", p.name, p.multiProcessorCount, drv);
  const std::size_t max_bytes = std::size_t(1) << 30;
  CHECK(cudaMalloc(&c.src, max_bytes));
  CHECK(cudaMalloc(&c.dst, max_bytes));
  c.flush_bytes = std::size_t(256) << 20;
  CHECK(cudaMalloc(&c.flush, c.flush_bytes));
  CHECK(cudaMalloc(&c.bad, sizeof *c.bad));
  CHECK(cudaEventCreate(&c.t0));
  CHECK(cudaEventCreate(&c.t1));
  const int shapes[][2] = {{12345, 6789}, {6789, 12345}, {3001, 4999}};
  for (auto& s : shapes) shape<1>(c, s[0], s[1]);
  for (auto& s : shapes) shape<2>(c, s[0], s[1]);
  for (auto& s : shapes) shape<4>(c, s[0], s[1]);
  shape<8>(c, 12345, 6789);
  return 0;
}
