// Global loads with an L2 prefetch-size hint: ld.global.nc.L2::64B / 128B / 256B through
// cuda::ptx (CCCL 3.0). On a miss the L2 fetches the aligned 64 / 128 / 256 bytes around the
// requested sector from DRAM, so a row segment that neighbouring blocks read next finds its
// sectors already on their way. L2B = 0: the plain read-only load.
#pragma once
#include <type_traits>
#include <cuda/ptx>

namespace tmakit {

template <int L2B, class T>
__device__ __forceinline__ T ld_nc_l2(const T* p) {
  static_assert(L2B == 0 || L2B == 64 || L2B == 128 || L2B == 256, "L2 prefetch size");
#if CCCL_MAJOR_VERSION < 3 || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800)
  // cuda::ptx's ld wrappers came with CCCL 3.0, and .L2::256B needs sm_80 (an sm_75 pass would
  // reference CCCL's "not supported" stub, which ptxas cannot resolve): the plain load. The
  // hinted kernels run only on Hopper (sm_90, kernels::l2_hint_pays) anyway.
  return __ldg(p);
#else
  if constexpr (L2B == 256)
    return cuda::ptx::ld_nc_L2_256B(cuda::ptx::space_global, p);
  else if constexpr (L2B == 128)
    return cuda::ptx::ld_nc_L2_128B(cuda::ptx::space_global, p);
  else if constexpr (L2B == 64)
    return cuda::ptx::ld_nc_L2_64B(cuda::ptx::space_global, p);
  else
    return __ldg(p);
#endif
}

// f(std::integral_constant<int, L2B>{}) when `on`, else f(std::integral_constant<int, 0>{}):
// a launcher's choice of the hint at run time (per GPU), both kernels compiled.
template <int L2B, class F>
auto with_l2_hint(bool on, F&& f) {
  if (on) return f(std::integral_constant<int, L2B>{});
  return f(std::integral_constant<int, 0>{});
}

}  // namespace tmakit
