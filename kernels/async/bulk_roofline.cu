// bulk_roofline: not a transpose. 1-D cp.async.bulk loads of 32 row segments of 1024 bytes
// into shared memory, completing on an mbarrier, stored straight back with 1-D bulk stores to
// the same coordinates of dst: the copy roofline of the bulk-copy path (no tensor map), beside
// tma_copy (TMA with maps) and copy (LDG/STG). Same needs as bulk_copy
// (kernels/async/bulk_copy.cu, whose planner it shares).
#include <kernels/launchers.hpp>
#include <kernels/primitives/bulk_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_bulk_roofline(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes,
                           [&](auto e) { return bulk_tile::launch<decltype(e)::value, false>(a); });
}

}  // namespace tmakit
