// Example (e): two Hopper TMA features on one small job, out[t] = x[t] + w[t / 4] over 64 x 64
// float tiles, where the 4 CTAs of a cluster share one tile of w (as the CTAs of a GEMM share an
// operand tile):
//   plain      every CTA loads its x tile and the whole shared w tile: w is read from L2 4 times;
//   multicast  each CTA of a cluster of 4 loads a quarter of w with .multicast::cluster, which
//              writes it into all 4 CTAs' shared memory: w leaves L2 once per cluster;
//   persistent one CTA per SM walks the tiles, one at a time: each load waits on DRAM latency;
//   prefetch   the same, but the CTA first issues cp.async.bulk.prefetch.tensor for its next two
//              tiles into L2, so their DRAM latency overlaps the current tile's work.
// It verifies all four and prints their times; the profiler gives the L2 traffic (see
// examples/README.md for the ncu command and the measured figures).
//
//   build: CMake target example_multicast_prefetch (sm_90a: cuda::ptx's multicast form needs
//   the arch-specific target; links tmakit for tensor_map.hpp). Exit 0 when all four are
//   correct, 1 if not, 77 without TMA.
#include <cuda/ptx>
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <tmakit/tensor_map.hpp>

namespace ptx = cuda::ptx;
namespace cg = cooperative_groups;

constexpr int kT = 64, kTiles = 4096, kCluster = 4;  // 64 x 64 floats a tile, 16 KB
constexpr std::uint32_t kTileBytes = kT * kT * 4;
enum Mode { kPlain, kMulticast, kPersistent, kPrefetch };

// cp.async.bulk.prefetch.tensor.3d.L2.global.tile [map, {x, y, z}]: no wrapper in cuda::ptx.
__device__ void prefetch_tile(const CUtensorMap* map, int z) {
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(map),
               "r"(0), "r"(0), "r"(z)
               : "memory");
}

template <Mode M>
__global__ void add_tiles(const __grid_constant__ CUtensorMap x_map,
                          const __grid_constant__ CUtensorMap w_map,
                          const __grid_constant__ CUtensorMap out_map) {
  __shared__ alignas(128) float x[kT * kT];
  __shared__ alignas(128) float w[kT * kT];
  __shared__ std::uint64_t bar;
  const unsigned rank = M == kMulticast ? cg::this_cluster().block_rank() : 0;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_proxy_async(ptx::space_shared);
  }
  // Multicast writes into the other CTAs' shared memory and completes their barriers: every
  // barrier of the cluster must be initialised first.
  if constexpr (M == kMulticast)
    cg::this_cluster().sync();
  else
    __syncthreads();
  const int step = M >= kPersistent ? gridDim.x : kTiles;
  std::uint32_t phase = 0;
  for (int t = blockIdx.x; t < kTiles; t += step, phase ^= 1) {
    if (threadIdx.x == 0) {
      if constexpr (M == kPrefetch)  // the next two tiles this CTA will take, into L2
        for (int ahead = t + step; ahead < kTiles && ahead <= t + 2 * step; ahead += step) {
          prefetch_tile(&x_map, ahead);
          prefetch_tile(&w_map, ahead / kCluster);
        }
      const std::int32_t xt[3] = {0, 0, t};
      // This CTA's barrier receives its x tile and the whole w tile (in multicast mode, a
      // quarter from each CTA of the cluster).
      ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                     2 * kTileBytes);
      ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, x, &x_map, xt, &bar);
      if constexpr (M == kMulticast) {
        const int rows = kT / kCluster;  // this CTA's quarter: rows [rank * 16, rank * 16 + 16)
        const std::int32_t wq[3] = {0, static_cast<std::int32_t>(rank) * rows, t / kCluster};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, w + rank * rows * kT,
                                  &w_map, wq, &bar, std::uint16_t{(1u << kCluster) - 1});
      } else {
        const std::int32_t wt[3] = {0, 0, t / kCluster};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, w, &w_map, wt, &bar);
      }
    }
    while (!ptx::mbarrier_try_wait_parity(&bar, phase)) {
    }
    for (int k = threadIdx.x; k < kT * kT; k += blockDim.x) x[k] += w[k];
    ptx::fence_proxy_async(ptx::space_shared);  // the sums, visible to the TMA store
    __syncthreads();
    if (threadIdx.x == 0) {
      const std::int32_t xt[3] = {0, 0, t};
      ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, xt, x);
      ptx::cp_async_bulk_commit_group();
      ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>{});  // x is reloaded next
    }
    __syncthreads();
  }
  // No CTA leaves while a peer may still multicast into its shared memory.
  if constexpr (M == kMulticast) cg::this_cluster().sync();
}

// `tiles` 64 x 64 float tiles, one after another; a box of `box_rows` rows of one tile.
CUtensorMap map_of(float* base, int tiles, int box_rows) {
  tmakit::TensorMapSpec s;
  s.type = tmakit::TmaType::kF32;
  s.rank = 3;
  s.address = base;
  s.shape = {static_cast<std::uint64_t>(tiles), kT, kT, 0, 0};  // row-major: tile, row, column
  s.pitch_bytes = {kTileBytes, kT * 4, 0, 0, 0};
  s.box = {1, static_cast<std::uint32_t>(box_rows), kT, 0, 0};
  CUtensorMap m;
  if (const tmakit::Status st = tmakit::encode(s, &m); !st)
    std::fprintf(stderr, "%s\n", st.message.c_str());
  return m;
}

int main() {
  int dev = 0, major = 0, sms = 0;
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      major < 9) {
    std::printf("multicast_prefetch: needs a GPU with TMA (compute capability 9.0)\n");
    return 77;
  }
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const std::size_t nx = std::size_t{kTiles} * kT * kT, nw = nx / kCluster;
  std::vector<float> hx(nx), hw(nw), back(nx);
  for (std::size_t k = 0; k < nx; ++k) hx[k] = static_cast<float>(k % 4099);
  for (std::size_t k = 0; k < nw; ++k) hw[k] = static_cast<float>(k % 997) * 0.5f;
  float *x, *w, *out;
  cudaMalloc(&x, nx * 4);
  cudaMalloc(&w, nw * 4);
  cudaMalloc(&out, nx * 4);
  cudaMemcpy(x, hx.data(), nx * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), nw * 4, cudaMemcpyHostToDevice);
  const CUtensorMap xm = map_of(x, kTiles, kT), om = map_of(out, kTiles, kT);
  const CUtensorMap wm = map_of(w, kTiles / kCluster, kT),
                    wq = map_of(w, kTiles / kCluster, kT / kCluster);
  auto launch = [&](Mode m) {
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute attr[1];
    cfg.blockDim = 256;
    cfg.gridDim = m >= kPersistent ? sms : kTiles;
    if (m == kMulticast) {  // clusters of 4 consecutive CTAs: tiles 4c..4c+3 share w tile c
      attr[0].id = cudaLaunchAttributeClusterDimension;
      attr[0].val.clusterDim = {kCluster, 1, 1};
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      return cudaLaunchKernelEx(&cfg, add_tiles<kMulticast>, xm, wq, om);
    }
    return m == kPlain        ? cudaLaunchKernelEx(&cfg, add_tiles<kPlain>, xm, wm, om)
           : m == kPersistent ? cudaLaunchKernelEx(&cfg, add_tiles<kPersistent>, xm, wm, om)
                              : cudaLaunchKernelEx(&cfg, add_tiles<kPrefetch>, xm, wm, om);
  };
  const char* names[] = {"plain", "multicast", "persistent", "prefetch"};
  int bad = 0;
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (Mode m : {kPlain, kMulticast, kPersistent, kPrefetch}) {
    cudaMemset(out, 0, nx * 4);
    cudaError_t e = launch(m);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    cudaMemcpy(back.data(), out, nx * 4, cudaMemcpyDeviceToHost);
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < nx; ++k)
      wrong += back[k] != hx[k] + hw[(k / (kT * kT)) / kCluster * (kT * kT) + k % (kT * kT)];
    cudaEventRecord(t0);
    for (int r = 0; r < 20; ++r) launch(m);
    cudaEventRecord(t1);
    cudaEventSynchronize(t1);
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);
    std::printf("multicast_prefetch %-9s %s: %8.2f us per launch (%zu wrong)\n", names[m],
                e == cudaSuccess && !wrong ? "ok" : "WRONG", ms * 1000 / 20, wrong);
    bad += e != cudaSuccess || wrong;
  }
  cudaFree(x);
  cudaFree(w);
  cudaFree(out);
  return bad ? 1 : 0;
}
