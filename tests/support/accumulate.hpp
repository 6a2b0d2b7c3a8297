// The correctness harness of transpose-accumulate: integer-valued numbers of the data type in
// src and dst (small enough that alpha * x + beta * y is exact in every type for the scalars
// the tests use: bit-exact whatever the order of roundings), dst's padding and gaps filled with
// the poison byte, and after the call every byte of dst's span (plus guard bands) compared with
// the CPU reference (reference_transpose_accumulate) applied to the same starting dst.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <host/tools/testdata.hpp>
#include <tests/support/harness.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::test {

// Element i as an integer-valued number of `type` in [-32, 32] (shifted by `salt`), written
// into buf at element i.
inline void put_small_integer(unsigned char* buf, std::int64_t i, DataType type, int salt) {
  const int v = static_cast<int>((i * 7 + salt * 13) % 65) - 32;
  switch (type) {
    case DataType::kF16: {
      const std::uint16_t b = __half_as_ushort(__float2half_rn(static_cast<float>(v)));
      std::memcpy(buf + i * 2, &b, 2);
      break;
    }
    case DataType::kBF16: {
      const std::uint16_t b = __bfloat16_as_ushort(__float2bfloat16_rn(static_cast<float>(v)));
      std::memcpy(buf + i * 2, &b, 2);
      break;
    }
    case DataType::kF32: {
      const float f = static_cast<float>(v);
      std::memcpy(buf + i * 4, &f, 4);
      break;
    }
    case DataType::kF64: {
      const double d = v;
      std::memcpy(buf + i * 8, &d, 8);
      break;
    }
    case DataType::kI32: {
      const std::int32_t x = v;
      std::memcpy(buf + i * 4, &x, 4);
      break;
    }
  }
}

// Runs run(src, dst) on a batch of rows x cols matrices laid out by `layout` (defaults
// resolved as transpose_accumulate does); dst starts as small integers inside its matrices and
// poison in its padding. Returns "" when dst afterwards equals the reference byte for byte.
inline std::string check_transpose_accumulate(
    std::int64_t rows, std::int64_t cols, DataType type, double alpha, double beta,
    const MatrixLayout& layout, const std::function<Status(const void*, void*)>& run) {
  const int e = data_type_bytes(type);
  const std::int64_t src_ld = layout.src_ld_elems ? layout.src_ld_elems : cols;
  const std::int64_t dst_ld = layout.dst_ld_elems ? layout.dst_ld_elems : rows;
  const std::int64_t src_bs =
      layout.src_batch_stride_elems ? layout.src_batch_stride_elems : rows * src_ld;
  const std::int64_t dst_bs =
      layout.dst_batch_stride_elems ? layout.dst_batch_stride_elems : cols * dst_ld;
  const std::int64_t src_n = (layout.batch - 1) * src_bs + (rows - 1) * src_ld + cols;
  const std::int64_t dst_n = (layout.batch - 1) * dst_bs + (cols - 1) * dst_ld + rows;
  std::vector<unsigned char> src(static_cast<std::size_t>(src_n) * e);
  for (std::int64_t i = 0; i < src_n; ++i) put_small_integer(src.data(), i, type, 1);
  std::vector<unsigned char> dst0(static_cast<std::size_t>(dst_n) * e + 2 * kGuardBytes,
                                  kPoisonByte);
  unsigned char* body0 = dst0.data() + kGuardBytes;
  for (std::int64_t b = 0; b < layout.batch; ++b)
    for (std::int64_t j = 0; j < cols; ++j)
      for (std::int64_t i = 0; i < rows; ++i)
        put_small_integer(body0, b * dst_bs + j * dst_ld + i, type, 5);
  std::vector<unsigned char> ref = dst0;
  if (Status s = reference_transpose_accumulate(src.data(), ref.data() + kGuardBytes, rows, cols,
                                                type, alpha, beta, layout);
      !s)
    return "reference: " + s.message;
  return run_and_compare_span(src, dst0, ref, run, dst_n, e, dst_bs, dst_ld);
}

}  // namespace tmakit::test
