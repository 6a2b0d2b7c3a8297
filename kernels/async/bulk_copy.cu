// bulk_copy: tma_load_store with the tensor maps taken away. The TMA unit still moves the data
// (cp.async.bulk: 1-D bulk copies, global -> shared completing on an mbarrier, shared ->
// global retired by a bulk group), but every copy is one contiguous row segment whose address
// and length the kernel computes: no tensor map, no swizzle (the tile is plain 128-byte
// lines), no zero fill or clipping (copies stop at the matrix's edges), and one instruction
// per line instead of one per box. What is left of TMA's gain over LDG/STG without the map is
// what this rung measures.
//
// Coordinates: a tile is T x T elements (T = 128 / E) at input rows row0 = ty*T .. and
// columns col0 = tx*T ..; `in` holds line l (input row row0 + l) at bytes l*128 .. +127, of
// which the first line_bytes = min(128, (cols - col0) * E) are loaded, for the
// lines = min(T, rows - row0) lines inside the matrix. The in-shared transpose is
// tma_load_store's with no swizzle (diagonal V x V chunk blocks: conflict-free); `out` line c
// is dst row col0 + c, of which min(128, (rows - row0) * E) bytes are stored, for the
// min(T, cols - col0) lines inside dst. Lanes of warp 0 issue the lines (l = lane, lane + 32..).
//
// Needs (the host checks, else the classic fallback runs with the reason): sm_90; src and dst
// 16-byte aligned with 16-byte multiple pitches and batch strides; both row lengths (cols * E,
// rows * E) 16-byte multiples, so every segment is.
#include <kernels/launchers.hpp>
#include <kernels/primitives/bulk_tile.cuh>

namespace tmakit {

// 16-byte aligned operands and whole 16-byte row segments on both sides (bulk_roofline's dst
// rows are its src rows).
kernels::TmaPlan kernels::plan_bulk_copy(const LaunchArgs&) {
  TmaPlan p;
  p.src_vec16 = p.dst_vec16 = true;
  p.src_rows16 = p.dst_rows16 = true;
  return p;
}

cudaError_t kernels::launch_bulk_copy(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes,
                           [&](auto e) { return bulk_tile::launch<decltype(e)::value, true>(a); });
}

}  // namespace tmakit
