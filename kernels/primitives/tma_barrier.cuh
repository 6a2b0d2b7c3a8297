// One mbarrier tracking TMA loads, in either barrier style, with one interface so every TMA
// kernel is written once and instantiated for both:
//   init(count)          one thread, then fence_proxy_async_smem() + __syncthreads()
//   arrive_expect_tx(n)  the producer thread: add n bytes to the phase and arrive once
//   wait(site)           every consumer: until phase site.phase has completed (its parity;
//                        bounded by the watchdog where it is on, kernels/primitives/tma.cuh)
//   handle()             the raw mbarrier for cp.async.bulk.tensor's complete_tx
// Kernels initialise with count 1 (only the producer arrives) and wait by phase parity, the
// pattern a multi-stage ring needs. int4_8x8 shows the token form of the Programming Guide.
#pragma once
#include <cstdint>
#include <cuda/barrier>
#include <kernels/common/tma_tile.hpp>
#include <kernels/primitives/tma.cuh>

namespace tmakit::tma {

using block_barrier = cuda::barrier<cuda::thread_scope_block>;
static_assert(sizeof(block_barrier) == 8, "cuda::barrier<block> is one 8-byte mbarrier");

// init is a hidden friend of cuda::barrier, found only by argument-dependent lookup (which a
// member function named init would hide), hence this free function.
__device__ inline void init_block_barrier(block_barrier* bar, std::uint32_t count) {
  init(bar, count);
}

template <BarrierStyle Style>
struct TxBarrier;

// Raw cuda::ptx: mbarrier.init / mbarrier.arrive.expect_tx / mbarrier.try_wait.parity.
template <>
struct TxBarrier<BarrierStyle::kPtx> {
  std::uint64_t* raw;
  __device__ explicit TxBarrier(void* storage) : raw(static_cast<std::uint64_t*>(storage)) {}
  __device__ void init(std::uint32_t count) { mbar_init(raw, count); }
  __device__ void arrive_expect_tx(std::uint32_t bytes) { mbar_arrive_expect_tx(raw, bytes); }
  __device__ void wait(const WaitSite& site) { mbar_wait(raw, site); }
  __device__ std::uint64_t* handle() { return raw; }
};

// libcu++: cuda::barrier<thread_scope_block> placed in shared memory by init(),
// cuda::device::barrier_arrive_tx, barrier::wait_parity, barrier_native_handle for the copy.
template <>
struct TxBarrier<BarrierStyle::kCudaBarrier> {
  block_barrier* bar;
  __device__ explicit TxBarrier(void* storage) : bar(static_cast<block_barrier*>(storage)) {}
  __device__ void init(std::uint32_t count) { init_block_barrier(bar, count); }
  __device__ void arrive_expect_tx(std::uint32_t bytes) {
#if TMAKIT_DEVICE_HAS_TMA
    (void)cuda::device::barrier_arrive_tx(*bar, 1, bytes);
#else
    __trap();
#endif
  }
  __device__ void wait(const WaitSite& site) {
#if TMAKIT_MBARRIER_WATCHDOG && TMAKIT_DEVICE_HAS_TMA
    mbar_wait(cuda::device::barrier_native_handle(*bar), site);  // the bounded loop
#else
    bar->wait_parity((site.phase & 1u) != 0);
#endif
  }
  __device__ std::uint64_t* handle() {
#if TMAKIT_DEVICE_HAS_TMA
    return cuda::device::barrier_native_handle(*bar);
#else
    __trap();
    return nullptr;
#endif
  }
};

}  // namespace tmakit::tma
