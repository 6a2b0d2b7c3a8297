// Device-side fill and check for matrices too large to verify on the host in reasonable time
// (past 2^31 elements). The value of input element i is byte_pattern(i), which never equals
// the poison byte.
#pragma once
#include <cstdint>
#include <cuda_runtime_api.h>

namespace tmakit::test {

cudaError_t fill_byte_pattern(unsigned char* p, std::int64_t n);
// Counts output elements (of a batch of cols x rows transposes of the pattern, dense) that are
// wrong.
cudaError_t count_transpose_errors_u8(const unsigned char* out, std::int64_t rows,
                                      std::int64_t cols, unsigned long long* errors,
                                      std::int64_t batch = 1);

}  // namespace tmakit::test
