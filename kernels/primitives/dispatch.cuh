// Element-size dispatch for launchers: calls f(T{}) with T the unsigned type of that size.
#pragma once
#include <cstdint>
#include <cuda_runtime.h>

namespace tmakit {

template <class F>
cudaError_t dispatch_elem_1248(int elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1:
      return f(std::uint8_t{});
    case 2:
      return f(std::uint16_t{});
    case 4:
      return f(std::uint32_t{});
    case 8:
      return f(std::uint64_t{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tmakit
