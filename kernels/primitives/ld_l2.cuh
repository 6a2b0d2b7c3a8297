// Global loads with an L2 prefetch-size hint: ld.global.nc.L2::64B / 128B / 256B through
// cuda::ptx (CCCL 3.0). On a miss the L2 fetches the aligned 64 / 128 / 256 bytes around the
// requested sector from DRAM, so a row segment that neighbouring blocks read next finds its
// sectors already on their way. L2B = 0: the plain read-only load.
#pragma once
#include <cstdlib>
#include <type_traits>
#include <cuda/ptx>

namespace tmakit {

template <int L2B, class T>
__device__ __forceinline__ T ld_nc_l2(const T* p) {
  static_assert(L2B == 0 || L2B == 64 || L2B == 128 || L2B == 256, "L2 prefetch size");
  if constexpr (L2B == 256)
    return cuda::ptx::ld_nc_L2_256B(cuda::ptx::space_global, p);
  else if constexpr (L2B == 128)
    return cuda::ptx::ld_nc_L2_128B(cuda::ptx::space_global, p);
  else if constexpr (L2B == 64)
    return cuda::ptx::ld_nc_L2_64B(cuda::ptx::space_global, p);
  else
    return __ldg(p);
}

// The same with a plain load for L2B = 0 (types __ldg does not take, code that read plainly).
template <int L2B, class T>
__device__ __forceinline__ T ld_l2_or_plain(const T* p) {
  if constexpr (L2B == 0)
    return *p;
  else
    return ld_nc_l2<L2B>(p);
}

// Experiment knob (session 26): TMAKIT_LD_L2_BYTES = 0 | 64 | 128 | 256, read once; calls
// f(std::integral_constant<int, L2B>{}).
template <class F>
auto with_ld_l2_bytes(F&& f) {
  static const int l2b = [] {
    const char* env = std::getenv("TMAKIT_LD_L2_BYTES");
    return env != nullptr ? std::atoi(env) : 0;
  }();
  if (l2b == 256) return f(std::integral_constant<int, 256>{});
  if (l2b == 128) return f(std::integral_constant<int, 128>{});
  if (l2b == 64) return f(std::integral_constant<int, 64>{});
  return f(std::integral_constant<int, 0>{});
}

}  // namespace tmakit
