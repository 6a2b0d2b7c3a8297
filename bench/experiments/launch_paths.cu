// Experiment (issue 16, target 4: <= 5 us of host time per 64x64 transpose() call): which launch
// path costs what on the lent machines. The bare runtime launch was 3.7-4.8 us there (session
// 16), so the target hangs on the launch itself. Times, same protocol as bench/host_timing.hpp
// (100 calls per batch, the device drained between batches outside the timed region), median and
// minimum of 7 repetitions of 20 batches, us per call:
//   rt_legacy      empty_kernel<<<1, 32>>> on the legacy default stream
//   rt_blocking    the same on a created (blocking) stream
//   rt_nonblocking the same on a cudaStreamNonBlocking stream
//   rt_per_thread  the same on cudaStreamPerThread
//   rt_launch_api  cudaLaunchKernel (the C API, argument array), legacy stream
//   drv_legacy     cuLaunchKernel (driver entry point, CUfunction from cudaGetFuncBySymbol)
//   drv_nonblocking the same on the non-blocking stream
//   tp_<token>_<stream>  tmakit::transpose of a 64x64 fp32 matrix, synchronize = false
//   cpu_strings    a CPU reference: 20 short std::string builds and compares (machine speed)
//   part_<name>    one step of transpose()'s dispatcher alone (host/transpose/transpose.cpp,
//   run()):
//                  getenv, device caps, context check, one pointer check, layout, registry
//                  lookup, a Status, the registry's copy launch; part_pointer_attr_drv: the
//                  driver's cuPointerGetAttributes for the memory type alone
// Not part of the build; compiled on the GPU machine by hand:
//   nvcc -O2 -std=c++17 -arch=sm_90 -I. -Ihost/include bench/experiments/launch_paths.cu \
//     build-gpu/libtmakit.a -o build-gpu/launch_paths
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <bench/experiments/host_reps.hpp>
#include <host/device.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/registry.hpp>
#include <kernels/launchers.hpp>
#include <tmakit/tmakit.hpp>

namespace {

__global__ void empty_kernel() {}

struct Figure {
  double median_us, min_us;
};

template <class Call>
Figure us_per_call(Call&& call) {
  const std::vector<double> reps = tmakit::experiments::sorted_us_per_call(call);
  return {reps[reps.size() / 2], reps.front()};
}

void report(const char* name, Figure f) {
  std::printf("%-32s %8.2f %8.2f\n", name, f.median_us, f.min_us);
  std::fflush(stdout);
}

using tmakit::experiments::dalloc;

}  // namespace

int main() {
  cudaFree(nullptr);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("# %s; us per call: median, min of 7 x 2000 calls\n", prop.name);
  cudaStream_t blocking, nonblocking;
  cudaStreamCreate(&blocking);
  cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);

  using LaunchFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream, void**, void**);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fn, 12000, cudaEnableDefault, &q);
  const auto cu_launch = reinterpret_cast<LaunchFn>(fn);
  cudaFunction_t f = nullptr;
  cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(empty_kernel));
  const auto cuf = reinterpret_cast<CUfunction>(f);
  empty_kernel<<<1, 32>>>();
  cudaDeviceSynchronize();

  for (int round = 0; round < 2; ++round) {
    std::printf("# round %d\n", round);
    report("rt_legacy", us_per_call([] { empty_kernel<<<1, 32>>>(); }));
    report("rt_blocking", us_per_call([&] { empty_kernel<<<1, 32, 0, blocking>>>(); }));
    report("rt_nonblocking", us_per_call([&] { empty_kernel<<<1, 32, 0, nonblocking>>>(); }));
    report("rt_per_thread", us_per_call([] { empty_kernel<<<1, 32, 0, cudaStreamPerThread>>>(); }));
    report("rt_launch_api", us_per_call([] {
             cudaLaunchKernel(reinterpret_cast<const void*>(empty_kernel), dim3(1), dim3(32),
                              nullptr, 0, nullptr);
           }));
    if (cu_launch != nullptr && cuf != nullptr) {
      report("drv_legacy",
             us_per_call([&] { cu_launch(cuf, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr); }));
      report("drv_nonblocking", us_per_call([&] {
               cu_launch(cuf, 1, 1, 1, 32, 1, 1, 0, reinterpret_cast<CUstream>(nonblocking),
                         nullptr, nullptr);
             }));
    } else {
      std::printf("# no driver entry point\n");
    }
    void* src = dalloc(64 * 64 * 4);
    void* dst = dalloc(64 * 64 * 4);
    for (const char* token : {"auto", "smem_padded", "copy", "tma_wide"})
      for (int si = 0; si < 3; ++si) {
        tmakit::TransposeOptions o;
        o.variant = token;
        o.stream = si == 0 ? nullptr : si == 1 ? blocking : nonblocking;
        const tmakit::Status s = tmakit::transpose(src, dst, 64, 64, 4, o);
        if (!s.ok()) {
          std::printf("# %s: %s\n", token, s.message.c_str());
          continue;
        }
        cudaDeviceSynchronize();
        const std::string name = std::string("tp_") + token +
                                 (si == 0   ? "_legacy"
                                  : si == 1 ? "_blocking"
                                            : "_nonblocking");
        report(name.c_str(), us_per_call([&] { tmakit::transpose(src, dst, 64, 64, 4, o); }));
      }
    {
      volatile int sink = 0;
      report("part_getenv",
             us_per_call([&] { sink = sink + (std::getenv("TMAKIT_SIMULATE_CC") != nullptr); }));
      tmakit::DeviceCaps caps;
      report("part_device_caps", us_per_call([&] { tmakit::current_device_caps(&caps); }));
      report("part_context",
             us_per_call([&] { tmakit::check_context_and_stream(caps.device, nullptr); }));
      report("part_get_last_error", us_per_call([&] { cudaGetLastError(); }));
      report("part_pointer_attr", us_per_call([&] {
               cudaPointerAttributes attr{};
               cudaPointerGetAttributes(&attr, src);
             }));
      using AttrsFn = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
      void* afn = nullptr;
      cudaDriverEntryPointQueryResult aq{};
      cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &afn, 12000, cudaEnableDefault,
                                       &aq);
      if (afn != nullptr) {
        const auto attrs = reinterpret_cast<AttrsFn>(afn);
        report("part_pointer_attr_drv", us_per_call([&] {
                 CUpointer_attribute which[1] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE};
                 unsigned type = 0;
                 void* data[1] = {&type};
                 attrs(1, which, data, reinterpret_cast<CUdeviceptr>(src));
                 sink = sink + type;
               }));
      }
      tmakit::ResolvedLayout lay;
      report("part_layout", us_per_call([&] {
               tmakit::resolve_layout(64, 64, 4, tmakit::MatrixLayout{}, false, &lay);
             }));
      const std::string token = "tma_wide";
      report("part_find_variant",
             us_per_call([&] { sink = sink + (tmakit::find_variant_def(token) != nullptr); }));
      report("part_status", us_per_call([&] {
               tmakit::Status st;
               st.variant = token;
               tmakit::Status copy = st;
               sink = sink + copy.ok();
             }));
      tmakit::kernels::LaunchArgs a;
      a.src = src;
      a.dst = dst;
      a.rows = a.cols = 64;
      a.elem_bytes = 4;
      a.strides = lay.strides;
      a.sm_count = caps.sm_count;
      const tmakit::VariantDef* cp = tmakit::find_variant_def("copy");
      report("part_copy_launch", us_per_call([&] { cp->launch(a); }));
    }
    cudaFree(src);
    cudaFree(dst);
    volatile int sink = 0;
    report("cpu_strings", us_per_call([&] {
             for (int i = 0; i < 20; ++i) {
               std::string a = "variant_" + std::to_string(i) + "_token_name";
               sink = sink + (a == "variant_3_token_name");
             }
           }));
  }
  return 0;
}
