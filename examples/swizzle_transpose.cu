// Example (b): a TMA transpose through 128B-swizzled tiles, the XOR spelled out. Each CTA loads a
// 32 x 32 float tile with CU_TENSOR_MAP_SWIZZLE_128B, transposes it in shared memory into a
// second tile in the same swizzled layout, and a TMA store writes that tile to dst = src^T.
//
// The 128B swizzle: the tile's rows are 128 bytes; 16-byte chunk c of row r is stored at chunk
// c ^ (r % 8) of that row. So a column of the tile is spread over 8 different chunks (banks)
// instead of sitting in one, and both the tile load and the tile store keep whole 128-byte rows.
//
//   nvcc -std=c++17 -arch=sm_90 swizzle_transpose.cu -o swizzle_transpose && ./swizzle_transpose
// Prints "swizzle_transpose: ok" and exits 0 when dst == src^T; 1 on a mismatch, 77 without TMA.
#include <cudaTypedefs.h>  // CUtensorMap (cuda.h) and PFN_cuTensorMapEncodeTiled_v12000
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace ptx = cuda::ptx;

constexpr int kTile = 32;  // 32 x 32 floats: rows of 128 bytes, the 128B swizzle's span

// Byte offset of element (row, col) of a float tile stored with the 128B swizzle.
__device__ std::uint32_t swizzled(std::uint32_t row, std::uint32_t col) {
  const std::uint32_t byte = col * 4;     // byte within the 128-byte row
  const std::uint32_t chunk = byte / 16;  // its 16-byte chunk, 0..7
  return row * 128 + ((chunk ^ (row % 8)) * 16) + byte % 16;
}

__global__ void swizzle_transpose(const __grid_constant__ CUtensorMap src_map,
                                  const __grid_constant__ CUtensorMap dst_map) {
  // A 128B-swizzled box must start on a 1024-byte boundary (the pattern repeats every 8 rows).
  __shared__ alignas(1024) unsigned char in[kTile * 128];
  __shared__ alignas(1024) unsigned char out[kTile * 128];
  __shared__ std::uint64_t bar;
  const int x = blockIdx.x * kTile, y = blockIdx.y * kTile;  // the tile's src column and row
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);  // the barrier, visible to the TMA unit
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::int32_t at[2] = {x, y};
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                   sizeof(in));
    ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, in, &src_map, at, &bar);
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  // out[j][i] = in[i][j], both swizzled. Lane i walks in's rows: the chunks it reads are
  // (j / 4) ^ (i % 8), 8 different ones per warp (a 4-way bank conflict instead of 32-way
  // without the swizzle); its writes to out's row j cover all 32 banks.
  const std::uint32_t lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (std::uint32_t j = warp; j < kTile; j += blockDim.x / 32) {
    const float v = *reinterpret_cast<const float*>(in + swizzled(lane, j));
    *reinterpret_cast<float*>(out + swizzled(j, lane)) = v;
  }
  // Generic-proxy writes to `out` must be visible to the async proxy before TMA reads them.
  ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    const std::int32_t at[2] = {y, x};  // dst is cols x rows: the tile lands at (row x, col y)
    ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &dst_map, at, out);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});
  }
}

// rows x cols floats, row-major, as a rank-2 map with a 32 x 32 box and the 128B swizzle.
bool encode(CUtensorMap* map, float* base, std::uint64_t rows, std::uint64_t cols) {
  PFN_cuTensorMapEncodeTiled_v12000 encode_tiled = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled",
                                       reinterpret_cast<void**>(&encode_tiled), 12000,
                                       cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return false;
  const cuuint64_t dims[2] = {cols, rows};               // innermost first
  const cuuint64_t strides[1] = {cols * sizeof(float)};  // row pitch, a multiple of 16
  const cuuint32_t box[2] = {kTile, kTile};              // inner box: 128 bytes, the most
  const cuuint32_t elem_strides[2] = {1, 1};             //   the 128B swizzle allows
  return encode_tiled(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, base, dims, strides, box,
                      elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                      CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

int main() {
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      major < 9) {
    std::printf("swizzle_transpose: needs a GPU with TMA (compute capability 9.0)\n");
    return 77;
  }
  // Sides that are not tile multiples (the edge tiles are zero-filled, then clipped); each row
  // pitch (1500 and 1000 floats) is a multiple of 16 bytes, as a tensor map needs.
  const std::uint64_t rows = 1000, cols = 1500, n = rows * cols;
  std::vector<float> host(n), back(n);
  for (std::uint64_t i = 0; i < n; ++i) host[i] = static_cast<float>(i);
  float *src = nullptr, *dst = nullptr;
  cudaMalloc(&src, n * sizeof(float));
  cudaMalloc(&dst, n * sizeof(float));
  cudaMemcpy(src, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  CUtensorMap src_map, dst_map;
  if (!encode(&src_map, src, rows, cols) || !encode(&dst_map, dst, cols, rows)) {
    std::fprintf(stderr, "swizzle_transpose: cuTensorMapEncodeTiled failed\n");
    return 1;
  }
  swizzle_transpose<<<dim3((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile), 256>>>(src_map,
                                                                                           dst_map);
  if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
    std::fprintf(stderr, "swizzle_transpose: %s\n", cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(back.data(), dst, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::uint64_t wrong = 0;
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) wrong += back[c * rows + r] != host[r * cols + c];
  std::printf(
      "swizzle_transpose: %llu x %llu floats through 128B-swizzled 32 x 32 tiles: %s "
      "(%llu wrong)\n",
      static_cast<unsigned long long>(rows), static_cast<unsigned long long>(cols),
      wrong ? "WRONG" : "ok", static_cast<unsigned long long>(wrong));
  cudaFree(src);
  cudaFree(dst);
  return wrong ? 1 : 0;
}
