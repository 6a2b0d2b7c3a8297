// Experiment (issue 18): the levers the TMA transpose had not tried, each against the same
// baseline in one process. Not part of the build; scripts/tma-levers.sh compiles and runs it on
// the GPU machine. The baseline is `tma_load_store` (kernels/tma/tma_load_store.cu) rebuilt
// from the same primitives: a T x T tile (T = 128 / E, one 128-byte line per row, 128B
// swizzle), 64 threads, one tile per CTA in row-major tile order, load -> in-shared transpose
// -> store. Each variant changes one thing:
//   ld_first / ld_last        loads carry .L2::cache_hint evict_first / evict_last
//   st_first / st_last        stores carry evict_first / evict_last
//   ld_first_st_last          both
//   ld_normal_st_normal       both hinted evict_normal (the cost of carrying a hint at all)
//   persistent                a grid of SMs x occupancy CTAs walks the tiles (n += gridDim.x)
//   persistent_prefetch       ... and prefetches its next tile into L2
//                             (cp.async.bulk.prefetch.tensor) before waiting for this one
//   col_order                 consecutive CTAs walk down a tile column: the output row band
//                             is written by consecutive CTAs, the input read column-wise
//   no_smem_transpose         the loaded tile is stored at the transposed coordinates without
//                             the in-shared transpose: the same global traffic, no shared work
//                             (wrong values: timed, not verified)
//   tile_copy                 the loaded tile stored back at the same coordinates: the copy
//                             roofline of this exact tile geometry
// `combos` (round 2) combines the winners and widens the tile to 2T x 2T, T x 2T, 2T x T and
// (4- and 8-byte elements) 4T x 4T: 256- and 512-byte global segments instead of 128.
// Every verified variant is compared element by element on the device; medians of 15 launches,
// L2 flushed (256 MB memset) before each; GB/s = bytes read + written; % of cudaMemcpyAsync of
// the same bytes in the same process.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <bench/experiments/exp_common.cuh>
#include <kernels/common/swizzle.hpp>
#include <kernels/primitives/tma.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_tile.cuh>

using namespace tmakit;
using namespace tmakit::experiment;
using tma::L2Hint;

enum Op : int { kTranspose = 0, kNoSmemTranspose = 1, kTileCopy = 2 };

template <L2Hint LH, L2Hint SH, int O, bool Persistent, bool Prefetch, bool ColOrder,
          unsigned MR = 1, unsigned MC = 1>
struct Lever {
  static constexpr L2Hint kLoad = LH, kStore = SH;
  static constexpr int kOp = O;
  static constexpr bool kPersistent = Persistent, kPrefetch = Prefetch, kColOrder = ColOrder;
  static constexpr unsigned kMR = MR, kMC = MC;  // tile = (MR * T) x (MC * T) elements
};

constexpr int kMode = kSwizzle128B;

template <int E>
constexpr unsigned kT = 128 / E;  // one 128-byte swizzle span per box line

template <int E, class L>
constexpr unsigned kR = L::kMR* kT<E>;
template <int E, class L>
constexpr unsigned kC = L::kMC* kT<E>;
// 64 threads per 128-byte strip of the tile, at most 256.
template <int E, class L>
constexpr unsigned kThreads = L::kMR* L::kMC * 64 < 256 ? L::kMR* L::kMC * 64 : 256;

template <int E, class L>
constexpr unsigned smem_bytes() {
  return 1024 + 2 * kR<E, L> * kC<E, L> * E + 8;
}

template <int E, class L>
__global__ void __launch_bounds__(kThreads<E, L>)
    lever_kernel(const __grid_constant__ CUtensorMap src_map,
                 const __grid_constant__ CUtensorMap dst_map, int rows, int cols) {
  constexpr unsigned T = kT<E>, R = kR<E, L>, C = kC<E, L>, kBytes = R * C * E;
  extern __shared__ unsigned char smem[];
  unsigned char* in = tma::align_smem<unsigned char>(smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const unsigned tid = threadIdx.x;
  if (tid == 0) {
    tma::prefetch_map(&src_map);
    tma::prefetch_map(&dst_map);
    full.init(1);
    tma::fence_proxy_async_smem();
  }
  __syncthreads();
  const unsigned tiles_r = (rows + R - 1) / R, tiles_c = (cols + C - 1) / C,
                 tiles = tiles_r * tiles_c;
  // Tile n at tile row r, tile column c: row-major (n = r * tiles_c + c) or, with ColOrder,
  // column-major (n = c * tiles_r + r). Its source rows r*R.., columns c*C..
  auto at = [&](unsigned n, int* row0, int* col0) {
    const unsigned r = L::kColOrder ? n % tiles_r : n / tiles_c,
                   c = L::kColOrder ? n / tiles_r : n % tiles_c;
    *row0 = static_cast<int>(r * R);
    *col0 = static_cast<int>(c * C);
  };
  std::uint32_t phase = 0;
  for (unsigned n = blockIdx.x; n < tiles; n += gridDim.x) {
    int row0, col0;
    at(n, &row0, &col0);
    if (tid == 0) {
      full.arrive_expect_tx(kBytes);
      // Box b: source columns col0 + b*T.., R lines, at in + b * R * 128 (tma_tile.hpp).
      for (unsigned b = 0; b < L::kMC; ++b) {
        const int x = col0 + static_cast<int>(b * T);
        if constexpr (L::kLoad == L2Hint::kNone)
          tma::load_3d(in + b * R * 128, &src_map, x, row0, 0, full.handle());
        else
          tma::load_3d_hint(in + b * R * 128, &src_map, x, row0, 0, full.handle(),
                            tma::l2_policy<L::kLoad>());
      }
      if constexpr (L::kPrefetch) {
        if (n + gridDim.x < tiles) {
          int r1, c1;
          at(n + gridDim.x, &r1, &c1);
          for (unsigned b = 0; b < L::kMC; ++b)
            tma::prefetch_3d(&src_map, c1 + static_cast<int>(b * T), r1, 0);
        }
      }
    }
    full.wait({0, phase++, kBytes});
    const unsigned char* buf = in;
    if constexpr (L::kOp == kTranspose) {
      tma::transpose_tile<E, kMode, R, C, kThreads<E, L>>(in, out, tid);
      buf = out;
    }
    tma::fence_proxy_async_smem();
    __syncthreads();
    if (tid == 0) {
      if constexpr (L::kOp == kTileCopy) {  // the loaded boxes back at (col0 + b*T, row0)
        for (unsigned b = 0; b < L::kMC; ++b) {
          const int x = col0 + static_cast<int>(b * T);
          if constexpr (L::kStore == L2Hint::kNone)
            tma::store_3d(&dst_map, x, row0, 0, buf + b * R * 128);
          else
            tma::store_3d_hint(&dst_map, x, row0, 0, buf + b * R * 128,
                               tma::l2_policy<L::kStore>());
        }
      } else {  // transposed: C lines of R elements; box b = dst columns row0 + b*T.., dst rows
                // col0.. (C lines), at out + b * C * 128. Without the in-shared transpose
                // (square tiles only) the loaded boxes go to the same places.
        for (unsigned b = 0; b < L::kMR; ++b) {
          const int x = row0 + static_cast<int>(b * T);
          if constexpr (L::kStore == L2Hint::kNone)
            tma::store_3d(&dst_map, x, col0, 0, buf + b * C * 128);
          else
            tma::store_3d_hint(&dst_map, x, col0, 0, buf + b * C * 128,
                               tma::l2_policy<L::kStore>());
        }
      }
      tma::store_commit();
      tma::store_wait_read<0>();
    }
    __syncthreads();
  }
}

// A rows x cols matrix of E-byte elements (3-D, one matrix deep, like tmakit's maps), boxes of
// box_rows lines of 128 bytes, 128B swizzle.
CUtensorMap make_map(void* base, int e, std::uint64_t rows, std::uint64_t cols, unsigned box_rows) {
  const CUtensorMapDataType type = e == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : e == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : e == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                            : CU_TENSOR_MAP_DATA_TYPE_INT64;
  const cuuint64_t dims[3] = {cols, rows, 1}, strides[2] = {cols * e, rows * cols * e};
  const cuuint32_t box[3] = {cuuint32_t(128 / e), box_rows, 1}, estr[3] = {1, 1, 1};
  CUtensorMap m;
  const CUresult r =
      encode_fn()(&m, type, 3, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "encode failed: %d\n", int(r));
    std::exit(3);
  }
  return m;
}

struct Ctx {
  unsigned char *src, *dst, *flush;
  std::size_t flush_bytes;
  unsigned long long* bad;
  int sms;
  bool keep_persisting;
  cudaEvent_t t0, t1;
};

template <class Launch>
double median_ms(Ctx& c, Launch&& launch) {
  return experiment::median_ms(c.flush, c.flush_bytes, c.t0, c.t1, c.keep_persisting, launch);
}

template <int E, class L>
void run_lever(Ctx& c, const char* name, int rows, int cols, double memcpy_gbps) {
  auto* k = lever_kernel<E, L>;
  constexpr unsigned kSmem = smem_bytes<E, L>(), kThr = kThreads<E, L>;
  CHECK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const CUtensorMap src_map = make_map(c.src, E, rows, cols, kR<E, L>);
  const CUtensorMap dst_map = L::kOp == kTileCopy ? make_map(c.dst, E, rows, cols, kR<E, L>)
                                                  : make_map(c.dst, E, cols, rows, kC<E, L>);
  const unsigned tiles =
      unsigned((rows + kR<E, L> - 1) / kR<E, L>) * ((cols + kC<E, L> - 1) / kC<E, L>);
  int occ = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, kThr, kSmem));
  const unsigned grid = L::kPersistent ? std::min<unsigned>(tiles, unsigned(occ * c.sms)) : tiles;
  CHECK(cudaMemset(c.dst, 0, std::size_t(rows) * cols * E));
  k<<<grid, kThr, kSmem>>>(src_map, dst_map, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  const char* verdict = "unverified";
  if (L::kOp != kNoSmemTranspose) {
    CHECK(cudaMemset(c.bad, 0, sizeof *c.bad));
    verify_kernel<E><<<4 * c.sms, 256>>>(c.src, c.dst, rows, cols, L::kOp == kTranspose, c.bad);
    unsigned long long bad = 0;
    CHECK(cudaMemcpy(&bad, c.bad, sizeof bad, cudaMemcpyDeviceToHost));
    verdict = bad == 0 ? "verified" : "WRONG";
    if (bad != 0) {
      std::printf("e%d %dx%d %-22s WRONG: %llu mismatches\n", E, rows, cols, name, bad);
      return;
    }
  }
  const double ms = median_ms(c, [&] { k<<<grid, kThr, kSmem>>>(src_map, dst_map, rows, cols); });
  const double gbps = 2.0 * rows * double(cols) * E / (ms * 1e6);
  std::printf("e%d %dx%d %-22s %7.0f GB/s %6.1f%% of memcpy  (grid %u, %d CTAs/SM, %s)\n", E, rows,
              cols, name, gbps, 100 * gbps / memcpy_gbps, grid, occ, verdict);
}

template <int E>
double run_memcpy(Ctx& c, int rows, int cols) {
  const std::size_t bytes = std::size_t(rows) * cols * E;
  const double ms =
      median_ms(c, [&] { CHECK(cudaMemcpyAsync(c.dst, c.src, bytes, cudaMemcpyDeviceToDevice)); });
  const double gbps = 2.0 * bytes / (ms * 1e6);
  std::printf("e%d %dx%d %-22s %7.0f GB/s\n", E, rows, cols, "memcpy", gbps);
  return gbps;
}

constexpr L2Hint N = L2Hint::kNone, F = L2Hint::kEvictFirst, La = L2Hint::kEvictLast,
                 No = L2Hint::kEvictNormal;

template <int E>
void prepare(Ctx& c, int rows, int cols) {
  fill_kernel<E><<<4 * c.sms, 256>>>(c.src, std::size_t(rows) * cols);
  CHECK(cudaDeviceSynchronize());
}

template <int E>
void all_levers(Ctx& c, int rows, int cols) {
  prepare<E>(c, rows, cols);
  const double m = run_memcpy<E>(c, rows, cols);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base", rows, cols, m);
  run_lever<E, Lever<F, N, kTranspose, false, false, false>>(c, "ld_first", rows, cols, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, false>>(c, "ld_last", rows, cols, m);
  run_lever<E, Lever<N, F, kTranspose, false, false, false>>(c, "st_first", rows, cols, m);
  run_lever<E, Lever<N, La, kTranspose, false, false, false>>(c, "st_last", rows, cols, m);
  run_lever<E, Lever<F, La, kTranspose, false, false, false>>(c, "ld_first_st_last", rows, cols, m);
  run_lever<E, Lever<No, No, kTranspose, false, false, false>>(c, "ld_normal_st_normal", rows, cols,
                                                               m);
  run_lever<E, Lever<N, N, kTranspose, true, false, false>>(c, "persistent", rows, cols, m);
  run_lever<E, Lever<N, N, kTranspose, true, true, false>>(c, "persistent_prefetch", rows, cols, m);
  run_lever<E, Lever<N, N, kTranspose, false, false, true>>(c, "col_order", rows, cols, m);
  run_lever<E, Lever<N, N, kNoSmemTranspose, false, false, false>>(c, "no_smem_transpose", rows,
                                                                   cols, m);
  run_lever<E, Lever<N, N, kTileCopy, false, false, false>>(c, "tile_copy", rows, cols, m);
  run_lever<E, Lever<F, F, kTileCopy, false, false, false>>(c, "tile_copy_ld_st_first", rows, cols,
                                                            m);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base_again", rows, cols, m);
}

// Round 2: the levers that won in round 1 (column order, evict_last loads) combined, and
// tiles wider than one 128-byte span (256- and 512-byte global segments).
template <int E>
void combos(Ctx& c, int rows, int cols) {
  prepare<E>(c, rows, cols);
  const double m = run_memcpy<E>(c, rows, cols);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base", rows, cols, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, true>>(c, "col_ld_last", rows, cols, m);
  run_lever<E, Lever<N, N, kTranspose, false, false, false, 2, 2>>(c, "t2x2", rows, cols, m);
  run_lever<E, Lever<N, N, kTranspose, false, false, true, 2, 2>>(c, "t2x2_col", rows, cols, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, false, 2, 2>>(c, "t2x2_ld_last", rows, cols,
                                                                    m);
  run_lever<E, Lever<La, N, kTranspose, false, false, true, 2, 2>>(c, "t2x2_col_ld_last", rows,
                                                                   cols, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, true, 1, 2>>(c, "t1x2_col_ld_last", rows,
                                                                   cols, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, true, 2, 1>>(c, "t2x1_col_ld_last", rows,
                                                                   cols, m);
  run_lever<E, Lever<N, N, kTileCopy, false, false, false, 2, 2>>(c, "t2x2_tile_copy", rows, cols,
                                                                  m);
  if constexpr (E >= 4) {
    run_lever<E, Lever<N, N, kTranspose, false, false, false, 4, 4>>(c, "t4x4", rows, cols, m);
    run_lever<E, Lever<La, N, kTranspose, false, false, true, 4, 4>>(c, "t4x4_col_ld_last", rows,
                                                                     cols, m);
  }
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base_again", rows, cols, m);
}

// Session 15: the load hints alone, at an L2-sized and a DRAM-sized square (the flush question).
template <int E>
void hints(Ctx& c, int n) {
  prepare<E>(c, n, n);
  const double m = run_memcpy<E>(c, n, n);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base", n, n, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, false>>(c, "ld_last", n, n, m);
  run_lever<E, Lever<F, N, kTranspose, false, false, false>>(c, "ld_first", n, n, m);
  run_lever<E, Lever<La, N, kTranspose, false, false, true, 2, 2>>(c, "t2x2_col_ld_last", n, n, m);
  run_lever<E, Lever<N, N, kTranspose, false, false, true, 2, 2>>(c, "t2x2_col", n, n, m);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base_again", n, n, m);
}

// The size sweep: where does the transpose's share of memcpy fall, and is it the transpose or
// memcpy that moves?
template <int E>
void size_point(Ctx& c, int n) {
  prepare<E>(c, n, n);
  const double m = run_memcpy<E>(c, n, n);
  run_lever<E, Lever<N, N, kTranspose, false, false, false>>(c, "base", n, n, m);
  run_lever<E, Lever<N, N, kTileCopy, false, false, false>>(c, "tile_copy", n, n, m);
}

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  Ctx c{};
  const char* keep = std::getenv("TMAKIT_FLUSH_KEEP_PERSISTING");
  c.keep_persisting = keep != nullptr && std::string(keep) == "1";
  CHECK(cudaDeviceGetAttribute(&c.sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  int drv = 0;
  CHECK(cudaDriverGetVersion(&drv));
  std::printf("# %s, %d SMs, L2 %d bytes, driver %d\n", p.name, c.sms, p.l2CacheSize, drv);
  const std::size_t max_bytes = std::size_t(32768) * 32768 * 8;
  CHECK(cudaMalloc(&c.src, max_bytes));
  CHECK(cudaMalloc(&c.dst, max_bytes));
  c.flush_bytes = std::size_t(256) << 20;
  CHECK(cudaMalloc(&c.flush, c.flush_bytes));
  CHECK(cudaMalloc(&c.bad, sizeof *c.bad));
  CHECK(cudaEventCreate(&c.t0));
  CHECK(cudaEventCreate(&c.t1));
  if (what == "all" || what == "levers") {
    for (int n : {16384, 32768}) {
      all_levers<1>(c, n, n);
      all_levers<2>(c, n, n);
      all_levers<4>(c, n, n);
      all_levers<8>(c, n, n);
    }
  }
  if (what == "combos") {
    for (int n : {16384, 32768}) {
      combos<1>(c, n, n);
      combos<2>(c, n, n);
      combos<4>(c, n, n);
      combos<8>(c, n, n);
    }
  }
  if (what == "hints") {
    std::printf("# flush %s persisting lines\n", c.keep_persisting ? "keeps" : "demotes");
    for (int n : {2048, 16384}) {
      hints<1>(c, n);
      hints<2>(c, n);
      hints<4>(c, n);
      hints<8>(c, n);
    }
  }
  if (what == "all" || what == "sizes") {
    for (int n : {2048, 4096, 5792, 8192, 11584, 16384, 23168, 32768}) size_point<1>(c, n);
    for (int n : {2048, 4096, 8192, 16384, 32768}) size_point<4>(c, n);
  }
  return 0;
}
