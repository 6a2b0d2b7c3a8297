// CPU reference transpose: 64x64 blocks so both sides stay in cache on large matrices.
#include <cstdint>
#include <cstring>
#include <string>
#include <host/error.hpp>

namespace tmakit {
namespace {

struct Bytes16 {
  unsigned char b[16];
};

template <class T>
void reference_typed(const T* src, T* dst, std::int64_t rows, std::int64_t cols) {
  constexpr std::int64_t kB = 64;
  for (std::int64_t r0 = 0; r0 < rows; r0 += kB)
    for (std::int64_t c0 = 0; c0 < cols; c0 += kB) {
      const std::int64_t r1 = r0 + kB < rows ? r0 + kB : rows;
      const std::int64_t c1 = c0 + kB < cols ? c0 + kB : cols;
      for (std::int64_t c = c0; c < c1; ++c)
        for (std::int64_t r = r0; r < r1; ++r) dst[c * rows + r] = src[r * cols + c];
    }
}

}  // namespace

Status reference_transpose(const void* src, void* dst, std::int64_t rows, std::int64_t cols,
                           int elem_bytes) {
  if (src == nullptr || dst == nullptr)
    return make_status(StatusCode::kInvalidArgument, "reference_transpose: null pointer");
  if (rows < 1 || cols < 1)
    return make_status(StatusCode::kInvalidArgument,
                       "reference_transpose: rows and cols must be >= 1");
  switch (elem_bytes) {
    case 1:
      reference_typed(static_cast<const std::uint8_t*>(src), static_cast<std::uint8_t*>(dst), rows,
                      cols);
      return {};
    case 2:
      reference_typed(static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst),
                      rows, cols);
      return {};
    case 4:
      reference_typed(static_cast<const std::uint32_t*>(src), static_cast<std::uint32_t*>(dst),
                      rows, cols);
      return {};
    case 8:
      reference_typed(static_cast<const std::uint64_t*>(src), static_cast<std::uint64_t*>(dst),
                      rows, cols);
      return {};
    case 16:
      reference_typed(static_cast<const Bytes16*>(src), static_cast<Bytes16*>(dst), rows, cols);
      return {};
    default:
      return make_status(StatusCode::kInvalidArgument, "reference_transpose: element size " +
                                                           std::to_string(elem_bytes) +
                                                           " bytes is not one of 1, 2, 4, 8, 16");
  }
}

}  // namespace tmakit
