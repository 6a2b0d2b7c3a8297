// smem_sector: smem_wide whose blocks write whole 32-byte sectors of the output. When an
// output row is not a multiple of 32 bytes, smem_wide's tile boundaries (every 64 elements)
// fall inside sectors, and two blocks write the two halves of each boundary sector at
// different times. Measured on the H100 (docs/perf-guide.md): the same
// 12288 x 6784 transpose with the input pitch made odd costs smem_wide 3%, with the output
// pitch made odd 37% (4-byte elements). So here each block owns, in output row c, the
// elements whose sectors start in its range:
//   own(c) = [r0 - sh(c), r0 + O - sh(c)),  sh(c) = (address of out[c][r0] mod 32) / E
// (clipped to [0, rows)). O*E is a multiple of 32, so sh(c) is the same for every tile of the
// row and the ranges of consecutive tiles meet exactly. The block therefore loads P = 32/E
// (at least 8) more input rows above its own: r0 - P .. r0 + O - 1, and one more row of tiles
// covers the last rows' shift. When every output row starts on a sector the extra rows are not
// loaded (sh = 0 everywhere).
//
// Coordinates: N = 64 tile columns, O owned rows (64; 128 at 4 B on HBM3e, below), tile row
// i <-> input row r0 - P + i, i = 0..P+O-1. Thread (tx, ty), 32 x 8:
//   load : tile(i, tx+32m) <- in[r0-P+i][c0+tx+32m],  i = ty, ty+8, ..
//   store: out[c0+oc][s+tx+32m] <- tile(s+tx+32m - (r0-P), oc),  oc = ty, ty+8, .., s =
//   r0-sh(c0+oc)
// Shared element (i, c) at i*N + (c ^ (i mod N)) (smem_wide's XOR): a warp's store reads 32
// consecutive i of one column, 32 distinct banks for 4-byte elements.
// (in[r][c] sits at r*src_ld + c of its matrix, out[i][j] at i*dst_ld + j; matrix b of the
// batch at b*src_batch and b*dst_batch.)
// Tile order, per GPU: on HBM3e (the H200, kernels::is_hbm3e) the blocks walk down tile columns
// (for_each_tile<true>), so the tiles in flight fill one output row band; on the H100 the
// grouped row-major order. Measured on the H200 (docs/perf-guide.md; data at commit 358db19), the
// eight odd shapes of the probe and full presets, % of memcpy, row-major -> column-major: 8 B +2.4
// to +7.2 points on six (9999^2 88.5 -> 93.5, 777x20001 89.9 -> 97.1), 20001x777 -0.1, 1001x999
// (L2-sized) -3.5; 4 B -1.5 to +6.1. On the H100 (2026-11-24) mixed, -3.4 to +4.1: it keeps the
// row-major order. Tile height, per GPU: at 4 B on HBM3e a block owns kN2 = 128 output elements per
// row (136 tile rows x 64 columns, 34 loads in flight per thread instead of 18; the row pointer
// advances by 8 rows per load row, which keeps the L2-hinted kernel at 64 registers without
// spills). Measured (docs/perf-guide.md; data at commit 358db19), % of memcpy, two rounds, 64 ->
// 128 owned rows: H200 odd 4 B +1.7 to +2.7 on the four large shapes (12345x6789 87.8 -> 90.7,
// 9999^2 88.5 -> 90.8), 20001x777 +2.7, 3001x4999 / 777x20001 / 4097x4095 -0.1 to -0.9; ncu at
// 6789x12345: 116.7 -> 85.7 M warp instructions, 183.4 -> 178.1 us. H100 odd 4 B -0.1 to +2.1
// (12345x6789 93.1 -> 93.5, 6789x12345 93.3 -> 93.2), squares 16384^2 / 32768^2 -0.9: the H100
// keeps 64 rows.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kN = 64;    // tile columns = owned output elements per row
constexpr int kN2 = 128;  // owned output elements per row, 4 B on HBM3e (kTall)

// Owned output elements per row (tile rows below the P extra ones).
template <class T, bool kTall>
inline constexpr int kSectorOwn = kTall && sizeof(T) == 4 ? kN2 : kN;

template <class T, int G, bool ColumnMajor, bool kTall, int L2B = 0>
__global__ void __launch_bounds__(256, 4)  // <= 64 registers: 4 blocks per SM at least
    smem_sector_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                       std::int64_t cols, BatchStrides st, int pad_rows) {
  constexpr int E = sizeof(T);
  constexpr int P = (G / E + 7) / 8 * 8;    // extra rows above the owned ones (a multiple of 8)
  constexpr int kO = kSectorOwn<T, kTall>;  // owned output elements per row
  constexpr bool kIncPtr = kO != kN;        // the tall tile's one advancing row pointer
  constexpr int NL = P + kO;                // tile rows
  static_assert((kO * E) % G == 0, "owned ranges of consecutive tiles must meet");
  __shared__ T tile[NL * kN];
  auto at = [](int i, int c) { return i * kN + (c ^ (i & (kN - 1))); };
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t lds = st.src_ld_elems, ldd = st.dst_ld_elems;
  const int first = P - pad_rows;  // first tile row loaded (0, or P when no row is shifted)
  // One more row of tiles when rows are shifted: the last owned range reaches past rows.
  const std::int64_t tiles_y = ceil_div(rows + pad_rows, kO), tiles_x = ceil_div(cols, kN);

  for_each_tile<ColumnMajor>(
      st.batch, tiles_y, tiles_x, [&](std::int64_t b, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + b * st.src_batch_elems;
        T* dst = dst_base + b * st.dst_batch_elems;
        const std::int64_t r0 = tile_y * kO, c0 = tile_x * kN, rb = r0 - P;
        // Loads first, all in flight (predicated), then the shared writes.
        const bool interior = rb + first >= 0 && r0 + kO <= rows && c0 + kN <= cols;
        T v[NL / 8][kN / 32];
        const T* in_next = src + (rb + ty) * lds + c0 + tx;  // kIncPtr: row rb + ty + j
#pragma unroll
        for (int j = 0; j < NL; j += 8) {
          const int i = ty + j;
          const std::int64_t r = rb + i;
          const T* in = kIncPtr ? in_next : src + r * lds + c0 + tx;
          if constexpr (kIncPtr) in_next += 8 * lds;
#pragma unroll
          for (int m = 0; m < kN; m += 32) {
            // (kIncPtr: rows i >= P are never above `first`, said so the compiler need not check)
            const bool ok = (kIncPtr ? (j >= P || i >= first) : i >= first) &&
                            (interior || (r >= 0 && r < rows && c0 + tx + m < cols));
            if constexpr (L2B == 0)
              v[j / 8][m / 32] = ok ? in[m] : T(0);
            else
              v[j / 8][m / 32] = ok ? ld_nc_l2<L2B>(in + m) : T(0);
          }
        }
#pragma unroll
        for (int j = 0; j < NL; j += 8)
#pragma unroll
          for (int m = 0; m < kN; m += 32) tile[at(ty + j, tx + m)] = v[j / 8][m / 32];
        __syncthreads();
    // Stores: the owned range of each output row, read from shared memory first.
#pragma unroll
        for (int j = 0; j < kN; j += 8) {
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
  // HBM3e (the H200): column-major tile order and, at 4 B, the tall tile (kSectorOwn).
  const bool hbm3e = kernels::is_hbm3e(a.dram_gbps);
  const int own = hbm3e ? kSectorOwn<T, true> : kSectorOwn<T, false>;
  const TileGrid g = tile_grid(ceil_div(a.rows + pad, own), ceil_div(a.cols, kN), a.strides.batch);
  auto go = [&](auto l2b) {
    constexpr int L2B = decltype(l2b)::value;
    auto* kernel = hbm3e ? smem_sector_kernel<T, G, true, true, L2B>
                         : smem_sector_kernel<T, G, false, false, L2B>;
    kernel<<<dim3(g.x, g.y, g.z), dim3(32, 8), 0, a.stream>>>(
        static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides, pad);
    return cudaGetLastError();
  };
  // Hopper, 4-8 B, the default 32-byte sectors: loads with .L2::256B. H200, 2026-11-25 (% of
  // memcpy, two runs each): odd 4 B 12345x6789 / 6789x12345 82.3 / 82.7 -> 84.8 / 85.0, 8 B
  // 93.7 / 94.4 -> 95.2 / 95.8; batches within +-0.6. H100, 2026-11-25: odd 8 B 92.3 -> 93.4,
  // the rest -0.5 to +1.9. At 1-2 B the hinted loads spill and ran 2-3 points lower (H200):
  // they keep the plain load.
  constexpr bool kHintable = G == 32 && sizeof(T) >= 4;
  if constexpr (kHintable) return with_l2_hint<256>(kernels::l2_hint_pays(a), go);
  return go(std::integral_constant<int, 0>{});
}

}  // namespace

// Experiment knob (docs/perf-guide.md): TMAKIT_SECTOR_BYTES=16|32|64|128 sets the
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
