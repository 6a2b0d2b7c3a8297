// async_roofline: not a transpose. async_copy's loads (cp.async 16-byte chunks of 128-byte
// lines into a 3-stage ring of tiles, persistent CTAs) stored straight back with 16-byte STG to
// the same coordinates of dst: the copy roofline of the cp.async path, as `copy` is LDG/STG's
// and tma_copy is TMA's. Same needs as async_copy (kernels/async/async_copy.cu, whose planner
// it shares).
#include <kernels/launchers.hpp>
#include <kernels/primitives/async_tile.cuh>

namespace tmakit {

cudaError_t kernels::launch_async_roofline(const LaunchArgs& a) {
  return dispatch_tma_elem(
      a.elem_bytes, [&](auto e) { return async_tile::launch<decltype(e)::value, false>(a); });
}

}  // namespace tmakit
