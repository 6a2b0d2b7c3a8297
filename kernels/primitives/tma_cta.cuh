// The two steps every TMA tile kernel takes the same way, written once:
//   open_tile_cta    before the tile loop: the leader prefetches the tensor maps' descriptors
//                    (prefetch.tensormap) and initialises the CTA's transaction barrier with one
//                    arrival a phase, fenced so that the async proxy sees the initialised
//                    barrier; every thread waits for it.
//   store_out_tile   after a tile's shared writes: they are fenced into the async proxy, the
//                    block waits for all of them, the leader issues the store (`store`, e.g.
//                    tma::store_tile or a reduce), commits it and waits until the TMA unit has
//                    read the shared tile; the block waits for the leader, so the shared tiles
//                    are free for the next tile's load.
// Both are force-inlined: a kernel written with them compiles to the instructions it had when it
// spelled the steps out.
#pragma once
#include <cstdint>
#include <cuda.h>
#include <kernels/primitives/tma.cuh>
#include <kernels/primitives/tma_barrier.cuh>

namespace tmakit::tma {

// `src_map`, `dst_map`: the descriptors to prefetch, or null (a kernel that reads or writes
// through plain addresses).
template <BarrierStyle Style>
__device__ __forceinline__ void open_tile_cta(TxBarrier<Style>& full, bool leader,
                                              const CUtensorMap* src_map,
                                              const CUtensorMap* dst_map) {
  if (leader) {
    if (src_map != nullptr) prefetch_map(src_map);
    if (dst_map != nullptr) prefetch_map(dst_map);
    full.init(1);
    fence_proxy_async_smem();  // the async proxy must see the initialised barrier
  }
  __syncthreads();
}

// `store()`: the leader's TMA store (or reduce) of the tile the block has just written.
template <class Store>
__device__ __forceinline__ void store_out_tile(bool leader, Store&& store) {
  fence_proxy_async_smem();  // the block's shared writes -> visible to the TMA store
  __syncthreads();
  if (leader) {
    store();
    store_commit();
    store_wait_read<0>();  // the shared tile read: it (and the loaded tile) can be reused
  }
  __syncthreads();
}

}  // namespace tmakit::tma
