// cuTensorMapEncodeTiled, cuTensorMapEncodeIm2col and cuTensorMapReplaceAddress without linking
// libcuda: the runtime hands out the driver entry point (cudaGetDriverEntryPointByVersion,
// CUDA 12.5+; cudaGetDriverEntryPoint before). Obtained once per process (std::call_once:
// thread-safe), checking both the return code and the pointer.
#include <host/tensor_map/driver.hpp>

#include <mutex>
#include <string>
#include <host/device.hpp>
#include <host/error.hpp>

namespace tmakit {
namespace {

struct EntryPoints {
  PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
  PFN_cuTensorMapEncodeIm2col_v12000 encode_im2col = nullptr;
  PFN_cuTensorMapReplaceAddress_v12000 replace = nullptr;
  Status im2col_status, replace_status;
  using GetErrorName = CUresult (*)(CUresult, const char**);
  GetErrorName error_name = nullptr;
  Status status;  // why `encode` is null
};

template <class Fn>
Status get_entry(const char* symbol, Fn* fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &q);
#else
  const cudaError_t err = cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &q);
#endif
  if (err != cudaSuccess) {
    cudaGetLastError();
    const bool no_driver = err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice;
    return make_status(no_driver ? StatusCode::kNoDevice : StatusCode::kCudaError,
                       std::string("cannot get the driver entry point ") + symbol + ": " +
                           cuda_error_text(err) +
                           (no_driver ? " (no usable CUDA driver on this machine)" : ""));
  }
  if (q != cudaDriverEntryPointSuccess || p == nullptr)
    return make_status(
        StatusCode::kUnsupported,
        std::string("the driver does not provide ") + symbol + " for CUDA 12.0 (" +
            (q == cudaDriverEntryPointVersionNotSufficent ? "driver too old" : "symbol not found") +
            ")");
  *fn = reinterpret_cast<Fn>(p);
  return {};
}

const EntryPoints& entry_points() {
  static EntryPoints ep;
  static std::once_flag once;
  std::call_once(once, [] {
    ep.status = get_entry("cuTensorMapEncodeTiled", &ep.encode);
    if (!ep.status.ok()) ep.encode = nullptr;
    ep.im2col_status = get_entry("cuTensorMapEncodeIm2col", &ep.encode_im2col);
    if (!ep.im2col_status.ok()) ep.encode_im2col = nullptr;
    ep.replace_status = get_entry("cuTensorMapReplaceAddress", &ep.replace);
    if (!ep.replace_status.ok()) ep.replace = nullptr;
    if (!get_entry("cuGetErrorName", &ep.error_name).ok()) ep.error_name = nullptr;
  });
  return ep;
}

}  // namespace

Status driver_encode_tiled(PFN_cuTensorMapEncodeTiled_v12000* fn) {
  const EntryPoints& ep = entry_points();
  if (ep.encode == nullptr) return ep.status;
  *fn = ep.encode;
  return {};
}

std::string curesult_name(CUresult r) {
  const EntryPoints& ep = entry_points();
  const char* name = nullptr;
  if (ep.error_name != nullptr && ep.error_name(r, &name) == CUDA_SUCCESS && name != nullptr)
    return name;
  switch (r) {
    case CUDA_SUCCESS:
      return "CUDA_SUCCESS";
    case CUDA_ERROR_INVALID_VALUE:
      return "CUDA_ERROR_INVALID_VALUE";
    case CUDA_ERROR_NOT_INITIALIZED:
      return "CUDA_ERROR_NOT_INITIALIZED";
    case CUDA_ERROR_DEINITIALIZED:
      return "CUDA_ERROR_DEINITIALIZED";
    case CUDA_ERROR_INVALID_CONTEXT:
      return "CUDA_ERROR_INVALID_CONTEXT";
    default:
      return "CUresult " + std::to_string(static_cast<int>(r));
  }
}

namespace {

// The driver call needs a current context, which the runtime creates lazily: cudaFree(nullptr)
// makes the current device's primary context current on this thread (seen on the H100:
// without it the encoder returned CUDA_ERROR_INVALID_CONTEXT). False and *why set on failure.
// The driver entry points need the runtime's context current on this thread: cudaFree(nullptr)
// makes it so, once per thread. It is one of the calls a stream capture in the global mode
// forbids (measured on the H200: a Plan::run captured into a CUDA graph ended the capture with
// cudaErrorStreamCaptureInvalidated), so it runs in the relaxed mode, which permits it.
bool ensure_context(Status* why) {
  thread_local int ready_device = -1;  // the device whose context this thread made current
  int device = -1;
  if (cudaGetDevice(&device) == cudaSuccess && device == ready_device) return true;
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&mode);
  const cudaError_t e = cudaFree(nullptr);
  cudaThreadExchangeStreamCaptureMode(&mode);
  if (e != cudaSuccess) {
    if (why) *why = cuda_status(e, "initialising the CUDA context");
    return false;
  }
  ready_device = device;
  return true;
}

}  // namespace

CUresult encode_unchecked(const TensorMapSpec& spec, CUtensorMap* out, Status* why) {
  PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  if (Status s = driver_encode_tiled(&fn); !s) {
    if (why) *why = s;
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  if (!ensure_context(why)) return CUDA_ERROR_INVALID_CONTEXT;
  const DriverOrder d = to_driver_order(spec);
  return fn(out, static_cast<CUtensorMapDataType>(spec.type), static_cast<cuuint32_t>(spec.rank),
            const_cast<void*>(spec.address), d.global_dim.data(), d.global_strides.data(),
            d.box_dim.data(), d.element_strides.data(),
            static_cast<CUtensorMapInterleave>(spec.interleave),
            static_cast<CUtensorMapSwizzle>(spec.swizzle),
            static_cast<CUtensorMapL2promotion>(spec.l2_promotion),
            static_cast<CUtensorMapFloatOOBfill>(spec.oob_fill));
}

CUresult encode_im2col_unchecked(const Im2colSpec& spec, CUtensorMap* out, Status* why) {
  const EntryPoints& ep = entry_points();
  if (ep.encode_im2col == nullptr) {
    if (why) *why = ep.im2col_status;
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  if (!ensure_context(why)) return CUDA_ERROR_INVALID_CONTEXT;
  const Im2colDriverOrder d = to_driver_order(spec);
  return ep.encode_im2col(
      out, static_cast<CUtensorMapDataType>(spec.type), static_cast<cuuint32_t>(spec.rank),
      const_cast<void*>(spec.address), d.dims.global_dim.data(), d.dims.global_strides.data(),
      d.lower_corner.data(), d.upper_corner.data(), spec.channels_per_pixel, spec.pixels_per_column,
      d.dims.element_strides.data(), static_cast<CUtensorMapInterleave>(spec.interleave),
      static_cast<CUtensorMapSwizzle>(spec.swizzle),
      static_cast<CUtensorMapL2promotion>(spec.l2_promotion),
      static_cast<CUtensorMapFloatOOBfill>(spec.oob_fill));
}

CUresult replace_address_unchecked(CUtensorMap* map, const void* address, Status* why) {
  const EntryPoints& ep = entry_points();
  if (ep.replace == nullptr) {
    if (why) *why = ep.replace_status;
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  if (!ensure_context(why)) return CUDA_ERROR_INVALID_CONTEXT;
  return ep.replace(map, const_cast<void*>(address));
}

Status encode(const TensorMapSpec& spec, CUtensorMap* out) {
  DeviceCaps dev;  // cached per device: query_device() (cudaGetDeviceProperties) took 0.76 ms
  if (Status s = current_device_caps(&dev); !s) return s;
  const ValidationReport rep = validate(spec, dev.cc);
  if (!rep.ok())
    return make_status(
        StatusCode::kInvalidArgument,
        "tensor map rejected before calling the driver:\n" + rep.to_string() + describe(spec));
  Status why;
  const CUresult r = encode_unchecked(spec, out, &why);
  if (!why.ok()) return why;
  if (r != CUDA_SUCCESS)
    return make_status(StatusCode::kCudaError, "cuTensorMapEncodeTiled returned " +
                                                   curesult_name(r) + " for:\n" + describe(spec));
  return {};
}

std::string validate_and_encode(const TensorMapSpec& spec, int cc, const std::string& what,
                                CUtensorMap* out) {
  const std::string prefix = what + ": ";
  const ValidationReport rep = validate(spec, cc);
  if (!rep.ok()) {
    std::string msg;
    for (const RuleViolation& v : rep.errors) msg += (msg.empty() ? "" : "; ") + v.message;
    return prefix + msg;
  }
  if (out == nullptr) return {};
  Status why;
  const CUresult r = encode_unchecked(spec, out, &why);
  if (!why.ok()) return prefix + why.message;
  if (r != CUDA_SUCCESS) return prefix + "cuTensorMapEncodeTiled returned " + curesult_name(r);
  return {};
}

}  // namespace tmakit
