// The one header that looks at the compilation target. Everything else asks these macros.
#pragma once

#if defined(__CUDACC__)
#define TMAKIT_HD __host__ __device__ __forceinline__
#else
#define TMAKIT_HD inline
#endif

// `#pragma unroll` in the headers that host code includes too: the pragma under nvcc, nothing
// under a host compiler (which would warn -Wunknown-pragmas in every file that includes one).
#if defined(__CUDACC__)
#define TMAKIT_UNROLL _Pragma("unroll")
#else
#define TMAKIT_UNROLL
#endif

// True in any device pass (host/device functions pick intrinsics with it).
#if defined(__CUDA_ARCH__)
#define TMAKIT_DEVICE_PASS 1
#else
#define TMAKIT_DEVICE_PASS 0
#endif

// True in the device pass for sm_90 and newer: the Tensor Memory Accelerator
// (cp.async.bulk.tensor), mbarrier transaction counts and fence.proxy.async exist there.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 900)
#define TMAKIT_DEVICE_HAS_TMA 1
#else
#define TMAKIT_DEVICE_HAS_TMA 0
#endif
