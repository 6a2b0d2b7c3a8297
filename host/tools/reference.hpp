// The CPU reference by bands of input rows, so large matrices can be transposed by several
// threads (each band writes its own output columns). reference_transpose() is the whole range.
#pragma once
#include <cstdint>
#include <tmakit/tmakit.hpp>

namespace tmakit {

Status reference_transpose_rows(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                                int elem_bytes, std::int64_t row_begin, std::int64_t row_end);

}  // namespace tmakit
