// Experiment (issue 6, target 5): which copy kernel shape reaches cudaMemcpyAsync D2D?
// Not part of the build; scripts/perf-experiments.sh compiles and runs it on the GPU machine.
// Each variant copies the same 1 GiB buffer; median of 30 event-timed runs; GB/s counts bytes
// read + written. Every variant's output is checked against the input.
//   grid_u4     the `copy` kernel as shipped: 8 blocks/SM x 256 threads, grid-stride, 4 loads
//               in flight per thread at addresses one grid apart
//   grid_u8     the same with 8 loads in flight
//   grid_cs     grid_u4 with streaming hints (ld.global.cs / st.global.cs: evict-first)
//   slab_u4     each block copies one contiguous slab (1/blocks of the buffer); its threads
//               stride inside it, 4 loads in flight
//   slab_u8     the same with 8 loads in flight
//   big_u4      grid_u4 with 1024 threads x 2 blocks/SM
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                              \
  do {                                                                                        \
    cudaError_t e_ = (x);                                                                     \
    if (e_ != cudaSuccess) {                                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                           \
    }                                                                                         \
  } while (0)

template <int U, bool Stream>
__global__ void grid_copy(const uint4* __restrict__ s, uint4* __restrict__ d, std::int64_t n) {
  const std::int64_t threads = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t v = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; v + (U - 1) * threads < n; v += U * threads) {
    uint4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u)
      x[u] = Stream ? __ldcs(s + v + u * threads) : __ldg(s + v + u * threads);
#pragma unroll
    for (int u = 0; u < U; ++u) {
      if (Stream)
        __stcs(d + v + u * threads, x[u]);
      else
        d[v + u * threads] = x[u];
    }
  }
  for (; v < n; v += threads) d[v] = s[v];
}

template <int U>
__global__ void slab_copy(const uint4* __restrict__ s, uint4* __restrict__ d, std::int64_t n) {
  const std::int64_t per = (n + gridDim.x - 1) / gridDim.x;
  const std::int64_t lo = per * blockIdx.x, hi = lo + per < n ? lo + per : n;
  const int t = blockDim.x;
  std::int64_t v = lo + threadIdx.x;
  for (; v + (U - 1) * t < hi; v += U * t) {
    uint4 x[U];
#pragma unroll
    for (int u = 0; u < U; ++u) x[u] = __ldg(s + v + u * t);
#pragma unroll
    for (int u = 0; u < U; ++u) d[v + u * t] = x[u];
  }
  for (; v < hi; v += t) d[v] = s[v];
}

int main() {
  const std::size_t bytes = std::size_t(1) << 30;
  const std::int64_t n = bytes / 16;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  uint4 *s, *d;
  CHECK(cudaMalloc(&s, bytes));
  CHECK(cudaMalloc(&d, bytes));
  std::vector<std::uint32_t> h(bytes / 4);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint32_t>(i * 2654435761u);
  CHECK(cudaMemcpy(s, h.data(), bytes, cudaMemcpyHostToDevice));
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<std::uint32_t> back(bytes / 4);
  auto run = [&](const char* name, auto launch) {
    CHECK(cudaMemset(d, 0xab, bytes));
    launch();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(back.data(), d, bytes, cudaMemcpyDeviceToHost));
    const bool ok = std::memcmp(back.data(), h.data(), bytes) == 0;
    std::vector<float> ms;
    for (int i = 0; i < 30; ++i) {
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      float t = 0;
      CHECK(cudaEventElapsedTime(&t, a, b));
      ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2];
    std::printf("%-10s %8.4f ms %8.1f GB/s %s\n", name, med, 2.0 * bytes / med / 1e6,
                ok ? "ok" : "WRONG");
    return 2.0 * bytes / med / 1e6;
  };
  const unsigned g8 = sms * 8, g2 = sms * 2;
  for (int rep = 0; rep < 2; ++rep) {
    run("memcpy", [&] { CHECK(cudaMemcpyAsync(d, s, bytes, cudaMemcpyDeviceToDevice)); });
    run("grid_u4", [&] { grid_copy<4, false><<<g8, 256>>>(s, d, n); });
    run("grid_u8", [&] { grid_copy<8, false><<<g8, 256>>>(s, d, n); });
    run("grid_cs", [&] { grid_copy<4, true><<<g8, 256>>>(s, d, n); });
    run("slab_u4", [&] { slab_copy<4><<<g8, 256>>>(s, d, n); });
    run("slab_u8", [&] { slab_copy<8><<<g8, 256>>>(s, d, n); });
    run("big_u4", [&] { grid_copy<4, false><<<g2, 1024>>>(s, d, n); });
  }
  return 0;
}
