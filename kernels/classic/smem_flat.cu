// smem_flat: smem_strip with 16-byte global accesses on both sides, for any short side and any
// alignment. smem_strip's skinny tiles already read and write long runs, but it moves 4-byte
// words at best, and only where every run starts on a word: a 7 x N byte matrix writes its
// 7-byte output rows one byte per thread, and a batch of 97 x 75 matrices does the same on both
// sides (H100: 47-66% of memcpy at 1 B, 74-76% at 2 B). Yet the dense side of such
// a call is one contiguous run, whatever the short side's length:
//   kWide  (R <= 32 rows of N, dst dense):  dst rows of R elements, back to back: w*R elements
//   kTall  (N rows of C <= 32, src dense):  src likewise: h*C elements
//   kBatch (dense small matrices):          g whole matrices on both sides
// (kernels/common/flat.hpp). So a unit of work is a few runs per side, each moved in the
// 16-byte chunks of global memory it touches: whole chunks with one LDG.128 / STG.128, the
// partial first and last chunk of a run element by element. Nothing depends on the short side
// being a multiple of anything.
//
// Phase 1 (load): each source chunk lands in shared memory at its global address modulo 16
// (FlatSmem in flat.hpp), so a whole chunk is one aligned STS.128. A run that does not start or
// end on a 16-byte boundary (k x N with N * E not a multiple of 16: every row) has a partial
// chunk at each end; such a chunk is read whole too (one LDG.128, its other bytes belong to
// neighbouring columns or rows and lie inside the operand, as in bulk_flat) and only its run's
// elements are stored to shared memory. Element by element with dependent loads, a 1-byte head
// chunk cost up to 15 DRAM round trips in one thread while its block waited at the barrier
// (H200: 24 x 1000003 1 / 2 / 4 B 55 / 68 / 72% of memcpy against 64 / 87 / 93
// at 24 x 1000000). Only the operand's own first and last chunk, where whole reads would leave
// it, still go element by element.
// Phase 2 (store): each thread builds a 16-byte destination chunk element by element from
// shared memory and writes it with one STG.128. Which shared byte each element reads is the
// FlatGather map (dst element o -> its source element's byte): kTall steps it linearly; kWide
// (and kBatch where flat_plan takes it) read the chunk's V offsets from a per-block table indexed
// by the source row the chunk starts at (a stepped walk with a compare per element cost H100 1-byte
// kWide 73-82% of memcpy, docs/perf-guide.md), stepping the walk only where a chunk crosses a
// matrix. Where no form applies (both sides > 32 and not a dense small batch, or the short side's
// operand strided) smem_flat runs smem_strip; a single dense row or column runs `copy` there.
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/flat_kernel.cuh>

namespace tmakit {

cudaError_t kernels::launch_smem_flat(const LaunchArgs& a) {
  const FlatPlan p = flat::flat_launch_plan(a);
  // A single dense row or column is a copy: smem_strip runs `copy` for it.
  const bool line = a.rows == 1 || a.cols == 1;
  if (p.form == FlatForm::kNone || line) return launch_smem_strip(a);
  if (a.elem_bytes == 16) return flat::launch_flat<uint4>(a, p);
  return dispatch_elem_1248(a.elem_bytes,
                            [&](auto t) { return flat::launch_flat<decltype(t)>(a, p); });
}

}  // namespace tmakit
