// Cheap per-call device facts for the dispatcher, cached per device index (thread-safe).
#pragma once
#include <string>
#include <cuda_runtime_api.h>
#include <kernels/common/device_policy.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {

struct DeviceCaps {
  int device = 0;
  int cc = 0;  // major*10 + minor
  int sm_count = 0;
  double dram_gbps = 0;  // peak DRAM bandwidth from the memory clock and bus width (0: unknown)
  // The device code this build runs on it (kernels/device_code.cu): the virtual architecture
  // it was compiled from (90 for sm_90 code; 80 for compute_80 PTX JIT-compiled here), or the
  // error when there is none (cudaErrorNoKernelImageForDevice).
  int code_ptx_version = 0;
  cudaError_t code_error = cudaSuccess;
  // What the launchers decide for this device (host/device_policy.hpp), and its name in the
  // plans' and wisdom's problem key.
  DevicePolicy policy;
  std::string policy_key;
  // A device described by name (TuneOptions::gpu), not queried: `name` is its GPU's; plans
  // check its rules but encode no tensor map and launch nothing.
  bool described = false;
  std::string name;
};

// Empty when this build has device code for `caps`' device, else the whole message: which
// build, which device, how to rebuild. transpose() refuses every call with it before launching.
std::string missing_device_code(const DeviceCaps& caps);

// The environment variables tmakit reads, read once, at the first call that needs them: getenv
// scans the whole environment, 0.14 us per variable and call on the H100 machine (bench/
// experiments/launch_paths.cu, the host time per call), where a 64 x 64 transpose()
// costs about 5 us. Setting them in-process after that first call has no effect until
// reload_env_settings(), which tests call (not meant to race with running calls).
//   simulated_cc  TMAKIT_SIMULATE_CC (major*10+minor), or 1 << 30 when unset or malformed
//   tma_disabled  TMAKIT_DISABLE_TMA is exactly "1"
// (TMAKIT_POLICY, the launchers' per-device policy, is read once the same way:
// host/device_policy.hpp.)
struct EnvSettings {
  int simulated_cc = 1 << 30;
  bool tma_disabled = false;
};
EnvSettings env_settings();
void reload_env_settings();

// The current device. TMAKIT_SIMULATE_CC=80 (any major*10+minor) makes it report at most that
// compute capability: how tests and users see the pre-sm_90 paths (fallbacks, errors) on a
// Hopper machine. The message of any refusal it causes says it was simulated.
Status current_device_caps(DeviceCaps* caps);

// Ok unless the context of `device` holds a sticky error from an earlier fault (an illegal
// address, a trap, a failed device assertion, ...) still pending, or a user stream that
// cudaStreamQuery does not know (its query also returns a sticky error already received and
// cleared). A pending non-sticky error of an earlier call is cleared, so that it is not blamed
// on this call's launch. The default streams are not queried (the per-call cost): on them a
// sticky error already cleared surfaces at the launch, which transpose() reports as the
// earlier fault too. A stream being captured into a CUDA graph is not queried either (the query
// would end the capture).
Status check_context_and_stream(int device, cudaStream_t stream);

// The errors after which a CUDA context is unusable (a fault inside a kernel).
bool is_sticky_error(cudaError_t err);

// " (simulated by TMAKIT_SIMULATE_CC=N)" when that variable lowers the reported capability,
// else "": appended to every message that quotes the capability.
std::string simulated_cc_note(int reported_cc);

// The text used when a CUDA call fails because the context was already unusable.
std::string sticky_error_text(int device, cudaError_t err);

}  // namespace tmakit
