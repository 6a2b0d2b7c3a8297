#include <array>
#include <mutex>
#include <host/device.hpp>
#include <host/error.hpp>

namespace tmakit {

Status current_device_caps(DeviceCaps* caps) {
  int count = 0;
  if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess) {
    cudaGetLastError();
    return make_status(
        StatusCode::kNoDevice,
        "no usable CUDA device: cudaGetDeviceCount returned " + cuda_error_text(err));
  }
  if (count <= 0) return make_status(StatusCode::kNoDevice, "no CUDA device is visible");
  int dev = 0;
  TMAKIT_CUDA_TRY(cudaGetDevice(&dev));

  static std::mutex mu;
  static std::array<DeviceCaps, 64> cache{};
  static std::array<bool, 64> cached{};
  std::lock_guard<std::mutex> lock(mu);
  if (dev >= 0 && dev < 64 && cached[dev]) {
    *caps = cache[dev];
    return {};
  }
  DeviceCaps c;
  c.device = dev;
  int major = 0, minor = 0;
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, dev));
  c.cc = major * 10 + minor;
  if (dev >= 0 && dev < 64) {
    cache[dev] = c;
    cached[dev] = true;
  }
  *caps = c;
  return {};
}

Status query_device(DeviceInfo* info) {
  DeviceCaps caps;
  Status s = current_device_caps(&caps);
  if (!s) return s;
  DeviceInfo d;
  d.device = caps.device;
  d.cc = caps.cc;
  d.sm_count = caps.sm_count;
  cudaDeviceProp prop{};
  TMAKIT_CUDA_TRY(cudaGetDeviceProperties(&prop, caps.device));
  d.name = prop.name;
  d.global_mem_bytes = prop.totalGlobalMem;
  d.l2_bytes = prop.l2CacheSize;
  d.mem_bus_bits = prop.memoryBusWidth;
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, caps.device));
  TMAKIT_CUDA_TRY(
      cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, caps.device));
  TMAKIT_CUDA_TRY(cudaDriverGetVersion(&d.driver_version));
  TMAKIT_CUDA_TRY(cudaRuntimeGetVersion(&d.runtime_version));
  *info = d;
  return {};
}

}  // namespace tmakit
