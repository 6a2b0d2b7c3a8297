// smem_sector's kernel (kernels/classic/smem_sector.cu says what the technique adds and why),
// templated on its epilogue (kernels/primitives/epilogue.cuh): smem_sector instantiates it with
// StoreCopy, sector_accumulate with StoreAxpby.
#pragma once
#include <cstdint>
#include <type_traits>
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/epilogue.cuh>
#include <kernels/primitives/ld_l2.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit::sector {

constexpr int kN = 64;    // tile columns = owned output elements per row
constexpr int kN2 = 128;  // owned output elements per row, 4 B on HBM3e (kTall)

// Owned output elements per row (tile rows below the P extra ones).
template <class T, bool kTall>
inline constexpr int kSectorOwn = kTall && sizeof(T) == 4 ? kN2 : kN;

// <= 64 registers (4 blocks per SM) for a transpose; an accumulate that reads dst holds its 16
// dst elements and its scalars too: <= 80 (3 blocks; under 64 it spilled 44-144 bytes).
template <class T, int G, bool ColumnMajor, bool kTall, int L2B, class Epi, bool Batches = false>
__global__ void __launch_bounds__(256, std::is_same_v<Epi, StoreCopy> ? 4 : 3)
    smem_sector_kernel(const T* __restrict__ src_base, T* __restrict__ dst_base, std::int64_t rows,
                       std::int64_t cols, BatchStrides st, int pad_rows, Epi epi) {
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

  for_each_matrix_tile<ColumnMajor, Batches>(
      st, tiles_y, tiles_x,
      [&](std::int64_t src_off, std::int64_t dst_off, std::int64_t tile_y, std::int64_t tile_x) {
        const T* src = src_base + src_off;
        T* dst = dst_base + dst_off;
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
        // Output row c0 + oc (oc = ty + j): its pointer, shift, first owned element s, and whether
        // all of [s, s + kO) lies in [0, rows).
        auto out_row = [&](int j, T*& out, int& sh, std::int64_t& s, bool& row_ok, bool& whole) {
          const int oc = ty + j;
          out = dst + (c0 + oc) * ldd;
          sh = static_cast<int>((reinterpret_cast<std::uintptr_t>(out + r0) % G) / E);
          s = r0 - sh;
          row_ok = c0 + oc < cols;
          whole = s >= 0 && s + kO <= rows;
        };
        // An accumulate's reads of its owned dst elements (kernels/primitives/epilogue.cuh).
        T old[kN / 8][kO / 32];
        auto read_old = [&] {
#pragma unroll
          for (int j = 0; j < kN; j += 8) {
            T* out;
            int sh;
            std::int64_t s;
            bool row_ok, whole;
            out_row(j, out, sh, s, row_ok, whole);
#pragma unroll
            for (int m = 0; m < kO; m += 32) {
              const std::int64_t r = s + tx + m;
              old[j / 8][m / 32] =
                  row_ok && (whole || (r >= 0 && r < rows)) ? epi.load(out + r) : T{};
            }
          }
        };
        // Up to 4 B, issued with the source loads, so both wait out one DRAM latency together
        // (issued after the shared writes instead, sector_accumulate ran 12345 x 6789 4 B at
        // 67% of the three-stream roofline on the H100); at 8 B the two sets of registers do not
        // fit: after the shared writes, in flight across the barrier.
        constexpr bool kOldEarly = Epi::kReadsDst && sizeof(T) <= 4;
        if constexpr (kOldEarly) read_old();
#pragma unroll
        for (int j = 0; j < NL; j += 8)
#pragma unroll
          for (int m = 0; m < kN; m += 32) tile[at(ty + j, tx + m)] = v[j / 8][m / 32];
        if constexpr (Epi::kReadsDst && !kOldEarly) read_old();
        __syncthreads();
    // Stores: the owned range of each output row, read from shared memory first.
#pragma unroll
        for (int j = 0; j < kN; j += 8) {
          const int oc = ty + j;
          T* out;
          int sh;
          std::int64_t s;
          bool row_ok, whole;
          out_row(j, out, sh, s, row_ok, whole);
          T w[kO / 32];
#pragma unroll
          for (int m = 0; m < kO; m += 32) w[m / 32] = tile[at(P - sh + tx + m, oc)];
#pragma unroll
          for (int m = 0; m < kO; m += 32) {
            const std::int64_t r = s + tx + m;
            if (row_ok && (whole || (r >= 0 && r < rows)))
              out[r] = epi.combine(w[m / 32], old[j / 8][m / 32]);
          }
        }
        __syncthreads();  // the next tile overwrites `tile`
      });
}

template <class T, int G, class Epi = StoreCopy>
cudaError_t launch_sector(const kernels::LaunchArgs& a, const Epi& epi = {}) {
  // Rows are shifted unless every output row starts on a G-byte boundary.
  const bool aligned = reinterpret_cast<std::uintptr_t>(a.dst) % G == 0 &&
                       (a.strides.dst_ld_elems * int(sizeof(T))) % G == 0 &&
                       a.strides.dst_batches_multiple_of(G / int(sizeof(T)));
  constexpr int P = (G / int(sizeof(T)) + 7) / 8 * 8;
  const int pad = aligned ? 0 : P;
  // The policy's tile order: down tile columns with, at 4 B, the tall tile (kSectorOwn), or
  // grouped rows (DevicePolicy::sector_column_tiles, set for the H200).
  const bool column_tiles = a.policy.sector_column_tiles;
  // An accumulate keeps the 64-row tile: the tall tile's 32 dst reads in flight per thread spill
  // (448 bytes at 4 B).
  constexpr bool kTallOk = !Epi::kReadsDst;
  const int own = column_tiles ? kSectorOwn<T, kTallOk> : kSectorOwn<T, false>;
  const TileGrid g = tile_grid(ceil_div(a.rows + pad, own), ceil_div(a.cols, kN), a.strides.batch);
  auto go = [&](auto l2b) {
    constexpr int L2B = decltype(l2b)::value;
    auto* kernel = column_tiles ? smem_sector_kernel<T, G, true, kTallOk, L2B, Epi>
                                : smem_sector_kernel<T, G, false, false, L2B, Epi>;
    // A batch of several dimensions: transposes only (no accumulate technique takes one).
    if constexpr (std::is_same_v<Epi, StoreCopy>)
      if (a.strides.has_batch_dims())
        kernel = column_tiles ? smem_sector_kernel<T, G, true, kTallOk, L2B, Epi, true>
                              : smem_sector_kernel<T, G, false, false, L2B, Epi, true>;
    kernel<<<dim3(g.x, g.y, g.z), dim3(32, 8), 0, a.stream>>>(
        static_cast<const T*>(a.src), static_cast<T*>(a.dst), a.rows, a.cols, a.strides, pad, epi);
    return cudaGetLastError();
  };
  // Hopper, 4-8 B, the default 32-byte sectors: loads with .L2::256B (odd shapes gained 1-2.5
  // points, batches stayed within noise). At 1-2 B the hinted loads spill and ran lower: they
  // keep the plain load (docs/perf-guide.md section 6).
  constexpr bool kHintable = G == 32 && sizeof(T) >= 4;
  if constexpr (kHintable) return with_l2_hint<256>(kernels::l2_hint_pays(a), go);
  return go(std::integral_constant<int, 0>{});
}

}  // namespace tmakit::sector
