// CPU reference transpose: 64x64 blocks so both sides stay in cache on large matrices.
#include <cstdint>
#include <cstring>
#include <string>
#include <host/error.hpp>
#include <host/transpose/layout.hpp>
#include <kernels/common/elem.hpp>
#include <host/tools/reference.hpp>
#include <cuda_bf16.h>  // host-side conversions (cuda_fp16/bf16 emulate them on the CPU)
#include <cuda_fp16.h>

namespace tmakit {
namespace {

struct Bytes16 {
  unsigned char b[16];
};

// Input rows [row_begin, row_end), i.e. output columns of the same range.
template <class T>
void reference_typed(const T* src, T* dst, std::int64_t rows, std::int64_t cols,
                     std::int64_t row_begin, std::int64_t row_end) {
  constexpr std::int64_t kB = 64;
  for (std::int64_t r0 = row_begin; r0 < row_end; r0 += kB)
    for (std::int64_t c0 = 0; c0 < cols; c0 += kB) {
      const std::int64_t r1 = r0 + kB < row_end ? r0 + kB : row_end;
      const std::int64_t c1 = c0 + kB < cols ? c0 + kB : cols;
      for (std::int64_t c = c0; c < c1; ++c)
        for (std::int64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
    }
}

// One element of dst = alpha * x + beta * y in type T's arithmetic, as kernels/primitives/
// num.cuh computes it: product and sum rounded separately (this file is compiled without FMA
// contraction: no -march, and the host compiler only fuses where the target has FMA).
template <DataType D>
struct HostNum;
template <>
struct HostNum<DataType::kF16> {
  using Bits = std::uint16_t;
  static float to(Bits b) { return __half2float(__ushort_as_half(b)); }
  static Bits from(float v) { return __half_as_ushort(__float2half_rn(v)); }
  using S = float;
};
template <>
struct HostNum<DataType::kBF16> {
  using Bits = std::uint16_t;
  static float to(Bits b) { return __bfloat162float(__ushort_as_bfloat16(b)); }
  static Bits from(float v) { return __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
  using S = float;
};
template <>
struct HostNum<DataType::kF32> {
  using Bits = std::uint32_t;
  static float to(Bits b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  static Bits from(float v) {
    Bits b;
    std::memcpy(&b, &v, 4);
    return b;
  }
  using S = float;
};
template <>
struct HostNum<DataType::kF64> {
  using Bits = std::uint64_t;
  static double to(Bits b) {
    double f;
    std::memcpy(&f, &b, 8);
    return f;
  }
  static Bits from(double v) {
    Bits b;
    std::memcpy(&b, &v, 8);
    return b;
  }
  using S = double;
};
template <>
struct HostNum<DataType::kI32> {
  using Bits = std::uint32_t;
  static std::uint32_t to(Bits b) { return b; }
  static Bits from(std::uint32_t v) { return v; }
  using S = std::uint32_t;
};

template <DataType D>
void accumulate_typed(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                      double alpha, double beta, const BatchStrides& st) {
  using N = HostNum<D>;
  using Bits = typename N::Bits;
  using S = typename N::S;
  S a, b;
  if constexpr (D == DataType::kI32) {
    a = static_cast<S>(static_cast<std::int32_t>(alpha));
    b = static_cast<S>(static_cast<std::int32_t>(beta));
  } else {
    a = static_cast<S>(alpha);
    b = static_cast<S>(beta);
  }
  const auto* in = static_cast<const Bits*>(src);
  auto* out = static_cast<Bits*>(dst);
  for (std::int64_t m = 0; m < st.batch; ++m)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const Bits x = in[m * st.src_batch_elems + i * st.src_ld_elems + j];
        Bits& y = out[m * st.dst_batch_elems + j * st.dst_ld_elems + i];
        const S ax = a * N::to(x);
        y = beta == 0.0 ? N::from(ax) : N::from(ax + b * N::to(y));
      }
}

}  // namespace

Status reference_transpose_accumulate(const void* src, void* dst, std::int64_t rows,
                                      std::int64_t cols, DataType type, double alpha, double beta,
                                      const MatrixLayout& layout) {
  if (src == nullptr || dst == nullptr)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose_accumulate: null pointer");
  if (rows < 1 || cols < 1)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose_accumulate: rows and cols must be >= 1");
  const int e = data_type_bytes(type);
  if (e == 0)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose_accumulate: unknown data type");
  ResolvedLayout lay;
  if (Status s = resolve_layout(rows, cols, e, layout, false, &lay); !s) return s;
  switch (type) {
    case DataType::kF16:
      accumulate_typed<DataType::kF16>(src, dst, rows, cols, alpha, beta, lay.strides);
      break;
    case DataType::kBF16:
      accumulate_typed<DataType::kBF16>(src, dst, rows, cols, alpha, beta, lay.strides);
      break;
    case DataType::kF32:
      accumulate_typed<DataType::kF32>(src, dst, rows, cols, alpha, beta, lay.strides);
      break;
    case DataType::kF64:
      accumulate_typed<DataType::kF64>(src, dst, rows, cols, alpha, beta, lay.strides);
      break;
    case DataType::kI32:
      accumulate_typed<DataType::kI32>(src, dst, rows, cols, alpha, beta, lay.strides);
      break;
  }
  return {};
}

Status reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                           int elem_bytes, const MatrixLayout& layout, bool copy) {
  if (src == nullptr || dst == nullptr)
    return make_status(StatusCode::kInvalidArgument, "reference_transpose: null pointer");
  if (rows < 1 || cols < 1)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose: rows and cols must be >= 1");
  if (elem_bit(elem_bytes) == 0)
    return make_status(StatusCode::kInvalidArgument, "reference_transpose: element size " +
                                                         std::to_string(elem_bytes) +
                                                         " bytes is not one of 1, 2, 4, 8, 16");
  ResolvedLayout lay;
  if (Status s = resolve_layout(rows, cols, elem_bytes, layout, copy, &lay); !s) return s;
  const BatchStrides& st = lay.strides;
  const auto* in = static_cast<const unsigned char*>(src);
  auto* out = static_cast<unsigned char*>(dst);
  const std::size_t e = static_cast<std::size_t>(elem_bytes);
  // Element (i, j) of matrix b: src at b*src_batch + i*src_ld + j; dst (j, i) at
  // b*dst_batch + j*dst_ld + i (a copy: (i, j) at b*dst_batch + i*dst_ld + j).
  for (std::int64_t b = 0; b < st.batch; ++b)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        const std::int64_t from = b * st.src_batch_elems + i * st.src_ld_elems + j;
        const std::int64_t to =
            b * st.dst_batch_elems + (copy ? i * st.dst_ld_elems + j : j * st.dst_ld_elems + i);
        std::memcpy(out + static_cast<std::size_t>(to) * e, in + static_cast<std::size_t>(from) * e,
                    e);
      }
  return {};
}

Status reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                           int elem_bytes) {
  return reference_transpose_rows(src, dst, rows, cols, elem_bytes, 0, rows);
}

Status reference_transpose_rows(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                                int elem_bytes, std::int64_t row_begin, std::int64_t row_end) {
  if (src == nullptr || dst == nullptr)
    return make_status(StatusCode::kInvalidArgument, "reference_transpose: null pointer");
  if (rows < 1 || cols < 1)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose: rows and cols must be >= 1");
  if (row_begin < 0 || row_end > rows || row_begin > row_end)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose: row band outside the matrix");
  switch (elem_bytes) {
    case 1:
      reference_typed(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), rows,
                      cols, row_begin, row_end);
      return {};
    case 2:
      reference_typed(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst),
                      rows, cols, row_begin, row_end);
      return {};
    case 4:
      reference_typed(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst),
                      rows, cols, row_begin, row_end);
      return {};
    case 8:
      reference_typed(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst),
                      rows, cols, row_begin, row_end);
      return {};
    case 16:
      reference_typed(static_cast<const Bytes16*>(src), static_cast<Bytes16*>(dst), rows, cols,
                      row_begin, row_end);
      return {};
    default:
      return make_status(StatusCode::kInvalidArgument, "reference_transpose: element size " +
                                                           std::to_string(elem_bytes) +
                                                           " bytes is not one of 1, 2, 4, 8, 16");
  }
}

}  // namespace tmakit
