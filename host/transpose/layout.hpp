// MatrixLayout -> the strides the kernels take: dense defaults filled in, every rule checked
// (with a message naming the field, its value and the rule), the bytes each side spans.
#pragma once
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {

struct ResolvedLayout {
  BatchStrides strides;
  std::int64_t src_span_bytes = 0;  // from src to one past its last element
  std::int64_t dst_span_bytes = 0;
  bool dense = true;  // every ld and batch stride is the dense one
};

// rows, cols >= 1 and elem_bytes in {1, 2, 4, 8, 16} are checked by the caller. copy: dst is
// rows x cols (a copy variant) instead of cols x rows.
Status resolve_layout(std::int64_t rows, std::int64_t cols, int elem_bytes,
                      const MatrixLayout& layout, bool copy, ResolvedLayout* out);

}  // namespace tmakit
