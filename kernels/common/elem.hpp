// Element types. A transpose moves bits, so every technique is written for an unsigned
// integer type of the element's size; float, bf16, double... are the same bits.
#pragma once
#include <cstdint>

namespace tmakit {

inline constexpr int kVecBytes = 16;  // the widest global/shared access: LDG.128 / STG.128

template <int Bytes>
struct ElemOf;
template <>
struct ElemOf<1> {
  using type = std::uint8_t;
};
template <>
struct ElemOf<2> {
  using type = std::uint16_t;
};
template <>
struct ElemOf<4> {
  using type = std::uint32_t;
};
template <>
struct ElemOf<8> {
  using type = std::uint64_t;
};

// Elements of type T per 16-byte vector.
template <class T>
inline constexpr int kElemsPerVec = kVecBytes / static_cast<int>(sizeof(T));

// Bit i of an element-size mask stands for (1 << i) bytes: 1, 2, 4, 8, 16.
inline constexpr unsigned elem_bit(int elem_bytes) {
  return elem_bytes == 1    ? 1u
         : elem_bytes == 2  ? 2u
         : elem_bytes == 4  ? 4u
         : elem_bytes == 8  ? 8u
         : elem_bytes == 16 ? 16u
                            : 0u;
}
inline constexpr unsigned kElems1248 = 1u | 2u | 4u | 8u;

// The arithmetic types of transpose-accumulate (dst = alpha * src^T + beta * dst), where the
// bits are numbers: IEEE half, bfloat16, float, double, two's-complement 32-bit integers.
enum class NumType : int { kNone = 0, kF16, kBF16, kF32, kF64, kI32 };

inline constexpr int num_type_bytes(NumType t) {
  return t == NumType::kF16 || t == NumType::kBF16  ? 2
         : t == NumType::kF32 || t == NumType::kI32 ? 4
         : t == NumType::kF64                       ? 8
                                                    : 0;
}

}  // namespace tmakit
