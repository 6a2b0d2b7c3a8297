// async_copy: tma_load with Ampere's cp.async in place of the TMA load. Over tma_load (TMA
// load, 16-byte STG) it asks what the tensor map and the TMA unit buy: here every thread
// issues its own 16-byte global -> shared copies (cp.async, through libcu++'s
// cuda::memcpy_async on a thread-scope cuda::pipeline), computing each address and each edge
// itself, and the copies bypass the registers as TMA's do. It runs on sm_80 and newer.
//
// The tile is tma_load's: T x T elements (T = 128 / E), T lines of 128 bytes placed as a
// 128B-swizzled TMA box would place them, so the in-shared transpose is tma_load's (diagonal
// V x V chunk blocks, conflict-free). The grid is persistent (as many CTAs as fit on the
// GPU); each CTA keeps kStages tiles in flight: while it transposes tile n it has the loads of
// its next kStages - 1 tiles outstanding. One pipeline stage (commit group) per tile.
//
// Coordinates: tile n of the batch is matrix b = n / per (per = tiles of one matrix), tile
// (ty, tx) of it in grouped_tile order; it covers input rows row0 = ty*T .. +T-1 and columns
// col0 = tx*T .. +T-1. Chunk q (q = tid, tid + 64, ...) of the tile is line q / 8 (input row
// row0 + q/8), bytes (q % 8) * 16 .. +15 of it (columns col0 + (q % 8) * V .. +V-1, V = 16/E).
// Chunks past the matrix are not copied; the lines they would fill only feed outputs that
// are not stored.
//
// Needs (the host checks, else the classic fallback runs with the reason): src and dst
// 16-byte aligned with pitches and batch strides that are 16-byte multiples, and src rows
// (cols * E) whole 16-byte chunks.
#include <kernels/launchers.hpp>
#include <kernels/primitives/async_tile.cuh>

namespace tmakit {

// 16-byte accesses on both sides, whole chunks on the load side (the transpose stores partial
// output chunks element by element; async_roofline's dst rows are its src rows).
kernels::TmaPlan kernels::plan_async_copy(const LaunchArgs&) {
  TmaPlan p;
  p.src_vec16 = p.dst_vec16 = true;
  p.src_rows16 = true;
  return p;
}

cudaError_t kernels::launch_async_copy(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes,
                           [&](auto e) { return async_tile::launch<decltype(e)::value, true>(a); });
}

}  // namespace tmakit
