// The boxes of a box walk (kernels/common/permute_box.hpp) that one block takes: b = blockIdx.x,
// then every gridDim.x-th. A box's origin takes a division chain over up to kBoxMaxOuter batch
// dimensions (about 40 instructions each, on the uniform datapath, once per warp); with a few
// elements per thread per box that is as many instructions as moving the box. one_warp: the
// block's first warp decodes the next box while the others start this one, and hands it over
// in shared memory (two slots, alternating), so one warp per block pays for it instead of all.
#pragma once
#include <kernels/common/permute_box.hpp>

namespace tmakit {

// walk(origin) must reach a __syncthreads() after every thread has read its origin (the box
// kernels' load-store barrier does): it orders the hand-over.
template <class Walk>
__device__ __forceinline__ void for_each_box(const BoxPlan& p, bool one_warp, Walk&& walk) {
  __shared__ __align__(8) unsigned char slot_bytes[2 * sizeof(BoxOrigin)];
  auto* slots = reinterpret_cast<BoxOrigin*>(slot_bytes);
  std::int64_t b = blockIdx.x;
  if (!one_warp) {
    for (; b < p.boxes; b += gridDim.x) walk(box_origin(p, static_cast<std::uint32_t>(b)));
    return;
  }
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;
  if (b >= p.boxes) return;
  if (tid == 0) slots[0] = box_origin(p, static_cast<std::uint32_t>(b));
  __syncthreads();
  for (unsigned k = 0; b < p.boxes; b += gridDim.x, ++k) {
    const BoxOrigin at = slots[k & 1];
    const std::int64_t next = b + gridDim.x;
    // Slot (k + 1) & 1 was last read at the top of box k - 1, before that walk's barrier.
    if (tid < 32 && next < p.boxes) {
      const BoxOrigin n = box_origin(p, static_cast<std::uint32_t>(next));
      if (tid == 0) slots[(k + 1) & 1] = n;
    }
    walk(at);
  }
}

}  // namespace tmakit
