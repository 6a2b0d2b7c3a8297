// The index math of smem_flat (kernels/classic/smem_flat.cu), host and device, so the host
// tests check it: which form a call takes, how it is cut into units, where a unit's source
// bytes sit in shared memory, and which shared byte each destination element reads.
//
// A unit is a piece of the call whose source and destination are each a few contiguous runs:
//   kBatch  g whole dense matrices:                    src 1 run of g*R*C, dst 1 run of g*C*R
//   kWide   R <= 32 rows x w columns of one matrix,    src R runs of w (the rows, pitch lds),
//           dst dense (ldd == R):                      dst 1 run of w*R
//   kTall   h rows x C <= 32 columns of one matrix,    src 1 run of h*C,
//           src dense (lds == C):                      dst C runs of h (pitch ldd)
// Every run is moved in the 16-byte chunks of global memory it touches: whole chunks as one
// 16-byte access, the partial first and last chunk element by element.
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

enum class FlatForm : int { kNone = 0, kBatch, kWide, kTall };
// Forms whose unit reads one contiguous source run (bulk_flat's: one 1-D bulk copy per unit).
TMAKIT_HD constexpr bool flat_src_is_one_run(FlatForm f) {
  return f == FlatForm::kBatch || f == FlatForm::kTall;
}

inline constexpr int kFlatShortSide = 32;          // kWide / kTall: the short side, at most
inline constexpr int kFlatTileBytes = 16384;       // a unit moves about this many bytes
inline constexpr int kFlatMaxMatrixBytes = 32768;  // kBatch: one matrix, at most (1, 4-16 B)
// ... at 2 B: batches of odd 2 B matrices of 38-65 KB ran smem_flat / bulk_flat
// with one matrix a unit at 72.7-97.5% of memcpy where the best other technique ran 65.9-83.9
// (H100 and H200, docs/perf-guide.md). At 1 B the same limit won on some shapes and
// lost on others (1000x190x250 1 B +19 points, 800x300x200 -21), at 4-8 B it did not win.
inline constexpr int kFlatMaxMatrixBytes2B = 65536;
TMAKIT_HD constexpr int flat_max_matrix_bytes(int e) {
  return e == 2 ? kFlatMaxMatrixBytes2B : kFlatMaxMatrixBytes;
}
inline constexpr int kFlatNoWrap = 0x7fffffff;

// Which shared byte dst element o of a unit's dst run d reads:
//   b0 + d * sd + i1 * s1 + i2 * s2 + i3 * s3,
//   i1 = o % n1, i2 = (o / n1) % n2, i3 = o / (n1 * n2)
// (b0: the unit's source start modulo 16, see FlatSmem). Per form, with E the element size:
//   kBatch: o = g*R*C + c*R + r (dst matrix g, row c, column r) reads src (g, r, c):
//           n1 = R, s1 = C*E; n2 = C, s2 = E; s3 = R*C*E
//   kWide : o = c*R + r reads src row r (shared run, stride S), column c:
//           n1 = R, s1 = S; n2 = no wrap, s2 = E
//   kTall : dst run = column c, o = row j reads src (j, c) of the flat run: sd = E;
//           n1 = no wrap, s1 = C*E
struct FlatGather {
  int n1 = kFlatNoWrap, n2 = kFlatNoWrap;
  int s1 = 0, s2 = 0, s3 = 0, sd = 0;
};

// Direct form of the gather (the kernel's partial chunks and the host tests).
TMAKIT_HD int flat_offset(const FlatGather& g, int d, int o) {
  const int i1 = o % g.n1, t = o / g.n1, i2 = t % g.n2, i3 = t / g.n2;
  return d * g.sd + i1 * g.s1 + i2 * g.s2 + i3 * g.s3;
}

// o / n for 0 <= o < 2^24, 1 <= n < 2^24, by a float reciprocal (inv = 1.0f / n) and one
// correction each way: the kernel's chunk starts take it instead of an integer division.
struct FlatDiv {
  int q, r;
};
TMAKIT_HD FlatDiv flat_div(int o, int n, float inv) {
  int q = static_cast<int>(static_cast<float>(o) * inv);
  int r = o - q * n;
  if (r < 0) {
    --q;
    r += n;
  } else if (r >= n) {
    ++q;
    r -= n;
  }
  return {q, r};
}

// The same gather, stepped element by element (the kernel's whole chunks): no division per
// element. Wraps: the kernel passes which levels its form can wrap (kTall: none; kWide: i1;
// kBatch: both), so it compiles only those compares.
struct FlatWalk {
  int i1, i2, off;
};
TMAKIT_HD FlatWalk flat_walk(const FlatGather& g, int d, int o) {
  if (g.n1 == kFlatNoWrap) return {o, 0, d * g.sd + o * g.s1};
  const FlatDiv a = flat_div(o, g.n1, 1.0f / static_cast<float>(g.n1));
  if (g.n2 == kFlatNoWrap) return {a.r, a.q, d * g.sd + a.r * g.s1 + a.q * g.s2};
  const FlatDiv b = flat_div(a.q, g.n2, 1.0f / static_cast<float>(g.n2));
  return {a.r, b.r, d * g.sd + a.r * g.s1 + b.r * g.s2 + b.q * g.s3};
}
template <bool Wrap1 = true, bool Wrap2 = true>
TMAKIT_HD void flat_step(const FlatGather& g, FlatWalk& w) {
  w.off += g.s1;
  if (!Wrap1) return;
  if (++w.i1 == g.n1) {  // next dst row: back to source row 0, next column
    w.i1 = 0;
    w.off += g.s2 - g.n1 * g.s1;
    if (!Wrap2) return;
    if (++w.i2 == g.n2) {  // next matrix
      w.i2 = 0;
      w.off += g.s3 - g.n2 * g.s2;
    }
  }
}

// A thread's next whole chunk of a one-run unit (kBatch, kWide) lies D = kThreads * V elements
// on (kThreads chunks of V elements). D in the gather's digits: D = d3 * n1 * n2 + d2 * n1 + d1
// (d1 < n1, d2 < n2; kWide: no third digit), so the walk moves by a digit-wise add with one
// carry per digit (i1 + d1 < 2 n1, i2 + d2 + 1 < 2 n2) instead of flat_walk's two divisions:
// doff = d1 * s1 + d2 * s2 + d3 * s3 is the move without carries.
struct FlatJump {
  int d1 = 0, d2 = 0, doff = 0;
};
TMAKIT_HD FlatJump flat_jump(const FlatGather& g, int d) {
  if (g.n1 == kFlatNoWrap) return {d, 0, d * g.s1};  // kTall: linear
  const int d1 = d % g.n1, t = d / g.n1;
  if (g.n2 == kFlatNoWrap) return {d1, t, d1 * g.s1 + t * g.s2};
  const int d2 = t % g.n2, d3 = t / g.n2;
  return {d1, d2, d1 * g.s1 + d2 * g.s2 + d3 * g.s3};
}
// w at element o -> w at element o + D (flat_jump(g, D)); Wrap2 as flat_step's (kTall's n1 is
// kFlatNoWrap: i1 never carries).
template <bool Wrap2 = true>
TMAKIT_HD void flat_advance(const FlatGather& g, const FlatJump& j, FlatWalk& w) {
  w.off += j.doff;
  w.i1 += j.d1;
  w.i2 += j.d2;
  if (w.i1 >= g.n1) {  // carry into the column: row i1 - n1 of the next dst row
    w.i1 -= g.n1;
    ++w.i2;
    w.off += g.s2 - g.n1 * g.s1;
  }
  if (!Wrap2) return;
  if (w.i2 >= g.n2) {  // carry into the matrix
    w.i2 -= g.n2;
    w.off += g.s3 - g.n2 * g.s2;
  }
}

// The offset table (kWide, and kBatch where the rule below takes it; elements below 16 bytes): for
// a whole chunk that does not cross a matrix, the offsets of its V elements depend only on the row
// i1 at which it starts:
//   off(o0 + j) = off(o0) + T[i1][j],  T[i1][j] = ((i1 + j) % n1 - i1) * s1 + ((i1 + j) / n1) * s2
// so the kernel builds T once per block in shared memory and reads a chunk's offsets with V / 4
// LDS.128 instead of stepping the walk. Rows of flat_table_stride ints: an odd number of 16-byte
// bank groups (a multiple of 4 ints for 16-byte reads) that holds V ints: 5, 3, 3, 1 groups at
// V = 16, 8, 4, 2. Consecutive lanes gather consecutive chunks, which start on rows V apart
// (i1, i1 + V, ... mod n1); stored in row order, those rows would share a bank group at V >= 4
// (V * stride a multiple of 8 groups: up to 8-way conflicts in an LDS.128 phase of 8 lanes;
// A run measured 64 x 64 batches at 2 B at 54% of memcpy with such a table, 79% stepping
// the walk). So row i1 = a * V + b sits in slot b * per + a,
// per = ceil(n1 / V): rows V apart sit in adjacent slots, and 8 adjacent slots start on 8
// different bank groups (an odd stride in groups).
//
// Where kBatch takes the table (H100, docs/perf-guide.md; bulk_flat / smem_flat,
// % of memcpy, medians of the rounds, walk -> table): the table adds 4 LDS.128 per chunk to a
// gather of V LDS per chunk; it paid where the gather's own shared reads are not bank-bound
// (flat_bank_degree) and lost where they are, a reading of these shapes, not profiled:
//   1 B: 3000 x 97 x 75 (degree 2) 73.3 -> 79.9; 2000 x 100 x 60 (degree 4) 86.3 -> 78.7,
//        2048 x 128 x 128 (degree 8) 55.4 -> 53.2; matrices of up to 64 rows took it before
//        and keep it;
//   2-4 B: 97 x 75 2 B 87.2 -> 91.5 (degree 2); 33 x 65 2 / 4 B +3.2 / +2.3, 24 x 40 2 B +5.3,
//        16 x 48 2 B +2.4, 8 x 8 2 B +0.7 (smem_flat +5.2); but 16 x 48 4 B smem_flat -2.3,
//        24 x 40 4 B -0.7; 64 x 64 2 B -3.0, 128 x 128 2 B -2.4, 100 x 60 2 / 4 B +0.1 / -0.8
//        (smem_flat -2.2 / -2.2);
//   8 B: -0.1 to -2.6 on every batch shape but 100 x 60 (smem_flat +0.4) and 97 x 75 (0.0)
//        (V = 2: little walk to save): never.
inline constexpr int kFlatTableMaxRows = 128;
inline constexpr int kFlatBatchTableMaxElemBytes = 4;
inline constexpr int kFlatBatchTableSmallRows1B = 64;  // at 1 B, any degree up to this many rows
inline constexpr int kFlatBatchTableSmallRows = 48;    // at 2-4 B
inline constexpr int kFlatBatchTableMaxDegree = 2;     // beyond those rows
// The limits flat_plan applies (the defaults above); DevicePolicy::flat_limits carries them to
// the launchers (TMAKIT_POLICY's flat_table_max_rows, flat_batch_table_bytes and
// flat_max_matrix_bytes override them, host/device_policy.cpp).
struct FlatTableLimits {
  int max_rows = kFlatTableMaxRows;
  int batch_max_elem_bytes = kFlatBatchTableMaxElemBytes;
  int batch_max_matrix_bytes = 0;  // 0: flat_max_matrix_bytes(element size)
};
TMAKIT_HD constexpr int flat_table_stride(int v) {
  return v >= 4 ? ((v / 4 + 1) | 1) * 4 : 4;
}
TMAKIT_HD constexpr int flat_table_per(int v, int rows) {
  return (rows + v - 1) / v;
}
// The table's ints, and where row i1 starts (in ints from the table's start).
TMAKIT_HD constexpr int flat_table_ints(int v, int rows) {
  return v * flat_table_per(v, rows) * flat_table_stride(v);
}
TMAKIT_HD constexpr int flat_table_row_at(int v, int rows, int i1) {
  return ((i1 % v) * flat_table_per(v, rows) + i1 / v) * flat_table_stride(v);
}
// T[i1][j] without a division by the runtime n1: (i1 + j) / n1 <= j / n1 + 1 subtractions (one
// where n1 >= V). Each block builds V * n1 entries; whether the divisions it replaced mattered
// was not measured apart (the 100 x 60 loss stayed without them).
TMAKIT_HD int flat_table_value(const FlatGather& g, int i1, int j) {
  int r = i1 + j, q = 0;  // (i1 + j) = q * n1 + r
  while (r >= g.n1) {
    r -= g.n1;
    ++q;
  }
  return (r - i1) * g.s1 + q * g.s2;
}
// How many distinct 4-byte words of shared memory the busiest bank serves when the first warp
// of a kBatch unit reads the first element of its 32 chunks (lane k's chunk starts at dst
// element o = k * V: dst (matrix g, row c, column r) reads the src byte (g * R * C + r * C + c)
// * E; one warp, one element: what the whole gather does to within a way, H100
// shapes). Stepped without a division: a plan's cost stays well under a microsecond.
inline int flat_bank_degree(const FlatGather& g, int e) {
  const int v = 16 / e;
  int r = 0, c = 0, m = 0;  // dst element o = (m * C + c) * R + r
  int words[32];
  for (int k = 0; k < 32; ++k) {
    words[k] = (m * g.s3 + r * g.s1 + c * g.s2) / 4;
    for (r += v; r >= g.n1;) {  // next chunk: v elements on, wrapping rows and matrices
      r -= g.n1;
      if (++c == g.n2) {
        c = 0;
        ++m;
      }
    }
  }
  int per_bank[32] = {}, worst = 0;
  for (int k = 0; k < 32; ++k) {
    bool repeat = false;  // a word several lanes read is one access
    for (int q = 0; q < k && !repeat; ++q) repeat = words[q] == words[k];
    if (!repeat && ++per_bank[words[k] % 32] > worst) worst = per_bank[words[k] % 32];
  }
  return worst;
}

// Whether a whole chunk starting at walk position w (V elements) may use the table: kWide
// always (i2 never wraps), kBatch when the chunk ends inside its matrix.
TMAKIT_HD bool flat_chunk_in_matrix(const FlatGather& g, const FlatWalk& w, int v) {
  return g.n2 == kFlatNoWrap || w.i2 * g.n1 + w.i1 + v <= g.n1 * g.n2;
}

// Where a unit's source runs sit in shared memory: run, element j at byte
//   i * stride + b0 + j * E,  b0 = (the run-0 start address) % 16,
//   stride = stride_aligned + (pitch * E) % 16,
// so every byte sits at its global address modulo 16 (a(i) = a(0) + i * pitch * E):
//   i*stride + b0 - a(i) = i*stride_aligned - i*(pitch*E - (pitch*E) % 16) + (b0 - a(0)) = 0 mod 16
// and a whole 16-byte global chunk is one aligned 16-byte shared store.
// Runs do not overlap (stride >= the run's bytes) and the last ends by runs * stride + 16.
// stride_aligned = the run's bytes rounded up to 16, plus 16 where that makes an even number of
// chunks: an odd number of 16-byte chunks per row spreads the rows of a column over the banks
// (kWide's gather).
TMAKIT_HD int flat_stride_aligned(int run_bytes) {
  int s = (run_bytes + 15) / 16 * 16;
  if ((s / 16) % 2 == 0) s += 16;
  return s;
}

// A unit: where its runs start (elements from the operand's base) and how long they are.
struct FlatSide {
  std::int64_t first = 0;  // element offset of run 0
  std::int64_t pitch = 0;  // elements between runs
  int runs = 1, len = 0;   // run count, elements per run
};
struct FlatUnit {
  FlatSide src, dst;
};

// Everything a launch of smem_flat needs, fixed for the call.
struct FlatPlan {
  FlatForm form = FlatForm::kNone;
  std::int64_t rows = 0, cols = 0, batch = 1;
  std::int64_t src_ld = 0, dst_ld = 0, src_bs = 0, dst_bs = 0;  // elements
  int elem_bytes = 0;
  int block = 0;                       // kBatch: matrices per unit; kWide: columns; kTall: rows
  std::int64_t blocks_per_matrix = 1;  // kWide / kTall
  std::int64_t units = 0;
  int src_stride = 0;  // FlatSmem's stride for the src runs (kWide; one run otherwise)
  int table_rows = 0;  // the offset table's rows (n1), 0: no table (the kernel steps the walk)
  int table_at = 0;    // its byte offset in shared memory, after the source runs
  int smem_bytes = 0;
  FlatGather gather;
};

// The form and cut of a call. src_ld / dst_ld / batch strides in elements (the dense defaults
// resolved). kNone where no form applies (smem_flat then runs smem_strip).
inline FlatPlan flat_plan(std::int64_t rows, std::int64_t cols, int e, std::int64_t batch,
                          std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs,
                          std::int64_t dst_bs, int tile_bytes = kFlatTileBytes,
                          FlatTableLimits limits = {}) {
  FlatPlan p;
  p.rows = rows;
  p.cols = cols;
  p.batch = batch;
  p.src_ld = src_ld;
  p.dst_ld = dst_ld;
  p.src_bs = src_bs;
  p.dst_bs = dst_bs;
  p.elem_bytes = e;
  const std::int64_t matrix = rows * cols, matrix_bytes = matrix * e;
  const bool dense_rows = src_ld == cols && dst_ld == rows;
  const bool dense_batch = batch == 1 || (src_bs == matrix && dst_bs == matrix);
  // Columns (kWide) or rows (kTall) per unit: about tile_bytes, a multiple of 16 elements so
  // every unit but the last starts where the previous one ended on a 16-byte boundary.
  auto block_of = [&](std::int64_t short_len, std::int64_t long_len) {
    std::int64_t b = tile_bytes / (short_len * e) / 16 * 16;
    if (b < 16) b = 16;
    return static_cast<int>(b < long_len ? b : long_len);
  };
  const std::int64_t max_matrix_bytes =
      limits.batch_max_matrix_bytes > 0 ? limits.batch_max_matrix_bytes : flat_max_matrix_bytes(e);
  if (dense_rows && dense_batch && matrix_bytes <= max_matrix_bytes) {
    p.form = FlatForm::kBatch;
    std::int64_t g = tile_bytes / matrix_bytes;
    if (g < 1) g = 1;
    if (g > batch) g = batch;
    p.block = static_cast<int>(g);
    p.units = (batch + g - 1) / g;
    p.smem_bytes = static_cast<int>(g * matrix_bytes) + 16;
    p.gather.n1 = static_cast<int>(rows);
    p.gather.s1 = static_cast<int>(cols) * e;
    p.gather.n2 = static_cast<int>(cols);
    p.gather.s2 = e;
    p.gather.s3 = static_cast<int>(matrix_bytes);
  } else if (rows <= kFlatShortSide && dst_ld == rows) {
    p.form = FlatForm::kWide;
    p.block = block_of(rows, cols);
    p.blocks_per_matrix = (cols + p.block - 1) / p.block;
    p.units = batch * p.blocks_per_matrix;
    p.src_stride = flat_stride_aligned(p.block * e) + static_cast<int>((src_ld * e) % 16);
    p.smem_bytes = static_cast<int>(rows) * p.src_stride + 16;
    p.gather.n1 = static_cast<int>(rows);
    p.gather.s1 = p.src_stride;
    p.gather.s2 = e;
  } else if (cols <= kFlatShortSide && src_ld == cols) {
    p.form = FlatForm::kTall;
    p.block = block_of(cols, rows);
    p.blocks_per_matrix = (rows + p.block - 1) / p.block;
    p.units = batch * p.blocks_per_matrix;
    p.smem_bytes = p.block * static_cast<int>(cols) * e + 16;
    p.gather.s1 = static_cast<int>(cols) * e;
    p.gather.sd = e;
  }
  const int v = 16 / e;
  bool table = e < 16 && p.form == FlatForm::kWide;
  if (p.form == FlatForm::kBatch && e <= limits.batch_max_elem_bytes &&
      p.gather.n1 <= limits.max_rows) {  // the rule at kFlatTableMaxRows
    const int small = e == 1 ? kFlatBatchTableSmallRows1B : kFlatBatchTableSmallRows;
    table = p.gather.n1 <= small || flat_bank_degree(p.gather, e) <= kFlatBatchTableMaxDegree;
  }
  if (table) {
    p.table_rows = p.gather.n1;
    p.table_at = (p.smem_bytes + 15) / 16 * 16;
    p.smem_bytes = p.table_at + flat_table_ints(v, p.table_rows) * 4;
  }
  return p;
}

// flat_plan of the same call again on this thread: the last call's plan when every argument
// matches (one entry per thread; launchers only). flat_plan counts the gather's bank degree for
// batches of matrices of 49-128 rows, 0.41-0.44 us on the host (64 x 64, 4 B, g++ -O2), and
// smem_flat, bulk_flat (twice: its plan hook and its launch) and reg_permute's fallback plan on
// every call: transpose()'s per-call host time target is 5 us (docs/perf-guide.md).
inline FlatPlan flat_plan_memo(std::int64_t rows, std::int64_t cols, int e, std::int64_t batch,
                               std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs,
                               std::int64_t dst_bs, int tile_bytes, FlatTableLimits limits) {
  const std::array<std::int64_t, 12> key = {rows,
                                            cols,
                                            batch,
                                            src_ld,
                                            dst_ld,
                                            src_bs,
                                            dst_bs,
                                            e,
                                            tile_bytes,
                                            limits.max_rows,
                                            limits.batch_max_elem_bytes,
                                            limits.batch_max_matrix_bytes};
  thread_local bool have = false;
  thread_local std::array<std::int64_t, 12> last{};
  thread_local FlatPlan plan;
  if (!have || key != last) {
    plan = flat_plan(rows, cols, e, batch, src_ld, dst_ld, src_bs, dst_bs, tile_bytes, limits);
    last = key;
    have = true;
  }
  return plan;
}

// Unit u of a plan (0 <= u < p.units).
TMAKIT_HD FlatUnit flat_unit(const FlatPlan& p, std::int64_t u) {
  FlatUnit f;
  if (p.form == FlatForm::kBatch) {
    const std::int64_t m0 = u * p.block, m = p.rows * p.cols;
    const std::int64_t g = p.batch - m0 < p.block ? p.batch - m0 : p.block;
    f.src.first = f.dst.first = m0 * m;
    f.src.len = f.dst.len = static_cast<int>(g * m);
    return f;
  }
  const std::int64_t b = u / p.blocks_per_matrix, k = u - b * p.blocks_per_matrix;
  const std::int64_t at = k * p.block;  // first column (kWide) or row (kTall) of the unit
  if (p.form == FlatForm::kWide) {
    const int w = static_cast<int>(p.cols - at < p.block ? p.cols - at : p.block);
    f.src = {b * p.src_bs + at, p.src_ld, static_cast<int>(p.rows), w};
    f.dst = {b * p.dst_bs + at * p.rows, 0, 1, w * static_cast<int>(p.rows)};
  } else {
    const int h = static_cast<int>(p.rows - at < p.block ? p.rows - at : p.block);
    f.src = {b * p.src_bs + at * p.cols, 0, 1, h * static_cast<int>(p.cols)};
    f.dst = {b * p.dst_bs + at, p.dst_ld, static_cast<int>(p.cols), h};
  }
  return f;
}

// The 16-byte chunks of global memory a run of len_bytes bytes touches, at most (any start
// address): ceil((15 + len_bytes) / 16).
TMAKIT_HD int flat_chunks_per_run(int len_bytes) {
  return (len_bytes + 30) / 16;
}

// Chunk k of a run of len_bytes starting at byte address a: global bytes [c, c + 16) with
// c = (a & ~15) + 16k, of which [lo, hi) belong to the run (none when lo >= hi). Whole when
// lo == c and hi == c + 16: one 16-byte access; else element by element.
struct FlatChunk {
  std::uintptr_t c, lo, hi;
  TMAKIT_HD bool whole() const { return lo == c && hi == c + 16; }
};
TMAKIT_HD FlatChunk flat_chunk(std::uintptr_t a, int len_bytes, int k) {
  const std::uintptr_t c = (a & ~std::uintptr_t(15)) + 16u * static_cast<unsigned>(k);
  const std::uintptr_t end = a + static_cast<unsigned>(len_bytes);
  return {c, c > a ? c : a, c + 16 < end ? c + 16 : end};
}

// A one-run dst side's chunks (store_unit's kBatch / kWide path): chunks [head, kw) of a run of
// len_bytes from byte a are whole (head = 1 where a is not 16-byte aligned: chunk 0 is partial;
// kw = the chunks that end by the run's end); chunk 0 when head = 1, and chunk kw when `tail`
// (the run ends inside it and it is not chunk 0 again), are the partial ones.
struct FlatRunChunks {
  int head, kw;
  bool tail;
};
TMAKIT_HD FlatRunChunks flat_run_chunks(std::uintptr_t a, int len_bytes) {
  const int head = (a & 15) != 0 ? 1 : 0;
  const int kw =
      static_cast<int>((a + static_cast<unsigned>(len_bytes) - (a & ~std::uintptr_t(15))) >> 4);
  return {head, kw, ((a + static_cast<unsigned>(len_bytes)) & 15) != 0 && kw >= head};
}

// The source operand's whole 16-byte chunks [lo, hi): from src rounded up to 16 to the end of
// the operand's span (the last matrix's last row) rounded down. A partial chunk of a run inside
// them may be read whole: the bytes that are not the run's are the operand's own (other columns,
// rows, row padding or matrices), read and never used. Outside them (the operand's first or
// last chunk when src or its end is not 16-byte aligned) a whole read could leave the operand.
struct FlatOperandChunks {
  std::uintptr_t lo = 0, hi = 0;
  TMAKIT_HD bool holds(std::uintptr_t c) const { return c >= lo && c + 16 <= hi; }
};
inline FlatOperandChunks flat_operand_chunks(std::uintptr_t begin, std::int64_t span_elems, int e) {
  const std::uintptr_t end = begin + static_cast<std::uintptr_t>(span_elems) * e;
  return {(begin + 15) & ~std::uintptr_t(15), end & ~std::uintptr_t(15)};
}
// The same for the source operand of a call planned as p, at src: its span runs to the last
// matrix's last row (smem_flat's and bulk_flat's launchers).
inline FlatOperandChunks flat_operand_chunks(const void* src, const FlatPlan& p) {
  return flat_operand_chunks(reinterpret_cast<std::uintptr_t>(src),
                             (p.batch - 1) * p.src_bs + (p.rows - 1) * p.src_ld + p.cols,
                             p.elem_bytes);
}

// Whether every run of every unit starts and ends on a 16-byte boundary, so that no partial
// chunk lies inside the operand (smem_flat then runs its kernel without the partial-chunk code):
// both pointers, the batch strides, and per form (a unit's block of columns or rows is a
// multiple of 16 elements, flat_plan):
//   kWide: src rows (src_ld) and the long side (cols: the last unit's end);
//   kTall: dst rows (dst_ld) and the long side (rows);
//   kBatch: a unit's g matrices (the last unit's end is the operand's, read element-wise).
// Over-strict is safe (the other kernel is exact too), only slower.
inline bool flat_call_is_aligned(const void* src, const void* dst, const FlatPlan& p) {
  const std::int64_t e = p.elem_bytes;
  auto a16 = [](std::int64_t bytes) { return bytes % 16 == 0; };
  if (reinterpret_cast<std::uintptr_t>(src) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(dst) % 16 != 0)
    return false;
  if (p.batch > 1 && !(a16(p.src_bs * e) && a16(p.dst_bs * e))) return false;
  switch (p.form) {
    case FlatForm::kWide:
      return a16(p.src_ld * e) && a16(p.cols * e);
    case FlatForm::kTall:
      return a16(p.dst_ld * e) && a16(p.rows * e);
    case FlatForm::kBatch:
      return a16(p.block * p.rows * p.cols * e);
    default:
      return false;
  }
}

// smem_flat's phase 1 keeps, per chunk in flight, one int: the chunk's shared byte sh (< 2^20)
// and the bytes [lo, hi) of its 16 that belong to the run (0 <= lo < hi <= 16; a whole chunk is
// [0, 16)).
TMAKIT_HD constexpr int flat_chunk_slot(int sh, int lo, int hi) {
  return sh | (lo << 20) | (hi << 25);
}
struct FlatChunkSlotParts {
  int sh, lo, hi;
};
TMAKIT_HD constexpr FlatChunkSlotParts flat_chunk_slot_parts(int slot) {
  return {slot & 0xfffff, (slot >> 20) & 31, slot >> 25};
}

// Phase 2's items: chunk k of dst run. One run: item = k. Several (kTall): a warp takes
// kFlatRunGroup consecutive chunks of a run, then the next run, so its lanes read different
// source rows (few bank conflicts, see smem_flat.cu) and still write whole 32-byte sectors:
//   item = (k' / G) * runs * G + d * G + k' % G,  G = kFlatRunGroup,
//   k = k' - ph(d),  ph(d) = (a(d) / 16) % G  (flat_dst_chunk)
// where a(d) is run's first byte: a group of G chunks starts on a 32-byte sector of global
// memory, not on the run's first chunk. Counted from the run, a run starting in a sector's
// second half split every pair over two sectors (H200: smem_flat on 1000003 x 24
// at 4 B stored 4.69 M L1 sectors for 3.00 M of data, copy 3.00 M). Items whose k < 0 or
// k >= nv are empty.
inline constexpr int kFlatRunGroup = 2;
struct FlatItem {
  int d, k;
};
TMAKIT_HD int flat_dst_items(int runs, int nv) {
  // (one more chunk position per run: the phase shifts k' up to G - 1)
  return runs == 1 ? nv : runs * ((nv + 2 * kFlatRunGroup - 2) / kFlatRunGroup) * kFlatRunGroup;
}
// Item -> (d, k'); flat_dst_chunk turns k' into the run's chunk k.
TMAKIT_HD FlatItem flat_dst_item(int item, int runs) {
  if (runs == 1) return {0, item};
  const int grp = item / (runs * kFlatRunGroup), rest = item - grp * runs * kFlatRunGroup;
  const int d = rest / kFlatRunGroup;
  return {d, grp * kFlatRunGroup + rest - d * kFlatRunGroup};
}
// The same items as a thread walks them (item = t, t + kThreads, ...; the kTall path of
// store_unit): item = grp * RG + rest with RG = runs * kFlatRunGroup (rest = d * G + k' % G, so
// (d, k') = flat_dst_item(item, runs), also at runs = 1), moved kThreads on by adding kThreads's
// digits (step.grp, step.rest < RG) with one carry instead of flat_dst_item's two divisions.
struct FlatItemDigits {
  int grp = 0, rest = 0;
};
TMAKIT_HD int flat_item_radix(int runs) {
  return runs * kFlatRunGroup;
}
TMAKIT_HD FlatItemDigits flat_item_digits(int item, int runs) {
  const int rg = flat_item_radix(runs);
  return {item / rg, item % rg};
}
TMAKIT_HD void flat_item_advance(FlatItemDigits& x, const FlatItemDigits& step, int runs) {
  x.grp += step.grp;
  x.rest += step.rest;
  if (x.rest >= flat_item_radix(runs)) {
    x.rest -= flat_item_radix(runs);
    ++x.grp;
  }
}
TMAKIT_HD FlatItem flat_item_at(const FlatItemDigits& x) {
  return {x.rest / kFlatRunGroup, x.grp * kFlatRunGroup + x.rest % kFlatRunGroup};
}
// Chunk k of run (first byte a) for item position k' (flat_dst_item).
TMAKIT_HD int flat_dst_chunk(int kk, int runs, std::uintptr_t a) {
  return runs == 1 ? kk : kk - static_cast<int>((a >> 4) & (kFlatRunGroup - 1));
}

}  // namespace tmakit
