// permute_tile: the LDG/STG permutation, for every reduced permutation of rank up to 5, any
// element size, any strides. What it adds over the 2-D ladder: the batch is up to three
// dimensions with their own strides (host/permute/ reduces a rank-5 reorder to a rows x cols
// tile of two dimensions plus that batch), decoded once per tile, never per element.
//   - A transposing permutation (the dimension contiguous in src differs from the one
//     contiguous in dst) goes through a padded shared tile (64 x 65 at 1-4 B, 32 x 33 from 8 B
//     on): lanes walk src's contiguous dimension on the load and dst's on the store, so both
//     sides are coalesced.
//   - A row permutation (the innermost dimension stays innermost: (0,2,1,3) of attention's
//     heads) of rows of 32 bytes or more moves whole rows with the widest vector that every
//     address and stride allows, several rows per warp when rows are short and several vectors
//     of each row a lane at once: no shared memory, no element reordering. Long rows whose
//     widest vector is under 16 bytes are written in aligned 16-byte chunks, realigned from two
//     aligned loads by funnel shifts. Into a dense dst (rows of 16 bytes or more; the policy's
//     permute_rows_flat_max_vector_bytes), dst is instead one run of aligned 16-byte chunks
//     across row ends (kernels/common/permute_rows.hpp): no idle lanes or head and tail bytes
//     per row.
//   - Short contiguous dimensions (a reversal of 3 x 5 x 7 x ..., rows of a few elements),
//     strides that make neither side contiguous, and every reduction of rank 6-8: boxes of
//     whole runs on both sides (kernels/common/permute_box.hpp), loaded in src order and stored
//     in dst order through shared memory, the index math done once per block into shared
//     tables (at 16 B, by the policy's permute_box_registers_min_bytes, on 8-byte tensors of
//     up to 16 MiB, at 1-4 B where no side has words and at 2 B where src has none, into each
//     thread's registers, in small blocks); in 4-16-byte words on each
//     side whose strides allow them, pipelined (the next box's loads in flight while this one is
//     stored) where a box is at most two 8-16-byte words a thread; elsewhere, from 4-byte
//     elements or src words on, each box copied global -> shared by cp.async into two buffers,
//     the next box's copies in flight while this one is stored (box_loads picks the walk). The
//     box walk takes any rank up to 8 in one launch.
// The TMA path beside it is permute_tma (kernels/permute/permute_tma.cu).
#include <cstring>
#include <type_traits>
#include <cuda/pipeline>
#include <kernels/common/chunk_transpose.hpp>
#include <kernels/common/grid.hpp>
#include <kernels/common/permute_box.hpp>
#include <kernels/common/permute_rows.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/box_walk.cuh>
#include <kernels/primitives/cp_async_l2.cuh>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/tile_loop.cuh>

namespace tmakit {
namespace {

constexpr int kSide = 32;       // tile side in elements
constexpr int kThreadRows = 8;  // 32 x 8 threads, 4 tile rows each
constexpr unsigned kThreads = kSide * kThreadRows;

template <int E>
struct Word {
  using type = std::conditional_t<
      E == 1, std::uint8_t,
      std::conditional_t<E == 2, std::uint16_t,
                         std::conditional_t<E == 4, std::uint32_t,
                                            std::conditional_t<E == 8, std::uint64_t, uint4>>>>;
};

template <class F>
cudaError_t dispatch_word(int bytes, F&& f) {
  switch (bytes) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      return cudaErrorInvalidValue;
  }
}

// Blocks of a tables' box walk: as many as can reside at once, up to 8 per SM, never more than
// there are boxes (each block walks every gridDim.x-th box: a block that waits for a slot runs
// its share after the others). Resident: what the device holds of `kernel` with `smem_bytes`
// (registers and shared memory), or under the policy's permute_box_sm_smem_bytes what that
// many bytes an SM hold (204800: the rule before the occupancy query, which left 28 KB of the
// H100's and H200's 228 KB unused).
template <class Kernel>
unsigned box_blocks(const kernels::PermuteArgs& a, const BoxPlan& box, Kernel* kernel,
                    unsigned threads, std::uint32_t smem_bytes) {
  const std::int64_t fit = a.box_sm_smem_bytes > 0
                               ? std::int64_t{a.box_sm_smem_bytes} / std::max(smem_bytes, 1u)
                               : resident_blocks_per_sm(reinterpret_cast<const void*>(kernel),
                                                        static_cast<int>(threads), smem_bytes);
  const std::int64_t per_sm = std::max<std::int64_t>(1, std::min<std::int64_t>(8, fit));
  return static_cast<unsigned>(std::min<std::int64_t>(box.boxes, a.sm_count * per_sm));
}

// Transposing: S x S tile (j0.., i0..) of batch entry b, S = 64 up to 4-byte elements (16 per
// thread each way: a tile's decode, about 450 instructions a warp, over 16 elements a thread
// instead of 4; Nsight Compute found the 32 x 32 tile issue-bound at 78% with DRAM 39% busy on
// the (301, 405, 217) reversal at 4 B), 32 from 8 B on (a 64 x 65 tile of 8-byte elements, 33
// KB, measured 0.93x on (116, 58, 483) (1, 2, 0); docs/perf-guide.md section 4.13). Load: lane x
// reads src element (j0 + y + 8k, i0 + x + 32c) into tile[y + 8k][x + 32c] (x walks i, contiguous
// in src). Store: lane x writes dst element (j0 + x + 32c, i0 + y + 8k) from tile[x + 32c][y + 8k]
// (x walks j, contiguous in dst). Addresses step from one base a thread a tile (64-bit adds only).
template <int E, int S = permute_tile_side_elems(E)>
__global__ void __launch_bounds__(kThreads)
    permute_tile_kernel(const typename Word<E>::type* __restrict__ src,
                        typename Word<E>::type* __restrict__ dst, PermuteGeometry g) {
  using T = typename Word<E>::type;
  __shared__ T tile[S][S + 1];
  const int x = threadIdx.x, y = threadIdx.y;
  for_each_tile(g.batch(), ceil_div(g.rows, std::int64_t{S}), ceil_div(g.cols, std::int64_t{S}),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const BatchAt at = batch_at(g, b);
                  const std::int64_t j0 = ty * S, i0 = tx * S;
                  // What of the tile is inside the tensor (at most S each way).
                  const int rows_in = static_cast<int>(std::min<std::int64_t>(g.rows - j0, S));
                  const int cols_in = static_cast<int>(std::min<std::int64_t>(g.cols - i0, S));
                  {
                    const T* s = src + at.src + (j0 + y) * g.src_row + (i0 + x) * g.src_col;
                    const std::int64_t down = kThreadRows * g.src_row, right = 32 * g.src_col;
#pragma unroll
                    for (int c = 0; c < S / 32; ++c)
#pragma unroll
                      for (int k = 0; k < S / kThreadRows; ++k)
                        if (x + 32 * c < cols_in && y + k * kThreadRows < rows_in)
                          tile[y + k * kThreadRows][x + 32 * c] = s[k * down + c * right];
                  }
                  __syncthreads();
                  {
                    T* d = dst + at.dst + (j0 + x) * g.dst_row + (i0 + y) * g.dst_col;
                    const std::int64_t down = kThreadRows * g.dst_col, right = 32 * g.dst_row;
#pragma unroll
                    for (int c = 0; c < S / 32; ++c)
#pragma unroll
                      for (int k = 0; k < S / kThreadRows; ++k)
                        if (x + 32 * c < rows_in && y + k * kThreadRows < cols_in)
                          d[k * down + c * right] = tile[x + 32 * c][y + k * kThreadRows];
                  }
                  __syncthreads();
                });
}

// Neither transposing nor whole rows (strided operands): element (j, i) straight from src to
// dst, lanes walking i.
template <int E>
__global__ void __launch_bounds__(kThreads)
    permute_elems_kernel(const typename Word<E>::type* __restrict__ src,
                         typename Word<E>::type* __restrict__ dst, PermuteGeometry g) {
  const int x = threadIdx.x, y = threadIdx.y;
  for_each_tile(g.batch(), ceil_div(g.rows, kSide), ceil_div(g.cols, kSide),
                [&](std::int64_t b, std::int64_t ty, std::int64_t tx) {
                  const BatchAt at = batch_at(g, b);
                  const std::int64_t i = tx * kSide + x;
#pragma unroll
                  for (int k = 0; k < kSide / kThreadRows; ++k) {
                    const std::int64_t j = ty * kSide + y + k * kThreadRows;
                    if (i < g.cols && j < g.rows)
                      dst[at.dst + j * g.dst_row + i * g.dst_col] =
                          src[at.src + j * g.src_row + i * g.src_col];
                  }
                });
}

// The rows of a row permutation as one flat index, rows fastest, then b0, b1, b2: a short rows
// dimension (5 of (5, 1999, 3, 117) (2, 1, 0, 3)) no longer leaves most of a tile's threads idle.
// Decoded per row with fast divisions (total rows < 2^32).
struct FlatRows {
  FastDiv rows, b0, b1;
  __device__ __forceinline__ void at(const PermuteGeometry& g, std::uint32_t r, std::int64_t* so,
                                     std::int64_t* dof) const {
    const std::uint32_t q = rows.div(r), j = r - q * rows.d;
    const std::uint32_t q0 = b0.div(q), c0 = q - q0 * b0.d;
    const std::uint32_t c2 = b1.div(q0), c1 = q0 - c2 * b1.d;
    *so = j * g.src_row + c0 * g.src_batch[0] + c1 * g.src_batch[1] + c2 * g.src_batch[2];
    *dof = j * g.dst_row + c0 * g.dst_batch[0] + c1 * g.dst_batch[1] + c2 * g.dst_batch[2];
  }
};

// Row permutation, in bytes (g.cols = row bytes, every stride in bytes, all multiples of V):
// each row is cols / V vectors; `lanes` (a power of two, <= 32) threads share a row, so a block
// covers 256 / lanes rows at once and `sweeps` (at most kRowSweeps) times that per tile. A lane
// takes row_unroll_vecs(V) vectors of each of its rows at once (v, v + lanes, ..): with `lanes` the
// power of two that covers a row in that many, a thread has up to kRowSweeps x row_unroll_vecs(V)
// loads in flight (64 bytes from 4-byte vectors on) before it stores any, on short rows as on
// long ones. Their 64-bit addresses take 77-80 registers: 3 blocks an SM (4 at 16 bytes, whose
// one vector a row keeps it at 64).
constexpr int kRowSweeps = 4;
TMAKIT_HD constexpr int row_unroll_vecs(int v) {
  return v >= 16 ? 1 : v >= 8 ? 2 : 4;
}

template <int V>
__global__ void __launch_bounds__(kThreads, V >= 16 ? 4 : 3)
    permute_rows_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                        PermuteGeometry g, int lanes_log2, FlatRows flat, std::uint32_t total,
                        int sweeps) {
  using T = typename Word<V>::type;
  constexpr int U = row_unroll_vecs(V);
  const int tid = threadIdx.y * kSide + threadIdx.x;
  const int lanes = 1 << lanes_log2, slots = kThreads >> lanes_log2;
  const int slot = tid >> lanes_log2, lane = tid & (lanes - 1);
  const std::int64_t vecs = g.cols / V, tile_rows = std::int64_t{slots} * sweeps;
  for (std::int64_t r0 = blockIdx.x * tile_rows + slot; r0 < total;
       r0 += std::int64_t{gridDim.x} * tile_rows) {
    std::int64_t so[kRowSweeps], dof[kRowSweeps];
    bool ok[kRowSweeps];
#pragma unroll
    for (int k = 0; k < kRowSweeps; ++k) {
      const std::int64_t r = r0 + std::int64_t{k} * slots;
      ok[k] = k < sweeps && r < total;
      if (ok[k]) flat.at(g, static_cast<std::uint32_t>(r), &so[k], &dof[k]);
    }
    for (std::int64_t v0 = lane; v0 < vecs; v0 += std::int64_t{lanes} * U) {
      T w[kRowSweeps][U];
#pragma unroll
      for (int k = 0; k < kRowSweeps; ++k)
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const std::int64_t v = v0 + std::int64_t{u} * lanes;
          if (ok[k] && v < vecs) w[k][u] = *reinterpret_cast<const T*>(src + so[k] + v * V);
        }
#pragma unroll
      for (int k = 0; k < kRowSweeps; ++k)
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const std::int64_t v = v0 + std::int64_t{u} * lanes;
          if (ok[k] && v < vecs) *reinterpret_cast<T*>(dst + dof[k] + v * V) = w[k][u];
        }
    }
  }
}

// A box's tables in two levels. The full decode of a box element (box_src_offset,
// box_dst_offset: a division and 64-bit multiply-adds a box dimension, coordinates in local
// memory where a runtime dimension index picks them) is what a block's table build spends its
// time on; on a small tensor, where each block walks one or two boxes, it is most of the kernel.
// Here it runs once a row instead: src-order element t is (i, r), i = t mod box[0] along box
// dimension 0 and r = t / box[0] its row, so its offset is row r's plus i times dimension 0's
// src stride, and its cut coordinates row r's plus i where dimension 0 is cut (the packing of
// box_cut_coords); the same in dst order along u0 = dst_order[0], the shared slot too. A side
// whose rows are no fewer than its entries (rows of one word) decodes its entries in full. Row
// tables (V / box[0] src rows, V / box[u0] dst rows) go to `buf`, the box's shared buffer, free
// until the first box is loaded, where they fit, else to `extra` after the tables (the
// launcher's box_row_tables_extra_bytes). Entry s of the
// src side is src-order element s * src_step (a src word's first element), entry d of the dst
// side dst-order element d * dst_step; src_out(s, offset, cuts) and dst_out(d, offset, slot,
// cuts) store them. Ends with a barrier. (DevicePolicy::permute_box_row_tables = false,
// p.row_tables: every entry decoded in full.)
// DstAt: dst entry d's dst-order element, d * dst_step by default (DstSteps); the stores by src
// word take every ws-th along box dimension 0 instead (DstSrcWords).
struct DstSteps {
  std::uint32_t step;
  __device__ std::uint32_t operator()(std::uint32_t d) const { return d * step; }
};
template <class SrcOut, class DstOut, class DstAt = DstSteps>
__device__ __forceinline__ void build_box_entries(const BoxPlan& p, unsigned char* buf,
                                                  std::uint32_t buf_bytes, unsigned char* extra,
                                                  unsigned tid, unsigned threads,
                                                  std::uint32_t n_src, std::uint32_t src_step,
                                                  std::uint32_t n_dst, std::uint32_t dst_step,
                                                  SrcOut src_out, DstOut dst_out,
                                                  DstAt dst_at = DstSteps{0}) {
  if constexpr (std::is_same_v<DstAt, DstSteps>) dst_at.step = dst_step;
  const int u0 = p.dst_order[0];
  const std::uint32_t b0 = p.box[0], bd0 = p.box[u0];
  const std::uint32_t rows_src = box_src_rows(p, src_step), rows_dst = box_dst_rows(p, dst_step);
  const std::uint32_t need = box_row_tables_bytes(p, src_step, dst_step);
  auto* rs_off = reinterpret_cast<std::int32_t*>(need <= buf_bytes ? buf : extra);
  std::int32_t* rd_off = rs_off + rows_src;
  auto* rd_at = reinterpret_cast<std::uint16_t*>(rd_off + rows_dst);
  std::uint16_t* rs_cut = rd_at + rows_dst;
  std::uint16_t* rd_cut = rs_cut + rows_src;
  for (std::uint32_t r = tid; r < rows_src; r += threads) {
    std::uint32_t cuts;
    rs_off[r] = static_cast<std::int32_t>(box_src_offset(p, r * b0, &cuts));
    rs_cut[r] = static_cast<std::uint16_t>(cuts);
  }
  for (std::uint32_t r = tid; r < rows_dst; r += threads) {
    std::uint32_t cuts, at;
    rd_off[r] = static_cast<std::int32_t>(box_dst_offset(p, r * bd0, &at, &cuts));
    rd_at[r] = static_cast<std::uint16_t>(at);
    rd_cut[r] = static_cast<std::uint16_t>(cuts);
  }
  if (need > 0) __syncthreads();
  // Dimension 0's and u0's steps: offsets (box offsets fit 31 bits), shared slots, cut coordinates.
  const auto ss0 = static_cast<std::int32_t>(p.ss[0]), dsd = static_cast<std::int32_t>(p.ds[u0]);
  const std::uint32_t at_step = p.smem_stride[u0];
  const std::uint32_t cut_src = p.cut[0] == 0 ? 1u : p.cut[1] == 0 ? 256u : 0u;
  const std::uint32_t cut_dst = p.cut[0] == u0 ? 1u : p.cut[1] == u0 ? 256u : 0u;
  for (std::uint32_t s = tid; s < n_src; s += threads) {
    std::uint32_t cuts;
    if (rows_src == 0) {  // decoded in full
      const auto off = static_cast<std::int32_t>(box_src_offset(p, s * src_step, &cuts));
      src_out(s, off, cuts);
      continue;
    }
    const std::uint32_t t = s * src_step, r = p.box_div[0].div(t), i = t - r * b0;
    src_out(s, rs_off[r] + static_cast<std::int32_t>(i) * ss0, rs_cut[r] + i * cut_src);
  }
  for (std::uint32_t d = tid; d < n_dst; d += threads) {
    std::uint32_t cuts, at;
    if (rows_dst == 0) {
      const auto off = static_cast<std::int32_t>(box_dst_offset(p, dst_at(d), &at, &cuts));
      dst_out(d, off, at, cuts);
      continue;
    }
    const std::uint32_t t = dst_at(d), r = p.box_div[u0].div(t), j = t - r * bd0;
    dst_out(d, rd_off[r] + static_cast<std::int32_t>(j) * dsd, rd_at[r] + j * at_step,
            rd_cut[r] + j * cut_dst);
  }
  __syncthreads();
}

// The element walks' shared tables, built once per block at `at_bytes` (build_box_entries, its
// row tables in `buf` or after the tables): for box element t, the src offset and cut coordinates
// of the src-order element t, and the dst offset, shared slot (slot(i) of its src-order index i)
// and cut coordinates of the dst-order element t. on_src(t, offset, cuts) is called with each
// src entry as it is made (the cp.async walk's first box, FirstBox).
struct BoxTables {
  std::int32_t *ld_off, *st_off;
  std::uint16_t *st_idx, *ld_cut, *st_cut;
};
template <class Slot, class OnSrc>
__device__ __forceinline__ BoxTables build_box_tables(const BoxPlan& p, unsigned char* at_bytes,
                                                      unsigned char* buf, std::uint32_t buf_bytes,
                                                      unsigned tid, Slot slot, OnSrc on_src) {
  const std::uint32_t V = p.volume;
  BoxTables b;
  b.ld_off = reinterpret_cast<std::int32_t*>(at_bytes);
  b.st_off = b.ld_off + V;
  b.st_idx = reinterpret_cast<std::uint16_t*>(b.st_off + V);
  b.ld_cut = b.st_idx + V;
  b.st_cut = b.ld_cut + V;
  build_box_entries(
      p, buf, buf_bytes, at_bytes + box_align16(V * kBoxTableBytes), tid, kThreads, V, 1, V, 1,
      [&](std::uint32_t t, std::int32_t off, std::uint32_t cuts) {
        b.ld_off[t] = off;
        b.ld_cut[t] = static_cast<std::uint16_t>(cuts);
        on_src(t, off, cuts);
      },
      [&](std::uint32_t t, std::int32_t off, std::uint32_t at, std::uint32_t cuts) {
        b.st_off[t] = off;
        b.st_idx[t] = static_cast<std::uint16_t>(slot(at));
        b.st_cut[t] = static_cast<std::uint16_t>(cuts);
      });
  return b;
}

// Whether cut coordinates `cuts` (the first cut dimension's in the low byte, the second's above)
// lie inside what box `at` has left of those dimensions.
__device__ __forceinline__ bool cuts_inside(std::uint32_t cuts, const BoxOrigin& at) {
  return (cuts & 255u) < at.lim0 && (cuts >> 8) < at.lim1;
}

// The cp.async walks' first box copied while the tables are built (BoxPlan::first_early): a
// block's tables take a decode an entry and its barrier before any box is loaded, and where a
// block walks few boxes (a small tensor: two or three) DRAM idles meanwhile (Nsight Compute,
// docs/perf-guide.md section 4.13). So box blockIdx.x's origin is decoded before the tables, and
// each src entry's copy into buffer 0 is issued as the entry is made: the copies are in flight
// while the dst entries are built. The row tables (build_box_entries) then must not sit in
// buffer 0: they go to buffer 1 (free until box 1 is issued, after the tables' barrier) where
// they fit, or after the tables where two buffers could not hold them either
// (box_row_tables_extra_bytes, as the launchers size it). Between the two they span both
// buffers, and the first box waits for the walk as before.
struct FirstBox {
  bool early = false;
  bool whole = true;
  BoxOrigin at;
  unsigned char* rows_buf;  // build_box_entries' buf and buf_bytes
  std::uint32_t rows_buf_bytes;
  // Whether the src entry with cut coordinates `cuts` is inside box `at`.
  __device__ bool inside(std::uint32_t cuts) const { return whole || cuts_inside(cuts, at); }
};
// bufs: the two buffers of buf_bytes each; src_step, dst_step: the tables' steps.
__device__ __forceinline__ FirstBox first_box(const BoxPlan& p, unsigned char* bufs,
                                              std::uint32_t buf_bytes, std::uint32_t src_step,
                                              std::uint32_t dst_step) {
  FirstBox f;
  f.rows_buf = bufs;
  f.rows_buf_bytes = 2 * buf_bytes;
  const std::uint32_t need = box_row_tables_bytes(p, src_step, dst_step);
  if (!p.first_early || blockIdx.x >= p.boxes || (need > buf_bytes && need <= 2 * buf_bytes))
    return f;
  f.early = true;
  f.at = box_origin(p, blockIdx.x);
  f.whole = box_is_whole(p, f.at);
  if (need <= buf_bytes) {
    f.rows_buf = bufs + buf_bytes;
    f.rows_buf_bytes = buf_bytes;
  }
  return f;
}

// f(std::true_type) for a whole box (no cut dimension at its edge: the walks skip the coordinate
// tables and their compares), else f(std::false_type).
template <class F>
__device__ __forceinline__ void box_with_whole(const BoxPlan& p, const BoxOrigin& at, F&& f) {
  if (box_is_whole(p, at))
    f(std::true_type{});
  else
    f(std::false_type{});
}
// Whether element (or word) i of a box, whose cut coordinates the table `cut` holds, is inside
// the tensor.
struct BoxInside {
  template <class Whole>
  __device__ __forceinline__ bool operator()(Whole, const std::uint16_t* cut, std::uint32_t i,
                                             const BoxOrigin& at) const {
    return Whole::value || cuts_inside(cut[i], at);
  }
};
constexpr BoxInside box_inside{};

// Box walk (kernels/common/permute_box.hpp) when a contiguous dimension is short. Each block
// first builds the box's tables in shared memory (per element: src offset, dst offset and
// shared index of the dst-order element, coordinates along cut dimensions), then walks boxes:
// box b -> its origin and what is left of its cut dimensions; load in src order (K loads in
// flight per thread: 8 elements up to 4 bytes (16 two-byte loads measured slower than 8 on the
// H100), 64 bytes from 8-byte elements on), store in dst order. The index math per element is
// a table read.
template <int E, int K = (E >= 8 ? 64 / E : 8)>
__global__ void __launch_bounds__(kThreads)
    permute_box_kernel(const typename Word<E>::type* __restrict__ src,
                       typename Word<E>::type* __restrict__ dst, BoxPlan p) {
  using T = typename Word<E>::type;
  extern __shared__ __align__(16) unsigned char permute_box_smem[];
  const std::uint32_t V = p.volume;
  T* buf = reinterpret_cast<T*>(permute_box_smem);
  const unsigned tid = threadIdx.y * kSide + threadIdx.x;
  const std::uint32_t buf_bytes = box_elems_buf_bytes(V, E);
  const BoxTables tb = build_box_tables(
      p, permute_box_smem + buf_bytes, permute_box_smem, buf_bytes, tid,
      [](std::uint32_t t) { return t; }, [](std::uint32_t, std::int32_t, std::uint32_t) {});
  const std::int32_t *ld_off = tb.ld_off, *st_off = tb.st_off;
  const std::uint16_t *st_idx = tb.st_idx, *ld_cut = tb.ld_cut, *st_cut = tb.st_cut;
  for_each_box(p, p.origin_once, [&](const BoxOrigin& at) {
    const std::int64_t so = at.src, dof = at.dst;
    const std::uint32_t lim0 = at.lim0, lim1 = at.lim1;
    // A whole box (no cut dimension at its edge, most boxes) skips the coordinate
    // tables and their two compares per element: the kernel is bound by instruction
    // issue.
    const bool whole = box_is_whole(p, at);
    auto walk = [&](auto whole_box) {
      constexpr bool kWhole = decltype(whole_box)::value;
      auto inside = [&](const std::uint16_t* cut, std::uint32_t t) {
        return kWhole || ((cut[t] & 255u) < lim0 && (cut[t] >> 8) < lim1);
      };
      for (std::uint32_t t0 = tid; t0 < V; t0 += K * kThreads) {
        T v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const std::uint32_t t = t0 + k * kThreads;
          if (t < V && inside(ld_cut, t)) v[k] = src[so + ld_off[t]];
        }
#pragma unroll
        for (int k = 0; k < K; ++k) {
          const std::uint32_t t = t0 + k * kThreads;
          if (t < V && inside(ld_cut, t)) buf[t] = v[k];
        }
      }
      __syncthreads();
      for (std::uint32_t t = tid; t < V; t += kThreads)
        if (inside(st_cut, t)) dst[dof + st_off[t]] = buf[st_idx[t]];
      __syncthreads();
    };
    if (whole)
      walk(std::true_type{});
    else
      walk(std::false_type{});
  });
}

// A thread's dst entries in registers (box_dst_in_registers, the cp.async walks whose dst words
// are single elements): entry k is dst-order element (or word) tid + k threads of the box, its dst
// offset and its shared slot. Read from the tables once a block; a box's stores then cost the
// gather alone. The slots are kept as 16 bits, two a register (ptxas: the word walk's 4-12 bytes
// of spills a thread at 80 registers went away). A slot is under 2^16: the element walk keeps
// element slots of a box of at most 6,144 elements (padded: 9,216), the word walk byte offsets
// into a buffer of at most 6,144 x 8 bytes (static_asserts at the kernels).
template <int DR>
struct DstEntries {
  std::int32_t off[DR];
  std::uint32_t slots[(DR + 1) / 2];  // entry k's slot: bits 16 (k & 1) .. of slots[k / 2]
  // Entries below n: off_of(w) and slot_of(w) for w = tid + k threads.
  template <class OffOf, class SlotOf>
  __device__ void load(unsigned tid, unsigned threads, std::uint32_t n, OffOf off_of,
                       SlotOf slot_of) {
#pragma unroll
    for (int k = 0; k < DR; ++k) {
      const std::uint32_t w = tid + k * threads;
      off[k] = w < n ? off_of(w) : 0;
      const std::uint32_t s = w < n ? slot_of(w) : 0u;
      slots[k / 2] = k % 2 == 0 ? s : slots[k / 2] | s << 16;
    }
  }
  __device__ std::uint32_t slot(int k) const {
    return k % 2 == 0 ? slots[k / 2] & 0xffffu : slots[k / 2] >> 16;
  }
  // d0[off] = gather(slot) for each entry below n that inside(w) admits.
  template <class T, class Gather, class Inside>
  __device__ void store(unsigned tid, unsigned threads, std::uint32_t n, T* d0, Gather gather,
                        Inside inside) const {
#pragma unroll
    for (int k = 0; k < DR; ++k) {
      const std::uint32_t w = tid + k * threads;
      if (w < n && inside(w)) d0[off[k]] = gather(slot(k));
    }
  }
};
template <>
struct DstEntries<0> {};  // the tables' walk: no entries in registers

// The element walk with its loads in flight across the stores (DevicePolicy::permute_box_async,
// 4-16-byte elements): permute_box_kernel holds a box's elements in registers between its load
// and its shared store, so a block has at most K loads a thread in flight and none while it
// stores (Nsight Compute on the (63, 95, 97, 101) reversal at 4 B: DRAM 47% busy, 4.6 barrier
// and 7.2 long-scoreboard stalls per issue). Here each element goes from global to shared memory
// by cp.async (libcu++'s cuda::memcpy_async on a thread-scope cuda::pipeline: no register holds
// it), into two shared buffers: box k + 1's copies are issued before box k is stored, so they are
// in flight during its stores. Same plan, same tables as permute_box_kernel, plus one buffer.
// (cp.async copies 4, 8 or 16 bytes: 1-2-byte elements stay on permute_box_kernel.)
// Padded (pad.d > 1, DevicePolicy::permute_box_pad): the stores gather dst's contiguous dimension,
// a shared stride S apart; an even S puts two of a warp's gathers in one bank (S = 34 4-byte
// elements: bank 2t mod 32 for lane t). Box element t then sits at slot t + t / S, one slot of
// padding every S elements, so the gather stride is S + 1, odd: each lane of a phase in its own
// bank, as the 2-D tile's 33rd column does.
// DR > 0 (box_dst_in_registers): thread tid's dst entries tid + k kThreads (k < DR), offsets and
// shared slots, read from the tables once into registers, as in the word walk.
// (71 registers with DR > 0: 3 blocks of 256 an SM. Bounded to 4 it fits 63 without spills, but
// measured slower over the cases it takes: docs/perf-guide.md section 4.13.)
template <int E, int DR = 0>
__global__ void __launch_bounds__(kThreads)
    permute_box_async_kernel(const typename Word<E>::type* __restrict__ src,
                             typename Word<E>::type* __restrict__ dst, BoxPlan p, FastDiv pad) {
  static_assert(E >= 4, "cp.async copies 4, 8 or 16 bytes");
  static_assert(kThreads == kBoxWordThreads, "box_dst_in_registers counts kBoxWordThreads");
  using T = typename Word<E>::type;
  extern __shared__ __align__(16) unsigned char permute_box_async_smem[];
  const std::uint32_t V = p.volume;
  const bool padded = pad.d > 1;
  auto slot = [&](std::uint32_t t) { return padded ? t + pad.div(t) : t; };
  const std::uint32_t buf_bytes = box_async_buf_bytes(V, pad.d, E);
  // Buffer k & 1 holds box k.
  auto buf_of = [&](unsigned k) {
    return reinterpret_cast<T*>(permute_box_async_smem + (k & 1) * buf_bytes);
  };
  const unsigned tid = threadIdx.y * kSide + threadIdx.x;
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const FirstBox first = first_box(p, permute_box_async_smem, buf_bytes, 1, 1);
  if (first.early) pipe.producer_acquire();
  const BoxTables tb = build_box_tables(
      p, permute_box_async_smem + 2 * buf_bytes, first.rows_buf, first.rows_buf_bytes, tid, slot,
      [&](std::uint32_t t, std::int32_t off, std::uint32_t cuts) {
        if (first.early && first.inside(cuts))
          cuda::memcpy_async(buf_of(0) + slot(t), src + first.at.src + off,
                             cuda::aligned_size_t<E>(E), pipe);
      });
  if (first.early) pipe.producer_commit();
  const std::int32_t *ld_off = tb.ld_off, *st_off = tb.st_off;
  const std::uint16_t *st_idx = tb.st_idx, *ld_cut = tb.ld_cut, *st_cut = tb.st_cut;
  static_assert(DR * kThreads * 3 / 2 < 65536, "DstEntries: element slots (padded) under 2^16");
  DstEntries<DR> reg;
  if constexpr (DR > 0)
    reg.load(
        tid, kThreads, V, [&](std::uint32_t t) { return st_off[t]; },
        [&](std::uint32_t t) { return std::uint32_t{st_idx[t]}; });
  auto with_whole = [&](const BoxOrigin& at, auto&& f) { box_with_whole(p, at, f); };
  constexpr auto inside = box_inside;
  // This thread's elements of box `at` into buffer b: one commit group (empty when it has none).
  auto issue = [&](const BoxOrigin& at, unsigned b) {
    T* buf = buf_of(b);
    pipe.producer_acquire();
    with_whole(at, [&](auto whole) {
      const T* s0 = src + at.src;
      for (std::uint32_t t = tid; t < V; t += kThreads)
        if (inside(whole, ld_cut, t, at))
          copy_async_l2_256B<E>(buf + slot(t), s0 + ld_off[t], pipe);
    });
    pipe.producer_commit();
  };
  for_each_box_async(p, pipe, first.early, issue, [&](const BoxOrigin& at, unsigned b) {
    T* cur = buf_of(b);
    with_whole(at, [&](auto whole) {
      T* d0 = dst + at.dst;
      if constexpr (DR > 0) {
        reg.store(
            tid, kThreads, V, d0, [&](std::uint32_t s) { return cur[s]; },
            [&](std::uint32_t t) { return inside(whole, st_cut, t, at); });
      } else {
        for (std::uint32_t t = tid; t < V; t += kThreads)
          if (inside(whole, st_cut, t, at)) d0[st_off[t]] = cur[st_idx[t]];
      }
    });
  });
}

// The box walk with each thread's part of a box in registers instead of shared tables (the
// default for 16-byte elements: DevicePolicy::permute_box_registers_min_bytes, and 8-byte tensors
// of up to permute_box_registers_small_tensor_bytes; at 1-4 B where the tables' walk would move a
// box element by element on both sides, permute_box_registers_elements_max_bytes, at 2 B where
// it would load one so, permute_box_registers_src_elements_bytes, and from 4 B on where the tables'
// box fits its bound, permute_box_registers_box_fits_min_bytes: no table reads or per-element
// index math). What it
// adds: the tables' walks keep 14 bytes of tables per element beside two buffers of the box, so at
// 16 B a block takes 48.5 KB and an SM holds 4 (48% of the warps, Nsight Compute), where cuTENSOR
// runs thousands of small blocks at 87-92%. Here thread tid owns box elements t = tid +
// blockDim.x k (k < per_thread, reg_box_shape in kernels/common/permute_box.hpp) in src order for
// the load and in dst order for the store: its src offsets, dst offsets and shared slots are
// computed once per block and kept in registers, and only a box's origin changes from box to box
// (decoded 32 boxes at a time, one a lane, and read by a shuffle: a division chain over the batch
// dimensions, which once a warp a box cost about as many instructions as moving 8 elements a
// thread at 1 B). Shared memory holds one box (at most 512 elements from 8 bytes on: 8 KB at
// 16 B; 2048 below), a block is the box's elements over per_thread (at most 256 threads), and at
// 40 registers an SM holds 6 of the largest from 8 B on (75% of the warps; 3 at 80 registers
// below). The next box's loads are issued before this box's stores (two boxes in flight per
// thread). The box is padded as the cp.async element walk's (a slot every S elements where the
// stores gather an even shared stride S apart). Any rank up to 8: every dimension outside the box
// is the batch. Whole (every box whole, box_all_whole: set_box_edges' overlap):
// no coordinates along cut dimensions kept or compared.
// VS, VD (DevicePolicy::permute_box_registers_words_min_bytes, reg_box_words): src and dst words
// of that many bytes (E: element by element). Thread tid then loads src words tid + nt k
// (k < R / WS) and stores dst words tid + nt k (k < R / WD), WS and WD elements each; a word's
// elements still go to and come from their shared slots one by one (the padding keeps no word
// whole in shared memory). A warp's lanes take consecutive words, so their element j lies a word
// apart: lane l handles its word's elements in an order rotated by l / G (G the lanes whose
// words fill 128 bytes), which spreads a shared access over the banks where every lane's j-th
// element would share a bank with the lanes a word of 128 bytes further.
template <int W, class T>
__device__ __forceinline__ void rotate_left(T (&e)[W], unsigned r) {
  // e[i] = e[(i + r) % W], by selects (an index by r would put e in local memory).
#pragma unroll
  for (int b = 1; b < W; b <<= 1) {
    T t[W];
#pragma unroll
    for (int i = 0; i < W; ++i) t[i] = e[(i + b) % W];
    const bool on = (r & static_cast<unsigned>(b)) != 0;
#pragma unroll
    for (int i = 0; i < W; ++i) e[i] = on ? t[i] : e[i];
  }
}
template <int E, int V>
__device__ __forceinline__ unsigned reg_word_rotation(unsigned lane) {
  constexpr unsigned W = V / E, G = 128 / V;  // lanes whose words fill 128 bytes
  return W > 1 && G < 32 ? (lane / G) % W : 0u;
}
// A thread's box elements t0, t0 + step, t0 + 2 step, ... (its words' first elements) as
// coordinates along the box's dimensions in one side's order (src: box dimension k; Dst: box
// dimension dst_order[k]), c[k] the k-th innermost. t0 and the step are decoded once (a division
// a dimension); every next element is a digit-wise add with carry, the outermost digit left
// unbounded (an element past the box, which the walk skips, never wraps). Element indices and
// offsets inside a box are under 2^31 (make_box_plan), so all of it is 32-bit. The registers'
// walk's prologue decoded each of a thread's words on its own (a division and a 64-bit
// multiply-add a dimension); on a tensor of a box or two a block that prologue was most of a
// thread's instructions.
// Only where a side has this many words a thread or more: the digits of the step and of the
// current element stay live through the decode, and with 2 words a thread (8-16-byte elements,
// 16-byte words at 4 B) they cost more registers, and so blocks an SM, than the one decode they
// save (docs/perf-guide.md section 4.13).
constexpr int kRegStepMinWords = 4;
template <bool Dst>
struct RegBoxCoords {
  std::uint32_t c[kBoxMaxDims] = {}, s[kBoxMaxDims] = {};
  __device__ static int dim(const BoxPlan& p, int k) { return Dst ? p.dst_order[k] : k; }
  __device__ static void digits(const BoxPlan& p, std::uint32_t t,
                                std::uint32_t (&d)[kBoxMaxDims]) {
#pragma unroll
    for (int k = 0; k < kBoxMaxDims; ++k) {
      if (k >= p.dims) break;
      const int u = dim(p, k);
      const std::uint32_t q = k + 1 < p.dims ? p.box_div[u].div31(t) : 0;
      d[k] = t - q * p.box[u];
      t = q;
    }
  }
  __device__ RegBoxCoords(const BoxPlan& p, std::uint32_t t0, std::uint32_t step) {
    digits(p, t0, c);
    digits(p, step, s);
  }
  __device__ void advance(const BoxPlan& p) {
    std::uint32_t carry = 0;
#pragma unroll
    for (int k = 0; k < kBoxMaxDims; ++k) {
      if (k >= p.dims) break;
      const std::uint32_t v = c[k] + s[k] + carry, n = p.box[dim(p, k)];
      carry = k + 1 < p.dims && v >= n;
      c[k] = carry ? v - n : v;
    }
  }
  // Offset from the box's origin along this side (elements), and (Dst) the shared slot before
  // padding: the box's src-order position.
  __device__ std::uint32_t offset(const BoxPlan& p) const {
    std::uint32_t off = 0;
#pragma unroll
    for (int k = 0; k < kBoxMaxDims; ++k)
      if (k < p.dims) off += c[k] * static_cast<std::uint32_t>(Dst ? p.ds[dim(p, k)] : p.ss[k]);
    return off;
  }
  __device__ std::uint32_t smem_at(const BoxPlan& p) const {
    std::uint32_t at = 0;
#pragma unroll
    for (int k = 0; k < kBoxMaxDims; ++k)
      if (k < p.dims) at += c[k] * p.smem_stride[dim(p, k)];
    return at;
  }
  // The cut coordinates packed as box_cut_coords packs them.
  __device__ std::uint32_t cuts(const BoxPlan& p) const {
    std::uint32_t cc = 0;
#pragma unroll
    for (int k = 0; k < kBoxMaxDims; ++k)
      if (k < p.dims) {
        const int u = dim(p, k);
        cc |= u == p.cut[0] ? c[k] : u == p.cut[1] ? c[k] << 8 : 0u;
      }
    return cc;
  }
};
template <int E, bool Whole, int VS = E, int VD = E>
__global__ void __launch_bounds__(reg_box_shape(E).threads, reg_box_shape(E).blocks_per_sm)
    permute_box_reg_kernel(const typename Word<E>::type* __restrict__ src,
                           typename Word<E>::type* __restrict__ dst, BoxPlan p, FastDiv pad) {
  using T = typename Word<E>::type;
  using TS = typename Word<VS>::type;
  using TD = typename Word<VD>::type;
  constexpr int R = reg_box_shape(E).per_thread;
  constexpr int WS = VS / E, WD = VD / E;
  static_assert(R % WS == 0 && R % WD == 0, "a thread's elements in whole words");
  constexpr int RS = R / WS, RD = R / WD;  // this thread's src and dst words
  const unsigned nt = blockDim.x;  // at most reg_box_shape(E).threads, the box's elements over R
  extern __shared__ __align__(16) unsigned char permute_box_smem[];
  T* buf = reinterpret_cast<T*>(permute_box_smem);
  const std::uint32_t V = p.volume, NS = V / WS, ND = V / WD;
  const unsigned tid = threadIdx.x;
  const unsigned lane = tid % 32;
  const unsigned rot_s = reg_word_rotation<E, VS>(lane), rot_d = reg_word_rotation<E, VD>(lane);
  const bool padded = pad.d > 1;
  auto slot = [&](std::uint32_t t) { return padded ? t + pad.div31(t) : t; };
  const std::uint32_t step = p.dims > 0 ? p.smem_stride[p.dst_order[0]] : 1;
  std::uint32_t ld_off[RS], st_off[RD];  // word offsets in the box (under 2^31, make_box_plan)
  // Shared slots of the words' elements, word k's element (j + rot) % W at k W + j: src words'
  // (src order) and dst words' (dst order; element j of a dst word `step` shared elements after
  // element 0, dst_order[0] being the dimension the word runs along).
  std::uint32_t ld_at[R], st_at[R];
  // Coordinates along the cut dimensions of each word's first element (a word is inside the
  // tensor exactly when that element is, box_vector_elems): src word k's in bits 0-15 of cuts[k],
  // dst word k's in bits 16-31.
  constexpr int RC = RS > RD ? RS : RD;
  std::uint32_t cuts[Whole ? 1 : RC] = {};
  if constexpr (RS >= kRegStepMinWords) {
    RegBoxCoords<false> at(p, tid * WS, nt * WS);  // src word tid + k nt's first element
#pragma unroll
    for (int k = 0; k < RS; ++k) {
      if (k > 0) at.advance(p);
      const bool in = tid + k * nt < NS;
      ld_off[k] = in ? at.offset(p) : 0;
      if constexpr (!Whole) cuts[k] |= in ? at.cuts(p) : 0u;
    }
  } else {
#pragma unroll
    for (int k = 0; k < RS; ++k) {
      const std::uint32_t w = tid + k * nt;
      ld_off[k] = 0;
      if (w >= NS) continue;
      std::uint32_t c;
      ld_off[k] = static_cast<std::uint32_t>(box_src_offset(p, w * WS, &c));
      if constexpr (!Whole) cuts[k] |= c;
    }
  }
  // Word k of this thread inside box `o` (load: a src word, store: a dst word).
  auto inside = [&](int k, bool store, const BoxOrigin& o) {
    const std::uint32_t w = tid + k * nt;
    if constexpr (Whole) {
      return w < (store ? ND : NS);
    } else {
      const std::uint32_t cc = store ? cuts[k] >> 16 : cuts[k];
      return w < (store ? ND : NS) && (cc & 255u) < o.lim0 && ((cc >> 8) & 255u) < o.lim1;
    }
  };
  // The origins of this block's boxes j (box blockIdx.x + j gridDim.x), 32 at a time: lane j % 32
  // of every warp decodes box j's once (one division chain a lane, in parallel) and the warp
  // reads it by a shuffle, instead of every warp decoding every box.
  const std::uint64_t g = gridDim.x;
  BoxOrigin mine;
  auto decode = [&](std::uint64_t j0) {
    const std::uint64_t box = blockIdx.x + (j0 + lane) * g;
    if (box < p.boxes) mine = box_origin(p, static_cast<std::uint32_t>(box));
  };
  auto origin_of = [&](std::uint64_t j) {
    const int from = static_cast<int>(j % 32);
    BoxOrigin o;
    o.src = __shfl_sync(~0u, mine.src, from);
    o.dst = __shfl_sync(~0u, mine.dst, from);
    if constexpr (!Whole) {
      const std::uint32_t lims = __shfl_sync(~0u, mine.lim0 | mine.lim1 << 16, from);
      o.lim0 = lims & 0xffffu;
      o.lim1 = lims >> 16;
    }
    return o;
  };
  if (blockIdx.x >= p.boxes) return;
  decode(0);
  BoxOrigin at = origin_of(0);
  TS v[RS];
  auto load = [&](const BoxOrigin& o) {
#pragma unroll
    for (int k = 0; k < RS; ++k)
      if (inside(k, false, o)) v[k] = *reinterpret_cast<const TS*>(src + o.src + ld_off[k]);
  };
  load(at);
  // The shared slots and the dst side's offsets only after the first box's loads are issued: on
  // a small tensor a block walks one or two boxes, and this decode (a division chain a dst word)
  // would otherwise stand between the launch and the first byte read.
#pragma unroll
  for (int k = 0; k < RS; ++k) {
    const std::uint32_t w = tid + k * nt;
#pragma unroll
    for (int j = 0; j < WS; ++j) ld_at[k * WS + j] = w < NS ? slot(w * WS + (j + rot_s) % WS) : 0;
  }
  if constexpr (RD >= kRegStepMinWords) {
    RegBoxCoords<true> to(p, tid * WD, nt * WD);  // dst word tid + k nt's first element
#pragma unroll
    for (int k = 0; k < RD; ++k) {
      if (k > 0) to.advance(p);
      const bool in = tid + k * nt < ND;
      st_off[k] = in ? to.offset(p) : 0;
      const std::uint32_t at0 = to.smem_at(p);
#pragma unroll
      for (int j = 0; j < WD; ++j) st_at[k * WD + j] = in ? slot(at0 + (j + rot_d) % WD * step) : 0;
      if constexpr (!Whole) cuts[k] |= in ? to.cuts(p) << 16 : 0u;
    }
  } else {
#pragma unroll
    for (int k = 0; k < RD; ++k) {
      const std::uint32_t w = tid + k * nt;
      st_off[k] = 0;
#pragma unroll
      for (int j = 0; j < WD; ++j) st_at[k * WD + j] = 0;
      if (w >= ND) continue;
      std::uint32_t c, at0;
      st_off[k] = static_cast<std::uint32_t>(box_dst_offset(p, w * WD, &at0, &c));
#pragma unroll
      for (int j = 0; j < WD; ++j) st_at[k * WD + j] = slot(at0 + (j + rot_d) % WD * step);
      if constexpr (!Whole) cuts[k] |= c << 16;
    }
  }
  for (std::uint64_t j = 0;; ++j) {
#pragma unroll
    for (int k = 0; k < RS; ++k)
      if (inside(k, false, at)) {
        T e[WS];
        std::memcpy(e, &v[k], sizeof(TS));
        rotate_left<WS>(e, rot_s);
#pragma unroll
        for (int i = 0; i < WS; ++i) buf[ld_at[k * WS + i]] = e[i];
      }
    __syncthreads();
    const std::uint64_t next = j + 1;
    const bool more = blockIdx.x + next * g < p.boxes;
    BoxOrigin nx;
    if (more) {  // the next box's loads in flight while this one is stored
      if (next % 32 == 0) decode(next);
      nx = origin_of(next);
      load(nx);
    }
    T* d0 = dst + at.dst;
#pragma unroll
    for (int k = 0; k < RD; ++k)
      if (inside(k, true, at)) {
        T e[WD];
#pragma unroll
        for (int i = 0; i < WD; ++i) e[i] = buf[st_at[k * WD + i]];
        rotate_left<WD>(e, (WD - rot_d) % WD);  // back to dst order
        TD word;
        std::memcpy(&word, e, sizeof(TD));
        *reinterpret_cast<TD*>(d0 + st_off[k]) = word;
      }
    if (!more) break;
    __syncthreads();
    at = nx;
  }
}

// The register blocks of permute_box_words_kernel's stores (box_dst_blocks): x[j] (j < W) is a
// 4-byte unit of S = 4 / E elements, element k of it the k-th word's element j; out[k] is word k,
// W elements. A transpose of an S x W matrix of E-byte elements through byte permutes (PRMT).
template <int E, int W, class TD>
__device__ __forceinline__ void units_to_words(const std::uint32_t (&x)[W], TD (&out)[4 / E]) {
  static_assert(E == 1 || E == 2, "units of 2 or 4 elements");
  static_assert(sizeof(TD) == W * E && W * E % 4 == 0, "words of whole 4-byte units");
  constexpr int S = 4 / E, U = W * E / 4;  // words; 4-byte units a word
  std::uint32_t o[S][U];
  if constexpr (E == 2) {
    // o[k][u] = x[2u] half k, x[2u + 1] half k.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      o[0][u] = byte_perm(x[2 * u], x[2 * u + 1], 0x5410u);
      o[1][u] = byte_perm(x[2 * u], x[2 * u + 1], 0x7632u);
    }
  } else {
    // o[k][u] = byte k of x[4u .. 4u + 3]: a 4 x 4 byte transpose a unit.
#pragma unroll
    for (int u = 0; u < U; ++u) {
      std::uint32_t t[4];
      transpose_bytes_4x4(x[4 * u], x[4 * u + 1], x[4 * u + 2], x[4 * u + 3], t);
#pragma unroll
      for (int k = 0; k < 4; ++k) o[k][u] = t[k];
    }
  }
#pragma unroll
  for (int k = 0; k < S; ++k) std::memcpy(&out[k], o[k], sizeof(TD));
}

// The box walk in words (permute_box_words_kernel): the same boxes
// (kernels/common/permute_box.hpp), loaded and stored in 4-16-byte words instead of elements where
// the strides allow (box_vector_elems). What it adds: at 1-4-byte elements the element walk is
// bound by instruction issue (Nsight Compute: 63-77% issue active with DRAM 6-44% busy;
// docs/permute.md, section 4), one load, one shared store and one table read per element. Here a
// thread loads a word of WS elements along src's contiguous dimension and stores it to shared
// memory whole; on the store side it gathers WD elements that are consecutive along dst's
// contiguous dimension (a shared stride apart in the box's src-order layout), packs them into a
// word and stores it. The tables hold one entry per word, not per element. Either side may stay at
// one element per word (an odd extent there).
constexpr unsigned kWordThreads = kBoxWordThreads;
// The pipelined walk (DevicePolicy::permute_box_pipeline, box_loads) where a box is at most this
// many src words a thread: the next box's loads issued before this box's stores. With more words
// a thread (6-8 elements of 1-4 bytes) it measured slower on the H200 (0.60-0.74x on four seed-1
// cases: the words held across the stores cost registers and occupancy); with 1-2 words of
// 16 bytes, 1.09-1.28x (docs/permute.md, section 4).
constexpr int kPipelinedWords = kBoxPipelinedWords;

// Box element t in src order is shared element t (dimension 0, src's contiguous one, has shared
// stride 1). Src word s: src-order elements s * WS .. s * WS + WS - 1, consecutive in src and in
// shared memory: along box dimension 0, or across the whole dimensions that continue it in src
// (box_vector_elems). Dst word d: dst-order elements d * WD .., consecutive
// along box dimension dst_order[0] in dst, `step` apart in shared memory.
// Async (DevicePolicy::permute_box_async, src words of 4-16 bytes): src words go to shared
// memory by cp.async into two buffers, box k + 1's copies in flight while box k is stored, as in
// permute_box_async_kernel; no register holds a word between its load and its shared store.
// Cross: dst words that cross rows (box_dst_words_cross_rows; 16-byte words from 2 B on, 4-16-byte
// words at 1-2 B behind src words, so only those kernels carry the crossing gather, and a kernel of
// their own: in the other kernels its code cost 3-7% where no word crossed; docs/perf-guide.md
// section 4.13).
// Threads: the block, kWordThreads or, through registers at 1-2 B, kBoxWordSmallThreads
// (box_words_threads: a box's barriers wait for half the warps; the pipelined walk holds twice
// the words a thread, so the same boxes take it).
// DR > 0 (box_dst_in_registers: single-element dst words through cp.async): thread tid's dst
// entries tid + k Threads (k < DR) are read from the tables once, into registers: their dst
// offsets and the byte offsets of their shared slots (swizzled where the box is).
// Scatter (box_dst_by_src_words: single-element dst words, src words inside box dimension 0):
// the stores walk src words instead of dst elements. Entry g of the dst tables is src word g in
// dst order of the words' first elements (dst-order element g mod R + WS R (g / R), R the box's
// elements along the dst dimensions before dimension 0); a thread reads the word whole from the
// box and stores its WS elements ds[0] apart, lanes walking dst's contiguous dimension.
// Blocks (box_dst_blocks: 1-2 B, dst words of 4-16 bytes, box dimension 0 in 4-byte units): a
// thread takes the S = 4 / E dst words that differ only along box dimension 0 (coordinates
// S c .. S c + S - 1); their elements at one dst position are one 4-byte unit of the box, so WD
// shared loads (not S WD) and a byte transpose in registers (units_to_words) make the S words.
template <int E, int VS, int VD, bool Async, bool Cross = false, unsigned Threads = kWordThreads,
          int DR = 0, bool Scatter = false, bool Blocks = false>
__global__ void __launch_bounds__(Threads)
    permute_box_words_kernel(const typename Word<E>::type* __restrict__ src,
                             typename Word<E>::type* __restrict__ dst, BoxPlan p, bool swizzle) {
  static_assert(!Async || VS >= 4, "cp.async copies 4, 8 or 16 bytes");
  static_assert(DR == 0 || (Async && VD == E && !Cross && Threads == kWordThreads),
                "dst entries in registers: single-element dst words through cp.async");
  static_assert(!Scatter || (VD == E && VS > E && !Cross && DR == 0),
                "stores by src word: single-element dst words, src words");
  static_assert(!Blocks || (E <= 2 && VS >= 4 && VD >= 4 && !Cross && DR == 0 && !Scatter),
                "stores in register blocks: 1-2-byte elements, words of 4 bytes or more");
  using T = typename Word<E>::type;
  using TS = typename Word<VS>::type;
  using TD = typename Word<VD>::type;
  constexpr std::uint32_t WS = VS / E, WD = VD / E;
  constexpr int K = VS >= 8 ? 4 : 8;  // src words in flight per thread: 32-64 bytes
  extern __shared__ __align__(16) unsigned char permute_box_words_smem[];
  const std::uint32_t V = p.volume, NS = V / WS, ND = V / WD;
  const std::uint32_t buf_bytes = box_words_buf_bytes(V, E);
  unsigned char* buf = permute_box_words_smem;  // Async: buffer k & 1 holds box k
  auto* ld_off =
      reinterpret_cast<std::int32_t*>(permute_box_words_smem + (Async ? 2 : 1) * buf_bytes);
  std::int32_t* st_off = ld_off + NS;
  auto* st_idx = reinterpret_cast<std::uint16_t*>(st_off + ND);
  std::uint16_t* ld_cut = st_idx + ND;
  std::uint16_t* st_cut = ld_cut + NS;
  const std::uint32_t step = p.smem_stride[p.dst_order[0]];
  const unsigned tid = threadIdx.x;
  // Byte offset of box element i in shared memory. Swizzled: the 16-byte chunks of each 128-byte
  // row XORed with the row's index (mod 8), so dst words whose first elements lie a multiple of
  // 128 bytes apart (consecutive threads on the store side) start in different banks instead of
  // all in one; a word never straddles a chunk.
  auto at_byte = [](auto swizzled, std::uint32_t i) {
    const std::uint32_t a = i * E;
    return decltype(swizzled)::value ? a ^ (((a >> 7) & 7u) << 4) : a;
  };
  // Async: the first box's src words copied as their entries are made (FirstBox).
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const FirstBox first = Async ? first_box(p, buf, buf_bytes, WS, WD)
                               : FirstBox{false, true, BoxOrigin{}, buf, buf_bytes};
  if (first.early) pipe.producer_acquire();
  build_box_entries(
      p, first.rows_buf, first.rows_buf_bytes,
      reinterpret_cast<unsigned char*>(ld_off) + box_words_tables_bytes(NS, ND), tid, Threads, NS,
      WS, Scatter ? NS : ND, WD,
      [&](std::uint32_t w, std::int32_t off, std::uint32_t cuts) {
        ld_off[w] = off;
        ld_cut[w] = static_cast<std::uint16_t>(cuts);
        if constexpr (Async) {
          if (first.early && first.inside(cuts))
            cuda::memcpy_async(buf + (swizzle ? at_byte(std::true_type{}, w * WS)
                                              : at_byte(std::false_type{}, w * WS)),
                               src + first.at.src + off, cuda::aligned_size_t<VS>(VS), pipe);
        }
      },
      [&](std::uint32_t w, std::int32_t off, std::uint32_t at, std::uint32_t cuts) {
        st_off[w] = off;
        st_idx[w] = static_cast<std::uint16_t>(at);
        st_cut[w] = static_cast<std::uint16_t>(cuts);
      },
      [&] {
        if constexpr (Scatter) {
          return [&p](std::uint32_t g) { return box_dst_src_word_at(p, WS, g); };
        } else {
          return DstSteps{WD};
        }
      }());
  if (first.early) pipe.producer_commit();
  // A word is inside the tensor exactly when its first element is (box_vector_elems).
  auto with_whole = [&](const BoxOrigin& at, auto&& f) { box_with_whole(p, at, f); };
  constexpr auto inside = box_inside;
  static_assert(DR * Threads * E < 65536, "DstEntries: slot bytes under 2^16");
  DstEntries<DR> reg;  // DR > 0: this thread's dst entries (offsets, slot bytes)
  if constexpr (DR > 0)
    reg.load(
        tid, Threads, ND, [&](std::uint32_t w) { return st_off[w]; },
        [&](std::uint32_t w) {
          return swizzle ? at_byte(std::true_type{}, st_idx[w])
                         : at_byte(std::false_type{}, st_idx[w]);
        });
  // Box `at`'s src words w0 + k Threads (k < n) into registers, then into shared memory.
  auto load = [&](auto n, std::uint32_t w0, const BoxOrigin& at, TS* v) {
    with_whole(at, [&](auto whole) {
      const T* s0 = src + at.src;
#pragma unroll
      for (int k = 0; k < decltype(n)::value; ++k) {
        const std::uint32_t w = w0 + k * Threads;
        if (w < NS && inside(whole, ld_cut, w, at))
          v[k] = *reinterpret_cast<const TS*>(s0 + ld_off[w]);
      }
    });
  };
  auto put = [&](auto n, auto swizzled, std::uint32_t w0, const BoxOrigin& at, const TS* v) {
    with_whole(at, [&](auto whole) {
#pragma unroll
      for (int k = 0; k < decltype(n)::value; ++k) {
        const std::uint32_t w = w0 + k * Threads;
        if (w < NS && inside(whole, ld_cut, w, at))
          *reinterpret_cast<TS*>(buf + at_byte(swizzled, w * WS)) = v[k];
      }
    });
  };
  // Dst words gathered from shared memory (`from_buf`), packed and stored. A word that crosses
  // rows (box_dst_words_cross_rows) carries: after the last element of a row of dst_order[0]
  // (b0 elements) it steps to the next row along dst_order[1] (`wrap1` shared elements further),
  // after the last row of those (b1 rows) along dst_order[2] (`wrap2`); box_vector_elems keeps
  // every word inside such a run.
  constexpr bool cross = Cross;
  const int u0 = p.dst_order[0], u1 = p.dims > 1 ? p.dst_order[1] : 0;
  const std::uint32_t b0 = p.box[u0], b1 = p.box[u1];
  const std::uint32_t wrap1 = cross ? p.smem_stride[u1] - b0 * step : 0u;
  const std::uint32_t wrap2 =
      cross && p.dims > 2 ? p.smem_stride[p.dst_order[2]] - b1 * p.smem_stride[u1] : 0u;
  auto store = [&](auto swizzled, const BoxOrigin& at, const unsigned char* from_buf) {
    if constexpr (DR > 0) {  // the gather alone an element
      with_whole(at, [&](auto whole) {
        reg.store(
            tid, Threads, ND, dst + at.dst,
            [&](std::uint32_t b) { return *reinterpret_cast<const T*>(from_buf + b); },
            [&](std::uint32_t w) { return inside(whole, st_cut, w, at); });
      });
      return;
    }
    if constexpr (Scatter) {  // a src word a thread, its elements ds[0] apart in dst
      const auto d_step = static_cast<std::int32_t>(p.ds[0]);
      with_whole(at, [&](auto whole) {
        T* d0 = dst + at.dst;
        for (std::uint32_t g = tid; g < NS; g += Threads)
          if (inside(whole, st_cut, g, at)) {
            const TS v = *reinterpret_cast<const TS*>(from_buf + at_byte(swizzled, st_idx[g]));
            T e[WS];
            std::memcpy(e, &v, sizeof(v));
            T* d = d0 + st_off[g];
#pragma unroll
            for (std::uint32_t j = 0; j < WS; ++j) d[static_cast<std::int32_t>(j) * d_step] = e[j];
          }
      });
      return;
    }
    if constexpr (Blocks) {  // the S dst words along box dimension 0 a thread (box_dst_blocks)
      constexpr std::uint32_t S = kBoxDstBlockBytes / E;
      const std::uint32_t R = p.src_word_rows_div.d;  // dst-order elements a step of dimension 0
      const auto d_step = static_cast<std::int32_t>(p.ds[0]);
      with_whole(at, [&](auto whole) {
        T* d0 = dst + at.dst;
        for (std::uint32_t g = tid; g < ND / S; g += Threads) {
          // Dst-order element g WD = lo + R m (lo along the dimensions before box dimension 0 in
          // dst order, m = c0 + box[0] (the rest)); block g's first word starts at lo + S R m:
          // coordinate S c0 along dimension 0 (box[0] is a multiple of S), the rest unchanged.
          const std::uint32_t e = g * WD, m = p.src_word_rows_div.div31(e);
          const std::uint32_t w = (e + (S - 1) * R * m) / WD;
          if (!inside(whole, st_cut, w, at)) continue;  // so are its S words (box_dst_blocks)
          const std::uint32_t from = st_idx[w];
          std::uint32_t x[WD];  // x[j]: the S words' elements j, one 4-byte unit of the box
#pragma unroll
          for (std::uint32_t j = 0; j < WD; ++j)
            x[j] = *reinterpret_cast<const std::uint32_t*>(from_buf +
                                                           at_byte(swizzled, from + j * step));
          TD out[S];
          units_to_words<E>(x, out);
          T* d = d0 + st_off[w];
#pragma unroll
          for (std::uint32_t k = 0; k < S; ++k)
            *reinterpret_cast<TD*>(d + static_cast<std::int32_t>(k) * d_step) = out[k];
        }
      });
      return;
    }
    with_whole(at, [&](auto whole) {
      T* d0 = dst + at.dst;
      for (std::uint32_t w = tid; w < ND; w += Threads)
        if (inside(whole, st_cut, w, at)) {
          const std::uint32_t from = st_idx[w];
          T e[WD];
          if constexpr (cross) {
            // Dst-order element w WD is (a0, a1, ..) along dst_order[0], dst_order[1], ...
            const std::uint32_t t = w * WD, r = p.box_div[u0].div(t);
            std::uint32_t a0 = t - r * b0, a1 = r - p.box_div[u1].div(r) * b1, i = from;
#pragma unroll
            for (std::uint32_t j = 0; j < WD; ++j) {
              e[j] = *reinterpret_cast<const T*>(from_buf + at_byte(swizzled, i));
              i += step;
              if (++a0 == b0) {
                a0 = 0, i += wrap1;
                if (++a1 == b1) a1 = 0, i += wrap2;
              }
            }
          } else {
#pragma unroll
            for (std::uint32_t j = 0; j < WD; ++j)
              e[j] = *reinterpret_cast<const T*>(from_buf + at_byte(swizzled, from + j * step));
          }
          TD out;
          std::memcpy(&out, e, sizeof(out));
          *reinterpret_cast<TD*>(d0 + st_off[w]) = out;
        }
    });
  };
  // The walk through registers: at most kPipelinedWords words a thread, the next box's loads
  // are in flight while this one is stored. Only words of 8-16 bytes get there (a box of
  // 1-4-byte words has more of them a thread), so only their kernels carry the pipelined walk's
  // registers. Else each box loaded, then stored.
  auto walk_registers = [&](auto swizzled) {
    if constexpr (VS >= 8) {
      // The same src words a box in a smaller block: more of them a thread.
      constexpr int kWords = kPipelinedWords * static_cast<int>(kWordThreads / Threads);
      if (p.pipeline && NS <= kWords * Threads) {
        constexpr std::integral_constant<int, kWords> n{};
        TS v[kWords];
        bool first = true;
        for_each_box_ahead(p, p.origin_once,
                           [&](const BoxOrigin& at, bool has_next, const BoxOrigin& next) {
                             if (first) load(n, tid, at, v);
                             first = false;
                             put(n, swizzled, tid, at, v);
                             __syncthreads();
                             if (has_next) load(n, tid, next, v);
                             store(swizzled, at, buf);
                             __syncthreads();
                           });
        return;
      }
    }
    for_each_box(p, p.origin_once, [&](const BoxOrigin& at) {
      constexpr std::integral_constant<int, K> n{};
      for (std::uint32_t w0 = tid; w0 < NS; w0 += K * Threads) {
        TS v[K];
        load(n, w0, at, v);
        put(n, swizzled, w0, at, v);
      }
      __syncthreads();
      store(swizzled, at, buf);
      __syncthreads();
    });
  };
  // The walk through cp.async: src words straight into shared memory, two buffers.
  auto walk_async = [&](auto swizzled) {
    // This thread's src words of box `at` into buffer b: one commit group (maybe empty).
    auto issue = [&](const BoxOrigin& at, unsigned b) {
      unsigned char* into = buf + b * buf_bytes;
      pipe.producer_acquire();
      with_whole(at, [&](auto whole) {
        const T* s0 = src + at.src;
        for (std::uint32_t w = tid; w < NS; w += Threads)
          if (inside(whole, ld_cut, w, at))
            copy_async_l2_256B<VS>(into + at_byte(swizzled, w * WS), s0 + ld_off[w], pipe);
      });
      pipe.producer_commit();
    };
    for_each_box_async(p, pipe, first.early, issue, [&](const BoxOrigin& at, unsigned b) {
      store(swizzled, at, buf + b * buf_bytes);
    });
  };
  auto walk = [&](auto swizzled) {
    if constexpr (Async)
      walk_async(swizzled);
    else
      walk_registers(swizzled);
  };
  if (swizzle)
    walk(std::true_type{});
  else
    walk(std::false_type{});
}

template <int E>
cudaError_t launch_words(const kernels::PermuteArgs& a, const BoxPlan& box, int ws, int wd,
                         bool async, std::uint32_t smem) {
  using T = typename Word<E>::type;
  return dispatch_word(ws * E, [&](auto vs) {
    return dispatch_word(wd * E, [&](auto vd) {
      constexpr int VS = decltype(vs)::value, VD = decltype(vd)::value;
      // Words are the element itself or 4-16 bytes (box_vector_elems), at least one wider than it.
      if constexpr (VS < E || VD < E || (E == 1 && (VS == 2 || VD == 2)) || (VS == E && VD == E)) {
        return cudaErrorInvalidValue;
      } else {
        const bool swizzle = box_words_swizzled(box, E, wd, a.box_swizzle_bytes);
        const auto* s = static_cast<const T*>(a.src);
        auto* d = static_cast<T*>(a.dst);
        auto go = [&](auto* k, unsigned threads) {
          return launch_with_smem(k, dim3(box_blocks(a, box, k, threads, smem)), dim3(threads),
                                  smem, a.stream, s, d, box, swizzle);
        };
        auto run = [&](auto cross) {
          constexpr bool C = decltype(cross)::value;
          // Stores by src word (box_dst_by_src_words).
          if constexpr (VD == E && VS > E && !C) {
            if (box_dst_by_src_words(box, E, ws, wd, a.box_dst_by_src_words_max_bytes)) {
              if (async)
                return go(permute_box_words_kernel<E, VS, VD, true, false, kWordThreads, 0, true>,
                          kWordThreads);
              if constexpr (E <= kBoxWordSmallMaxBytes) {
                if (box_words_threads(E, BoxLoads::registers, a.box_words_small_block_max_bytes) ==
                    kBoxWordSmallThreads)
                  return go(permute_box_words_kernel<E, VS, VD, false, false, kBoxWordSmallThreads,
                                                     0, true>,
                            kBoxWordSmallThreads);
              }
              return go(permute_box_words_kernel<E, VS, VD, false, false, kWordThreads, 0, true>,
                        kWordThreads);
            }
          }
          // Stores in register blocks (box_dst_blocks).
          if constexpr (E <= kBoxDstBlocksMaxBytes && VS >= 4 && VD >= 4 && !C) {
            if (box_dst_blocks(box, E, ws, wd, a.box_dst_blocks_max_bytes)) {
              if (async)
                return go(
                    permute_box_words_kernel<E, VS, VD, true, false, kWordThreads, 0, false, true>,
                    kWordThreads);
              if (box_words_threads(E, BoxLoads::registers, a.box_words_small_block_max_bytes) ==
                  kBoxWordSmallThreads)
                return go(permute_box_words_kernel<E, VS, VD, false, false, kBoxWordSmallThreads, 0,
                                                   false, true>,
                          kBoxWordSmallThreads);
              return go(
                  permute_box_words_kernel<E, VS, VD, false, false, kWordThreads, 0, false, true>,
                  kWordThreads);
            }
          }
          if constexpr (VS >= 4) {
            // Single-element dst words: entries in registers (box_dst_in_registers).
            if constexpr (VD == E && E >= kBoxDstRegistersMinBytes && !C) {
              const int entries =
                  async ? box_dst_register_entries(box, E, wd, BoxLoads::async, a.box_dst_registers,
                                                   a.box_dst_registers_large_max_bytes)
                        : 0;
              if (entries == kBoxDstRegisterEntries)
                return go(permute_box_words_kernel<E, VS, VD, true, false, kWordThreads,
                                                   kBoxDstRegisterEntries>,
                          kWordThreads);
              if constexpr (E >= kBoxDstRegistersLargeMinBytes && E <= 8) {
                if (entries == kBoxDstRegisterEntriesLarge)
                  return go(permute_box_words_kernel<E, VS, VD, true, false, kWordThreads,
                                                     kBoxDstRegisterEntriesLarge>,
                            kWordThreads);
              }
            }
            if (async) return go(permute_box_words_kernel<E, VS, VD, true, C>, kWordThreads);
          }
          // Small blocks through registers at 1-2 B (box_words_threads; only those sizes have
          // the kernels).
          if constexpr (E <= kBoxWordSmallMaxBytes) {
            const BoxLoads loads = async ? BoxLoads::async : BoxLoads::registers;
            if (box_words_threads(E, loads, a.box_words_small_block_max_bytes) ==
                kBoxWordSmallThreads)
              return go(permute_box_words_kernel<E, VS, VD, false, C, kBoxWordSmallThreads>,
                        kBoxWordSmallThreads);
          }
          return go(permute_box_words_kernel<E, VS, VD, false, C>, kWordThreads);
        };
        // Crossing words are 16 bytes from 2-byte elements on, 4-16 bytes at 1-2 B where src has
        // words (box_vector_elems).
        if constexpr ((VD == 16 && E >= 2) || (E <= 2 && VS >= 4 && VD >= 4)) {
          if (box_dst_words_cross_rows(box, wd)) return run(std::true_type{});
        }
        return run(std::false_type{});
      }
    });
  });
}

std::int64_t permute_box_words_smem_bytes(const BoxPlan& box, int elem_bytes, int ws, int wd,
                                          bool async) {
  // The elements in whole 128-byte rows (the swizzle permutes 16-byte chunks inside a row), two
  // buffers of them when async; the tables; the row tables where the buffers cannot hold them.
  const std::uint32_t bufs = box_walk_bufs_bytes(box, static_cast<std::uint32_t>(elem_bytes), true,
                                                 async ? BoxLoads::async : BoxLoads::registers, 1);
  return std::int64_t{bufs} + box_words_tables_bytes(box.volume / ws, box.volume / wd) +
         box_row_tables_extra_bytes(box, bufs, ws, wd);
}

cudaError_t launch_permute_box_words(const kernels::PermuteArgs& a, const BoxPlan& box, int ws,
                                     int wd) {
  const bool async =
      box_loads(box, a.elem_bytes, true, ws, a.box_pipeline, a.box_async) == BoxLoads::async;
  const auto smem =
      static_cast<std::uint32_t>(permute_box_words_smem_bytes(box, a.elem_bytes, ws, wd, async));
  BoxPlan b = box;
  set_box_dst_src_word_rows(&b);
  return dispatch_word(a.elem_bytes, [&](auto eb) {
    return launch_words<decltype(eb)::value>(a, b, ws, wd, async, smem);
  });
}

// Row permutation whose rows share no 16-byte alignment (odd extents): dst is written in
// aligned 16-byte chunks; each chunk's 16 source bytes, at offset r inside an aligned block,
// come from the two aligned blocks around them (whole 16-byte loads), shifted into place with
// funnel shifts. The head (bytes before dst's first aligned chunk) and the tail go byte by byte,
// as does a chunk whose second block would reach outside src's span [src_lo, src_hi).
__device__ __forceinline__ uint4 shifted_chunk(const uint4& a, const uint4& b, unsigned r) {
  const unsigned w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  const unsigned q = r >> 2, sh = 8 * (r & 3);
  unsigned x[5];
#pragma unroll
  for (int k = 0; k < 5; ++k)  // x[k] = w[k + q], with constant register indices
    x[k] = q == 0 ? w[k] : q == 1 ? w[k + 1] : q == 2 ? w[k + 2] : w[k + 3];
  return make_uint4(__funnelshift_r(x[0], x[1], sh), __funnelshift_r(x[1], x[2], sh),
                    __funnelshift_r(x[2], x[3], sh), __funnelshift_r(x[3], x[4], sh));
}

constexpr int kRealignUnroll = 4;

__global__ void __launch_bounds__(kThreads)
    permute_rows_realign_kernel(const unsigned char* __restrict__ src,
                                unsigned char* __restrict__ dst, PermuteGeometry g, int lanes_log2,
                                std::uintptr_t src_lo, std::uintptr_t src_hi, FlatRows flat,
                                std::uint32_t total, int sweeps) {
  const int tid = threadIdx.y * kSide + threadIdx.x;
  const int lanes = 1 << lanes_log2, slots = kThreads >> lanes_log2;
  const int slot = tid >> lanes_log2, lane = tid & (lanes - 1);
  const std::int64_t row_bytes = g.cols, tile_rows = std::int64_t{slots} * sweeps;
  for (std::int64_t r0 = blockIdx.x * tile_rows + slot; r0 < total;
       r0 += std::int64_t{gridDim.x} * tile_rows) {
    for (int k = 0; k < sweeps; ++k) {
      const std::int64_t row = r0 + std::int64_t{k} * slots;
      if (row >= total) break;
      std::int64_t so, dof;
      flat.at(g, static_cast<std::uint32_t>(row), &so, &dof);
      const unsigned char* s = src + so;
      unsigned char* d = dst + dof;
      const auto head =
          static_cast<std::int64_t>((16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16);
      const std::int64_t h = head < row_bytes ? head : row_bytes;
      const std::int64_t chunks = (row_bytes - h) / 16;
      const std::int64_t tail0 = h + chunks * 16;
      for (std::int64_t i = lane; i < h; i += lanes) d[i] = s[i];
      for (std::int64_t i = tail0 + lane; i < row_bytes; i += lanes) d[i] = s[i];
      const auto r = static_cast<unsigned>(reinterpret_cast<std::uintptr_t>(s + h) % 16);
      // kRealignUnroll chunks per thread at once: all their loads, then the
      // stores (a 16 KB row is 32 chunks per lane).
      for (std::int64_t c0 = lane; c0 < chunks; c0 += kRealignUnroll * lanes) {
        uint4 lo[kRealignUnroll], hi[kRealignUnroll];
        bool whole[kRealignUnroll];
#pragma unroll
        for (int u = 0; u < kRealignUnroll; ++u) {
          const std::int64_t c = c0 + std::int64_t{u} * lanes;
          const auto sc = reinterpret_cast<std::uintptr_t>(s + h + c * 16);
          const std::uintptr_t base = sc - r;
          whole[u] = r == 0 || (base >= src_lo && base + 32 <= src_hi);
          if (c < chunks && whole[u]) {
            lo[u] = __ldg(reinterpret_cast<const uint4*>(base));
            if (r != 0) hi[u] = __ldg(reinterpret_cast<const uint4*>(base + 16));
          }
        }
#pragma unroll
        for (int u = 0; u < kRealignUnroll; ++u) {
          const std::int64_t c = c0 + std::int64_t{u} * lanes;
          if (c >= chunks) break;
          const unsigned char* sc = s + h + c * 16;
          uint4 out;
          if (r == 0) {
            out = lo[u];
          } else if (whole[u]) {
            out = shifted_chunk(lo[u], hi[u], r);
          } else {
            alignas(16) unsigned char tmp[16];
#pragma unroll
            for (int i = 0; i < 16; ++i) tmp[i] = sc[i];
            out = *reinterpret_cast<const uint4*>(tmp);
          }
          *reinterpret_cast<uint4*>(d + h + c * 16) = out;
        }
      }
    }
  }
}

// Row permutation into a dense dst as one run of dst bytes (kernels/common/permute_rows.hpp):
// thread t of a block takes chunks c0 + t + 256 u (u < flat_chunks(V)), the aligned 16-byte
// chunk c being dst bytes p = head + 16 c .. p + 15, from byte `off` of dst row f on: its first n1
// bytes from src row f and, where the chunk crosses that row's end (n1 < 16), the rest from the
// start of src row f + 1. Every offset a multiple of V (the widest vector every offset allows) from
// 4 bytes on: the chunk is 16 / V pieces of V bytes, each inside one row, all of a thread's chunks'
// pieces loaded before any store. At 1-2 bytes each segment is a 16-byte window of src
// (window_load: two aligned 16-byte loads shifted into place, one where aligned): the first
// windows of a thread's chunks, then the second windows of those that cross a row's end, merged
// by two funnel shifts, so a thread holds two 16-byte loads a chunk at most. The dst bytes before
// the first aligned chunk and after the last (under 16 each) go byte by byte, a lane of block 0
// each.
constexpr int kFlatChunks = 4;
// At 1-2 bytes, 3 chunks of windows a thread: 4 held 172 bytes of spills under the 64 registers
// of 4 blocks an SM (ptxas), 3 none.
constexpr int kFlatWindowChunks = 3;
TMAKIT_HD constexpr int flat_chunks(int v) {
  return v >= 4 ? kFlatChunks : kFlatWindowChunks;
}

// The loads of the 16-byte window of src at p: lo, and hi where p is off 16-byte alignment, when
// both aligned blocks lie inside src's span [src_lo, src_hi); else none. Returns p's offset in
// its aligned block, plus 16 where the loads were made.
__device__ __forceinline__ unsigned window_load(const unsigned char* p, std::uintptr_t src_lo,
                                                std::uintptr_t src_hi, uint4* lo, uint4* hi) {
  const auto x = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t r = x % 16, base = x - r;
  if (base < src_lo || base + (r != 0 ? 32 : 16) > src_hi) return static_cast<unsigned>(r);
  *lo = __ldg(reinterpret_cast<const uint4*>(base));
  if (r != 0) *hi = __ldg(reinterpret_cast<const uint4*>(base + 16));
  return static_cast<unsigned>(r) | 16u;
}
// Bytes 0 .. n - 1 of the window at p whose loads window_load made (`how`, its result): src
// bytes p .. p + n - 1, the rest unspecified; where it made none, read one by one.
__device__ __forceinline__ uint4 window_bytes(unsigned how, const uint4& lo, const uint4& hi,
                                              const unsigned char* p, int n) {
  const unsigned r = how & 15u;
  if (how & 16u) return r == 0 ? lo : shifted_chunk(lo, hi, r);
  unsigned w[4] = {0, 0, 0, 0};
#pragma unroll
  for (int i = 0; i < 16; ++i)
    if (i < n) w[i / 4] |= unsigned{p[i]} << (8 * (i % 4));
  return make_uint4(w[0], w[1], w[2], w[3]);
}

template <int V>
__global__ void __launch_bounds__(kThreads, 4)
    permute_rows_flat_kernel(const unsigned char* __restrict__ src, unsigned char* __restrict__ dst,
                             RowsFlat m, std::uint32_t head, std::uint32_t chunks,
                             std::uintptr_t src_lo, std::uintptr_t src_hi) {
  const unsigned tid = threadIdx.y * kSide + threadIdx.x;
  if (blockIdx.x == 0 && tid < 32) {  // head bytes (lanes 0-15) and tail bytes (16-31)
    const std::uint32_t tail0 = head + chunks * 16;
    const std::uint32_t p = tid < 16 ? tid : tail0 + (tid - 16);
    if (tid < 16 ? p < head : p < m.bytes) dst[p] = src[m.src_of(p)];
  }
  const std::uint32_t L = m.row.d;
  // Chunk c: dst bytes head + 16 c .., from byte `off` of dst row f on.
  auto at = [&](std::uint32_t c, std::uint32_t* f, std::uint32_t* off) {
    const std::uint32_t p = head + c * 16;
    *f = m.row.div(p);
    *off = p - *f * L;
  };
  constexpr int kU = flat_chunks(V);  // chunks a thread
  for (std::uint32_t c0 = blockIdx.x * (kThreads * kU) + tid; c0 < chunks;
       c0 += gridDim.x * (kThreads * kU)) {
    if constexpr (V >= 4) {
      using T = typename Word<V>::type;
      constexpr int kPieces = 16 / V;
      T w[kU][kPieces];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const std::uint32_t c = c0 + u * kThreads;
        if (c >= chunks) continue;
        std::uint32_t f, off;
        at(c, &f, &off);
        const std::int64_t first = m.src_row(f) + off;
        // Piece k: byte off + V k of row f, or past its end byte off + V k - L of row f + 1.
        const std::int64_t second = L - off < 16 ? m.src_row(f + 1) - (L - off) : first;
#pragma unroll
        for (int k = 0; k < kPieces; ++k)
          w[u][k] = *reinterpret_cast<const T*>(src + (off + V * k < L ? first : second) + V * k);
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const std::uint32_t c = c0 + u * kThreads;
        if (c >= chunks) break;
        uint4 out;
        memcpy(&out, w[u], 16);
        *reinterpret_cast<uint4*>(dst + head + std::uint64_t{c} * 16) = out;
      }
    } else {
      uint4 lo[kU], hi[kU], out[kU];
      unsigned how[kU];
#pragma unroll
      for (int u = 0; u < kU; ++u) {  // the first windows
        const std::uint32_t c = c0 + u * kThreads;
        if (c >= chunks) continue;
        std::uint32_t f, off;
        at(c, &f, &off);
        how[u] = window_load(src + m.src_row(f) + off, src_lo, src_hi, &lo[u], &hi[u]);
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {  // their bytes, then the second windows
        const std::uint32_t c = c0 + u * kThreads;
        if (c >= chunks) continue;
        std::uint32_t f, off;
        at(c, &f, &off);
        out[u] =
            window_bytes(how[u], lo[u], hi[u], (how[u] & 16u) ? nullptr : src + m.src_row(f) + off,
                         L - off < 16 ? static_cast<int>(L - off) : 16);
        if (L - off < 16)  // crosses row f's end: the rest from row f + 1's start
          how[u] = window_load(src + m.src_row(f + 1), src_lo, src_hi, &lo[u], &hi[u]);
      }
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const std::uint32_t c = c0 + u * kThreads;
        if (c >= chunks) break;
        std::uint32_t f, off;
        at(c, &f, &off);
        if (L - off < 16) {
          // Bytes 0 .. n1 - 1 from the first window, n1 .. 15 from the second's 0 .. 15 - n1
          // (shifted_chunk(x, y, r): bytes r .. r + 15 of x then y).
          const int n1 = static_cast<int>(L - off);
          const auto r = static_cast<unsigned>(n1);
          const uint4 x = shifted_chunk(out[u], out[u], r);  // bytes 16 - n1 ..: out's 0 ..
          const uint4 rest = window_bytes(
              how[u], lo[u], hi[u], (how[u] & 16u) ? nullptr : src + m.src_row(f + 1), 16 - n1);
          out[u] = shifted_chunk(x, rest, 16 - r);
        }
        *reinterpret_cast<uint4*>(dst + head + std::uint64_t{c} * 16) = out[u];
      }
    }
  }
}

// A row kernel's launch: the lanes a row (a power of two up to 32) that cover its `units`
// (vectors or chunks) at `per_lane` each, and the sweeps a tile, fewer where the grid would
// otherwise not give every SM 4 blocks (a few long rows: 1,938 rows of 65,100 bytes made 61
// blocks of 4 sweeps).
struct RowsLaunch {
  int lanes_log2 = 0, sweeps = kRowSweeps;
  unsigned blocks = 0;
};
RowsLaunch rows_launch(std::int64_t units, int per_lane, std::int64_t total, int sm_count) {
  RowsLaunch r;
  const std::int64_t need = ceil_div(units, std::int64_t{per_lane});
  while (r.lanes_log2 < 5 && (std::int64_t{1} << r.lanes_log2) < need) ++r.lanes_log2;
  auto blocks = [&] { return ceil_div(total, std::int64_t{kThreads >> r.lanes_log2} * r.sweeps); };
  while (r.sweeps > 1 && blocks() < std::int64_t{4} * sm_count) r.sweeps /= 2;
  r.blocks = static_cast<unsigned>(std::min<std::int64_t>(blocks(), 0x7fffffff));
  return r;
}

std::int64_t gcd64(std::int64_t a, std::int64_t b) {
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// The widest vector (16, 8, 4, 2, 1 bytes) that divides every byte offset a row permutation
// forms: the operands' addresses, the row length and every row and batch stride.
int row_vector_bytes(const void* src, const void* dst, const PermuteGeometry& bytes) {
  std::int64_t m = 16;
  m = gcd64(m, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(src) % 16));
  m = gcd64(m, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(dst) % 16));
  m = gcd64(m, bytes.cols);
  if (bytes.rows > 1) m = gcd64(gcd64(m, bytes.src_row), bytes.dst_row);
  for (int k = 0; k < 3; ++k)
    if (bytes.batch_extent[k] > 1) m = gcd64(gcd64(m, bytes.src_batch[k]), bytes.dst_batch[k]);
  return m >= 16 ? 16 : m >= 8 ? 8 : m >= 4 ? 4 : m >= 2 ? 2 : 1;
}

// The box walk of `dims`: the shared tables' kernels, or from the policy's
// permute_box_registers_min_bytes on (16 B by default; 8 B on small tensors, permute() decides),
// up to its permute_box_registers_elements_max_bytes (4 B) where the tables' walk has no words on
// either side, at its permute_box_registers_src_elements_bytes (2 B) where that walk would load
// element by element through registers, and from its permute_box_registers_box_fits_min_bytes (4 B)
// on where the tables' box holds no more elements than its own may (box_fits_registers; below 8 B
// where its own box is as large and its dst words as wide, box_registers_takes), on small tensors
// up to its permute_box_registers_small_box_ratio times that (RegistersRule::small_box), and where
// whole runs widened the tables' box past it (box_whole_runs_yield):
// permute_box_reg_kernel, whose boxes hold at most reg_box_volume elements (docs/perf-guide.md
// section 4.13).
//
// cudaErrorNotSupported: no box fits, nothing launched.
//
// least_waste: make_box_plan's least-waste rule, or where it finds no box the largest-box rule.
//
// max_smem_bytes over the static 48 KB (box_past_static_smem): the box of the 48 KB where none
// plans under it (its longer first runs can cut more dimensions than a box takes) or where that
// one's walk is the pipelined one through registers at 4 bytes or more, unless the larger box
// stores wider words (wider_words: PermuteArgs::box_wider_words, box_words_wider).
bool box_plan_at(const PermuteDims& dims, int elem_bytes, bool tables, int cuts_first,
                 int target_elems, bool least_waste, int max_smem_bytes, bool whole_runs,
                 bool wider_words, BoxPlan* box) {
  const std::int64_t max_volume = tables ? 65535 : reg_box_volume(elem_bytes);
  const int table_bytes = tables ? kBoxTableBytes : 0;
  auto plan = [&](int bound, BoxPlan* out) {
    return (least_waste && make_box_plan(dims, elem_bytes, max_volume, table_bytes, cuts_first, out,
                                         target_elems, true, bound, whole_runs)) ||
           make_box_plan(dims, elem_bytes, max_volume, table_bytes, cuts_first, out, target_elems,
                         false, bound, whole_runs);
  };
  if (max_smem_bytes <= kBoxMaxSmemBytes) return plan(max_smem_bytes, box);
  BoxPlan static_box;
  if (!plan(kBoxMaxSmemBytes, &static_box)) return plan(max_smem_bytes, box);
  if (!tables) {
    *box = static_box;
    return true;
  }
  const bool past = box_past_static_smem(static_box, elem_bytes);
  BoxPlan large;
  if ((past || wider_words) && plan(max_smem_bytes, &large) &&
      (past || box_words_wider(large, static_box, elem_bytes)))
    *box = large;
  else
    *box = static_box;
  return true;
}

// ...and where that box leaves fewer than `min_boxes` boxes (PermuteArgs::box_min_boxes: too few
// for every SM to walk some), the box of half the target, and so on down to kBoxMinTargetElems,
// until there are that many: the first box with as many, or else the one with the most.
// byte_stores_target_elems (PermuteArgs::box_byte_stores_target_elems), above the target: a
// tables' box walked in src words with single-byte stores (box_byte_stores) is planned again from
// that target, and the box so planned taken where it is walked so too.
bool box_plan_for(const PermuteDims& dims, int elem_bytes, bool tables, int cuts_first,
                  int target_elems, bool least_waste, int max_smem_bytes, bool whole_runs,
                  bool wider_words, BoxPlan* box, std::int64_t min_boxes = 0,
                  int byte_stores_target_elems = 0) {
  if (!box_plan_at(dims, elem_bytes, tables, cuts_first, target_elems, least_waste, max_smem_bytes,
                   whole_runs, wider_words, box))
    return false;
  for (int t = target_elems / 2; box->boxes < min_boxes && t >= kBoxMinTargetElems; t /= 2) {
    BoxPlan smaller;
    if (box_plan_at(dims, elem_bytes, tables, cuts_first, t, least_waste, max_smem_bytes,
                    whole_runs, wider_words, &smaller) &&
        smaller.boxes > box->boxes)
      *box = smaller;
  }
  BoxPlan larger;
  if (tables && byte_stores_target_elems > target_elems && box_byte_stores(*box, elem_bytes) &&
      box_plan_for(dims, elem_bytes, true, cuts_first, byte_stores_target_elems, least_waste,
                   max_smem_bytes, whole_runs, wider_words, &larger, min_boxes) &&
      box_byte_stores(larger, elem_bytes))
    *box = larger;
  return true;
}

cudaError_t launch_box(const kernels::PermuteArgs& a, const PermuteDims& dims) {
  const auto e = static_cast<std::uint32_t>(a.elem_bytes);
  bool tables = !a.box_registers;
  BoxPlan box;
  if (!box_plan_for(dims, a.elem_bytes, tables, a.box_cuts_first, a.box_target_elems,
                    a.box_least_waste, a.box_max_smem_bytes, a.box_whole_runs, a.box_wider_words,
                    &box, a.box_min_boxes, a.box_byte_stores_target_elems)) {
    tables = !tables;  // the other kernel's box (permute() checked that one of them fits)
    if (!box_plan_for(dims, a.elem_bytes, tables, a.box_cuts_first, a.box_target_elems,
                      a.box_least_waste, a.box_max_smem_bytes, a.box_whole_runs, a.box_wider_words,
                      &box, a.box_min_boxes, a.box_byte_stores_target_elems))
      return cudaErrorNotSupported;
  }
  auto settle = [&](BoxPlan* b) {  // the policy's choices for the walk
    b->origin_once = a.box_origin_once;
    b->pipeline = a.box_pipeline;
    b->row_tables = a.box_row_tables;
    b->one_barrier = a.box_async_barriers == 1;
    b->first_early = a.box_first_early && a.elem_bytes >= kBoxFirstCopiesMinBytes;
    b->src_runs = a.box_src_runs;
    b->dst_runs = a.box_dst_runs;
    b->narrow_dst_runs_max_bytes = a.box_narrow_dst_runs_max_bytes;
    set_box_edges(b, a.box_overlap_edges);
  };
  settle(&box);
  const auto src_at = reinterpret_cast<std::uintptr_t>(a.src);
  const auto dst_at = reinterpret_cast<std::uintptr_t>(a.dst);
  // Element by element on both sides at small elements, loaded so at the policy's size, or a box
  // the registers' walk could take as large: the registers' walk, where its box fits
  // (box_registers_rule, box_registers_takes).
  BoxPlan in_registers;
  const RegistersRules rules = {
      a.box_words, a.box_registers_elements_max_bytes, a.box_registers_src_elements_bytes,
      a.box_registers_box_fits_min_bytes, a.box_registers_small_box_ratio};
  const RegistersRule rule =
      tables ? box_registers_rule(box, a.elem_bytes, rules, src_at, dst_at) : RegistersRule::none;
  // The registers' walk's box (planned with or without whole runs) where it takes `tables_box`.
  auto to_registers = [&](RegistersRule r, const BoxPlan& tables_box, bool whole_runs) {
    if (r == RegistersRule::none ||
        !box_plan_for(dims, a.elem_bytes, false, a.box_cuts_first, a.box_target_elems,
                      a.box_least_waste, a.box_max_smem_bytes, whole_runs, a.box_wider_words,
                      &in_registers, a.box_min_boxes))
      return;
    settle(&in_registers);
    if (box_registers_takes_at(r, tables_box, in_registers, a.elem_bytes, a.box_words,
                               a.box_registers_words_min_bytes, src_at, dst_at)) {
      box = in_registers;
      tables = false;
    }
  };
  to_registers(rule, box, a.box_whole_runs);
  // ...or the box without whole runs where they widened it past the registers' walk
  // (box_whole_runs_yield).
  BoxPlan plain;
  if (tables && a.box_whole_runs && !a.box_whole_runs_past_registers &&
      box_plan_for(dims, a.elem_bytes, true, a.box_cuts_first, a.box_target_elems,
                   a.box_least_waste, a.box_max_smem_bytes, false, a.box_wider_words, &plain,
                   a.box_min_boxes, a.box_byte_stores_target_elems)) {
    settle(&plain);
    const RegistersRule plain_rule = box_registers_rule(plain, a.elem_bytes, rules, src_at, dst_at);
    if (box_whole_runs_yield(box, plain, plain_rule)) to_registers(plain_rule, plain, false);
  }
  if (tables && a.box_words) {  // the walk in words where the strides allow
    const int ws = box_vector_elems(box, true, a.elem_bytes, src_at);
    const int wd = box_vector_elems(box, false, a.elem_bytes, dst_at, src_at);
    if (ws > 1 || wd > 1) return launch_permute_box_words(a, box, ws, wd);
  }
  if (tables && box_loads(box, a.elem_bytes, false, 1, a.box_pipeline, a.box_async) ==
                    BoxLoads::async) {  // the element walk through cp.async
    const FastDiv pad(box_async_pad_every(box, a.box_pad));
    // Two (padded) buffers, the tables and where the buffers cannot hold them the row tables
    // (over 48 KB: the opt-in).
    const std::uint32_t bufs = box_walk_bufs_bytes(box, e, false, BoxLoads::async, pad.d);
    const std::uint32_t smem = bufs + box_align16(box.volume * kBoxTableBytes) +
                               box_row_tables_extra_bytes(box, bufs, 1, 1);
    const dim3 block(kSide, kThreadRows);
    return dispatch_word(a.elem_bytes, [&](auto eb) {
      constexpr int E = decltype(eb)::value;
      using T = typename Word<E>::type;
      if constexpr (E < 4) {
        return cudaErrorInvalidValue;
      } else {
        const int entries = box_dst_register_entries(
            box, E, 1, BoxLoads::async, a.box_dst_registers, a.box_dst_registers_large_max_bytes);
        auto* k = entries == kBoxDstRegisterEntries
                      ? permute_box_async_kernel<E, kBoxDstRegisterEntries>
                      : permute_box_async_kernel<E>;
        if constexpr (E <= 8) {  // large entries up to 8 B (the policy's field)
          if (entries == kBoxDstRegisterEntriesLarge)
            k = permute_box_async_kernel<E, kBoxDstRegisterEntriesLarge>;
        }
        return launch_with_smem(k, dim3(box_blocks(a, box, k, kThreads, smem)), block, smem,
                                a.stream, static_cast<const T*>(a.src), static_cast<T*>(a.dst), box,
                                pad);
      }
    });
  }
  // The registers' kernel: as many small blocks as an SM holds, never more than the boxes.
  if (!tables) {
    return dispatch_word(a.elem_bytes, [&](auto eb) {
      constexpr int E = decltype(eb)::value;
      using T = typename Word<E>::type;
      const FastDiv pad(box_async_pad_every(box, a.box_pad));
      const std::uint32_t smem = box_async_buf_bytes(box.volume, pad.d, e);  // one padded box
      const unsigned threads = reg_box_threads(box.volume, E);  // a small box, a small block
      const RegBoxWords words =
          reg_box_words(box, E, a.box_registers_words_min_bytes, src_at, dst_at);
      auto go = [&](auto* k) {
        const std::int64_t per_sm = resident_blocks_per_sm(reinterpret_cast<const void*>(k),
                                                           static_cast<int>(threads), smem);
        const auto blocks = static_cast<unsigned>(
            std::min<std::int64_t>(box.boxes, std::int64_t{a.sm_count} * per_sm));
        return launch_with_smem(k, dim3(blocks), dim3(threads), smem, a.stream,
                                static_cast<const T*>(a.src), static_cast<T*>(a.dst), box, pad);
      };
      // Src words from 4 B on, dst words from 2 B on, none at 1 or 16 B (reg_box_words).
      return dispatch_word(words.ws * E, [&](auto vs) {
        return dispatch_word(words.wd * E, [&](auto vd) {
          constexpr int VS = decltype(vs)::value, VD = decltype(vd)::value;
          if constexpr (VS < E || VD < E || (VS > E && E < 4) || (VD > E && (E < 2 || E > 8))) {
            return cudaErrorInvalidValue;
          } else {
            return box_all_whole(box) ? go(permute_box_reg_kernel<E, true, VS, VD>)
                                      : go(permute_box_reg_kernel<E, false, VS, VD>);
          }
        });
      });
    });
  }
  // The tables' element walk through registers: the box, its tables and where the box cannot
  // hold them the row tables.
  const std::uint32_t buf = box_walk_bufs_bytes(box, e, false, BoxLoads::registers, 1);
  const std::uint32_t smem =
      buf + box_align16(box.volume * kBoxTableBytes) + box_row_tables_extra_bytes(box, buf, 1, 1);
  return dispatch_word(a.elem_bytes, [&](auto eb) {
    constexpr int E = decltype(eb)::value;
    using T = typename Word<E>::type;
    auto* k = permute_box_kernel<E>;
    return launch_with_smem(k, dim3(box_blocks(a, box, k, kThreads, smem)),
                            dim3(kSide, kThreadRows), smem, a.stream, static_cast<const T*>(a.src),
                            static_cast<T*>(a.dst), box);
  });
}

}  // namespace

bool kernels::permute_tile_box_plan(const PermuteDims& dims, int elem_bytes, BoxPlan* box,
                                    bool registers, int cuts_first, int target_elems,
                                    bool least_waste, bool* in_registers, int max_smem_bytes,
                                    bool whole_runs, bool wider_words, std::int64_t min_boxes,
                                    int byte_stores_target_elems) {
  for (const bool tables : {!registers, registers})
    if (box_plan_for(dims, elem_bytes, tables, cuts_first, target_elems, least_waste,
                     max_smem_bytes, whole_runs, wider_words, box, min_boxes,
                     byte_stores_target_elems)) {
      if (in_registers != nullptr) *in_registers = !tables;
      return true;
    }
  return false;
}

namespace {
// Whole rows into a dense dst that the flat walk takes (rows of 16 bytes or more), or at least
// DevicePolicy::permute_rows_min_bytes long: the rows kernels.
bool rows_kernels_run(const kernels::PermuteArgs& a) {
  return a.moves_rows() &&
         (a.geo.cols * a.elem_bytes >= a.rows_min_bytes || kernels::permute_rows_flat(a));
}
}  // namespace

bool kernels::permute_tile_prefers_box(const PermuteArgs& a) {
  if (a.dims.rank > 5) return true;
  const PermuteGeometry& g = a.geo;
  if (rows_kernels_run(a)) return false;
  const std::int64_t run = box_run_elems(a.elem_bytes);
  auto fill = [](std::int64_t n) { return double(n) / double(ceil_div(n, kSide) * kSide); };
  return g.cols < run || g.rows < run || fill(g.rows) * fill(g.cols) * 100 < a.tile_min_fill_pct ||
         !(g.src_col == 1 && g.dst_row == 1);
}

namespace {
// A row permutation in bytes (`bytes`: every stride in bytes, cols the row's bytes) from src to
// dst: each row as vectors of the widest size every offset allows, or as realigned 16-byte
// chunks (the policy's rows_vector_* say which rows; docs/perf-guide.md section 4.13). All rows
// as one flat index (FlatRows). (Making the longest dimension the threads' rows instead measured
// slower on the H200: 7% of memcpy for (5, 1999, 3, 117) (2, 1, 0, 3) at 8 B, where dst's next
// dimension, 5 long, gave 53%.)
cudaError_t launch_rows(const kernels::PermuteArgs& a, const unsigned char* src, unsigned char* dst,
                        const PermuteGeometry& bytes) {
  const dim3 block(kSide, kThreadRows);
  const int v = row_vector_bytes(src, dst, bytes);
  const std::int64_t total = bytes.rows * bytes.batch();
  FlatRows flat;
  flat.rows = FastDiv(static_cast<std::uint32_t>(bytes.rows));
  flat.b0 = FastDiv(static_cast<std::uint32_t>(bytes.batch_extent[0]));
  flat.b1 = FastDiv(static_cast<std::uint32_t>(bytes.batch_extent[1]));
  const auto total32 = static_cast<std::uint32_t>(total);
  const bool vectors =
      v >= 16 || (v >= a.rows_vector_min_bytes && bytes.cols / v <= a.rows_vector_max_vecs);
  if (!vectors) {  // long rows off 16-byte alignment: realigned 16-byte chunks
    const RowsLaunch l = rows_launch(bytes.cols / 16, kRealignUnroll, total, a.sm_count);
    const auto lo = reinterpret_cast<std::uintptr_t>(a.src);  // reads stay inside src's span
    permute_rows_realign_kernel<<<l.blocks, block, 0, a.stream>>>(
        src, dst, bytes, l.lanes_log2, lo, lo + static_cast<std::uintptr_t>(a.src_span_bytes), flat,
        total32, l.sweeps);
    return cudaGetLastError();
  }
  const RowsLaunch l = rows_launch(bytes.cols / v, row_unroll_vecs(v), total, a.sm_count);
  return dispatch_word(v, [&](auto vb) {
    permute_rows_kernel<decltype(vb)::value>
        <<<l.blocks, block, 0, a.stream>>>(src, dst, bytes, l.lanes_log2, flat, total32, l.sweeps);
    return cudaGetLastError();
  });
}

// Few long rows: a row takes at most 32 lanes, so a few hundred rows of a megabyte leave most
// SMs idle (docs/perf-guide.md section 4.13 has the case). Where the rows fill less than a block
// (8 rows of 32 lanes) an SM, each row is cut into segments of a whole number of 16-byte chunks
// (so the vectors and chunks keep their alignment) for about kRowSlotsPerSm segments an SM; the
// segments are the walk's rows and the rows its batch; what is left of each row, under a
// segment, is a second launch. Rows that fill a block an SM stay whole: there the second
// launch would cost more than the SMs it fills.
constexpr std::int64_t kRowSlotsPerSm = 4 * (kThreads / 32);  // 4 blocks of 8 rows
constexpr std::int64_t kRowSegmentMinBytes = 4096;
}  // namespace

// The segments of `bytes`' rows (0: the rows stay whole).
std::int64_t kernels::permute_row_segment_bytes(const PermuteGeometry& bytes, int sm_count) {
  const std::int64_t total = bytes.rows * bytes.batch(), slots = kRowSlotsPerSm * sm_count;
  if (total * 4 >= slots || bytes.batch_extent[2] != 1) return 0;  // (a batch slot for them)
  const std::int64_t seg = std::max(
      kRowSegmentMinBytes, ceil_div(ceil_div(bytes.cols * total, slots), std::int64_t{16}) * 16);
  return bytes.cols / seg >= 2 ? seg : 0;
}

namespace {
// A row permutation's walk in bytes: cols the row's bytes, every stride in bytes.
PermuteGeometry rows_in_bytes(const kernels::PermuteArgs& a) {
  PermuteGeometry bytes = a.geo;
  const std::int64_t e = a.elem_bytes;
  bytes.cols *= e;
  bytes.src_row *= e;
  bytes.dst_row *= e;
  for (int k = 0; k < 3; ++k) bytes.src_batch[k] *= e, bytes.dst_batch[k] *= e;
  bytes.src_col = bytes.dst_col = 1;
  return bytes;
}
}  // namespace

bool kernels::permute_rows_flat(const PermuteArgs& a, RowsFlat* flat) {
  if (!a.moves_rows() || a.dims.rank > 5) return false;
  const PermuteGeometry bytes = rows_in_bytes(a);
  RowsFlat m;
  if (row_vector_bytes(a.src, a.dst, bytes) > a.rows_flat_max_vector_bytes ||
      !make_rows_flat(bytes, &m))
    return false;
  if (flat != nullptr) *flat = m;
  return true;
}

namespace {
// The flat rows walk (permute_rows_flat_kernel): as many blocks as there are chunks for them.
cudaError_t launch_rows_flat(const kernels::PermuteArgs& a, const RowsFlat& m) {
  const auto at = reinterpret_cast<std::uintptr_t>(a.dst);
  const std::uint32_t head = std::min<std::uint32_t>(m.bytes, (16 - at % 16) % 16);
  const std::uint32_t chunks = (m.bytes - head) / 16;
  const int v = row_vector_bytes(a.src, a.dst, rows_in_bytes(a));
  const std::int64_t per_block = std::int64_t{kThreads} * flat_chunks(v);
  const auto blocks = static_cast<unsigned>(std::max<std::int64_t>(
      1, std::min<std::int64_t>(ceil_div(std::int64_t{chunks}, per_block), 0x7fffffff)));
  const auto lo = reinterpret_cast<std::uintptr_t>(a.src);  // reads stay inside src's span
  const auto* s = static_cast<const unsigned char*>(a.src);
  auto* d = static_cast<unsigned char*>(a.dst);
  const std::uintptr_t hi = lo + static_cast<std::uintptr_t>(a.src_span_bytes);
  const dim3 block(kSide, kThreadRows);
  // Pieces of the widest vector from 4 bytes on; windows below.
  switch (v) {
    case 16:
      permute_rows_flat_kernel<16><<<blocks, block, 0, a.stream>>>(s, d, m, head, chunks, lo, hi);
      break;
    case 8:
      permute_rows_flat_kernel<8><<<blocks, block, 0, a.stream>>>(s, d, m, head, chunks, lo, hi);
      break;
    case 4:
      permute_rows_flat_kernel<4><<<blocks, block, 0, a.stream>>>(s, d, m, head, chunks, lo, hi);
      break;
    default:
      permute_rows_flat_kernel<1><<<blocks, block, 0, a.stream>>>(s, d, m, head, chunks, lo, hi);
  }
  return cudaGetLastError();
}
}  // namespace

cudaError_t kernels::launch_permute_box(const PermuteArgs& a, const PermuteDims& dims) {
  return launch_box(a, dims);
}

cudaError_t kernels::launch_permute_tile(const PermuteArgs& a) {
  if (a.dims.rank > 5) return launch_box(a, a.dims);  // rank 6-8: the box walk alone
  const PermuteGeometry& g = a.geo;
  const dim3 block(kSide, kThreadRows);
  if (RowsFlat flat; permute_rows_flat(a, &flat)) return launch_rows_flat(a, flat);
  if (rows_kernels_run(a) && g.rows * g.batch() < (std::int64_t{1} << 32)) {
    const PermuteGeometry bytes = rows_in_bytes(a);  // the same walk in bytes
    const auto* s = static_cast<const unsigned char*>(a.src);
    auto* d = static_cast<unsigned char*>(a.dst);
    const std::int64_t seg = permute_row_segment_bytes(bytes, a.sm_count);
    if (seg == 0) return launch_rows(a, s, d, bytes);
    // Segment k of row (j, b0, b1) at byte k * seg of the row: rows (k) of seg bytes, batch
    // (j, b0, b1).
    const std::int64_t per_row = bytes.cols / seg;
    PermuteGeometry segs = bytes;
    segs.cols = seg;
    segs.rows = per_row;
    segs.src_row = segs.dst_row = seg;
    segs.batch_extent[0] = bytes.rows, segs.src_batch[0] = bytes.src_row,
    segs.dst_batch[0] = bytes.dst_row;
    for (int k = 1; k < 3; ++k)
      segs.batch_extent[k] = bytes.batch_extent[k - 1], segs.src_batch[k] = bytes.src_batch[k - 1],
      segs.dst_batch[k] = bytes.dst_batch[k - 1];
    if (cudaError_t err = launch_rows(a, s, d, segs); err != cudaSuccess) return err;
    const std::int64_t done = per_row * seg;
    if (done == bytes.cols) return cudaSuccess;
    PermuteGeometry tail = bytes;  // the rest of every row
    tail.cols = bytes.cols - done;
    return launch_rows(a, s + done, d + done, tail);
  }
  // A short contiguous dimension on either side (or strides that make neither side
  // contiguous): boxes of whole runs.
  // Also tiles less full than DevicePolicy::permute_tile_min_fill_pct (odd extents: 101 is 3
  // full tiles and one of 5). (Boxes of
  // 1- and 2-byte elements with both dimensions long measured slower than the tile on the H100:
  // 864 against 1135 GB/s at 2 B, NCHW -> NHWC.)
  if (kernels::permute_tile_prefers_box(a)) {
    const cudaError_t err = launch_box(a, box_dims_of(g));
    if (err != cudaErrorNotSupported) return err;
  }
  const bool transposing = g.dst_row < g.dst_col;  // j walks dst more closely than i
  return dispatch_word(a.elem_bytes, [&](auto eb) {
    constexpr int E = decltype(eb)::value;
    using T = typename Word<E>::type;
    const auto* s = static_cast<const T*>(a.src);
    auto* d = static_cast<T*>(a.dst);
    if (transposing) {
      constexpr std::int64_t S = permute_tile_side_elems(E);
      const TileGrid grid = tile_grid(ceil_div(g.rows, S), ceil_div(g.cols, S), g.batch());
      permute_tile_kernel<E><<<dim3(grid.x, grid.y, grid.z), block, 0, a.stream>>>(s, d, g);
    } else {
      const TileGrid grid = tile_grid(ceil_div(g.rows, kSide), ceil_div(g.cols, kSide), g.batch());
      permute_elems_kernel<E><<<dim3(grid.x, grid.y, grid.z), block, 0, a.stream>>>(s, d, g);
    }
    return cudaGetLastError();
  });
}

}  // namespace tmakit
