// async_realign: reg_realign with its global loads made asynchronous. reg_realign loads a lane's
// 4-row x 16-byte block into registers and waits for it before it can transpose: ncu has it
// latency-bound on those loads (long-scoreboard stalls 5.8 per issue, DRAM at 47% of peak on the
// H200 at odd 1 B, 57% warps active: 48 registers hold 5 blocks per SM, and fewer registers
// spilled; docs/perf-notes.md, sessions 20 and 27). A tile's loads are in flight only while its
// own block waits for them, never during its phase 3.
// Here each thread copies the same aligned 16-byte vectors with cp.async (libcu++
// cuda::memcpy_async on a thread-scope cuda::pipeline, as async_copy does) into a staging ring
// of kStages tiles in shared memory, and the grid is persistent: while a block transposes and
// stores tile n, the loads of its next tile are in flight, and they hold no registers. The
// transpose reads the two vectors a lane needs (its own and the next) back from the stage; the
// rest is reg_realign's (kernels/primitives/reg_realign_tile.cuh): the in-register 4x4 transpose
// into OUT and phase 3's whole-sector 16-byte stores.
//
// Coordinates are reg_realign's (RegRealignTile<E>, kernels/common/realign.hpp): tile (tile_y,
// tile_x) of matrix b covers input columns c0 = tile_x * kCols .. + kCols - 1 and tile rows i
// <-> input rows rb + i, rb = r0 - pad, r0 = tile_y * owned. Tile row i's segment starts at
// a(i) = src + ((rb + i) * lds + c0) * E; the aligned vectors A(i) = a(i) & ~15 .. A(i) + 143
// cover it (9 vectors: the ninth only when a(i) is not on 16 bytes).
//   stage: 256 rows of 144 bytes; row i, vector v (0..8) at i * 144 + 16 v. Lane (g, k) of warp
//          w copies vector k (and vector 8 when k = 7) of rows i0 + u, i0 = 128n + 16w + 4g,
//          u = 0..3, passes n = 0, 1: the vectors it reads back itself. Banks: a quarter-warp
//          (k = 0..7, one row) writes and reads 8 consecutive 16-byte vectors: conflict-free.
// Tiles whose vectors are not all inside the matrix (its first or last rows, or the last row's
// ninth vector past its end) are loaded synchronously, element by element at the edge
// (load_vec), into the same stage, so nothing outside the matrix is read.
// Tile n of the launch: matrix b = n / per, tile n % per of it in grouped_tile order (per =
// tiles_y * tiles_x); block x takes tiles x, x + gridDim.x, ...
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cuda/pipeline>
#include <kernels/common/grid.hpp>
#include <kernels/common/realign.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/realign_io.cuh>
#include <kernels/primitives/reg_realign_tile.cuh>

namespace tmakit {
namespace {

using rr::Addr;
using rr::kThreads;

constexpr int kStageRowBytes = 144;  // 9 aligned vectors cover any 128-byte row segment
template <int E>
constexpr int kStageBytes = RegRealignTile<E>::kRows * kStageRowBytes;
template <int E, int Stages>
constexpr std::uint32_t smem_bytes() {
  return RegRealignTile<E>::kSmemBytes + Stages * kStageBytes<E>;
}

// One tile of the launch and where its rows lie.
struct RealignTileAt {
  Addr src, dst;             // matrix b's first elements
  Addr lo, hi;               // matrix b's source span
  std::int64_t r0, c0, rb;   // first owned row, first column, first tile row (r0 - pad)
  bool interior;             // every tile row inside the matrix, every vector inside its span
};

template <int E, int Stages>
__global__ void __launch_bounds__(kThreads, Stages == 1 ? 3 : 2)
    async_realign_kernel(const unsigned char* __restrict__ src_base,
                         unsigned char* __restrict__ dst_base, std::int64_t rows,
                         std::int64_t cols, BatchStrides st, int pad) {
  using S = RegRealignTile<E>;
  using U = std::uint32_t;
  constexpr int kPasses = S::kRows / (kThreads / 2);  // 16 rows per warp, 128 per pass
  extern __shared__ __align__(16) unsigned char async_realign_smem[];
  unsigned char* out = async_realign_smem;
  unsigned char* ring = async_realign_smem + S::kSmemBytes;
  const int tid = threadIdx.x, k = tid & 7, g = (tid >> 3) & 3, w = tid >> 5;
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  const int owned = S::kRows - pad;
  const std::int64_t tiles_y = ceil_div(rows + pad, owned);
  const std::int64_t tiles_x = ceil_div(cols, S::kCols);
  const std::int64_t per = tiles_y * tiles_x, tiles = st.batch * per;
  const Addr row_step = Addr(lds * E), pass_step = Addr(128 * lds * E);

  auto tile_at = [&](std::int64_t n) {
    RealignTileAt t;
    const std::int64_t b = n / per;
    const TileAt<U> p = grouped_tile<U>(U(n - b * per), U(tiles_y), U(tiles_x), U(kTileGroup));
    t.src = reinterpret_cast<Addr>(src_base) + Addr(b * st.src_batch_elems * E);
    t.dst = reinterpret_cast<Addr>(dst_base) + Addr(b * st.dst_batch_elems * E);
    t.lo = t.src;
    t.hi = t.src + Addr(((rows - 1) * lds + cols) * E);
    t.r0 = std::int64_t(p.r) * owned;
    t.c0 = std::int64_t(p.c) * S::kCols;
    t.rb = t.r0 - pad;
    const Addr first_vec = (t.src + Addr((t.rb * lds + t.c0) * E)) & ~Addr(15);
    const Addr last_vec = (t.src + Addr(((t.rb + S::kRows - 1) * lds + t.c0) * E)) & ~Addr(15);
    t.interior = t.rb >= 0 && t.rb + S::kRows <= rows && first_vec >= t.lo && last_vec + 144 <= t.hi;
    return t;
  };
  // a(i) of the lane's row u in pass n.
  auto row_start = [&](const RealignTileAt& t, int n, int u) {
    return t.src + Addr(((t.rb + 16 * w + 4 * g) * lds + t.c0) * E) + n * pass_step + u * row_step;
  };

  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  // This thread's vectors of tile n into stage s: one commit group, empty past the last tile.
  auto issue = [&](std::int64_t n, int s) {
    pipe.producer_acquire();
    if (n < tiles) {
      const RealignTileAt t = tile_at(n);
      unsigned char* stage = ring + s * kStageBytes<E>;
#pragma unroll
      for (int pn = 0; pn < kPasses; ++pn)
#pragma unroll
        for (int u = 0; u < 4; ++u) {
          const int i = 128 * pn + 16 * w + 4 * g + u;
          const Addr a = row_start(t, pn, u), A = a & ~Addr(15);
          const bool ninth = k == 7 && (a & 15) != 0;
          unsigned char* srow = stage + i * kStageRowBytes;
          if (t.interior) {
            cuda::memcpy_async(srow + 16 * k, reinterpret_cast<const void*>(A + 16 * k),
                               cuda::aligned_size_t<16>(16), pipe);
            if (ninth)
              cuda::memcpy_async(srow + 128, reinterpret_cast<const void*>(A + 128),
                                 cuda::aligned_size_t<16>(16), pipe);
          } else {
            const std::int64_t r = t.rb + i;
            const bool row_ok = r >= 0 && r < rows;
            *reinterpret_cast<uint4*>(srow + 16 * k) =
                row_ok ? load_vec<E>(A + 16 * k, t.lo, t.hi) : make_uint4(0, 0, 0, 0);
            if (ninth)
              *reinterpret_cast<uint4*>(srow + 128) =
                  row_ok ? load_vec<E>(A + 128, t.lo, t.hi) : make_uint4(0, 0, 0, 0);
          }
        }
    }
    pipe.producer_commit();
  };

  const std::int64_t stride = gridDim.x;
  std::int64_t n = blockIdx.x;
  for (int s = 0; s < Stages; ++s) issue(n + s * stride, s);
  for (std::uint32_t it = 0; n < tiles; n += stride, ++it) {
    const int s = static_cast<int>(it % Stages);
    pipe.consumer_wait();  // this thread's vectors of tile n have landed...
    __syncwarp();          // ...and its warp's: a lane reads vector k + 1, its neighbour's copy
    const unsigned char* stage = ring + s * kStageBytes<E>;
    const RealignTileAt t = tile_at(n);
#pragma unroll 1
    for (int pn = 0; pn < kPasses; ++pn) {
      const int i0 = 128 * pn + 16 * w + 4 * g;
      std::uint32_t c[4][4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        // Bytes 16k..16k+15 of tile row i0 + u: vectors k and k + 1 of its stage row, shifted
        // by a(i) mod 16 (vector 8 exists only when that is not 0, and is then needed).
        const int shift = static_cast<int>(row_start(t, pn, u) & 15);
        const unsigned char* srow = stage + (i0 + u) * kStageRowBytes;
        const uint4 v = *reinterpret_cast<const uint4*>(srow + 16 * k);
        const uint4 x = k < 7 || shift != 0 ? *reinterpret_cast<const uint4*>(srow + 16 * k + 16)
                                            : make_uint4(0, 0, 0, 0);
        const std::uint32_t wds[8] = {v.x, v.y, v.z, v.w, x.x, x.y, x.z, x.w};
        realign_chunk(wds, shift, c[u]);
      }
      rr::transpose_to_out<E>(c, out, k, i0);
    }
    pipe.consumer_release();
    __syncthreads();  // OUT is whole, and every thread has read stage s:
    issue(n + Stages * stride, s);  // refill it while this tile's phase 3 runs
    rr::reg_realign_phase3<E>(out, tid, t.dst, t.r0, t.c0, rows, cols, ldd, pad);
    __syncthreads();  // OUT is read before the next tile's phase 1 rewrites it
  }
}

// A persistent grid: as many blocks as are resident at once (occupancy, asked once per
// element size), at most one per tile.
template <int E, int Stages>
cudaError_t launch_async_realign_e(const kernels::LaunchArgs& a) {
  using S = RegRealignTile<E>;
  const BatchStrides& st = a.strides;
  const int pad = dst_rows_on_sectors<E>(a.dst, st) ? 0 : S::kPad;
  auto* kernel = async_realign_kernel<E, Stages>;
  constexpr std::uint32_t kSmem = smem_bytes<E, Stages>();
  static const int per_sm = [&] {
    int n = 0;
    if (allow_dynamic_smem_bytes(reinterpret_cast<const void*>(kernel), kSmem) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kThreads, kSmem) != cudaSuccess)
      n = 1;
    return std::max(n, 1);
  }();
  const std::int64_t tiles =
      st.batch * ceil_div(a.rows + pad, S::kRows - pad) * ceil_div(a.cols, S::kCols);
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>(tiles, static_cast<std::int64_t>(a.sm_count) * per_sm));
  return launch_with_smem(kernel, dim3(grid), dim3(kThreads), kSmem, a.stream,
                          static_cast<const unsigned char*>(a.src),
                          static_cast<unsigned char*>(a.dst), a.rows, a.cols, st, pad);
}

// Experiment knob (this commit only): TMAKIT_AR_STAGES = 1 (3 blocks per SM) | 2 (default).
int stages_knob() {
  static const int v = [] {
    const char* e = std::getenv("TMAKIT_AR_STAGES");
    return e != nullptr && std::atoi(e) == 1 ? 1 : 2;
  }();
  return v;
}

}  // namespace

cudaError_t kernels::launch_async_realign(const LaunchArgs& a) {
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    return stages_knob() == 1 ? launch_async_realign_e<sizeof(t), 1>(a)
                              : launch_async_realign_e<sizeof(t), 2>(a);
  });
}

}  // namespace tmakit
