// The flat rows walk of permute_tile (kernels/permute/permute_tile.cu, permute_rows_flat_kernel):
// a row permutation whose dst is dense (its row dimensions, ordered by dst stride, tile dst with
// no gap) written as one run of dst bytes in aligned 16-byte chunks, whatever the row's length.
// Dst byte p (from dst's first byte) is byte p mod L of dst row f = p / L (L: the row's bytes);
// f, decoded along the row dimensions in dst order, gives that row's src offset. What it adds
// over the per-row kernels: no lane idles at a row's end (a 288-byte row is 18 vectors of 16
// bytes for 32 lanes), no head and tail bytes per row off 16-byte alignment, every store an
// aligned 16-byte vector, and as many chunks in flight per thread on short rows as on long ones.
// Host (the plan) and device (the decode), so the host tests can walk it on the CPU.
#pragma once
#include <algorithm>
#include <cstdint>
#include <kernels/common/permute_box.hpp>
#include <kernels/common/permute_geometry.hpp>

namespace tmakit {

struct RowsFlat {
  std::uint32_t bytes = 0;  // dst's bytes in all (under 2^31)
  FastDiv row;              // the row's bytes, L
  FastDiv n[3];             // the first three row dimensions' extents, dst order (1: none)
  std::int64_t ss[4] = {};  // src strides in bytes of the four row dimensions, dst order

  // Src offset of dst row f: f = c0 + n0 (c1 + n1 (c2 + n2 c3)).
  TMAKIT_HD std::int64_t src_row(std::uint32_t f) const {
    const std::uint32_t q0 = n[0].div(f), q1 = n[1].div(q0), q2 = n[2].div(q1);
    return std::int64_t{f - q0 * n[0].d} * ss[0] + std::int64_t{q0 - q1 * n[1].d} * ss[1] +
           std::int64_t{q1 - q2 * n[2].d} * ss[2] + std::int64_t{q2} * ss[3];
  }
  // Src offset of dst byte p.
  TMAKIT_HD std::int64_t src_of(std::uint32_t p) const {
    const std::uint32_t f = row.div(p);
    return src_row(f) + (p - f * row.d);
  }
};

// The flat walk of a row permutation in bytes (`bytes`: cols the row's bytes, every stride in
// bytes): false where dst is not dense over its rows, a row is under 16 bytes (a chunk would
// span three rows) or dst is 2^31 bytes or more (32-bit positions).
inline bool make_rows_flat(const PermuteGeometry& bytes, RowsFlat* out) {
  struct Dim {
    std::int64_t n, ss, ds;
  };
  Dim d[4];
  int rank = 0;
  if (bytes.rows > 1) d[rank++] = {bytes.rows, bytes.src_row, bytes.dst_row};
  for (int k = 0; k < 3; ++k)
    if (bytes.batch_extent[k] > 1)
      d[rank++] = {bytes.batch_extent[k], bytes.src_batch[k], bytes.dst_batch[k]};
  std::sort(d, d + rank, [](const Dim& a, const Dim& b) { return a.ds < b.ds; });
  if (bytes.cols < 16) return false;
  std::int64_t expect = bytes.cols;  // dense: each dimension's dst stride the bytes inside it
  for (int k = 0; k < rank; ++k) {
    if (d[k].ds != expect) return false;
    expect *= d[k].n;
    if (expect >= (std::int64_t{1} << 31)) return false;
  }
  RowsFlat m;
  m.bytes = static_cast<std::uint32_t>(expect);
  m.row = FastDiv(static_cast<std::uint32_t>(bytes.cols));
  for (int k = 0; k < 4; ++k) {
    if (k < 3) m.n[k] = FastDiv(k < rank ? static_cast<std::uint32_t>(d[k].n) : 1u);
    m.ss[k] = k < rank ? d[k].ss : 0;
  }
  *out = m;
  return true;
}

}  // namespace tmakit
