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
// What a kernel's planned map needs: validate for `cc`, then encode (out == nullptr: validate
// only, for a described device). Empty on success; else "<what>: " and the errors (warnings do
// not stop TMA) or the driver's refusal, for a fallback reason.
std::string validate_and_encode(const TensorMapSpec& spec, int cc, const std::string& what,
                                CUtensorMap* out);

// The same for im2col maps (cuTensorMapEncodeIm2col) and for cuTensorMapReplaceAddress.
CUresult encode_im2col_unchecked(const Im2colSpec& spec, CUtensorMap* out, Status* why);
CUresult replace_address_unchecked(CUtensorMap* map, const void* address, Status* why);

}  // namespace tmakit
