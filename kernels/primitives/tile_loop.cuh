// 2-D grid-stride walk over tiles: block (blockIdx.y, blockIdx.x) takes tile (ty, tx), then
// (ty, tx + gridDim.x), ..., then (ty + gridDim.y, ...). The trip counts are uniform across a
// block, so a __syncthreads() inside the body is safe.
#pragma once
#include <cstdint>

namespace tmakit {

template <class Body>
__device__ __forceinline__ void for_each_tile(std::int64_t tiles_y, std::int64_t tiles_x,
                                              Body&& body) {
  for (std::int64_t ty = blockIdx.y; ty < tiles_y; ty += gridDim.y)
    for (std::int64_t tx = blockIdx.x; tx < tiles_x; tx += gridDim.x) body(ty, tx);
}

}  // namespace tmakit
