// Faults on purpose, in a process of its own (tests/sm90/test_faults.cpp runs it): a fault
// leaves the CUDA context unusable, so it must not happen inside the test runner.
//   fault_probe watchdog ptx|cuda_barrier
//     A test-only TMA kernel whose mbarrier expects twice the bytes its one load delivers. With
//     the watchdog compiled in (TMAKIT_MBARRIER_WATCHDOG=1 for this target) the wait must fail
//     its device assertion within TMAKIT_WATCHDOG_MS; prints the launch error and the
//     milliseconds it took.
//   fault_probe dead_stream query|flags|id
//     What one CUDA call does with a destroyed stream (it may crash: hence a process).
//   fault_probe sticky
//     A kernel writes through a wild pointer (cudaErrorIllegalAddress, sticky); then a
//     tmakit::transpose on valid buffers through a TMA technique must report that earlier
//     error, not a tensor-map or pointer problem of its own.
// Exit 0 when the expected thing happened, 1 otherwise, 77 without an sm_90 device.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <kernels/primitives/tma_barrier.cuh>
#include <tmakit/tensor_map.hpp>
#include <tmakit/tmakit.hpp>

#if !TMAKIT_MBARRIER_WATCHDOG
#error "fault_probe needs the mbarrier watchdog compiled in"
#endif

namespace {

using namespace tmakit;

constexpr std::uint32_t kBox = 64;                     // a 64 x 64 box of bytes
constexpr std::uint32_t kBoxBytes = kBox * kBox;       // what the load delivers
constexpr std::uint32_t kExpectBytes = 2 * kBoxBytes;  // what the barrier waits for

template <BarrierStyle Style>
__global__ void short_load_kernel(const __grid_constant__ CUtensorMap map) {
#if TMAKIT_DEVICE_HAS_TMA
  __shared__ alignas(128) unsigned char tile[kBoxBytes];
  __shared__ alignas(8) std::uint64_t storage;
  tma::TxBarrier<Style> bar(&storage);
  if (threadIdx.x == 0) {
    bar.init(1);
    tma::fence_proxy_async_smem();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    bar.arrive_expect_tx(kExpectBytes);
    tma::load_2d(tile, &map, 0, 0, bar.handle());
  }
  bar.wait({0, 0, kExpectBytes});  // never completes: half the bytes never come
#endif
}

__global__ void wild_write_kernel(int* p) {
  *p = 1;
}

int watchdog(const std::string& style) {
  void* buf = nullptr;
  if (cudaMalloc(&buf, kBoxBytes) != cudaSuccess) return 1;
  const TensorMapSpec spec = matrix_spec(TmaType::kU8, buf, kBox, kBox, kBox, kBox, kBox);
  CUtensorMap map{};
  if (Status s = encode(spec, &map); !s) {
    std::printf("encode failed: %s\n", s.message.c_str());
    return 1;
  }
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  if (style == "cuda_barrier")
    short_load_kernel<BarrierStyle::kCudaBarrier><<<1, 64>>>(map);
  else
    short_load_kernel<BarrierStyle::kPtx><<<1, 64>>>(map);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("launch error: %s (%s) after %.0f ms\n", cudaGetErrorName(err),
              cudaGetErrorString(err), ms);
  return err == cudaErrorAssert && ms < 2000.0 ? 0 : 1;
}

int sticky() {
  const std::int64_t rows = 256, cols = 256;
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, rows * cols * 4) != cudaSuccess ||
      cudaMalloc(&dst, rows * cols * 4) != cudaSuccess)
    return 1;
  wild_write_kernel<<<1, 1>>>(reinterpret_cast<int*>(0x10));
  const cudaError_t fault = cudaDeviceSynchronize();  // the caller sees it... and goes on
  std::printf("earlier fault: %s\n", cudaGetErrorName(fault));
  TransposeOptions opt;
  opt.variant = "tma_load_store";
  const Status s = transpose(src, dst, rows, cols, 4, opt);
  std::printf("transpose: %s: %s\n", to_string(s.code), s.message.c_str());
  const bool names_it = s.message.find("cudaErrorIllegalAddress") != std::string::npos &&
                        s.message.find("earlier") != std::string::npos;
  const bool misattributed = s.message.find("tensor map") != std::string::npos ||
                             s.message.find("not a CUDA pointer") != std::string::npos;
  return fault == cudaErrorIllegalAddress && !s.ok() && s.code == StatusCode::kCudaError &&
                 names_it && !misattributed
             ? 0
             : 1;
}

int dead_stream(const std::string& call) {
  cudaStream_t s = nullptr;
  if (cudaStreamCreate(&s) != cudaSuccess || cudaStreamDestroy(s) != cudaSuccess) return 1;
  cudaError_t err = cudaErrorUnknown;
  unsigned int flags = 0;
  unsigned long long id = 0;
  if (call == "query") err = cudaStreamQuery(s);
  if (call == "flags") err = cudaStreamGetFlags(s, &flags);
  if (call == "id") err = cudaStreamGetId(s, &id);
  std::printf("dead stream %s: %s\n", call.c_str(), cudaGetErrorName(err));
  return 0;
}

// A stream whose context cudaDeviceReset destroyed, handed to tmakit::transpose.
int reset_stream() {
  cudaStream_t s = nullptr;
  if (cudaStreamCreate(&s) != cudaSuccess) return 1;
  const cudaError_t reset = cudaDeviceReset();
  void *src = nullptr, *dst = nullptr;
  if (cudaMalloc(&src, 1 << 16) != cudaSuccess || cudaMalloc(&dst, 1 << 16) != cudaSuccess)
    return 1;
  const cudaError_t q = cudaStreamQuery(s);
  std::printf("reset: %s, query: %s\n", cudaGetErrorName(reset), cudaGetErrorName(q));
  TransposeOptions opt;
  opt.stream = s;
  const Status st = transpose(src, dst, 64, 64, 4, opt);
  std::printf("transpose: %s: %s\n", to_string(st.code), st.message.c_str());
  return st.ok() ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  DeviceInfo dev;
  if (!query_device(&dev) || dev.cc < 90) {
    std::printf("skipped: needs an sm_90 device\n");
    return 77;
  }
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "watchdog") return watchdog(argc > 2 ? argv[2] : "ptx");
  if (mode == "sticky") return sticky();
  if (mode == "reset_stream") return reset_stream();
  if (mode == "dead_stream") return dead_stream(argc > 2 ? argv[2] : "query");
  std::fprintf(stderr, "usage: %s watchdog ptx|cuda_barrier | sticky\n", argv[0]);
  return 2;
}
