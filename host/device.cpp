#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <host/device.hpp>
#include <host/device_policy.hpp>
#include <host/error.hpp>
#include <kernels/launchers.hpp>

namespace tmakit {
namespace {

// TMAKIT_SIMULATE_CC, or a value above every real device when unset or malformed.
int read_simulated_cc() {
  const char* e = std::getenv("TMAKIT_SIMULATE_CC");
  if (e == nullptr || *e == '\0') return 1 << 30;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  return (*end == '\0' && v > 0 && v < (1 << 30)) ? static_cast<int>(v) : (1 << 30);
}

bool read_tma_disabled() {
  const char* e = std::getenv("TMAKIT_DISABLE_TMA");
  return e != nullptr && e[0] == '1' && e[1] == '\0';
}

// The snapshot env_settings() returns; the first use reads the environment.
struct EnvSnapshot {
  std::atomic<int> simulated_cc{read_simulated_cc()};
  std::atomic<bool> tma_disabled{read_tma_disabled()};
};
EnvSnapshot& env_snapshot() {
  static EnvSnapshot snap;
  return snap;
}

int simulated_cc() {
  return env_settings().simulated_cc;
}

// Bumped by reload_env_settings: cached caps were made with the policy overrides then read.
std::atomic<unsigned> g_policy_generation{0};

}  // namespace

EnvSettings env_settings() {
  const EnvSnapshot& snap = env_snapshot();
  return {snap.simulated_cc.load(std::memory_order_relaxed),
          snap.tma_disabled.load(std::memory_order_relaxed)};
}

void reload_env_settings() {
  EnvSnapshot& snap = env_snapshot();
  snap.simulated_cc.store(read_simulated_cc(), std::memory_order_relaxed);
  snap.tma_disabled.store(read_tma_disabled(), std::memory_order_relaxed);
  reload_policy_overrides();
  g_policy_generation.fetch_add(1);
}

Status current_device_caps(DeviceCaps* caps) {
  static std::mutex mu;
  static std::array<DeviceCaps, 64> cache{};
  static std::array<bool, 64> cached{};
  static std::array<unsigned, 64> generation{};
  const unsigned gen = g_policy_generation.load();
  // The per-call path: the current device's cached facts (no device count query; measured at
  // 0.24 us per call with it on the H100, bench host_calls/device_caps).
  if (int dev = 0; cudaGetDevice(&dev) == cudaSuccess && dev >= 0 && dev < 64) {
    std::lock_guard<std::mutex> lock(mu);
    if (cached[dev] && generation[dev] == gen) {
      *caps = cache[dev];
      caps->cc = std::min(caps->cc, simulated_cc());
      return {};
    }
  }
  cudaGetLastError();  // a failed cudaGetDevice is answered below
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
  std::lock_guard<std::mutex> lock(mu);
  DeviceCaps c;
  c.device = dev;
  int major = 0, minor = 0;
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&c.sm_count, cudaDevAttrMultiProcessorCount, dev));
  c.cc = major * 10 + minor;
  // Peak DRAM bandwidth (double data rate over the bus), for per-GPU tuning choices.
  int mem_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) == cudaSuccess)
    c.dram_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  cudaGetLastError();
  c.code_error = kernels::device_code_ptx_version(&c.code_ptx_version);
  c.policy = device_policy(c.dram_gbps, &c.policy_key);
  if (dev >= 0 && dev < 64) {
    cache[dev] = c;
    cached[dev] = true;
    generation[dev] = gen;
  }
  *caps = c;
  caps->cc = std::min(caps->cc, simulated_cc());
  return {};
}

std::string missing_device_code(const DeviceCaps& caps) {
  if (caps.code_error == cudaSuccess) return {};
  return "this tmakit was built without device code for device " + std::to_string(caps.device) +
         " (CMAKE_CUDA_ARCHITECTURES=" + kernels::built_cuda_architectures() +
         ": no cubin for it and no PTX the driver can compile for it; cudaFuncGetAttributes "
         "returned " +
         cuda_error_text(caps.code_error) +
         "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES (e.g. 90 for an H100) or "
         "with a PTX target (\"80\" rather than \"80-real\"); nothing was launched";
}

std::string simulated_cc_note(int reported_cc) {
  return reported_cc == simulated_cc()
             ? " (simulated by TMAKIT_SIMULATE_CC=" + std::to_string(reported_cc) + ")"
             : std::string();
}

std::string sticky_error_text(int device, cudaError_t err) {
  return "the CUDA context of device " + std::to_string(device) +
         " is unusable: an earlier kernel or call failed with " + cuda_error_text(err) +
         ", a sticky error (every CUDA call in this process now returns it); nothing was "
         "launched: the process must exit to recover";
}

bool is_sticky_error(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

Status check_context_and_stream(int device, cudaStream_t stream) {
  // A pending error of an earlier call: sticky ones mean the context is gone; others are
  // cleared so that they are not blamed on this call's launch.
  if (const cudaError_t stale = cudaGetLastError(); is_sticky_error(stale))
    return make_status(StatusCode::kCudaError, sticky_error_text(device, stale));
  // The default streams are valid in any live context: no query (0.42 us per call on the
  // H100, bench host_calls/stream_query). A sticky error the caller already received and
  // cleared then surfaces at the launch, which transpose() reports as that earlier fault.
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) return {};
  // A stream being captured into a CUDA graph is not queried: the query would end the capture
  // (cudaErrorStreamCaptureInvalidated, measured on the H200).
  if (cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
      cudaStreamIsCapturing(stream, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone)
    return {};
  cudaGetLastError();
  // The stream query touches the context: it returns a sticky error a fault left behind
  // even after the caller already received (and cleared) it.
  const cudaError_t err = cudaStreamQuery(stream);
  if (err == cudaSuccess || err == cudaErrorNotReady) return {};
  cudaGetLastError();
  if (is_sticky_error(err))
    return make_status(StatusCode::kCudaError, sticky_error_text(device, err));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(stream));
  return make_status(StatusCode::kInvalidArgument,
                     std::string("options.stream (") + buf + ") is not a usable stream: " +
                         cuda_error_text(err) + " (destroyed, or from another context?)");
}

Status query_device(DeviceInfo* info) {
  DeviceCaps caps;
  Status s = current_device_caps(&caps);
  if (!s) return s;
  DeviceInfo d;
  d.device = caps.device;
  d.cc = caps.cc;
  d.sm_count = caps.sm_count;
  // cudaGetDeviceProperties fills the cudaDeviceProp of the CUDA runtime the process loaded,
  // which inside Python is the copy torch or CuPy loaded first and may be newer than these
  // headers: the struct gets room past its size, so a larger one cannot overrun the stack.
  // Only the leading fields are read from it (name, total memory); the rest are attributes.
  struct PropRoom {
    cudaDeviceProp prop;
    unsigned char spare[4096];
  };
  const auto room = std::make_unique<PropRoom>();
  TMAKIT_CUDA_TRY(cudaGetDeviceProperties(&room->prop, caps.device));
  d.name = room->prop.name;
  d.global_mem_bytes = room->prop.totalGlobalMem;
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&d.l2_bytes, cudaDevAttrL2CacheSize, caps.device));
  TMAKIT_CUDA_TRY(
      cudaDeviceGetAttribute(&d.mem_bus_bits, cudaDevAttrGlobalMemoryBusWidth, caps.device));
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, caps.device));
  TMAKIT_CUDA_TRY(
      cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, caps.device));
  TMAKIT_CUDA_TRY(cudaDriverGetVersion(&d.driver_version));
  TMAKIT_CUDA_TRY(cudaRuntimeGetVersion(&d.runtime_version));
  *info = d;
  return {};
}

}  // namespace tmakit
