// The boxes of a box walk (kernels/common/permute_box.hpp) that one block takes: b = blockIdx.x,
// then every gridDim.x-th. A box's origin takes a division chain over up to kBoxMaxOuter batch
// dimensions (about 40 instructions each, on the uniform datapath, once per warp); with a few
// elements per thread per box that is as many instructions as moving the box. one_warp: the
// block's first warp decodes the next box while the others start this one, and hands it over
// in shared memory (two slots, alternating), so one warp per block pays for it instead of all.
#pragma once
#include <cuda/pipeline>
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

// The same boxes, each handed over with the one after it (has_next: there is one), so a walk can
// issue the next box's loads before it stores this one (the box kernels' pipelined walk). The
// origins are decoded two boxes ahead: by the block's first warp into three slots (one_warp), or
// by every warp. walk(at, has_next, next) must reach a __syncthreads() after every thread has
// read its arguments.
template <class Walk>
__device__ __forceinline__ void for_each_box_ahead(const BoxPlan& p, bool one_warp, Walk&& walk) {
  __shared__ __align__(8) unsigned char slot_bytes[3 * sizeof(BoxOrigin)];
  auto* slots = reinterpret_cast<BoxOrigin*>(slot_bytes);
  const std::int64_t g = gridDim.x;
  std::int64_t b = blockIdx.x;
  if (b >= p.boxes) return;
  if (!one_warp) {
    BoxOrigin at = box_origin(p, static_cast<std::uint32_t>(b));
    for (; b < p.boxes; b += g) {
      const bool has_next = b + g < p.boxes;
      const BoxOrigin next =
          has_next ? box_origin(p, static_cast<std::uint32_t>(b + g)) : BoxOrigin{};
      walk(at, has_next, next);
      at = next;
    }
    return;
  }
  const unsigned tid = threadIdx.x + threadIdx.y * blockDim.x;
  if (tid == 0) {
    slots[0] = box_origin(p, static_cast<std::uint32_t>(b));
    if (b + g < p.boxes) slots[1] = box_origin(p, static_cast<std::uint32_t>(b + g));
  }
  __syncthreads();
  for (unsigned k = 0; b < p.boxes; b += g, ++k) {
    const bool has_next = b + g < p.boxes;
    const BoxOrigin at = slots[k % 3];
    const BoxOrigin next = has_next ? slots[(k + 1) % 3] : BoxOrigin{};
    // Slot (k + 2) % 3 was last read at the tops of boxes k - 1 and k - 2, before box k - 1's
    // barrier; box k's barrier publishes it.
    if (tid < 32 && b + 2 * g < p.boxes) {
      const BoxOrigin n = box_origin(p, static_cast<std::uint32_t>(b + 2 * g));
      if (tid == 0) slots[(k + 2) % 3] = n;
    }
    walk(at, has_next, next);
  }
}

// The cp.async box walks (permute_tile.cu: the element walk and the word walk): box k copied
// global -> shared into buffer k & 1, box k + 1's copies in flight while box k is stored.
// issue(at, buffer) commits one group of this thread's copies of box `at` (maybe empty);
// store(at, buffer) writes box `at` out of its buffer. p.one_barrier (DevicePolicy::
// permute_box_async_barriers == 1): one barrier a box, after box k's copies landed, which also
// says every thread is past box k - 1's stores, so box k + 1's copies are issued after it into
// the buffer box k - 1 left. Else two: box k + 1's copies issued first (the other buffer was
// freed by box k - 1's closing barrier), a barrier once box k's landed, and one after its stores.
// first_issued: the block's first box (box blockIdx.x, buffer 0) was issued before the walk, as
// one commit group (box_first_origin).
template <class Issue, class Store>
__device__ __forceinline__ void for_each_box_async(const BoxPlan& p,
                                                   cuda::pipeline<cuda::thread_scope_thread>& pipe,
                                                   bool first_issued, Issue&& issue,
                                                   Store&& store) {
  unsigned k = 0;
  for_each_box_ahead(p, p.origin_once,
                     [&](const BoxOrigin& at, bool has_next, const BoxOrigin& next) {
                       if (k == 0 && !first_issued) issue(at, 0u);
                       if (p.one_barrier) {
                         cuda::pipeline_consumer_wait_prior<0>(pipe);
                         __syncthreads();
                         if (has_next) issue(next, (k + 1) & 1);
                       } else {
                         if (has_next) {
                           issue(next, (k + 1) & 1);
                           cuda::pipeline_consumer_wait_prior<1>(pipe);  // box k's copies landed
                         } else {
                           cuda::pipeline_consumer_wait_prior<0>(pipe);
                         }
                         __syncthreads();  // ...every thread's
                       }
                       store(at, k & 1);
                       if (!p.one_barrier) __syncthreads();
                       ++k;
                     });
}

}  // namespace tmakit
