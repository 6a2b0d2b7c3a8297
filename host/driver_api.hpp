// The driver entry points tmakit uses, obtained through the runtime (no libcuda link).
#pragma once
#include <string>
#include <cudaTypedefs.h>
#include <tmakit/tensor_map.hpp>

namespace tmakit {

// cuTensorMapEncodeTiled (CUDA 12.0 ABI), fetched once per process.
Status driver_encode_tiled(PFN_cuTensorMapEncodeTiled_v12000* fn);

// "CUDA_ERROR_INVALID_VALUE" etc. (through cuGetErrorName when the driver is there).
std::string curesult_name(CUresult r);

// The raw driver call with no validation: for the differential test against validate().
// Returns CUDA_ERROR_NOT_INITIALIZED and sets *why when the entry point is unavailable.
CUresult encode_unchecked(const TensorMapSpec& spec, CUtensorMap* out, Status* why);

}  // namespace tmakit
