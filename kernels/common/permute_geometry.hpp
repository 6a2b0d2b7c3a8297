// The geometry of a reduced permutation as its kernels walk it (kernels/launchers.hpp,
// PermuteArgs): a batch of up to three dimensions of rows x cols tiles, every stride in
// elements (the row kernels of permute_tile use bytes, with cols in bytes). Host and device.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

struct PermuteGeometry {
  std::int64_t rows = 1, cols = 1;
  std::int64_t src_row = 0, src_col = 1, dst_row = 1, dst_col = 0;
  std::int64_t batch_extent[3] = {1, 1, 1};
  std::int64_t src_batch[3] = {0, 0, 0};
  std::int64_t dst_batch[3] = {0, 0, 0};

  TMAKIT_HD std::int64_t batch() const {
    return batch_extent[0] * batch_extent[1] * batch_extent[2];
  }
};

// The side of permute_tile's 2-D shared tile, in elements: 64 at 1-4-byte elements, 32 from 8
// bytes on (a 64 x 65 tile of 8-byte elements is 33 KB of shared memory; docs/perf-guide.md
// section 4.13 has the measurements).
TMAKIT_HD constexpr int permute_tile_side_elems(int elem_bytes) {
  return elem_bytes <= 4 ? 64 : 32;
}

// A reduced permutation as it is, any rank up to kPermuteMaxRank: extents, src and dst strides
// in elements, per dimension (what the box walk of permute_tile starts from, rank 6-8 included).
inline constexpr int kPermuteMaxRank = 8;
struct PermuteDims {
  int rank = 0;
  std::int64_t n[kPermuteMaxRank] = {}, ss[kPermuteMaxRank] = {}, ds[kPermuteMaxRank] = {};
};

// Batch entry b as coordinates: b = b0 + batch_extent[0] * (b1 + batch_extent[1] * b2).
struct BatchAt {
  std::int64_t b0, b1, b2;
  std::int64_t src, dst;  // element offsets of the entry's tile origin
};

// 32-bit divisions when b fits them (every batch of fewer than 2^32 entries): a 64-bit division is
// a call of about 70 instructions, and the tile kernels decode a batch entry per tile of 4-16
// elements a thread.
TMAKIT_HD BatchAt batch_at(const PermuteGeometry& g, std::int64_t b) {
  BatchAt at{};
  if (b < 0xffffffffLL) {
    // An extent above b acts as any divisor above b (quotient 0), so one clamped to 2^32 - 1 does.
    using U = std::uint32_t;
    auto clamp = [](std::int64_t n) { return n < 0xffffffffLL ? U(n) : U(0xffffffffu); };
    const U e0 = clamp(g.batch_extent[0]), e1 = clamp(g.batch_extent[1]);
    const U q = U(b) / e0, q1 = q / e1;
    at.b0 = U(b) - q * e0;
    at.b1 = q - q1 * e1;
    at.b2 = q1;
  } else {
    at.b0 = b % g.batch_extent[0];
    const std::int64_t rest = b / g.batch_extent[0];
    at.b1 = rest % g.batch_extent[1];
    at.b2 = rest / g.batch_extent[1];
  }
  at.src = at.b0 * g.src_batch[0] + at.b1 * g.src_batch[1] + at.b2 * g.src_batch[2];
  at.dst = at.b0 * g.dst_batch[0] + at.b1 * g.dst_batch[1] + at.b2 * g.dst_batch[2];
  return at;
}

}  // namespace tmakit
