// bulk_realign: smem_realign with the loads taken off the threads. smem_realign (kernels/
// classic/) reads each input row segment as aligned 16-byte vectors, shuffles and funnel-
// shifts them into place, and only then starts the transpose: the loads of a tile are in
// flight only while its threads wait for them, and they hold 40 of its 64 registers. Its ncu
// profile at odd 1-2 B (docs/perf-notes.md, session 11): DRAM 55-66% of peak, issue 45-52%,
// stalls on long scoreboard, short scoreboard and MIO throttle, half the warps resident.
// Here the TMA unit loads the rows as they lie in memory, a tile ahead:
//   load     a producer warp (the ninth) issues one 1-D cp.async.bulk per tile row: the
//            aligned 144 bytes covering its 128-byte segment, into a ring of kStages RAW
//            buffers with a full and an empty mbarrier each. The next tiles' rows are in
//            flight while the 8 consumer warps work on this one; no consumer register holds
//            them and no consumer waits for another (no __syncthreads in the loop);
//   gather   each thread builds whole 16-byte output chunks: chunk m of output row j (input
//            column c0 + j) is V = 16 / E elements of column j from V consecutive tile rows,
//            read from RAW at each row's own byte shift, packed in registers and stored with
//            one STG.128 at its aligned address (smem_sector's whole-sector ownership, as in
//            smem_realign). No transposed tile, no shuffles, no second pass over shared memory.
// Coordinates (BulkRealignTile<E>, kernels/common/realign.hpp): tile (tile_y, tile_x) covers
// input columns c0 = tile_x * kCols .. + kCols - 1 and tile rows i <-> input rows rb + i,
// rb = r0 - kPad, r0 = tile_y * kOwned; output row c0 + j owns elements [r0 - sh(j), r0 -
// sh(j) + kOwned), sh(j) = (address of out[c0+j][r0] mod 32) / E, i.e. tile rows kPad - sh(j)
// + k. Tile row i sits in RAW at bulk_row_offset(i) + s(i), s(i) = a(i) mod 16, a(i) = the
// address of in[rb + i][c0].
// Edges: a tile whose loaded rows are all inside the matrix and whose 144-byte copies all lie
// inside the matrix's span (first to last element) is bulk-copied; any other (the first and
// last tile row of each matrix) is loaded by the producer warp's threads, vector by vector
// inside the span, element by element at its ends, into the same places. Output chunks cut by the matrix's
// first or last row are stored element by element. Rows past the matrix are never read.
// Needs sm_90 (cp.async.bulk, mbarrier transaction counts); nothing about alignment.
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <kernels/common/realign.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/span_io.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_barrier.cuh>

#ifndef TMAKIT_BULK_REALIGN_STAGES  // an experiment knob (docs/perf-notes.md, session 17)
#define TMAKIT_BULK_REALIGN_STAGES 2
#endif

namespace tmakit {
namespace {

constexpr int kThreads = 256;               // the consumers: 8 warps
constexpr int kBlockThreads = kThreads + 32;  // and the producer warp
constexpr int kStages = TMAKIT_BULK_REALIGN_STAGES;
constexpr int kBlocksPerSm = 4;  // 4 x (2 stages of 23 KB): 185 KB of the H100's 227, <= 56 regs
using span_io::Addr;
using Bar = tma::TxBarrier<BarrierStyle::kPtx>;

// One tile of the walk: matrix b's pointers and span, the tile's corner, and how it loads.
struct TileJob {
  Addr src, dst;  // matrix b of each
  Addr lo, hi;    // src's span: its first element .. one past its last
  std::int64_t r0, c0;
  bool bulk;  // every loaded row inside the matrix, every 144-byte copy inside the span
};

// The walk over batch x tiles_y x tiles_x tiles: tile n of the launch is matrix n / tiles,
// tile n % tiles of it in grouped_tile's order (the order smem_realign's grid runs in).
template <int E>
struct Walk {
  using S = BulkRealignTile<E>;
  Addr src, dst;
  std::int64_t rows, cols;
  BatchStrides st;
  int first;  // first tile row loaded: kPad, or 0 when output rows are shifted
  std::uint32_t tiles_y, tiles_x;
  std::int64_t tiles;

  __device__ TileJob job(std::int64_t n) const {
    const std::int64_t b = n / tiles;
    const auto k = static_cast<std::uint32_t>(n - b * tiles);
    const TileAt<std::uint32_t> t = grouped_tile<std::uint32_t>(k, tiles_y, tiles_x, kTileGroup);
    TileJob j;
    j.src = src + Addr(b * st.src_batch_elems * E);
    j.dst = dst + Addr(b * st.dst_batch_elems * E);
    j.lo = j.src;
    j.hi = j.src + Addr(((rows - 1) * st.src_ld_elems + cols) * E);
    j.r0 = std::int64_t(t.r) * S::kOwned;
    j.c0 = std::int64_t(t.c) * S::kCols;
    const std::int64_t rb = j.r0 - S::kPad;
    // (Addresses of rows above the matrix wrap around; the row test rejects those tiles.)
    const Addr first_vec = (j.src + Addr(((rb + first) * st.src_ld_elems + j.c0) * E)) & ~Addr(15);
    const Addr last_vec =
        (j.src + Addr(((rb + S::kRows - 1) * st.src_ld_elems + j.c0) * E)) & ~Addr(15);
    j.bulk = rb + first >= 0 && rb + S::kRows <= rows && first_vec >= j.lo &&
             last_vec + S::kLoadBytes <= j.hi;
    return j;
  }

  // Bytes the tile's bulk copies credit to its barrier (0: loaded by the threads).
  __device__ std::uint32_t bytes(const TileJob& j) const {
    return j.bulk ? std::uint32_t(S::kRows - first) * S::kLoadBytes : 0;
  }

  // The producer warp: arm the stage's barrier and issue the tile's row copies (lane l: rows
  // first + l, + 32, ...), or load the tile itself and then arrive (so every stage's phase
  // advances once per tile either way).
  __device__ void issue(const TileJob& j, unsigned char* raw, Bar bar, int lane) const {
    const std::uint32_t n = bytes(j);
    if (n == 0) {
      load_by_threads(j, raw, lane, 32);
      __syncwarp();                    // every lane's writes before lane 0's release
      if (lane == 0) bar.arrive_expect_tx(0);
      return;
    }
    tma::fence_proxy_async_smem();  // this warp's earlier generic writes, before the copies'
    if (lane == 0) bar.arrive_expect_tx(n);
    __syncwarp();
    const Addr a0 = j.src + Addr(((j.r0 - S::kPad) * st.src_ld_elems + j.c0) * E);  // a(0)
    const Addr row_bytes = Addr(st.src_ld_elems * E);
    for (int i = first + lane; i < S::kRows; i += 32) {
      const Addr A = (a0 + Addr(i) * row_bytes) & ~Addr(15);
      tma::bulk_load(raw + bulk_row_offset<E>(i), reinterpret_cast<const void*>(A),
                     S::kLoadBytes, bar.handle());
    }
  }

  // The same bytes as issue()'s copies, for a tile at the matrix's first or last rows, by
  // `threads` threads: aligned vectors inside the span whole, the others element by element;
  // rows outside the matrix are left as they are (no output chunk stores their elements).
  __device__ void load_by_threads(const TileJob& j, unsigned char* raw, int tid,
                                  int threads) const {
    constexpr int kVecs = S::kLoadBytes / 16;
    const std::int64_t rb = j.r0 - S::kPad;
    for (int q = tid; q < (S::kRows - first) * kVecs; q += threads) {
      const int i = first + q / kVecs, v = q % kVecs;
      const std::int64_t r = rb + i;
      if (r < 0 || r >= rows) continue;
      const Addr A = (j.src + Addr((r * st.src_ld_elems + j.c0) * E)) & ~Addr(15);
      *reinterpret_cast<uint4*>(raw + bulk_row_offset<E>(i) + 16 * v) =
          span_io::load_vec<E>(A + 16 * v, j.lo, j.hi);
    }
  }
};

// One element of RAW, zero-extended (E = 8: its two words).
template <int E>
__device__ __forceinline__ void read_elem(const unsigned char* p, std::uint32_t (&v)[4], int t) {
  if constexpr (E == 1) {
    const std::uint32_t x = *p;
    v[t / 4] = t % 4 == 0 ? x : v[t / 4] | (x << (8 * (t % 4)));
  } else if constexpr (E == 2) {
    const std::uint32_t x = *reinterpret_cast<const std::uint16_t*>(p);
    v[t / 2] = t % 2 == 0 ? x : v[t / 2] | (x << 16);
  } else if constexpr (E == 4) {
    v[t] = *reinterpret_cast<const std::uint32_t*>(p);
  } else {
    const uint2 x = *reinterpret_cast<const uint2*>(p);
    v[2 * t] = x.x;
    v[2 * t + 1] = x.y;
  }
}

// The gather of one tile (see the file header): 4 chunks per thread, each V elements of one
// input column from V consecutive tile rows, stored as one aligned 16-byte chunk.
template <int E>
__device__ __forceinline__ void gather(const Walk<E>& w, const TileJob& j,
                                       const unsigned char* raw, int tid) {
  using S = BulkRealignTile<E>;
  const std::int64_t ldd = w.st.dst_ld_elems;
  // s(i) = (a(0) + i * src pitch) mod 16: 32-bit arithmetic is exact modulo 16.
  const auto a_lo =
      static_cast<std::uint32_t>(j.src + Addr(((j.r0 - S::kPad) * w.st.src_ld_elems + j.c0) * E));
  const auto pitch_lo = static_cast<std::uint32_t>(w.st.src_ld_elems * E) & 15u;
  // Every chunk of the tile inside the matrix: its first owned element r0 - sh >= r0 -
  // (32/E - 1) >= 0, its last r0 + kOwned - 1 - sh < rows, every output row < cols.
  const bool whole = j.r0 >= 32 / E && j.r0 + S::kOwned <= w.rows && j.c0 + S::kCols <= w.cols;
#pragma unroll 1
  for (int pass = 0; pass < S::kItems / kThreads; ++pass) {
    const BulkItem it = bulk_item<E>(tid + kThreads * pass);
    const std::int64_t c = j.c0 + it.j;  // the output row
    if (!whole && c >= w.cols) continue;
    const Addr d = j.dst + Addr((c * ldd + j.r0) * E);  // out[c][r0]
    const int msh = static_cast<int>(d & 31);           // sh(j) * E
    const unsigned iA = S::kPad - msh / E + it.m * S::kV;  // the chunk's first tile row
    const unsigned char* col = raw + it.j * E;
    std::uint32_t s = (a_lo + static_cast<std::uint32_t>(iA) * pitch_lo) & 15u;
    std::uint32_t v[4];
#pragma unroll
    for (int t = 0; t < S::kV; ++t) {
      const unsigned i = iA + t;  // bulk_row_offset(i), unsigned: shifts, not divisions
      read_elem<E>(col + i * S::kPitch + 16 * (i / S::kV) + s, v, t);
      s = (s + pitch_lo) & 15u;
    }
    const Addr g = d - Addr(msh) + Addr(16 * it.m);  // 16-byte aligned
    if (whole)
      *reinterpret_cast<uint4*>(g) = make_uint4(v[0], v[1], v[2], v[3]);
    else
      span_io::store_chunk<E>(g, v, j.r0 - msh / E + it.m * S::kV, w.rows);
  }
}

template <int E>
__global__ void __launch_bounds__(kBlockThreads, kBlocksPerSm)
    bulk_realign_kernel(Walk<E> w, std::int64_t total_tiles) {
#if TMAKIT_DEVICE_HAS_TMA
  using S = BulkRealignTile<E>;
  extern __shared__ unsigned char bulk_realign_smem[];
  unsigned char* raw0 = tma::align_smem<unsigned char>(bulk_realign_smem, 128);
  auto* full = reinterpret_cast<std::uint64_t*>(raw0 + kStages * S::kStageBytes);
  std::uint64_t* empty = full + kStages;
  const int tid = threadIdx.x, lane = tid & 31;
  if (tid == 0) {
    for (int s = 0; s < kStages; ++s) {
      Bar(full + s).init(1);                // the producer's arrive (+ the copies' bytes)
      Bar(empty + s).init(kThreads / 32);  // one arrive per consumer warp
    }
    tma::fence_proxy_async_smem();
  }
  __syncthreads();  // the only block-wide barrier: the walks below never wait on each other
  const std::int64_t step = gridDim.x;
  if (tid >= kThreads) {  // the producer warp: tile k of this block into stage k % kStages
    std::uint32_t k = 0;
    for (std::int64_t n = blockIdx.x; n < total_tiles; n += step, ++k) {
      const int s = static_cast<int>(k % kStages);
      if (k >= kStages) Bar(empty + s).wait({std::uint32_t(s), k / kStages - 1, 0});
      w.issue(w.job(n), raw0 + s * S::kStageBytes, Bar(full + s), lane);
    }
    return;
  }
  std::uint32_t k = 0;  // the consumers: stage k % kStages, its (k / kStages)th use
  for (std::int64_t n = blockIdx.x; n < total_tiles; n += step, ++k) {
    const int s = static_cast<int>(k % kStages);
    const TileJob j = w.job(n);
    Bar(full + s).wait({std::uint32_t(s), k / kStages, w.bytes(j)});
    gather<E>(w, j, raw0 + s * S::kStageBytes, tid);
    __syncwarp();  // the warp's reads of RAW[s] done
    if (lane == 0) tma::mbar_arrive(empty + s);
  }
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

template <int E>
cudaError_t launch(const kernels::LaunchArgs& a) {
  using S = BulkRealignTile<E>;
  const BatchStrides& st = a.strides;
  // Output rows are shifted unless every one starts on a 32-byte sector (smem_realign's rule).
  const bool aligned = reinterpret_cast<Addr>(a.dst) % 32 == 0 && (st.dst_ld_elems * E) % 32 == 0 &&
                       (st.batch == 1 || (st.dst_batch_elems * E) % 32 == 0);
  const int pad = aligned ? 0 : S::kPad;
  Walk<E> w;
  w.src = reinterpret_cast<Addr>(a.src);
  w.dst = reinterpret_cast<Addr>(a.dst);
  w.rows = a.rows;
  w.cols = a.cols;
  w.st = st;
  w.first = S::kPad - pad;
  const std::int64_t ty = ceil_div(a.rows + pad, S::kOwned), tx = ceil_div(a.cols, S::kCols);
  if (ty * tx > 0xffffffffLL) return cudaErrorInvalidValue;  // 32-bit tile walk
  w.tiles_y = static_cast<std::uint32_t>(ty);
  w.tiles_x = static_cast<std::uint32_t>(tx);
  w.tiles = ty * tx;
  const std::int64_t total = w.tiles * st.batch;
  if (total == 0) return cudaSuccess;
  const std::int64_t blocks = std::min<std::int64_t>(total, std::int64_t(kBlocksPerSm) * a.sm_count);
  constexpr std::uint32_t kSmem = 128 + kStages * S::kStageBytes + 16 * kStages;
  return launch_with_smem(bulk_realign_kernel<E>, dim3(static_cast<unsigned>(blocks)),
                          dim3(kBlockThreads), kSmem, a.stream, w, total);
}

}  // namespace

// No tensor map and no alignment rule: only sm_90 and a build with its code (the host checks).
kernels::TmaPlan kernels::plan_bulk_realign(const LaunchArgs&) {
  return {};
}

cudaError_t kernels::launch_bulk_realign(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) { return launch<decltype(e)::value>(a); });
}

}  // namespace tmakit
