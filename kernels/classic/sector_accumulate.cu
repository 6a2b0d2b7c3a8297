// sector_accumulate: transpose-accumulate (dst = alpha * src^T + beta * dst) on smem_sector's
// tiles, for matrices whose rows are not multiples of 32 bytes. smem_accumulate (smem_wide's
// 64 x 64 tile) splits the dst sectors at every tile boundary of such rows, and with an
// accumulate each split sector is read and written by two blocks at different times: H100,
// 12345 x 6789, 60 / 77 / 82% of the three-stream roofline at 2 / 4 / 8 B, where smem_sector
// transposes at 91-94% of memcpy. Here each block owns whole 32-byte sectors of every dst row it
// writes (smem_sector), and reads those elements of dst before the tile's barrier, all of its
// 16 (32 with the H200's 128-row tile at 4 B) reads in flight, then writes
// alpha * tile + beta * old (kernels/primitives/epilogue.cuh). Every type, alpha and beta (beta =
// 0 never reads dst), any shape, layout and alignment.
//
// Coordinates: those of smem_sector (kernels/primitives/sector_kernel.cuh): thread (tx, ty)
// writes out[c0 + oc][s + tx + 32m], s = r0 - sh(c0 + oc), oc = ty, ty + 8, ..; it reads the
// same elements of dst first.
#include <kernels/launchers.hpp>
#include <kernels/primitives/epilogue.cuh>
#include <kernels/primitives/sector_kernel.cuh>

namespace tmakit {

cudaError_t kernels::launch_sector_accumulate(const LaunchArgs& a) {
  return dispatch_axpby(a.num_type, a.alpha, a.beta, [&](auto epi) {
    using T = typename decltype(epi)::Bits;
    return sector::launch_sector<T, 32>(a, epi);
  });
}

}  // namespace tmakit
