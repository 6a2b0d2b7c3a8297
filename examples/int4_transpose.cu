// Example (c): the CUDA Programming Guide's TMA swizzle example, an 8 x 8 matrix of int4 (16-byte
// elements) transposed through 128B-swizzled shared memory, here one CTA per 8 x 8 tile of a
// larger int4 matrix. The maps come from tmakit's tensor_map.hpp: matrix_spec() describes the
// matrix, encode() validates every rule and encodes through the driver entry point, describe()
// explains the result (printed once below).
//
// Why the swizzle: a row of the tile is 8 int4 = 128 bytes, one pass over all 32 banks. The
// transpose writes a column: 8 elements in 8 different rows. Unswizzled, they share one 16-byte
// bank group (an 8-way conflict). With the 128B swizzle, element (i, j) lives in chunk j ^ i of
// row i, so the 8 elements of a column sit in 8 different chunks: no conflict on either side.
// (kernels/tma/int4_8x8.cu runs both forms; `tmakit banks --variant int4_8x8` counts them.)
//
//   build: CMake target example_int4_transpose (links tmakit for tensor_map.hpp)
// Prints "int4_transpose: ok" and exits 0 when dst == src^T; 1 on a mismatch, 77 without TMA.
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <tmakit/tensor_map.hpp>

namespace ptx = cuda::ptx;

constexpr int kN = 8;  // 8 x 8 int4 per tile

// Chunk of element (i, j) in row i of a 128B-swizzled tile of 16-byte elements.
__device__ int swz(int i, int j) {
  return j ^ (i % 8);
}

// 8 threads: thread j moves column j of the tile to row j of the transposed tile.
__global__ void int4_transpose(const __grid_constant__ CUtensorMap src_map,
                               const __grid_constant__ CUtensorMap dst_map) {
  __shared__ alignas(1024) int4 tile[kN][kN];    // as loaded: tile[i][swz(i, j)] = A(i, j)
  __shared__ alignas(1024) int4 tile_t[kN][kN];  // tile_t[j][swz(j, i)] = A(i, j)
  __shared__ std::uint64_t bar;
  // The map counts int32 words (TMA has no 16-byte element type): x is a word coordinate.
  const int x_words = blockIdx.x * kN * 4, y = blockIdx.y * kN;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
    const std::int32_t at[2] = {x_words, y};
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(tile));
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tile, &src_map, at, &bar);
  }
  __syncthreads();  // (the barrier is initialised before anyone waits on it)
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  const int j = threadIdx.x;
  for (int i = 0; i < kN; ++i) {
    // Step i: the 8 threads read row i's 8 chunks and write one chunk in each of 8 rows, all
    // in different chunk positions.
    tile_t[j][swz(j, i)] = tile[i][swz(i, j)];
  }
  ptx::fence_proxy_async(ptx::space_shared);  // the writes, visible to the TMA store
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::int32_t at[2] = {static_cast<std::int32_t>(blockIdx.y * kN * 4),
                                static_cast<std::int32_t>(blockIdx.x * kN)};
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &dst_map, at, tile_t);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

// rows x cols int4, row-major, as int32 words: an 8-row x 32-word (128-byte) box, 128B swizzle.
bool encode(CUtensorMap* map, int4* base, std::uint64_t rows, std::uint64_t cols, bool show) {
  const tmakit::TensorMapSpec spec =
      tmakit::matrix_spec(tmakit::TmaType::kI32, base, rows, cols * 4, cols * sizeof(int4), kN,
                          kN * 4, tmakit::TmaSwizzle::k128B);
  if (show) std::printf("%s\n", tmakit::describe(spec).c_str());
  const tmakit::Status s = tmakit::encode(spec, map);  // every rule checked, then the driver
  if (!s) std::fprintf(stderr, "int4_transpose: %s\n", s.message.c_str());
  return s.ok();
}

int main() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      major < 9) {
    std::printf("int4_transpose: needs a GPU with TMA (compute capability 9.0)\n");
    return 77;
  }
  const std::uint64_t rows = 256, cols = 192, n = rows * cols;  // tile multiples
  std::vector<int4> host(n), back(n);
  for (std::uint64_t k = 0; k < n; ++k) {
    const int v = static_cast<int>(k);
    host[k] = make_int4(v, -v, v * 3, v ^ 0x5555);
  }
  int4 *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, n * sizeof(int4));
  cudaMalloc(&dst, n * sizeof(int4));
  cudaMemcpy(src, host.data(), n * sizeof(int4), cudaMemcpyHostToDevice);
  CUtensorMap src_map, dst_map;
  if (!encode(&src_map, src, rows, cols, true) || !encode(&dst_map, dst, cols, rows, false))
    return 1;
  int4_transpose<<<dim3(cols / kN, rows / kN), kN>>>(src_map, dst_map);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "int4_transpose: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(back.data(), dst, n * sizeof(int4), cudaMemcpyDeviceToHost);
  std::uint64_t wrong = 0;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) {
      const int4 a = host[r * cols + c], b = back[c * rows + r];
      wrong += a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w;
    }
  std::printf("int4_transpose: %llu x %llu int4 in 8 x 8 tiles: %s (%llu wrong)\n",
              static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols),
              wrong ? "WRONG" : "ok", static_cast<unsigned long long>(wrong));
  cudaFree(src);
  cudaFree(dst);
  return wrong ? 1 : 0;
}
