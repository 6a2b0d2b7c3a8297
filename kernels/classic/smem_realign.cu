// smem_realign: smem_sector's whole-sector ownership with 16-byte global accesses at any row
// alignment. When a row's byte length is not a multiple of 16 (12345 x 6789 bytes), no row
// but the first starts on a 16-byte boundary, so smem_sector and smem_wide move one element
// per access: at 1-2 bytes the load/store units, not DRAM, set the speed (46-64% of memcpy on
// the H100, docs/results.md). Here every global access is an aligned 16-byte vector, wherever
// the row starts; the misalignment is undone in registers and shared memory:
//   phase 1  each input row segment of the tile (128 bytes at address a) is read as the aligned
//            vectors covering it (A = a & ~15, s = a - A); lane k holds vector k, takes vector
//            k+1 from its neighbour (a shuffle; the row's last lane loads it), and funnel-
//            shifts the pair by s bytes: chunk k of the segment, stored to IN row i at 16k;
//   phase 2  IN -> OUT transposed in shared memory, kBlock x kBlock element blocks of one
//            word per row (4x4 bytes by PRMT, 2x2 halves, words, double words);
//   phase 3  each output row writes its owned range, whole 32-byte sectors (smem_sector's
//            rule): its 16-byte chunks sit in OUT at a byte offset, realigned like phase 1
//            (aligned chunk, neighbour's chunk by shuffle, funnel shift), stored with STG.128.
// Coordinates (RealignTile<E>, kernels/common/realign.hpp): tile (tile_y, tile_x) covers input
// columns c0 = tile_x * kCols .. + kCols - 1 and tile rows i <-> input rows rb + i, rb = r0 -
// kPad, r0 = tile_y * kOwned. Output row c0 + j owns elements [r0 - sh(j), r0 - sh(j) + kOwned)
// with sh(j) = (address of out[c0+j][r0] mod 32) / E: IN/OUT row positions kPad - sh(j) + ...
// Edges: an input vector is loaded whole only when it lies inside the matrix's span (its
// first to its last element), else element by element; output chunks cut by the matrix's
// first or last row are stored element by element. Rows past the matrix are not loaded.
// Banks (4-byte words, bank = word mod 32). Phase 2, a warp = 4 block rows p x 8 unit columns
// q (E <= 4): reads IN word (p*B + u)*kInStride/4 + q, bank 8p + q + const when kInStride*B =
// 32 mod 128, i.e. kInStride = 8E mod 32E (B = kBlock = 4/E); writes one chunk (4 words) in
// each of 8 OUT rows q*B + c whose strides are whole 128-byte groups: the chunk XOR (q mod 8)
// puts them on 8 distinct chunk positions. Phase 3: 8 consecutive lanes read 8 consecutive
// chunks of one OUT row, 8 distinct positions after the XOR: one wavefront per quarter-warp.
// tests/host/test_realign.cpp counts every warp's wavefronts of phases 2 and 3.
#include <cstdint>
#include <kernels/common/grid.hpp>
#include <kernels/common/realign.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/realign_io.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;
using Addr = std::uintptr_t;

// Phase 2 for one block: kBlock words a[u] (tile rows p*kBlock + u, unit column q) -> kBlock
// words t[c] (OUT rows q*kBlock + c, word p). Element (u, c) of the block moves to (c, u).
template <int E>
__device__ __forceinline__ void transpose_block(const std::uint32_t (&a)[RealignTile<E>::kBlock],
                                                std::uint32_t (&t)[RealignTile<E>::kBlock]) {
  if constexpr (E == 1) {  // 4x4 bytes: t[c] byte u = a[u] byte c
    const std::uint32_t lo01 = __byte_perm(a[0], a[1], 0x5140u);  // a0.0 a1.0 a0.1 a1.1
    const std::uint32_t hi01 = __byte_perm(a[0], a[1], 0x7362u);  // a0.2 a1.2 a0.3 a1.3
    const std::uint32_t lo23 = __byte_perm(a[2], a[3], 0x5140u);
    const std::uint32_t hi23 = __byte_perm(a[2], a[3], 0x7362u);
    t[0] = __byte_perm(lo01, lo23, 0x5410u);
    t[1] = __byte_perm(lo01, lo23, 0x7632u);
    t[2] = __byte_perm(hi01, hi23, 0x5410u);
    t[3] = __byte_perm(hi01, hi23, 0x7632u);
  } else if constexpr (E == 2) {  // 2x2 halves: t[c] half u = a[u] half c
    t[0] = __byte_perm(a[0], a[1], 0x5410u);
    t[1] = __byte_perm(a[0], a[1], 0x7632u);
  } else {
    t[0] = a[0];
  }
}

// Phase 2 of one tile (see the file header): IN -> OUT, transposed.
template <int E>
__device__ __forceinline__ void realign_phase2(const unsigned char* in, unsigned char* out,
                                               int tid) {
  using S = RealignTile<E>;
  // Phase 2: IN (tile row, column) -> OUT (column, tile row), block by block, in rounds
  // of kRound blocks per thread: the round's reads first, then its transposes and writes
  // (10 words in flight; all of them at once spill registers).
  constexpr int kPerThread = S::kBlocks / kThreads;
  constexpr int kRound = kPerThread % 2 == 0 && kPerThread * S::kUnit / 4 * S::kBlock > 10
                             ? kPerThread / 2
                             : kPerThread;
  static_assert(S::kBlocks % kThreads == 0 && kPerThread % kRound == 0, "whole rounds");
#pragma unroll 1
  for (int n0 = 0; n0 < kPerThread; n0 += kRound) {
    if constexpr (E == 8) {
      uint2 u[kRound];
#pragma unroll
      for (int n = 0; n < kRound; ++n) {
        const RealignBlock at = realign_block<E>(tid + kThreads * (n0 + n));
        u[n] = *reinterpret_cast<const uint2*>(in + at.p * S::kInStride + 8 * at.q);
      }
#pragma unroll
      for (int n = 0; n < kRound; ++n) {
        const RealignBlock at = realign_block<E>(tid + kThreads * (n0 + n));
        *reinterpret_cast<uint2*>(out + realign_out_offset<E>(at.q, 8 * at.p)) = u[n];
      }
    } else {
      std::uint32_t a[kRound][S::kBlock];
#pragma unroll
      for (int n = 0; n < kRound; ++n) {
        const RealignBlock at = realign_block<E>(tid + kThreads * (n0 + n));
#pragma unroll
        for (int u = 0; u < S::kBlock; ++u)
          a[n][u] = *reinterpret_cast<const std::uint32_t*>(
              in + (at.p * S::kBlock + u) * S::kInStride + 4 * at.q);
      }
#pragma unroll
      for (int n = 0; n < kRound; ++n) {
        const RealignBlock at = realign_block<E>(tid + kThreads * (n0 + n));
        std::uint32_t t[S::kBlock];
        transpose_block<E>(a[n], t);
#pragma unroll
        for (int c = 0; c < S::kBlock; ++c)
          *reinterpret_cast<std::uint32_t*>(
              out + realign_out_offset<E>(at.q * S::kBlock + c, 4 * at.p)) = t[c];
      }
    }
  }
}

// Phase 3 of one tile: OUT -> the owned output sectors of rows c0.. of matrix dst.
template <int E>
__device__ __forceinline__ void realign_phase3(const unsigned char* out, int tid, Addr dst,
                                               std::int64_t r0, std::int64_t c0, std::int64_t rows,
                                               std::int64_t cols, std::int64_t ldd) {
  using S = RealignTile<E>;
  // Phase 3: item it = tid + 256n: output row j = it / kChunks, chunk k = it % kChunks of
  // its owned range, the bytes at o0 + 16k .. + 15 of OUT row j, o0 = (kPad - sh(j)) * E.
  // Like phase 1: lane reads the aligned chunk holding byte o0 + 16k, takes the next one
  // from its neighbour (the row's or warp's last lane reads it), funnel-shifts by o0 % 16.
  constexpr int kItems = S::kCols * S::kChunks / kThreads, kRound3 = 2;
  static_assert(kItems % kRound3 == 0, "whole rounds");
  const int lane = tid & 31, k = tid % S::kChunks, j0 = tid / S::kChunks;
  constexpr int kRowsPerItem = kThreads / S::kChunks;  // j of item n = j0 + n * this
  // out[c0 + j][r0] for item n: d0 + n * item_step.
  const Addr d0 = dst + Addr(((c0 + j0) * ldd + r0) * E);
  const Addr item_step = Addr(kRowsPerItem * ldd * E);
  // Every chunk of the tile inside the matrix: its first owned element r0 - sh >= r0 -
  // (32/E - 1) >= 0, its last r0 + kOwned - 1 - sh < rows, every output row < cols.
  const bool whole = r0 >= 32 / E && r0 + S::kOwned <= rows && c0 + S::kCols <= cols;
  const bool last = k == S::kChunks - 1 || lane == 31;  // reads the next chunk itself
#pragma unroll 1
  for (int n0 = 0; n0 < kItems; n0 += kRound3) {
    uint4 cv[kRound3], cx[kRound3];
#pragma unroll
    for (int n = 0; n < kRound3; ++n) {
      const int j = j0 + (n0 + n) * kRowsPerItem;
      const int m = static_cast<int>((d0 + (n0 + n) * item_step) & 31);  // sh(j) * E
      const int o0 = S::kPad * E - m;                                    // >= 1: kPad * E >= 32 > m
      const int xb = (o0 & ~15) + 16 * k;
      cv[n] = *reinterpret_cast<const uint4*>(out + realign_out_offset<E>(j, xb));
      cx[n] = last && (o0 & 15) != 0
                  ? *reinterpret_cast<const uint4*>(out + realign_out_offset<E>(j, xb + 16))
                  : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (int n = 0; n < kRound3; ++n) {
      const Addr d = d0 + (n0 + n) * item_step;  // out[c][r0], c = c0 + j
      const int m = static_cast<int>(d & 31);    // = sh(j) * E
      std::uint32_t vv[4];
      realign_with_next(cv[n], cx[n], last, (S::kPad * E - m) & 15, vv);
      const Addr g = d - Addr(m) + Addr(16 * k);  // 16-byte aligned
      const std::int64_t c = c0 + j0 + (n0 + n) * kRowsPerItem;
      const std::int64_t e0 = r0 - m / E + k * (16 / E);  // first element of the chunk
      store_out_chunk<E>(g, vv, whole, c, cols, e0, rows);
    }
  }
}

template <int E, int L2B>
__global__ void __launch_bounds__(kThreads, 4)  // <= 64 registers: 4 blocks per SM
    smem_realign_kernel(const unsigned char* __restrict__ src_base,
                        unsigned char* __restrict__ dst_base, std::int64_t rows, std::int64_t cols,
                        BatchStrides st, int pad_rows) {
  using S = RealignTile<E>;
  constexpr int kPasses = S::kRows / (kThreads / 8);  // phase 1: 8 lanes per row segment
  extern __shared__ __align__(16) unsigned char realign_smem[];
  unsigned char* in = realign_smem;
  unsigned char* out = realign_smem + S::kInBytes;
  const int tid = threadIdx.x, lane_k = tid & 7;
  const int first = S::kPad - pad_rows;  // first tile row loaded (kPad when no row is shifted)
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  const std::int64_t tiles_y = ceil_div(rows + pad_rows, S::kOwned);
  const std::int64_t tiles_x = ceil_div(cols, S::kCols);

  for_each_tile(
      st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
        const Addr src = reinterpret_cast<Addr>(src_base) + Addr(b * st.src_batch_elems * E);
        const Addr dst = reinterpret_cast<Addr>(dst_base) + Addr(b * st.dst_batch_elems * E);
        const Addr lo = src, hi = src + Addr(((rows - 1) * lds + cols) * E);  // the matrix's span
        const std::int64_t r0 = tile_y * S::kOwned, c0 = tile_x * S::kCols, rb = r0 - S::kPad;

        // Phase 1: all loads in flight first. Pass n, row i = tid/8 + 32n, lane k = tid%8:
        // v = aligned vector k of the segment, x = vector 8 (the row's last lane, when shifted).
        // Row i's segment starts at a(i) = src + ((rb + i) * lds + c0) * E, so a(i + 32n) =
        // a(i) + n * 32 * lds * E. An interior tile (every loaded row inside the matrix, every
        // vector inside its span: the first row's first and the last row's extra vector are) is
        // loaded without per-vector checks.
        uint4 v[kPasses], x[kPasses];
        int shift[kPasses];
        const Addr a0 = src + Addr(((rb + (tid >> 3)) * lds + c0) * E);
        const Addr pass_step = Addr(32 * lds * E);
        const Addr first_vec = (src + Addr(((rb + first) * lds + c0) * E)) & ~Addr(15);
        const Addr last_vec = (src + Addr(((rb + S::kRows - 1) * lds + c0) * E)) & ~Addr(15);
        const bool interior =
            rb + first >= 0 && rb + S::kRows <= rows && first_vec >= lo && last_vec + 144 <= hi;
        if (interior) {
#pragma unroll
          for (int n = 0; n < kPasses; ++n) {
            const Addr a = a0 + n * pass_step, A = a & ~Addr(15);
            shift[n] = static_cast<int>(a - A);
            const bool load = 32 * n >= first;  // first is 0 or kPad = 32: uniform
            const uint4* pv = reinterpret_cast<const uint4*>(A) + lane_k;
            v[n] = load ? ld_nc_l2<L2B>(pv) : make_uint4(0, 0, 0, 0);
            x[n] = load && lane_k == 7 && shift[n] != 0 ? ld_nc_l2<L2B>(pv + 1)
                                                        : make_uint4(0, 0, 0, 0);
          }
        } else {
#pragma unroll
          for (int n = 0; n < kPasses; ++n) {
            const int i = (tid >> 3) + 32 * n;
            const std::int64_t r = rb + i;
            const bool row_ok = i >= first && r >= 0 && r < rows;
            const Addr a = a0 + n * pass_step, A = a & ~Addr(15);
            shift[n] = static_cast<int>(a - A);
            v[n] = row_ok ? load_vec<E>(A + 16 * lane_k, lo, hi) : make_uint4(0, 0, 0, 0);
            x[n] = row_ok && lane_k == 7 && shift[n] != 0 ? load_vec<E>(A + 128, lo, hi)
                                                          : make_uint4(0, 0, 0, 0);
          }
        }
#pragma unroll
        for (int n = 0; n < kPasses; ++n) {
          const int i = (tid >> 3) + 32 * n;
          // The neighbour of lane 7 is the next row's lane: it uses its own extra vector.
          std::uint32_t c[4];
          realign_with_next(v[n], x[n], lane_k == 7, shift[n], c);  // bytes 16k .. 16k+15
          unsigned char* p = in + i * S::kInStride + 16 * lane_k;
          if constexpr (S::kInStride % 16 == 0) {
            *reinterpret_cast<uint4*>(p) = make_uint4(c[0], c[1], c[2], c[3]);
          } else {
            reinterpret_cast<uint2*>(p)[0] = make_uint2(c[0], c[1]);
            reinterpret_cast<uint2*>(p)[1] = make_uint2(c[2], c[3]);
          }
        }
        __syncthreads();

        realign_phase2<E>(in, out, tid);
        __syncthreads();
        realign_phase3<E>(out, tid, dst, r0, c0, rows, cols, ldd);
        // The next tile's phase 1 writes IN only; OUT is rewritten after its first barrier.
      });
}

template <int E>
cudaError_t launch_realign(const kernels::LaunchArgs& a) {
  using S = RealignTile<E>;
  const BatchStrides& st = a.strides;
  const int pad = dst_rows_on_sectors<E>(a.dst, st) ? 0 : S::kPad;
  const TileGrid g =
      tile_grid(ceil_div(a.rows + pad, S::kOwned), ceil_div(a.cols, S::kCols), st.batch);
  // Hopper, 1 B: loads with .L2::256B (1-2 points on both GPUs); at 2-4 B it lost 1-2, so those
  // keep the plain load (docs/perf-guide.md section 6).
  return with_l2_hint<256>(E == 1 && kernels::l2_hint_pays(a), [&](auto l2b) {
    return launch_with_smem(smem_realign_kernel<E, decltype(l2b)::value>, dim3(g.x, g.y, g.z),
                            dim3(kThreads), static_cast<std::uint32_t>(S::kSmemBytes), a.stream,
                            static_cast<const unsigned char*>(a.src),
                            static_cast<unsigned char*>(a.dst), a.rows, a.cols, st, pad);
  });
}

}  // namespace

cudaError_t kernels::launch_smem_realign(const LaunchArgs& a) {
  switch (a.elem_bytes) {
    case 1:
      return launch_realign<1>(a);
    case 2:
      return launch_realign<2>(a);
    case 4:
      return launch_realign<4>(a);
    case 8:
      return launch_realign<8>(a);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace tmakit
