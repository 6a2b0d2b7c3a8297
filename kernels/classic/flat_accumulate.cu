// flat_accumulate: transpose-accumulate (dst = alpha * src^T + beta * dst) on smem_flat's walk,
// for skinny matrices (a side of at most 32) and batches of small ones. smem_accumulate's 64 x 64
// tiles waste most of each tile there (H100, 4000000 x 16: 22% / 40% of the three-stream
// roofline at 2 / 4 B), and tma_reduce cannot take f64 or beta != 1. smem_flat moves the dense
// side of such a call as one run in whole 16-byte chunks; here phase 2's store becomes a
// read-modify-write of each 16-byte dst chunk (kernels/primitives/epilogue.cuh): the chunk is
// read before it is gathered from shared memory, so the load is in flight during the gather, and
// the elements of a partial chunk are read and written one by one. Every type, alpha and beta
// (beta = 0 never reads dst). Where smem_flat has no form (both sides above 32, or the short
// side's operand strided) or the call is a single row or column, smem_accumulate runs it.
//
// Coordinates: those of smem_flat (kernels/common/flat.hpp): dst element o of a unit's run d
// reads shared byte b0 + flat_offset(gather, d, o); the epilogue changes only what is written.
#include <kernels/launchers.hpp>
#include <kernels/primitives/epilogue.cuh>
#include <kernels/primitives/flat_kernel.cuh>

namespace tmakit {

cudaError_t kernels::launch_flat_accumulate(const LaunchArgs& a) {
  const FlatPlan p = flat::flat_launch_plan(a);
  if (p.form == FlatForm::kNone || a.rows == 1 || a.cols == 1) return launch_smem_accumulate(a);
  return dispatch_axpby(a.num_type, a.alpha, a.beta, [&](auto epi) {
    using T = typename decltype(epi)::Bits;
    return flat::launch_flat<T>(a, p, epi);
  });
}

}  // namespace tmakit
