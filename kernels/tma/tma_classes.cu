// tma_classes: tma_pipeline for rows of any byte length. A tensor map needs rows whose pitch is
// a multiple of 16 bytes, so on odd shapes (12345 x 6789 at 1-2 B) every TMA technique falls
// back, and the best classic kernel (smem_realign) is latency-bound at 58-78% of memcpy: its
// loads, realignment shuffles and stores take turns in each CTA (docs/perf-notes.md). Here
// each side is split into V = 16 / E row classes, rows k, k + V, ... (kernels/common/
// tma_classes.hpp): a class's rows are V * pitch bytes apart, a 16-byte multiple, so every
// class has a tensor map, and TMA, which takes box coordinates at any element, does the
// realignment. A tile (T = 128 / E rows x 128 bytes) is V boxes of 8 lines, one per class;
// the transposed tile is stored the same way, V boxes into dst's class maps. The rest is
// tma_pipeline: persistent CTAs, a ring of kStages load stages with one mbarrier each, two
// output buffers retired by bulk groups.
//
// One exception to TMA doing the edges: a TMA store whose box crosses the end of a row that is
// not a 16-byte multiple also writes the rest of that 16-byte granule (measured on the H100,
// tests/sm90/test_tma_store_rows.cpp), which here is the next row's data. So the tiles whose
// transposed rows end inside the tile (the last tile row of src, when rows is not a multiple
// of T) are written by the threads, element by element, from the transposed tile; only they.
#include <algorithm>
#include <kernels/common/grid.hpp>
#include <kernels/common/tma_classes.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

using Addr = std::uintptr_t;

constexpr std::uint32_t kThreads = 64;  // one V x V block each: 8 row groups x 8 chunk columns
constexpr std::uint32_t kStages = 4;    // tma_pipeline's ring (16 KB tiles, 2 CTAs per SM)
constexpr std::uint32_t kOutBuffers = 2;
constexpr std::uint32_t kCtasPerSm = 2;
constexpr std::uint32_t kTileBytes = 128 * 128;

// The V class maps of each side, passed by value (param space, as TMA requires): 4 KB at 1 B,
// which needs the large kernel parameters of CUDA 12.1+ (sm_70+).
template <int V>
struct ClassMaps {
  CUtensorMap src[V];
  CUtensorMap dst[V];
};

// A side's base address and row pitch, for its classes' element shifts.
struct SideAt {
  Addr base;
  std::int64_t pitch_bytes, batch_bytes;
};

template <int E>
constexpr std::uint32_t smem_bytes() {
  return kSmemAlignSlack + (kStages + kOutBuffers) * kTileBytes + 8 * kStages;
}

template <int E>
__global__ void __launch_bounds__(kThreads)
    tma_classes_kernel(const __grid_constant__ ClassMaps<16 / E> maps, SideAt src_at,
                       SideAt dst_at, std::int64_t rows, std::int64_t cols, std::int64_t batch) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr int V = 16 / E;
  constexpr std::uint32_t T = 128 / E;
  extern __shared__ unsigned char tma_classes_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(tma_classes_smem, 1024);  // kStages tiles
  unsigned char* out = in + kStages * kTileBytes;                              // 2 buffers
  unsigned char* bars = out + kOutBuffers * kTileBytes;
  auto full = [&](std::uint32_t s) { return tma::TxBarrier<BarrierStyle::kPtx>(bars + 8 * s); };

  const std::uint32_t tid = threadIdx.x;
  const std::int64_t tiles_r = ceil_div(rows, std::int64_t(T)), tiles_c = ceil_div(cols, std::int64_t(T)),
                     per = tiles_r * tiles_c, tiles = batch * per;
  using U = std::uint32_t;
  struct Tile {
    std::int32_t r0, c0, z;
  };
  auto tile_at = [&](std::int64_t n) {
    const std::int64_t z = batch == 1 ? 0 : n / per;
    const TileAt<U> t = grouped_tile<U>(U(n - z * per), U(tiles_r), U(tiles_c), U(kTileGroup));
    return Tile{static_cast<std::int32_t>(t.r * T), static_cast<std::int32_t>(t.c * T),
                static_cast<std::int32_t>(z)};
  };
  // Class k's element shift (batch strides are 16-byte multiples: the same for every matrix).
  auto shift = [](const SideAt& at, int k) {
    return static_cast<std::int32_t>(((at.base + Addr(k * at.pitch_bytes)) & 15u) / E);
  };
  auto issue_load = [&](std::int64_t n, std::uint32_t s) {
    auto bar = full(s);
    bar.arrive_expect_tx(kTileBytes);  // out-of-bounds box parts arrive zero-filled
    const Tile at = tile_at(n);
#pragma unroll
    for (int k = 0; k < V; ++k)  // tile rows k + V m of class k: map rows r0 / V + m
      tma::load_3d(in + s * kTileBytes + 1024 * k, &maps.src[k], at.c0 + shift(src_at, k),
                   at.r0 / V, at.z, bar.handle());
  };

  if (tid == 0) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      tma::prefetch_map(&maps.src[k]);
      tma::prefetch_map(&maps.dst[k]);
    }
    for (std::uint32_t s = 0; s < kStages; ++s) full(s).init(1);
    tma::fence_proxy_async_smem();
    for (std::uint32_t s = 0; s < kStages; ++s) {
      const std::int64_t n = blockIdx.x + static_cast<std::int64_t>(s) * gridDim.x;
      if (n < tiles) issue_load(n, s);
    }
  }
  __syncthreads();

  // Thread (t, l): block of tile rows V t.. (row group t) x chunk column l.
  const std::uint32_t l = tid % 8, t = tid / 8;
  std::uint32_t it = 0;
  for (std::int64_t n = blockIdx.x; n < tiles; n += gridDim.x, ++it) {
    const std::uint32_t s = it % kStages;
    unsigned char* ob = out + (it % kOutBuffers) * kTileBytes;
    full(s).wait({s, it / kStages, kTileBytes});
    {
      // Tile row V t + u is line 8u + t, its chunk l at position l ^ t; transposed row V l + u
      // is line 8u + l, its chunk t at position t ^ l (tma_classes.hpp).
      const unsigned char* src_tile = in + s * kTileBytes;
      Chunk16 x[V], y[V];
#pragma unroll
      for (int u = 0; u < V; ++u)
        *reinterpret_cast<uint4*>(&x[u]) = *reinterpret_cast<const uint4*>(
            src_tile + class_tile_offset(V * t + u, 16 * l, E));
      transpose_chunks<E>(x, y);
#pragma unroll
      for (int u = 0; u < V; ++u)
        *reinterpret_cast<uint4*>(ob + class_tile_offset(V * l + u, 16 * t, E)) =
            *reinterpret_cast<const uint4*>(&y[u]);
    }
    tma::fence_proxy_async_smem();
    if (tid == 0) tma::store_wait_read<0>();  // the previous tile's store has read its buffer
    __syncthreads();
    const Tile at = tile_at(n);
    const bool whole_rows = at.r0 + static_cast<std::int64_t>(T) <= rows;  // dst rows end past
    if (tid == 0) {
      if (whole_rows) {
#pragma unroll
        for (int k = 0; k < V; ++k)  // dst rows c0 + k + V m: class k's map rows c0 / V + m
          if (at.c0 + k < cols)      // a box wholly past dst's last row stores nothing: skipped
            tma::store_3d(&maps.dst[k], at.r0 + shift(dst_at, k), at.c0 / V, at.z,
                          ob + 1024 * k);
        tma::store_commit();
      }
      const std::int64_t next = n + static_cast<std::int64_t>(kStages) * gridDim.x;
      if (next < tiles) issue_load(next, s);  // stage s was consumed by every thread
    }
    if (!whole_rows) {
      // The last tile row: dst rows c0 + j (< cols) get elements r0 .. rows - 1, one thread per
      // element along the row (8 rows of 8 elements... per pass: consecutive threads, consecutive
      // elements), read back from the transposed tile.
      using Elem = typename ElemOf<E>::type;
      const auto ni = static_cast<std::uint32_t>(rows - at.r0);
      const std::int64_t nj = std::min<std::int64_t>(T, cols - at.c0);
      unsigned char* d = reinterpret_cast<unsigned char*>(dst_at.base) +
                         at.z * dst_at.batch_bytes + at.c0 * dst_at.pitch_bytes +
                         static_cast<std::int64_t>(at.r0) * E;
      for (std::uint32_t j = 0; j < nj; ++j)
        for (std::uint32_t i = tid; i < ni; i += kThreads)
          *reinterpret_cast<Elem*>(d + j * dst_at.pitch_bytes + i * E) =
              *reinterpret_cast<const Elem*>(ob + class_tile_offset(j, i * E, E));
    }
  }
  if (tid == 0) tma::store_wait_read<0>();  // shared memory must outlive the last store's reads
#else
  __trap();
#endif
}

template <int E>
cudaError_t launch_classes(const kernels::LaunchArgs& a) {
  constexpr int V = 16 / E;
  ClassMaps<V> maps;
  for (int k = 0; k < V; ++k) {
    maps.src[k] = a.src_map[k];
    maps.dst[k] = a.dst_map[k];
  }
  const BatchStrides& st = a.strides;
  const SideAt src_at{reinterpret_cast<Addr>(a.src), st.src_ld_elems * E,
                      st.src_batch_elems * E};
  const SideAt dst_at{reinterpret_cast<Addr>(a.dst), st.dst_ld_elems * E,
                      st.dst_batch_elems * E};
  constexpr std::int64_t T = 128 / E;
  const std::int64_t tiles = st.batch * ceil_div(a.rows, T) * ceil_div(a.cols, T);
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>(tiles, static_cast<std::int64_t>(a.sm_count) * kCtasPerSm));
  return launch_with_smem(tma_classes_kernel<E>, dim3(grid), dim3(kThreads), smem_bytes<E>(),
                          a.stream, maps, src_at, dst_at, a.rows, a.cols, st.batch);
}

}  // namespace

kernels::TmaPlan kernels::plan_tma_classes(const LaunchArgs& a) {
  TmaPlan p;
  p.swizzle = kSwizzle128B;
  const int v = row_classes(a.elem_bytes);
  // Boxes: 8 lines (one class's rows of a tile) x 128 bytes, one map per class and side.
  p.src = tile_map_plan(8, kSwizzle128B, a.elem_bytes);
  p.src.row_classes = v;
  p.dst = p.src;
  return p;
}

cudaError_t kernels::launch_tma_classes(const LaunchArgs& a) {
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) { return launch_classes<decltype(e)::value>(a); });
}

}  // namespace tmakit
