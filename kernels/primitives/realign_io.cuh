// Global reads of the realign family (smem_realign, reg_realign): the aligned 16-byte vector
// that covers part of a row segment, whole where it lies inside the matrix, else element by
// element so nothing outside the matrix's span is touched.
#pragma once
#include <cstdint>

namespace tmakit {

// One E-byte element at address q, zero-extended.
template <int E>
__device__ __forceinline__ std::uint32_t load_elem_word(std::uintptr_t q) {
  if constexpr (E == 1) return *reinterpret_cast<const std::uint8_t*>(q);
  if constexpr (E == 2) return *reinterpret_cast<const std::uint16_t*>(q);
  return *reinterpret_cast<const std::uint32_t*>(q);  // E = 4; E = 8 reads its two words
}

// The aligned 16-byte vector at p: whole when it lies inside [lo, hi) (the matrix's span),
// else the elements inside it, zeros elsewhere. p, lo and hi are multiples of E.
template <int E>
__device__ __forceinline__ uint4 load_vec(std::uintptr_t p, std::uintptr_t lo, std::uintptr_t hi) {
  using Addr = std::uintptr_t;
  if (p >= lo && p + 16 <= hi) return __ldg(reinterpret_cast<const uint4*>(p));
  std::uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    std::uint32_t x = 0;
    if constexpr (E == 8) {
      const Addr q = p + 8 * (i / 2);  // the element holding word i
      if (q >= lo && q < hi) x = *reinterpret_cast<const std::uint32_t*>(p + 4 * i);
    } else {
#pragma unroll
      for (int e = 0; e < 4; e += E) {
        const Addr q = p + 4 * i + e;
        if (q >= lo && q < hi) x |= load_elem_word<E>(q) << (8 * e);
      }
    }
    w[i] = x;
  }
  return make_uint4(w[0], w[1], w[2], w[3]);
}

}  // namespace tmakit
