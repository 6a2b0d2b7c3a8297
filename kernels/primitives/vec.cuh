// 16-byte vectors of any element type: one LDG.128 / STG.128 moves kElemsPerVec<T> elements.
#pragma once
#include <cstdint>
#include <kernels/common/elem.hpp>

namespace tmakit {

template <class T>
struct alignas(16) Vec16 {
  T e[kElemsPerVec<T>];
};

template <class T>
__device__ __forceinline__ Vec16<T> load_vec16(const T* p) {
  Vec16<T> v;
  *reinterpret_cast<uint4*>(&v) = __ldg(reinterpret_cast<const uint4*>(p));
  return v;
}

template <class T>
__device__ __forceinline__ void store_vec16(T* p, const Vec16<T>& v) {
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&v);
}

inline bool is_aligned(const void* p, std::uintptr_t bytes) {
  return (reinterpret_cast<std::uintptr_t>(p) % bytes) == 0;
}

}  // namespace tmakit
