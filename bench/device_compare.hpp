// Device-side comparison for tmakit_bench (bench/device_compare.cu).
#pragma once
#include <cstddef>
#include <cuda_runtime_api.h>

namespace tmakit::bench {

// How many 4-byte words (bytes, in a tail that is not a whole 16-byte word) of the two device
// buffers differ: 0 when they are equal. Synchronises.
cudaError_t count_differences(const void* a, const void* b, std::size_t bytes,
                              unsigned long long* differences);

}  // namespace tmakit::bench
