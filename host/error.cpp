#include <host/error.hpp>

namespace tmakit {

const char* to_string(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kNoDevice:
      return "no CUDA device";
    case StatusCode::kCudaError:
      return "CUDA error";
  }
  return "unknown";
}

std::string cuda_error_text(cudaError_t err) {
  return std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
}

Status make_status(StatusCode code, std::string message) {
  Status s;
  s.code = code;
  s.message = std::move(message);
  return s;
}

Status cuda_status(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return {};
  const bool no_device = err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver ||
                         err == cudaErrorInitializationError;
  return make_status(no_device ? StatusCode::kNoDevice : StatusCode::kCudaError,
                     std::string(what) + ": " + cuda_error_text(err));
}

}  // namespace tmakit
