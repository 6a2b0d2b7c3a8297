// cp.async (global -> shared, 4, 8 or 16 bytes) with an L2 prefetch-size hint: on a miss the L2
// fetches the aligned 256 bytes around the requested sector from DRAM, as ld_l2.cuh's loads do.
// cuda::memcpy_async takes no hint and cuda::ptx (CCCL 3.0) has no cp.async, so inline PTX, here
// only. The copy joins the caller's cuda::pipeline<thread_scope_thread> like a memcpy_async
// (that pipeline's producer_commit and consumer_wait are cp.async.commit_group and wait_group).
// The hint at compile time, sm_90 only: a run-time choice between two load instructions cost the
// pipelined word walk about 4% (docs/perf-guide.md section 4.13); elsewhere the plain copy.
#pragma once
#include <cstdint>
#include <cuda/pipeline>

namespace tmakit {

template <int Bytes>
__device__ __forceinline__ void copy_async_l2_256B(
    void* dst_smem, const void* src, cuda::pipeline<cuda::thread_scope_thread>& pipe) {
  static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && \
    __CUDA_ARCH__ < 1000  // measured on sm_90 only
  const auto s = static_cast<std::uint32_t>(__cvta_generic_to_shared(dst_smem));
  const auto g = static_cast<std::uint64_t>(__cvta_generic_to_global(src));
  if constexpr (Bytes == 16)  // 16 bytes may skip the L1 (.cg), as memcpy_async's do
    asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, 16;" ::"r"(s), "l"(g)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global.L2::256B [%0], [%1], %2, %2;" ::"r"(s), "l"(g),
                 "n"(Bytes)
                 : "memory");
#else
  cuda::memcpy_async(dst_smem, src, cuda::aligned_size_t<Bytes>(Bytes), pipe);
#endif
}

}  // namespace tmakit
