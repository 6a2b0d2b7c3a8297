// smem_sector: smem_wide whose blocks write whole 32-byte sectors of the output. When an
// output row is not a multiple of 32 bytes, smem_wide's tile boundaries (every 64 elements)
// fall inside sectors, and two blocks write the two halves of each boundary sector at
// different times. Measured on the H100 (docs/perf-notes.md, session 6): the same
// 12288 x 6784 transpose with the input pitch made odd costs smem_wide 3%, with the output
// pitch made odd 37% (4-byte elements). So here each block owns, in output row c, the
// elements whose sectors start in its range:
//   own(c) = [r0 - sh(c), r0 + N - sh(c)),  sh(c) = (address of out[c][r0] mod 32) / E
// (clipped to [0, rows)). N*E is a multiple of 32, so sh(c) is the same for every tile of the
// row and the ranges of consecutive tiles meet exactly. The block therefore loads P = 32/E
// (at least 8) more input rows above its own: r0 - P .. r0 + N - 1, and one more row of tiles
// covers the last rows' shift. When every output row starts on a sector the extra rows are not
// loaded (sh = 0 everywhere).
//
// Coordinates: N = 64 (tile columns and owned rows), tile row i <-> input row r0 - P + i,
// i = 0..P+N-1. Thread (tx, ty), 32 x 8:
//   load : tile(i, tx+32m) <- in[r0-P+i][c0+tx+32m],  i = ty, ty+8, ..
//   store: out[c0+oc][s+tx+32m] <- tile(s+tx+32m - (r0-P), oc),  oc = ty, ty+8, .., s =
//   r0-sh(c0+oc)
// Shared element (i, c) at i*N + (c ^ (i mod N)) (smem_wide's XOR): a warp's store reads 32
// consecutive i of one column, 32 distinct banks for 4-byte elements.
// (in[r][c] sits at r*src_ld + c of its matrix, out[i][j] at i*dst_ld + j; matrix b of the
// batch at b*src_batch and b*dst_batch.)
// Tile order, per GPU: on HBM3e (the H200, kernels::is_hbm3e) the blocks walk down tile columns
// (for_each_tile<true>), so the tiles in flight fill one output row band; on the H100 the
// grouped row-major order. Measured on the H200 (docs/perf-notes.md, session 14; docs/data/
// sector-order-h200-2026-11-24.txt), the eight odd shapes of the probe and full presets, % of
// memcpy, row-major -> column-major: 8 B +2.4 to +7.2 points on six (9999^2 88.5 -> 93.5,
// 777x20001 89.9 -> 97.1), 20001x777 -0.1, 1001x999 (L2-sized) -3.5; 4 B -1.5 to +6.1. On the
// H100 (session 13) mixed, -3.4 to +4.1: it keeps the row-major order.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kN = 64;  // tile columns = owned output elements per row

// Experiment (session 31): a wider or taller tile at 4 B, twice the loads in flight per thread.
template <class T>
constexpr int sector_cols() {
#ifdef TMAKIT_SECTOR_C128
  if (sizeof(T) == 4) return 128;
#endif
  return kN;
}
template <class T>
constexpr int sector_own() {
#ifdef TMAKIT_SECTOR_R128
  if (sizeof(T) == 4) return 128;
#endif
  return kN;
}

#if defined(TMAKIT_SECTOR_MINB3)
constexpr int kSectorMinBlocks = 3;
#else
constexpr int kSectorMinBlocks = 4;
#endif
template <class T, int G, bool ColumnMajor, int L2B = 0>
__global__ void __launch_bounds__(256, kSectorMinBlocks)  // <= 64 registers: 4 blocks per SM at least
    smem_sector_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                       std::int64_t cols, BatchStrides st, int pad_rows) {
  constexpr int E = sizeof(T);
  constexpr int P = (G / E + 7) / 8 * 8;  // extra rows above the owned ones (a multiple of 8)
  constexpr int kC = sector_cols<T>(), kO = sector_own<T>();
  constexpr int NL = P + kO;              // tile rows
  static_assert((kO * E) % G == 0, "owned ranges of consecutive tiles must meet");
  __shared__ T tile[NL * kC];
  auto at = [](int i, int c) { return i * kC + (c ^ (i & (kC - 1))); };
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  const int first = P - pad_rows;  // first tile row loaded (0, or P when no row is shifted)
  // One more row of tiles when rows are shifted: the last owned range reaches past rows.
  const std::int64_t tiles_y = ceil_div(rows + pad_rows, kO), tiles_x = ceil_div(cols, kC);

  for_each_tile<ColumnMajor>(
      st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + b * st.src_batch_elems;
        T* dst = dst_base + b * st.dst_batch_elems;
        const std::int64_t r0 = tile_y * kO, c0 = tile_x * kC, rb = r0 - P;
        // Loads first, all in flight (predicated), then the shared writes.
        const bool interior = rb + first >= 0 && r0 + kO <= rows && c0 + kC <= cols;
        T v[NL / 8][kC / 32];
        auto load = [&](auto interior_c) {
          const bool inter = interior_c;
#ifdef TMAKIT_SECTOR_INC
          const T* in = src + (rb + ty) * lds + c0 + tx;
#pragma unroll
          for (int j = 0; j < NL; j += 8, in += 8 * lds) {
#else
#pragma unroll
          for (int j = 0; j < NL; j += 8) {
            const T* in = src + (rb + ty + j) * lds + c0 + tx;
#endif
            const int i = ty + j;
            const std::int64_t r = rb + i;
#pragma unroll
            for (int m = 0; m < kC; m += 32) {
              // Rows i >= P are never above `first`.
              const bool ok = (j >= P || i >= first) &&
                              (inter || (r >= 0 && r < rows && c0 + tx + m < cols));
              if constexpr (L2B == 0)
                v[j / 8][m / 32] = ok ? in[m] : T(0);
              else
                v[j / 8][m / 32] = ok ? ld_nc_l2<L2B>(in + m) : T(0);
            }
          }
        };
#ifdef TMAKIT_SECTOR_SPLIT
        if (interior)
          load(std::true_type{});
        else
          load(std::false_type{});
#else
        load(interior);
#endif
#pragma unroll
        for (int j = 0; j < NL; j += 8)
#pragma unroll
          for (int m = 0; m < kC; m += 32) tile[at(ty + j, tx + m)] = v[j / 8][m / 32];
        __syncthreads();
    // Stores: the owned range of each output row, read from shared memory first.
#pragma unroll
        for (int j = 0; j < kC; j += 8) {
          const int oc = ty + j;
          T* out = dst + (c0 + oc) * ldd;
          const int sh = static_cast<int>((reinterpret_cast<std::uintptr_t>(out + r0) % G) / E);
          const std::int64_t s = r0 - sh;  // first owned output element of this row
          const bool row_ok = c0 + oc < cols;
          const bool whole = s >= 0 && s + kO <= rows;
          T w[kO / 32];
#pragma unroll
          for (int m = 0; m < kO; m += 32) w[m / 32] = tile[at(P - sh + tx + m, oc)];
#pragma unroll
          for (int m = 0; m < kO; m += 32) {
            const std::int64_t r = s + tx + m;
            if (row_ok && (whole || (r >= 0 && r < rows))) out[r] = w[m / 32];
          }
        }
        __syncthreads();  // the next tile overwrites `tile`
      });
}

template <class T, int G>
cudaError_t launch_sector(const kernels::LaunchArgs& a) {
  // Rows are shifted unless every output row starts on a G-byte boundary.
  const bool aligned =
      reinterpret_cast<std::uintptr_t>(a.dst) % G == 0 &&
      (a.strides.dst_ld_elems * int(sizeof(T))) % G == 0 &&
      (a.strides.batch == 1 || (a.strides.dst_batch_elems * int(sizeof(T))) % G == 0);
  constexpr int P = (G / int(sizeof(T)) + 7) / 8 * 8;
  const int pad = aligned ? 0 : P;
  const TileGrid g = tile_grid(ceil_div(a.rows + pad, sector_own<T>()), ceil_div(a.cols, sector_cols<T>()),
                               a.strides.batch);
  auto go = [&](auto l2b) {
    constexpr int L2B = decltype(l2b)::value;
    auto* kernel = kernels::is_hbm3e(a.dram_gbps) ? smem_sector_kernel<T, G, true, L2B>
                                                  : smem_sector_kernel<T, G, false, L2B>;
    kernel<<<dim3(g.x, g.y, g.z), dim3(32, 8), 0, a.stream>>>(
        static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides, pad);
    return cudaGetLastError();
  };
  // Hopper, 4-8 B, the default 32-byte sectors: loads with .L2::256B. H200, session 26 (% of
  // memcpy, two runs each): odd 4 B 12345x6789 / 6789x12345 82.3 / 82.7 -> 84.8 / 85.0, 8 B
  // 93.7 / 94.4 -> 95.2 / 95.8; batches within +-0.6. H100, session 27: odd 8 B 92.3 -> 93.4,
  // the rest -0.5 to +1.9. At 1-2 B the hinted loads spill and ran 2-3 points lower (H200):
  // they keep the plain load.
  constexpr bool kHintable = G == 32 && sizeof(T) >= 4;
  if constexpr (kHintable) return with_l2_hint<256>(kernels::l2_hint_pays(a), go);
  return go(std::integral_constant<int, 0>{});
}

}  // namespace

// Experiment knob (docs/perf-notes.md, session 6): TMAKIT_SECTOR_BYTES=16|32|64|128 sets the
// owned granularity (default 32; 128 not for 1-byte elements).
cudaError_t kernels::launch_smem_sector(const LaunchArgs& a) {
  int g = 32;
  if (const char* env = std::getenv("TMAKIT_SECTOR_BYTES")) g = std::atoi(env);
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) {
    using T = decltype(t);
    if (g == 16) return launch_sector<T, 16>(a);
    if (g == 64) return launch_sector<T, 64>(a);
    if constexpr (sizeof(T) >= 2)
      if (g == 128) return launch_sector<T, 128>(a);
    return launch_sector<T, 32>(a);
  });
}

}  // namespace tmakit
