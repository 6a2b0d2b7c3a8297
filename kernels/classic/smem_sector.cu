// smem_sector: smem_wide whose blocks write whole 32-byte sectors of the output. When an
// output row is not a multiple of 32 bytes, smem_wide's tile boundaries (every 64 elements)
// fall inside sectors, and two blocks write the two halves of each boundary sector at
// different times. Measured on the H100 (docs/perf-guide.md): the same
// 12288 x 6784 transpose with the input pitch made odd costs smem_wide 3%, with the output
// pitch made odd 37% (4-byte elements). So here each block owns, in output row c, the
// elements whose sectors start in its range:
//   own(c) = [r0 - sh(c), r0 + O - sh(c)),  sh(c) = (address of out[c][r0] mod 32) / E
// (clipped to [0, rows)). O*E is a multiple of 32, so sh(c) is the same for every tile of the
// row and the ranges of consecutive tiles meet exactly. The block therefore loads P = 32/E
// (at least 8) more input rows above its own: r0 - P .. r0 + O - 1, and one more row of tiles
// covers the last rows' shift. When every output row starts on a sector the extra rows are not
// loaded (sh = 0 everywhere).
//
// Coordinates: N = 64 tile columns, O owned rows (64; 128 at 4 B on HBM3e, below), tile row
// i <-> input row r0 - P + i, i = 0..P+O-1. Thread (tx, ty), 32 x 8:
//   load : tile(i, tx+32m) <- in[r0-P+i][c0+tx+32m],  i = ty, ty+8, ..
//   store: out[c0+oc][s+tx+32m] <- tile(s+tx+32m - (r0-P), oc),  oc = ty, ty+8, .., s =
//   r0-sh(c0+oc)
// Shared element (i, c) at i*N + (c ^ (i mod N)) (smem_wide's XOR): a warp's store reads 32
// consecutive i of one column, 32 distinct banks for 4-byte elements.
// (in[r][c] sits at r*src_ld + c of its matrix, out[i][j] at i*dst_ld + j; matrix b of the
// batch at b*src_batch and b*dst_batch.)
// Tile order and height, per GPU (DevicePolicy::sector_column_tiles, set for the H200): there the
// blocks walk down tile columns (for_each_tile<true>), so the tiles in flight fill one output row
// band, and at 4 B a block owns kN2 = 128 output elements per row (136 tile rows x 64 columns,
// 34 loads in flight per thread instead of 18: more bytes moving for HBM3e; the row pointer
// advances by 8 rows per load row, which keeps the L2-hinted kernel at 64 registers without
// spills). Elsewhere the grouped row-major order and 64 owned rows, which measured mixed on the
// H100. The figures: docs/perf-guide.md, smem_sector's "Per GPU".
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/sector_kernel.cuh>

namespace tmakit {

// The owned granularity is DevicePolicy::sector_bytes (16, 32, 64 or 128; 32 unless
// TMAKIT_POLICY sets it; 128 not for 1-byte elements).
cudaError_t kernels::launch_smem_sector(const LaunchArgs& a) {
  const int g = a.policy.sector_bytes;
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    if (g == 16) return sector::launch_sector<T, 16>(a);
    if (g == 64) return sector::launch_sector<T, 64>(a);
    if constexpr (sizeof(T) >= 2)
      if (g == 128) return sector::launch_sector<T, 128>(a);
    return sector::launch_sector<T, 32>(a);
  });
}

}  // namespace tmakit
