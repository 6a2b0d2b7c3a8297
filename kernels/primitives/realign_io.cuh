// Device pieces the realign family (smem_realign, reg_realign) shares: the aligned 16-byte
// vector that covers part of a row segment (whole where it lies inside the matrix, else element
// by element so nothing outside the matrix's span is touched), the realignment of a lane's
// vector with its neighbour's, and the store of a realigned output chunk at the matrix's edges.
#pragma once
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <kernels/common/realign.hpp>

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

// Bytes s..s+15 of the 32 bytes made of the lane's aligned vector v and the next one: the next
// lane's v (a shuffle), or the lane's own x where the next lane holds another row (own_next).
// Every lane of the warp calls it (the shuffle).
template <bool TwoLevel = false>
__device__ __forceinline__ void realign_with_next(const uint4& v, const uint4& x, bool own_next,
                                                  int s, std::uint32_t (&out)[4]) {
  std::uint32_t w[8] = {v.x,
                        v.y,
                        v.z,
                        v.w,
                        __shfl_down_sync(0xffffffffu, v.x, 1),
                        __shfl_down_sync(0xffffffffu, v.y, 1),
                        __shfl_down_sync(0xffffffffu, v.z, 1),
                        __shfl_down_sync(0xffffffffu, v.w, 1)};
  if (own_next) {
    w[4] = x.x;
    w[5] = x.y;
    w[6] = x.z;
    w[7] = x.w;
  }
  realign_chunk<TwoLevel>(w, s, out);
}

// Stores the realigned output chunk vv at g (16-byte aligned): elements e0 .. e0 + 16/E - 1 of
// output row c. One STG.128 when the whole tile lies inside the matrix (whole) or the chunk
// does; element by element where the matrix's first or last row cuts it; nothing outside.
template <int E>
__device__ __forceinline__ void store_out_chunk(std::uintptr_t g, const std::uint32_t (&vv)[4],
                                                bool whole, std::int64_t c, std::int64_t cols,
                                                std::int64_t e0, std::int64_t rows) {
  if (whole) {
    *reinterpret_cast<uint4*>(g) = make_uint4(vv[0], vv[1], vv[2], vv[3]);
    return;
  }
  if (c >= cols || e0 + 16 / E <= 0 || e0 >= rows) return;
  if (e0 >= 0 && e0 + 16 / E <= rows) {
    *reinterpret_cast<uint4*>(g) = make_uint4(vv[0], vv[1], vv[2], vv[3]);
    return;
  }
#pragma unroll
  for (int e = 0; e < 16 / E; ++e) {
    if (e0 + e < 0 || e0 + e >= rows) continue;
    const std::uint32_t word = vv[(e * E) / 4];
    if constexpr (E == 1)
      reinterpret_cast<std::uint8_t*>(g)[e] = std::uint8_t(word >> (8 * (e % 4)));
    else if constexpr (E == 2)
      reinterpret_cast<std::uint16_t*>(g)[e] = std::uint16_t(word >> (16 * (e % 2)));
    else if constexpr (E == 4)
      reinterpret_cast<std::uint32_t*>(g)[e] = word;
    else
      reinterpret_cast<uint2*>(g)[e] = make_uint2(vv[2 * e], vv[2 * e + 1]);
  }
}

// Host side: whether every output row of dst (each matrix of the batch) starts on a 32-byte
// sector, so no owned range is shifted and the tiles need no pad rows (smem_sector's rule).
template <int E>
inline bool dst_rows_on_sectors(const void* dst, const BatchStrides& st) {
  return reinterpret_cast<std::uintptr_t>(dst) % 32 == 0 && (st.dst_ld_elems * E) % 32 == 0 &&
         (st.batch == 1 || (st.dst_batch_elems * E) % 32 == 0);
}

}  // namespace tmakit
