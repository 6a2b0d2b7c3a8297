// The arithmetic of transpose-accumulate, dst = alpha * src^T + beta * dst, per NumType
// (kernels/common/elem.hpp). Elements travel as unsigned bits (a transpose moves bits); here
// they become numbers: half and bfloat16 are computed in float and rounded once to nearest
// even, float in float, double in double, int32 in two's complement (wrapping). The product
// and the sum are separate roundings (__fmul_rn / __fadd_rn: never contracted into an FMA), so
// the CPU reference (host/tools/reference.cpp) computes the same bits for any input.
#pragma once
#include <cstdint>
#include <type_traits>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <kernels/common/elem.hpp>

namespace tmakit {

template <NumType N>
struct Num;

template <>
struct Num<NumType::kF16> {
  using Bits = std::uint16_t;
  using Scalar = float;
  static __device__ __forceinline__ float to(Bits b) { return __half2float(__ushort_as_half(b)); }
  static __device__ __forceinline__ Bits from(float v) {
    return __half_as_ushort(__float2half_rn(v));
  }
};
template <>
struct Num<NumType::kBF16> {
  using Bits = std::uint16_t;
  using Scalar = float;
  static __device__ __forceinline__ float to(Bits b) {
    return __bfloat162float(__ushort_as_bfloat16(b));
  }
  static __device__ __forceinline__ Bits from(float v) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(v));
  }
};
template <>
struct Num<NumType::kF32> {
  using Bits = std::uint32_t;
  using Scalar = float;
  static __device__ __forceinline__ float to(Bits b) { return __uint_as_float(b); }
  static __device__ __forceinline__ Bits from(float v) { return __float_as_uint(v); }
};
template <>
struct Num<NumType::kF64> {
  using Bits = std::uint64_t;
  using Scalar = double;
  static __device__ __forceinline__ double to(Bits b) {
    return __longlong_as_double(static_cast<long long>(b));
  }
  static __device__ __forceinline__ Bits from(double v) {
    return static_cast<Bits>(__double_as_longlong(v));
  }
};
template <>
struct Num<NumType::kI32> {
  using Bits = std::uint32_t;
  using Scalar = std::uint32_t;  // two's complement: unsigned arithmetic wraps like int32
  static __device__ __forceinline__ std::uint32_t to(Bits b) { return b; }
  static __device__ __forceinline__ Bits from(std::uint32_t v) { return v; }
};

__device__ __forceinline__ float num_mul(float a, float b) {
  return __fmul_rn(a, b);
}
__device__ __forceinline__ double num_mul(double a, double b) {
  return __dmul_rn(a, b);
}
__device__ __forceinline__ std::uint32_t num_mul(std::uint32_t a, std::uint32_t b) {
  return a * b;
}
__device__ __forceinline__ float num_add(float a, float b) {
  return __fadd_rn(a, b);
}
__device__ __forceinline__ double num_add(double a, double b) {
  return __dadd_rn(a, b);
}
__device__ __forceinline__ std::uint32_t num_add(std::uint32_t a, std::uint32_t b) {
  return a + b;
}

// The scalars of a call in the type's arithmetic (int32: alpha and beta are integers; the host
// checked).
template <NumType N>
struct Scalars {
  typename Num<N>::Scalar alpha, beta;
  __host__ __device__ static Scalars make(double a, double b) {
    using S = typename Num<N>::Scalar;
    if constexpr (N == NumType::kI32)
      return {static_cast<S>(static_cast<std::int32_t>(a)),
              static_cast<S>(static_cast<std::int32_t>(b))};
    else
      return {static_cast<S>(a), static_cast<S>(b)};
  }
};

// alpha * x (rounded to the type): what tma_reduce puts in shared memory before the reduce
// store adds it to dst.
template <NumType N>
__device__ __forceinline__ typename Num<N>::Bits num_scale(typename Num<N>::Bits x,
                                                           typename Num<N>::Scalar alpha) {
  return Num<N>::from(num_mul(alpha, Num<N>::to(x)));
}

// alpha * x + beta * y, one rounding to the type at the end (f16/bf16: two float roundings
// before it, as the reference does); BetaZero: alpha * x, y never read.
template <NumType N, bool BetaZero>
__device__ __forceinline__ typename Num<N>::Bits num_axpby(typename Num<N>::Bits x,
                                                           typename Num<N>::Bits y,
                                                           const Scalars<N>& s) {
  const auto ax = num_mul(s.alpha, Num<N>::to(x));
  if constexpr (BetaZero) return Num<N>::from(ax);
  return Num<N>::from(num_add(ax, num_mul(s.beta, Num<N>::to(y))));
}

// f(std::integral_constant<NumType, N>{}) for the call's type (cudaErrorInvalidValue for none).
template <class F>
cudaError_t dispatch_num_type(NumType n, F&& f) {
  using C = NumType;
  switch (n) {
    case C::kF16:
      return f(std::integral_constant<C, C::kF16>{});
    case C::kBF16:
      return f(std::integral_constant<C, C::kBF16>{});
    case C::kF32:
      return f(std::integral_constant<C, C::kF32>{});
    case C::kF64:
      return f(std::integral_constant<C, C::kF64>{});
    case C::kI32:
      return f(std::integral_constant<C, C::kI32>{});
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tmakit
