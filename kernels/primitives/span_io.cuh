// Global accesses of the realigning kernels (smem_realign, bulk_realign): an aligned 16-byte
// vector read inside a matrix's span, and a 16-byte output chunk written whole or, where the
// matrix's first or last row cuts it, element by element.
#pragma once
#include <cstdint>

namespace tmakit::span_io {

using Addr = std::uintptr_t;

// One E-byte element at address q, zero-extended.
template <int E>
__device__ __forceinline__ std::uint32_t load_elem_word(Addr q) {
  if constexpr (E == 1) return *reinterpret_cast<const std::uint8_t*>(q);
  if constexpr (E == 2) return *reinterpret_cast<const std::uint16_t*>(q);
  return *reinterpret_cast<const std::uint32_t*>(q);  // E = 4; E = 8 reads its two words
}

// The aligned 16-byte vector at p: whole when it lies inside [lo, hi) (the matrix's span),
// else the elements inside it, zeros elsewhere. p, lo and hi are multiples of E.
template <int E>
__device__ __forceinline__ uint4 load_vec(Addr p, Addr lo, Addr hi) {
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

// The 16-byte chunk v of an output row at the aligned address g, holding elements e0 ..
// e0 + 16/E - 1 of that row (input rows of the transpose): stored whole when all of them are
// inside [0, rows), else only those that are.
template <int E>
__device__ __forceinline__ void store_chunk(Addr g, const std::uint32_t (&v)[4], std::int64_t e0,
                                            std::int64_t rows) {
  if (e0 + 16 / E <= 0 || e0 >= rows) return;
  if (e0 >= 0 && e0 + 16 / E <= rows) {
    *reinterpret_cast<uint4*>(g) = make_uint4(v[0], v[1], v[2], v[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < 16 / E; ++e) {
    if (e0 + e < 0 || e0 + e >= rows) continue;
    const std::uint32_t word = v[(e * E) / 4];
    if constexpr (E == 1)
      reinterpret_cast<std::uint8_t*>(g)[e] = std::uint8_t(word >> (8 * (e % 4)));
    else if constexpr (E == 2)
      reinterpret_cast<std::uint16_t*>(g)[e] = std::uint16_t(word >> (16 * (e % 2)));
    else if constexpr (E == 4)
      reinterpret_cast<std::uint32_t*>(g)[e] = word;
    else
      reinterpret_cast<uint2*>(g)[e] = make_uint2(v[2 * e], v[2 * e + 1]);
  }
}

}  // namespace tmakit::span_io
