// L2 prefetch of a block's next tile, a hint nothing waits for (the experiment of
// docs/perf-notes.md, session 25). The realign and sector kernels run one tile per block and
// issue their loads only when the tile starts, so an SM has at most its resident blocks' loads
// in flight: latency-bound on HBM3e (sessions 11, 13, 20: half occupancy, long-scoreboard
// stalls, DRAM at 57-69% of peak). Here a block, as it starts its tile, asks the L2 for the rows
// of the tile `ahead` positions later in the launch order, which a block launched about that
// many blocks later will load: its loads then find the L2.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <kernels/common/arch.hpp>

namespace tmakit {

// [begin, end): bytes of one allocation. Mode 2 on sm_90: cp.async.bulk.prefetch.L2.global of
// the 16-byte granules holding the range (one instruction; the TMA unit walks it). Otherwise
// prefetch.global.L2 of each 128-byte line holding part of it. cuda::ptx (CCCL 3.0) wraps
// neither instruction, so inline PTX, here only. Granules and lines that hold a byte of the range
// lie in the range's pages, so nothing unmapped is touched.
__device__ __forceinline__ void prefetch_l2_range(std::uintptr_t begin, std::uintptr_t end,
                                                  int mode) {
  using Addr = std::uintptr_t;
  if (end <= begin) return;
#if TMAKIT_DEVICE_HAS_TMA
  if (mode == 2) {
    const Addr a = begin & ~Addr(15), e = (end + 15) & ~Addr(15);
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a),
                 "r"(static_cast<std::uint32_t>(e - a))
                 : "memory");
    return;
  }
#endif
  for (Addr p = begin & ~Addr(127); p < end; p += 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

// The experiment's knobs, read once per process: TMAKIT_L2_AHEAD_WAVES (how far ahead, in
// waves of resident blocks, e.g. 1 or 2; 0 or unset: off) and TMAKIT_L2_PREFETCH_MODE (1: per
// line; 2: bulk, the default).
struct L2Ahead {
  double waves = 0;
  int mode = 2;
};
inline L2Ahead l2_ahead_from_env() {
  static const L2Ahead knobs = [] {
    L2Ahead k;
    if (const char* s = std::getenv("TMAKIT_L2_AHEAD_WAVES")) k.waves = std::atof(s);
    if (const char* s = std::getenv("TMAKIT_L2_PREFETCH_MODE")) k.mode = std::atoi(s);
    return k;
  }();
  return knobs;
}
// Blocks ahead for a kernel of `per_sm` resident blocks per SM.
inline std::int64_t l2_ahead_blocks(int sm_count, int per_sm) {
  const L2Ahead k = l2_ahead_from_env();
  return static_cast<std::int64_t>(k.waves * sm_count * per_sm);
}

}  // namespace tmakit
