// Error helpers for host code: CUDA errors become Status values whose message names the failed
// call and the decoded error ("cudaMalloc: cudaErrorMemoryAllocation (out of memory)").
#pragma once
#include <string>
#include <cuda_runtime_api.h>
#include <tmakit/tmakit.hpp>

namespace tmakit {

std::string cuda_error_text(cudaError_t err);  // "cudaErrorX (description)"

Status make_status(StatusCode code, std::string message);
Status cuda_status(cudaError_t err, const char* what);  // ok() when err == cudaSuccess

}  // namespace tmakit

// Returns from the enclosing function (which returns Status) when a CUDA call fails.
#define TMAKIT_CUDA_TRY(call)                                                         \
  do {                                                                                \
    const cudaError_t tmakit_err_ = (call);                                           \
    if (tmakit_err_ != cudaSuccess) return ::tmakit::cuda_status(tmakit_err_, #call); \
  } while (0)
