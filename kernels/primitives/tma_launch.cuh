// Host-side helpers shared by the kernels/tma launchers: compile-time dispatch over the axes
// (element size x swizzle mode x barrier style) and the dynamic shared-memory opt-in.
#pragma once
#include <cstdint>
#include <type_traits>
#include <utility>
#include <cuda_runtime.h>
#include <kernels/common/grid.hpp>
#include <kernels/common/swizzle.hpp>
#include <kernels/common/tma_tile.hpp>
#include <kernels/primitives/launch_smem.cuh>  // allow_dynamic_smem

namespace tmakit {

template <int V>
using IntC = std::integral_constant<int, V>;
template <BarrierStyle S>
using StyleC = std::integral_constant<BarrierStyle, S>;

// f(IntC<E>{}) for E = 1, 2, 4, 8.
template <class F>
cudaError_t dispatch_tma_elem(int elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1:
      return f(IntC<1>{});
    case 2:
      return f(IntC<2>{});
    case 4:
      return f(IntC<4>{});
    case 8:
      return f(IntC<8>{});
    default:
      return cudaErrorInvalidValue;
  }
}

// f(IntC<E>{}) for E = 1, 2, 4, 8, 16 (techniques whose tiles take 16-byte elements).
template <class F>
cudaError_t dispatch_tma_elem_16(int elem_bytes, F&& f) {
  if (elem_bytes == 16) return f(IntC<16>{});
  return dispatch_tma_elem(elem_bytes, std::forward<F>(f));
}

// f(IntC<Mode>{}) for the Hopper swizzle modes none, 32B, 64B, 128B.
template <class F>
cudaError_t dispatch_tma_swizzle(int mode, F&& f) {
  switch (mode) {
    case kSwizzleNone:
      return f(IntC<kSwizzleNone>{});
    case kSwizzle32B:
      return f(IntC<kSwizzle32B>{});
    case kSwizzle64B:
      return f(IntC<kSwizzle64B>{});
    case kSwizzle128B:
      return f(IntC<kSwizzle128B>{});
    default:
      return cudaErrorInvalidValue;
  }
}

template <class F>
cudaError_t dispatch_barrier(BarrierStyle style, F&& f) {
  return style == BarrierStyle::kCudaBarrier ? f(StyleC<BarrierStyle::kCudaBarrier>{})
                                             : f(StyleC<BarrierStyle::kPtx>{});
}

// Opts `kernel` in to `smem_bytes` of dynamic shared memory and launches it with `threads`
// per block on a grid covering tiles_y x tiles_x tiles of `batch` matrices (the kernel
// grid-strides the rest: kernels/primitives/tile_loop.cuh).
template <class... Params, class... Args>
cudaError_t launch_on_tiles(void (*kernel)(Params...), std::uint32_t smem_bytes, std::int64_t batch,
                            std::int64_t tiles_y, std::int64_t tiles_x, unsigned threads,
                            cudaStream_t stream, Args&&... args) {
  const TileGrid g = tile_grid(tiles_y, tiles_x, batch);
  return launch_with_smem(kernel, dim3(g.x, g.y, g.z), dim3(threads), smem_bytes, stream,
                          std::forward<Args>(args)...);
}

// Slack so a kernel can round its dynamic shared memory base up to the 1024-byte swizzle
// period (the base's alignment is not guaranteed beyond 16 bytes).
inline constexpr std::uint32_t kSmemAlignSlack = 1024;

}  // namespace tmakit
