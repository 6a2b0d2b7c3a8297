// Example (a): the smallest whole TMA round trip. A tensor map is encoded on the host through the
// driver entry point, each CTA loads one 64 x 32 box of a float matrix into shared memory with
// cp.async.bulk.tensor behind an mbarrier, and stores it back out with a second TMA copy.
// CUDA only: cuda::ptx (libcu++) for every instruction, cudaGetDriverEntryPointByVersion for
// cuTensorMapEncodeTiled, so the program links no libcuda stub.
//
//   nvcc -std=c++17 -arch=sm_90 tile_copy.cu -o tile_copy && ./tile_copy
// Prints "tile_copy: ok" and exits 0 when dst equals src; exits 1 on a mismatch or error, 77 when
// the GPU has no TMA (compute capability below 9.0).
#include <cudaTypedefs.h>  // CUtensorMap (cuda.h) and PFN_cuTensorMapEncodeTiled_v12000
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace ptx = cuda::ptx;

constexpr int kBoxRows = 64;  // box extents, in elements: 64 rows of 32 floats (128 bytes)
constexpr int kBoxCols = 32;

// One CTA per box; only thread 0 talks to the TMA unit, the rest wait on the barrier.
__global__ void tile_copy(const __grid_constant__ CUtensorMap src_map,
                          const __grid_constant__ CUtensorMap dst_map) {
  // TMA needs the box's shared-memory address 128-byte aligned (1024 with a 128B swizzle).
  __shared__ alignas(128) float box[kBoxRows][kBoxCols];
  __shared__ std::uint64_t bar;  // the mbarrier: 8 bytes of shared memory
  const std::int32_t coords[2] = {static_cast<std::int32_t>(blockIdx.x) * kBoxCols,   // x: column
                                  static_cast<std::int32_t>(blockIdx.y) * kBoxRows};  // y: row
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);  // one arrival per phase: thread 0's below
    // Make the initialised barrier visible to the async proxy (the TMA unit) before it is used.
    ptx::fence_proxy_async(ptx::space_shared);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // Arrive once and tell the barrier how many bytes the phase waits for: the whole box, also
    // where it hangs over the matrix's edge (TMA fills those elements with zeros).
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(box));
    // cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, &box, &src_map, coords, &bar);
  }
  // Every thread waits for phase 0 to complete: all bytes landed.
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  // (Threads could now read and change `box`; a TMA store after generic writes would need
  // ptx::fence_proxy_async(ptx::space_shared) first. Here the data goes straight back.)
  if (threadIdx.x == 0) {
    // cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group: clipped at the matrix's edge.
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &dst_map, coords, &box);
    ptx::cp_async_bulk_commit_group();
    // Wait until the store has read shared memory, before the CTA (and `box`) goes away.
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

// A row-major rows x cols float matrix as a rank-2 tensor map with a kBoxRows x kBoxCols box.
bool encode(CUtensorMap* map, float* base, std::uint64_t rows, std::uint64_t cols) {
  PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                       reinterpret_cast<void**>(&encode_tiled), 12000,
                                       cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return false;
  // The driver lists dimensions innermost first: {columns, rows}.
  const cuuint64_t dims[2] = {cols, rows};
  // Byte strides of every dimension but the innermost: the row pitch (a multiple of 16).
  const cuuint64_t strides[1] = {cols * sizeof(float)};
  const cuuint32_t box[2] = {kBoxCols, kBoxRows};  // inner box bytes: 128, a multiple of 16
  const cuuint32_t elem_strides[2] = {1, 1};       // every element of the box (no skipping)
  const CUresult r =
      encode_tiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box, elem_strides,
                   CU_TENSOR_MAP_INTERLEAVE_NONE,       // plain row-major layout
                   CU_TENSOR_MAP_SWIZZLE_NONE,          // shared memory holds the box row after row
                   CU_TENSOR_MAP_L2_PROMOTION_L2_128B,  // fetch whole 128-byte lines into L2
                   CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);  // out-of-bounds elements read as zero
  if (r != CUDA_SUCCESS) std::fprintf(stderr, "cuTensorMapEncodeTiled returned %d\n", r);
  return r == CUDA_SUCCESS;
}

int main() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) {
    std::printf("tile_copy: no CUDA device\n");
    return 77;
  }
  if (major < 9) {
    std::printf("tile_copy: TMA needs compute capability 9.0\n");
    return 77;
  }
  // 1000 x 1000: neither side a multiple of the box, so the last boxes hang over the edges.
  const std::uint64_t rows = 1000, cols = 1000, n = rows * cols;
  std::vector<float> host(n), back(n);
  for (std::uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i % 9973) + 0.5f;
  float *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, n * sizeof(float));  // cudaMalloc: 256-byte aligned, as TMA needs (16)
  cudaMalloc(&dst, n * sizeof(float));
  cudaMemcpy(src, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemset(dst, 0, n * sizeof(float));
  CUtensorMap src_map, dst_map;
  if (!encode(&src_map, src, rows, cols) || !encode(&dst_map, dst, rows, cols)) return 1;
  const dim3 grid((cols + kBoxCols - 1) / kBoxCols, (rows + kBoxRows - 1) / kBoxRows);
  tile_copy<<<grid, 32>>>(src_map, dst_map);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "tile_copy: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(back.data(), dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += back[i] != host[i];
  std::printf("tile_copy: %llu x %llu floats, %u boxes of %d x %d: %s (%llu wrong)\n",
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols),
              grid.x * grid.y, kBoxRows, kBoxCols, wrong ? "WRONG" : "ok",
              static_cast<unsigned long long>(wrong));
  cudaFree(src);
  cudaFree(dst);
  return wrong ? 1 : 0;
}
