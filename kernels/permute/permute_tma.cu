// permute_tma: the TMA permutation. What it adds over permute_tile: the rank-5 tensor maps
// walk the permutation's strides in hardware. The host (host/permute/) describes src as a map of
// (b2, b1, b0, rows, cols) with src's own strides and dst as one of (b2, b1, b0, cols, rows)
// with dst's, so the box at batch coordinates (b0, b1, b2) is one tile of the permutation
// wherever its dimensions sit in memory: no index arithmetic per element, edges zero-filled on
// the load and clipped on the store.
//   - Transposing permutations (1-8-byte elements): tma_load_store's tile (T x T, T = 128 /
//     elem_bytes, 128-byte swizzle, 16-byte chunk transposes in registers: conflict-free), with
//     the batch as three map coordinates instead of one.
//   - Row permutations (the innermost dimension stays innermost): the maps are of 8-byte words
//     and the box (up to 1 KB of a row, up to 32 KB) goes back out unchanged, at the same
//     coordinates of dst's map. TMA gathers the rows
//     from src's strides and scatters them to dst's; the SMs only issue.
// Its needs (16-byte aligned bases, every stride a multiple of 16 bytes, dst's contiguous
// dimension whole 16-byte chunks, extents below 2^31)
// are checked by the host, which runs permute_tile with the reason when one fails.
#include <kernels/common/grid.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/tile_loop.cuh>
#include <kernels/primitives/tma_barrier.cuh>
#include <kernels/primitives/tma_cta.cuh>
#include <kernels/primitives/tma_launch.cuh>
#include <kernels/primitives/tma_tile.cuh>

namespace tmakit {
namespace {

constexpr int kMode = kSwizzle128B;           // transposing tiles: the widest swizzle
constexpr std::uint32_t kTileThreads = 64;    // one thread per V x V block of a 128-byte strip
constexpr std::uint32_t kRowThreads = 32;     // row boxes: one issuing thread, one warp
constexpr std::uint32_t kRowBoxBytes = 1024;  // row boxes: up to 1 KB of a row
constexpr std::uint32_t kRowBoxMaxBytes = 32 * 1024;

template <int E>
constexpr std::uint32_t kSide = 128 / E;

template <int E>
constexpr std::uint32_t tile_smem_bytes() {
  return kSmemAlignSlack + 2 * tma::kTileBytes<E, kSide<E>, kSide<E>> + 8;
}

[[maybe_unused]] __device__ __forceinline__ tma::BatchCoords batch_coords(const PermuteGeometry& g,
                                                                          std::int64_t b) {
  const BatchAt at = batch_at(g, b);
  return {static_cast<int>(at.b0), static_cast<int>(at.b1), static_cast<int>(at.b2)};
}

// Tile (ty, tx) of batch entry b: src box at (col i0, row j0) -> in (T lines of i) ->
// transposed -> out (T lines of j) -> dst box at (col j0, row i0).
template <int E>
__global__ void __launch_bounds__(kTileThreads)
    permute_tma_tile_kernel(const __grid_constant__ CUtensorMap src_map,
                            const __grid_constant__ CUtensorMap dst_map, PermuteGeometry g) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr std::uint32_t T = kSide<E>, kBytes = tma::kTileBytes<E, T, T>;
  extern __shared__ unsigned char permute_tma_smem[];
  unsigned char* in = tma::align_smem<unsigned char>(permute_tma_smem, 1024);
  unsigned char* out = in + kBytes;
  tma::TxBarrier<BarrierStyle::kPtx> full(out + kBytes);
  const std::uint32_t tid = threadIdx.x;
  tma::open_tile_cta(full, tid == 0, &src_map, &dst_map);
  std::uint32_t phase = 0;
  for_each_tile(
      g.batch(), ceil_div(g.rows, T), ceil_div(g.cols, T),
      [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
        const auto j0 = static_cast<std::int32_t>(ty * T), i0 = static_cast<std::int32_t>(tx * T);
        const tma::BatchCoords z = batch_coords(g, b);
        if (tid == 0) {
          full.arrive_expect_tx(kBytes);
          tma::load_tile<E, kMode, T, T>(in, &src_map, j0, i0, z, full.handle());
        }
        full.wait({0, phase++, kBytes});
        tma::transpose_tile<E, kMode, T, T, kTileThreads>(in, out, tid);
        tma::store_out_tile(tid == 0, [&] {  // dst lines i0.., columns j0.. (clipped at g.rows)
          tma::store_tile<E, kMode, T, T>(&dst_map, i0, j0, z, g.rows, out);
        });
      });
#else
  __trap();
#endif
}

// Row boxes of box_rows lines x box_cols 8-byte words: load from src's map, store the same box
// to dst's map at the same coordinates (word x, row j, batch z).
__global__ void __launch_bounds__(kRowThreads)
    permute_tma_rows_kernel(const __grid_constant__ CUtensorMap src_map,
                            const __grid_constant__ CUtensorMap dst_map, PermuteGeometry g,
                            std::int64_t row_words, std::uint32_t box_rows,
                            std::uint32_t box_cols) {
#if TMAKIT_DEVICE_HAS_TMA
  const std::uint32_t box_bytes = box_rows * box_cols * 8;
  extern __shared__ unsigned char permute_tma_smem[];
  unsigned char* buf = tma::align_smem<unsigned char>(permute_tma_smem, 128);
  tma::TxBarrier<BarrierStyle::kPtx> full(buf + box_bytes);
  // One buffer per block, several blocks per SM. (Two buffers per block, the next box loading
  // while this one stores, 16 KB each on a grid of 6 blocks per SM, measured slower on the H100:
  // 2807 against 2856 GB/s at (8, 4096, 32, 128) (0, 2, 1, 3), 2 B.)
  const bool leader = threadIdx.x == 0;
  tma::open_tile_cta(full, leader, &src_map, &dst_map);
  std::uint32_t phase = 0;
  for_each_tile(g.batch(), ceil_div(g.rows, box_rows), ceil_div(row_words, box_cols),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const auto y = static_cast<std::int32_t>(ty * box_rows),
                             x = static_cast<std::int32_t>(tx * box_cols);
                  const tma::BatchCoords z = batch_coords(g, b);
                  if (leader) {
                    full.arrive_expect_tx(box_bytes);
                    tma::load_5d(buf, &src_map, x, y, z, full.handle());
                  }
                  full.wait({0, phase++, box_bytes});
                  if (leader) {
                    tma::store_5d(&dst_map, x, y, z, buf);
                    tma::store_commit();
                    tma::store_wait_read<0>();  // buf is reused by the next box
                  }
                  __syncwarp();
                });
#else
  __trap();
#endif
}

}  // namespace

kernels::PermuteTmaPlan kernels::plan_permute_tma(const PermuteArgs& a) {
  PermuteTmaPlan p;
  const PermuteGeometry& g = a.geo;
  // A TMA store clips a box at the tensor's inner edge in whole 16-byte chunks (measured on the
  // H100: a 12-byte row stored from a 16-byte box wrote all 16), so dst's rows must be whole
  // chunks.
  const std::int64_t dst_row_bytes = (a.moves_rows() ? g.cols : g.rows) * a.elem_bytes;
  if (dst_row_bytes % 16 != 0) {
    p.rule =
        "permute_tma stores whole 16-byte chunks: dst's contiguous dimension must be a multiple "
        "of 16 bytes long";
    return p;
  }
  if (a.moves_rows()) {
    // Rows of 8-byte words: boxes up to kRowBoxBytes of a row (the whole row when it is
    // shorter), as many rows as fill kRowBoxMaxBytes (at most 256).
    const std::int64_t row_bytes = g.cols * a.elem_bytes;
    p.rows = true;
    p.type_bytes = 8;
    const std::int64_t box_bytes = std::min<std::int64_t>(kRowBoxBytes, row_bytes);
    p.box_cols = static_cast<int>(box_bytes / 8);
    p.box_rows = static_cast<int>(std::min<std::int64_t>(
        {256, g.rows, std::max<std::int64_t>(1, kRowBoxMaxBytes / box_bytes)}));
    return p;
  }
  if (g.src_col != 1 || g.dst_row != 1) {
    p.rule =
        "permute_tma needs one dimension contiguous in src and one in dst (a stride of 1 on each "
        "side)";
    return p;
  }
  if (a.elem_bytes == 16) {
    p.rule =
        "permute_tma transposes elements of 1, 2, 4 or 8 bytes (16-byte elements: permute_tile)";
    return p;
  }
  const kernels::TmaMapPlan m = tile_map_plan(128 / a.elem_bytes, kMode, a.elem_bytes);
  p.box_rows = m.box_rows;
  p.box_cols = m.box_cols;
  p.type_bytes = m.type_bytes;
  p.swizzle = kMode;
  return p;
}

cudaError_t kernels::launch_permute_tma(const PermuteArgs& a) {
  const PermuteGeometry& g = a.geo;
  if (a.moves_rows()) {
    const PermuteTmaPlan p = plan_permute_tma(a);
    const auto box_rows = static_cast<std::uint32_t>(p.box_rows),
               box_cols = static_cast<std::uint32_t>(p.box_cols);  // 8-byte words
    const std::uint32_t smem = 128 + box_rows * box_cols * 8 + 8;
    const std::int64_t row_words = g.cols * a.elem_bytes / 8;
    return launch_on_tiles(permute_tma_rows_kernel, smem, g.batch(), ceil_div(g.rows, box_rows),
                           ceil_div(row_words, box_cols), kRowThreads, a.stream, *a.src_map,
                           *a.dst_map, g, row_words, box_rows, box_cols);
  }
  return dispatch_tma_elem(a.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return launch_on_tiles(permute_tma_tile_kernel<E>, tile_smem_bytes<E>(), g.batch(),
                           ceil_div(g.rows, kSide<E>), ceil_div(g.cols, kSide<E>), kTileThreads,
                           a.stream, *a.src_map, *a.dst_map, g);
  });
}

}  // namespace tmakit
