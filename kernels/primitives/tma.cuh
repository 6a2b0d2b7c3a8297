// TMA and mbarrier vocabulary over libcu++ (cuda::ptx), the one place tmakit's kernels touch
// these instructions. Each wrapper names the PTX it emits. All of them need sm_90: in the
// device passes for older targets they compile to a trap, so kernels that use them still build
// for sm_80 (host code never launches them there: the dispatcher checks the device first).
#pragma once
#include <cstdint>
#include <cuda.h>              // CUtensorMap (cuda/barrier only forward-declares it)
#include <cuda/annotated_ptr>  // cuda::access_property: L2 policies for the cache hints
#include <cuda/barrier>
#include <cuda/ptx>
#include <kernels/common/arch.hpp>

namespace tmakit::tma {

namespace ptx = cuda::ptx;

// mbarrier.init.shared::cta.b64 [bar], count
__device__ __forceinline__ void mbar_init(std::uint64_t* bar, std::uint32_t count) {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::mbarrier_init(bar, count);
#else
  __trap();
#endif
}

// fence.proxy.async.shared::cta: generic-proxy writes to shared memory (an mbarrier init, or
// data a TMA store will read) become visible to the async proxy (the TMA unit).
__device__ __forceinline__ void fence_proxy_async_smem() {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::fence_proxy_async(ptx::space_shared);
#else
  __trap();
#endif
}

// mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [bar], bytes: add `bytes` to the
// phase's transaction count, then arrive once.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
#if TMAKIT_DEVICE_HAS_TMA
  (void)ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, bar,
                                       bytes);
#else
  __trap();
#endif
}

// mbarrier.arrive.shared::cta.b64 _, [bar]
__device__ __forceinline__ void mbar_arrive(std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  (void)ptx::mbarrier_arrive(bar);
#else
  __trap();
#endif
}

// mbarrier.try_wait.parity.shared::cta.b64 p, [bar], parity: true once the phase with that
// parity has completed. May return false after a system-defined time: always loop.
__device__ __forceinline__ bool mbar_try_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
#if TMAKIT_DEVICE_HAS_TMA
  return ptx::mbarrier_try_wait_parity(bar, parity);
#else
  __trap();
  return false;
#endif
}

// ---- The mbarrier watchdog ----------------------------------------------------------------
// On in debug builds (NDEBUG undefined) and with -DTMAKIT_MBARRIER_WATCHDOG=1 (CMake option
// TMAKIT_MBARRIER_WATCHDOG) in release builds: a wait that has not completed after
// TMAKIT_WATCHDOG_MS milliseconds (default 500) reports the block, thread, stage, phase and
// the bytes the phase expected as a failed device assertion, so the launch fails
// (cudaErrorAssert) instead of hanging forever on a transfer that will never arrive.
#ifndef TMAKIT_MBARRIER_WATCHDOG
#ifdef NDEBUG
#define TMAKIT_MBARRIER_WATCHDOG 0
#else
#define TMAKIT_MBARRIER_WATCHDOG 1
#endif
#endif
#ifndef TMAKIT_WATCHDOG_MS
#define TMAKIT_WATCHDOG_MS 500
#endif

// What a wait is for, for the watchdog's report: the ring stage (0 for single-buffer kernels),
// the phase number (how many times this barrier completed before; the wait is on its parity)
// and the transaction bytes the phase expects.
struct WaitSite {
  std::uint32_t stage;
  std::uint32_t phase;
  std::uint32_t expected_bytes;
};

// A fixed buffer the watchdog writes its report into (device code has no snprintf).
struct WatchdogText {
  char buf[320];
  int n = 0;
  __device__ WatchdogText& operator<<(const char* t) {
    while (*t != '\0' && n + 1 < int(sizeof buf)) buf[n++] = *t++;
    buf[n] = '\0';
    return *this;
  }
  __device__ WatchdogText& operator<<(unsigned long long v) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    while (k > 0 && n + 1 < int(sizeof buf)) buf[n++] = digits[--k];
    buf[n] = '\0';
    return *this;
  }
};

// Reports through the device assertion path, whose message the driver prints even though the
// kernel then dies (a printf before a trap is lost with the context; measured on the H100).
// The launch fails with cudaErrorAssert.
static __device__ __noinline__ void watchdog_fire(const WaitSite& site, std::uint64_t waited_ns) {
  WatchdogText t;
  t << "tmakit mbarrier watchdog: block (" << blockIdx.x << ", " << blockIdx.y << ", " << blockIdx.z
    << ") thread " << threadIdx.x << " waited "
    << static_cast<unsigned long long>(waited_ns / 1000000u) << " ms on stage " << site.stage
    << ", phase " << site.phase << " (parity " << (site.phase & 1u) << "), which expects "
    << site.expected_bytes
    << " bytes: the transfers never completed (the expected byte count exceeds what was "
       "loaded, or a load was never issued)";
  __assert_fail(t.buf, __FILE__, __LINE__, "tmakit::tma::mbar_wait");
}

static __device__ unsigned int watchdog_fired;  // one report per module: the first waiter

// The first waiter past its deadline reports (and the grid dies with it); the others return
// to waiting until then.
static __device__ __forceinline__ void watchdog_report_once(const WaitSite& site,
                                                            std::uint64_t waited_ns) {
  if (atomicExch(&watchdog_fired, 1u) == 0u) watchdog_fire(site, waited_ns);
}

// Waits until the phase `site.phase` of `bar` has completed (try_wait on its parity). With
// Watchdog, bounded as described above.
template <bool Watchdog = (TMAKIT_MBARRIER_WATCHDOG != 0)>
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, const WaitSite& site) {
  const std::uint32_t parity = site.phase & 1u;
  if constexpr (Watchdog) {
#if TMAKIT_DEVICE_HAS_TMA
    if (mbar_try_wait_parity(bar, parity)) return;
    const std::uint64_t t0 = ptx::get_sreg_globaltimer();
    bool reported = false;
    while (!mbar_try_wait_parity(bar, parity)) {
      const std::uint64_t waited = ptx::get_sreg_globaltimer() - t0;
      if (!reported && waited > std::uint64_t(TMAKIT_WATCHDOG_MS) * 1000000u) {
        reported = true;
        watchdog_report_once(site, waited);
      }
    }
#else
    __trap();
#endif
  } else {
    while (!mbar_try_wait_parity(bar, parity)) {
    }
  }
}

// cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes
//   [dst], [map, {x, y}], [bar]: the rank-2 form (the TMA probes of tests/sm90 use it).
__device__ __forceinline__ void load_2d(void* dst, const CUtensorMap* map, int x, int y,
                                        std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[2] = {x, y};
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, dst, map, coords, bar);
#else
  __trap();
#endif
}

// cp.async.bulk.tensor.3d.shared::cta.global.tile.mbarrier::complete_tx::bytes
//   [dst], [map, {x, y, z}], [bar]   x = innermost (column) coordinate, y = row, z = matrix of
//   the batch; x and y may be negative or past the end: out-of-bounds elements are filled
//   (zero or NaN), and the full box bytes are always credited to the barrier.
__device__ __forceinline__ void load_3d(void* dst, const CUtensorMap* map, int x, int y, int z,
                                        std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[3] = {x, y, z};
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, dst, map, coords, bar);
#else
  __trap();
#endif
}

// cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [map, {x, y, z}], [src]
//   Elements past the tensor's end are clipped. x and y must be >= 0 (a negative store
//   coordinate faults on the H100).
__device__ __forceinline__ void store_3d(const CUtensorMap* map, int x, int y, int z,
                                         const void* src) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[3] = {x, y, z};
  ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, coords, src);
#else
  __trap();
#endif
}

// The batch coordinates of a rank-5 map (b0 = the fastest-varying batch dimension): the maps of
// a permutation (kernels/permute/permute_tma.cu) are (b2, b1, b0, rows, cols), outermost first.
struct BatchCoords {
  int z0, z1, z2;
};

// cp.async.bulk.tensor.5d.shared::cta.global.tile.mbarrier::complete_tx::bytes
//   [dst], [map, {x, y, z0, z1, z2}], [bar]: load_3d with the batch as three coordinates.
__device__ __forceinline__ void load_5d(void* dst, const CUtensorMap* map, int x, int y,
                                        BatchCoords z, std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[5] = {x, y, z.z0, z.z1, z.z2};
  ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, dst, map, coords, bar);
#else
  __trap();
#endif
}

// cp.async.bulk.tensor.5d.global.shared::cta.tile.bulk_group [map, {x, y, z0, z1, z2}], [src]
__device__ __forceinline__ void store_5d(const CUtensorMap* map, int x, int y, BatchCoords z,
                                         const void* src) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[5] = {x, y, z.z0, z.z1, z.z2};
  ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, map, coords, src);
#else
  __trap();
#endif
}

// A box at (x, y) of matrix z: rank 3 for one batch coordinate, rank 5 for three.
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap* map, int x, int y, int z,
                                         std::uint64_t* bar) {
  load_3d(dst, map, x, y, z, bar);
}
__device__ __forceinline__ void load_box(void* dst, const CUtensorMap* map, int x, int y,
                                         BatchCoords z, std::uint64_t* bar) {
  load_5d(dst, map, x, y, z, bar);
}
__device__ __forceinline__ void store_box(const CUtensorMap* map, int x, int y, int z,
                                          const void* src) {
  store_3d(map, x, y, z, src);
}
__device__ __forceinline__ void store_box(const CUtensorMap* map, int x, int y, BatchCoords z,
                                          const void* src) {
  store_5d(map, x, y, z, src);
}

// cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [dst], [src], bytes, [bar]:
//   the 1-D bulk copy (no tensor map). dst, src and bytes 16-byte multiples; the copy credits
//   `bar` with exactly `bytes` (nothing is filled or clipped: the caller stays in bounds).
__device__ __forceinline__ void bulk_load(void* dst, const void* src, std::uint32_t bytes,
                                          std::uint64_t* bar) {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst, src, bytes, bar);
#else
  __trap();
#endif
}

// cp.async.bulk.global.shared::cta.bulk_group [dst], [src], bytes: the 1-D bulk store.
__device__ __forceinline__ void bulk_store(void* dst, const void* src, std::uint32_t bytes) {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, src, bytes);
#else
  __trap();
#endif
}

// cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [map, {x, y, z}], [src]:
//   a TMA store that adds the box to what global memory holds, in the map's data type
//   (f16, bf16, f32, s32/u32, u64 for .add), clipped at the tensor's edges like store_3d.
__device__ __forceinline__ void reduce_add_3d(const CUtensorMap* map, int x, int y, int z,
                                              const void* src) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::int32_t coords[3] = {x, y, z};
  ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, map, coords,
                                   src);
#else
  __trap();
#endif
}

// ---- L2 cache hints and tensor prefetch (docs/perf-guide.md section 6) -------------------------
// cuda::ptx (CCCL 3.0) wraps neither the .L2::cache_hint forms of the bulk tensor copies nor
// cp.async.bulk.prefetch.tensor, so these three are inline PTX, here only. The 64-bit policy
// operand is what createpolicy would return; libcu++'s cuda::access_property builds it
// (l2_policy below), so no createpolicy instruction is issued.
enum class L2Hint : int { kNone = 0, kEvictFirst = 1, kEvictLast = 2, kEvictNormal = 3 };

template <L2Hint H>
__device__ __forceinline__ std::uint64_t l2_policy() {
  if constexpr (H == L2Hint::kEvictFirst)
    return static_cast<std::uint64_t>(cuda::access_property(cuda::access_property::streaming{}));
  else if constexpr (H == L2Hint::kEvictLast)
    return static_cast<std::uint64_t>(cuda::access_property(cuda::access_property::persisting{}));
  else
    return static_cast<std::uint64_t>(cuda::access_property(cuda::access_property::normal{}));
}

// cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint
//   [dst], [map, {x, y, z}], [bar], policy: load_3d with an L2 eviction policy for the lines read.
__device__ __forceinline__ void load_3d_hint(void* dst, const CUtensorMap* map, int x, int y, int z,
                                             std::uint64_t* bar, std::uint64_t policy) {
#if TMAKIT_DEVICE_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".L2::cache_hint [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(
          static_cast<std::uint32_t>(__cvta_generic_to_shared(dst))),
      "l"(map), "r"(x), "r"(y), "r"(z),
      "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(bar))), "l"(policy)
      : "memory");
#else
  __trap();
#endif
}

// cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint
//   [map, {x, y, z}], [src], policy: store_3d with an L2 eviction policy for the lines written.
__device__ __forceinline__ void store_3d_hint(const CUtensorMap* map, int x, int y, int z,
                                              const void* src, std::uint64_t policy) {
#if TMAKIT_DEVICE_HAS_TMA
  asm volatile(
      "cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group.L2::cache_hint"
      " [%0, {%1, %2, %3}], [%4], %5;" ::"l"(map),
      "r"(x), "r"(y), "r"(z), "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(src))),
      "l"(policy)
      : "memory");
#else
  __trap();
#endif
}

// cp.async.bulk.prefetch.tensor.3d.L2.global.tile [map, {x, y, z}]: bring a box into the L2
// without a shared destination or a barrier (a hint: nothing waits for it).
__device__ __forceinline__ void prefetch_3d(const CUtensorMap* map, int x, int y, int z) {
#if TMAKIT_DEVICE_HAS_TMA
  asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%0, {%1, %2, %3}];" ::"l"(map),
               "r"(x), "r"(y), "r"(z)
               : "memory");
#endif
}

// cp.async.bulk.commit_group: closes the bulk group of this thread's stores issued so far.
__device__ __forceinline__ void store_commit() {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::cp_async_bulk_commit_group();
#else
  __trap();
#endif
}

// cp.async.bulk.wait_group.read N: at most N of this thread's groups still read shared
// memory, so their source buffers may be reused (or the CTA may exit).
template <int N>
__device__ __forceinline__ void store_wait_read() {
#if TMAKIT_DEVICE_HAS_TMA
  ptx::cp_async_bulk_wait_group_read(ptx::n32_t<N>{});
#else
  __trap();
#endif
}

// prefetch.tensormap [map]: cuda::ptx has no wrapper (CCCL 3.0), so inline PTX, here only.
__device__ __forceinline__ void prefetch_map(const CUtensorMap* map) {
#if TMAKIT_DEVICE_HAS_TMA
  asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
#endif
}

// Round a shared pointer up so its SHARED-window address (what swizzling and the 128-byte
// rule look at) is a multiple of `align` (a power of two).
template <class T>
__device__ __forceinline__ T* align_smem(void* p, std::uint32_t align) {
  const auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
  return reinterpret_cast<T*>(static_cast<char*>(p) + ((align - (a & (align - 1))) & (align - 1)));
}

}  // namespace tmakit::tma
