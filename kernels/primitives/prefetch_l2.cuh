// L2 prefetch of destination bytes an accumulate is about to read: prefetch.global.L2 asks the
// L2 for the 32-byte sector holding an address, writes no register and makes nothing wait. A
// kernel issues it for a tile's dst bytes before it loads the tile's source, so the dst reads
// after the tile's barrier find their sectors in (or on their way to) the L2: the DRAM latency
// of the dst stream overlaps the source's instead of following it. cuda::ptx (CCCL 3.0) has no
// wrapper for prefetch, so inline PTX, here only.
#pragma once
#include <cstdint>

namespace tmakit {

// prefetch.global.L2 [p]: a hint; p must lie in mapped global memory (any byte of an operand).
__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

constexpr int kL2SectorBytes = 32;

// The most 32-byte sectors a range of `bytes` bytes can touch, whatever its start.
__host__ __device__ constexpr int l2_sectors_max(int bytes) {
  return (bytes + 2 * kL2SectorBytes - 2) / kL2SectorBytes;
}

// Thread `rank` of `n` prefetches its share of the sectors of `segs` byte ranges
// [lo(s), lo(s) + bytes) (s = 0 .. segs - 1, lo(s) = lo0 + s * pitch_bytes): item (s, q) =
// sector q of range s, q < sectors_per_seg (l2_sectors_max of the longest range; a constant
// where the caller's is). Each address prefetched is the range's first byte rounded down to a
// sector, plus q sectors, and below the range's end, so it lies in a sector holding a byte of the
// range: mapped memory.
__device__ __forceinline__ void prefetch_l2_ranges(std::uintptr_t lo0, std::int64_t pitch_bytes,
                                                   int segs, int bytes, int sectors_per_seg,
                                                   int rank, int n) {
  // The thread's items by their digits (s, q), placed once and moved n items on per step with
  // one carry: a division per item cost flat_accumulate's kTall unit 141 instructions of SASS
  // for four items at 4 B.
  const int items = segs * sectors_per_seg;
  if (rank >= items) return;
  int s = rank / sectors_per_seg, q = rank - s * sectors_per_seg;
  const int ds = n / sectors_per_seg, dq = n - ds * sectors_per_seg;
  for (int item = rank; item < items; item += n) {
    const std::uintptr_t lo = lo0 + std::uintptr_t(std::int64_t(s) * pitch_bytes);
    const std::uintptr_t x = (lo & ~std::uintptr_t(kL2SectorBytes - 1)) + kL2SectorBytes * q;
    if (x < lo + unsigned(bytes)) prefetch_l2(reinterpret_cast<const void*>(x));
    s += ds;
    q += dq;
    if (q >= sectors_per_seg) {
      q -= sectors_per_seg;
      ++s;
    }
  }
}

}  // namespace tmakit
