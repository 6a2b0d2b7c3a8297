// The index math of reg_permute (kernels/classic/reg_permute.cu), host and device, so the host
// tests check it: which form a call takes, where a thread's block sits on each side, and which
// input byte lands at each output byte of the permutation done in registers.
//
// A block is K x V elements: the short side K (2..32) whole, V = 16 / E elements of the long
// side (one 16-byte chunk per short-side line). Its K x 16 bytes are K chunks on each side:
//   kWide (K rows x C of each matrix, dst dense rows of K):
//     src: chunk r = row r, columns [jV, jV + V)          (strided side: pitch src_ld)
//     dst: the V dst rows jV .. jV + V - 1, K elements each: 16K contiguous bytes
//   kTall (R rows x K of each matrix, src dense rows of K):
//     src: the V src rows jV .. jV + V - 1: 16K contiguous bytes
//     dst: chunk c = dst row c, columns [jV, jV + V)       (strided side: pitch dst_ld)
// Every chunk is one aligned 16-byte access, so the plan asks for 16-byte aligned bases,
// pitches and batch strides, and a long side that is a whole number of chunks, with one
// exception (`realign`): kWide at 1 B may read a strided side that breaks those
// rules (odd long sides such as 12 x 1000003, misaligned src pointers or pitches). Each line's
// chunk is then the 16 bytes at an unaligned address, built from the aligned vector under it
// and the next one (the next lane's, a shuffle); a long side that is not whole chunks leaves
// each matrix a last block of tail_elems (< V) elements, whose dense run is stored only up to
// its end. The dense side keeps the 16-byte rules. A warp then takes kRegRealignLanes blocks
// of one matrix (reg_realign_block): lanes 30 and 31 only load, so every lane's next vector is
// a neighbour's, also at a matrix's end.
#pragma once
#include <cstdint>
#include <kernels/common/arch.hpp>

namespace tmakit {

enum class RegForm : int { kNone = 0, kWide, kTall };

inline constexpr int kRegMinK = 2;   // K = 1 is a copy (smem_flat runs `copy` for it)
inline constexpr int kRegMaxK = 32;  // K chunks of 16 bytes live in 4K registers

// Where byte p (0..15) of output chunk q (0..K-1) comes from: input chunk and byte.
//   kWide: the output is the dense dst run; its element o = q*V + p/E is dst row jV + o / K,
//          column o % K, i.e. src row r = o % K (input chunk r), column o / K of the block
//          (byte (o / K) * E + p % E of that chunk).
//   kTall: output chunk q is dst row q; its element p/E is src row jV + p/E, column q, which
//          sits in the dense src run at element o = (p/E)*K + q: chunk o / V, byte (o % V)*E.
struct RegByte {
  int chunk, byte;
};
TMAKIT_HD constexpr RegByte reg_src_byte(RegForm f, int k, int e, int q, int p) {
  const int v = 16 / e;
  if (f == RegForm::kWide) {
    const int o = q * v + p / e;
    return {o % k, (o / k) * e + p % e};
  }
  const int o = (p / e) * k + q;
  return {o / v, (o % v) * e + p % e};
}

// Everything a launch needs, fixed for the call (element counts unless named _bytes).
struct RegPlan {
  RegForm form = RegForm::kNone;
  int k = 0;                           // the short side, kept whole
  std::int64_t blocks_per_matrix = 0;  // long side / V
  std::int64_t blocks = 0;             // batch * blocks_per_matrix
  // The strided side (kWide: src, kTall: dst) and the dense side (the other), in bytes:
  std::int64_t strided_ld_bytes = 0;                      // between the K lines of a block
  std::int64_t strided_bs_bytes = 0, dense_bs_bytes = 0;  // between matrices
  // kWide only: the strided side is read through realigned vectors (a base, pitch or batch
  // stride of src not a multiple of 16 bytes, or a long side not whole chunks); each matrix's
  // last block holds tail_elems long-side elements (V where the long side is whole chunks);
  // strided_span_bytes: from src to one past its last element (the realigned reads stay in it).
  bool realign = false;
  int tail_elems = 0;
  std::int64_t realign_warps = 0;  // warps of kRegRealignLanes blocks (reg_realign_block)
  std::int64_t strided_span_bytes = 0;
  const char* why_not = nullptr;  // kNone: the rule the call breaks
};

// The block b's byte offsets: chunk x of the strided side at strided + x * strided_ld_bytes,
// the dense side's K chunks from dense; j: the block's place along its matrix's long side
// (elements jV .. jV + V - 1).
struct RegBlockAt {
  std::int64_t strided, dense, j;
};
TMAKIT_HD RegBlockAt reg_block_at(const RegPlan& p, std::int64_t b) {
  std::int64_t m = 0;  // the matrix (a 32-bit division where the block count allows)
  if (p.blocks_per_matrix != p.blocks)
    m = p.blocks <= 0xffffffffLL
            ? static_cast<std::uint32_t>(b) / static_cast<std::uint32_t>(p.blocks_per_matrix)
            : b / p.blocks_per_matrix;
  const std::int64_t j = b - m * p.blocks_per_matrix;
  return {m * p.strided_bs_bytes + j * 16, m * p.dense_bs_bytes + j * 16 * p.k, j};
}

// Bytes of block j's dense run that belong to the call: 16K, or the last block's tail.
TMAKIT_HD std::int64_t reg_dense_bytes(const RegPlan& p, int e, std::int64_t j) {
  return (j == p.blocks_per_matrix - 1 ? p.tail_elems : 16 / e) * std::int64_t(e) * p.k;
}

// Realigned plans: warp w (counted over the grid) takes blocks j0 .. j0 + 29 of matrix m
// (warps_per_matrix = ceil(blocks_per_matrix / 30) warps each); lane l holds block j0 + l. Lanes
// with j >= blocks_per_matrix (always lanes 30 and 31) load the vectors after the warp's last
// block, so the shuffle finds each lane's next vector; they store nothing (live = false).
inline constexpr int kRegRealignLanes = 30;
struct RegRealignAt {
  bool live;
  std::int64_t m, j;
};
TMAKIT_HD std::int64_t reg_realign_warps_per_matrix(const RegPlan& p) {
  return (p.blocks_per_matrix + kRegRealignLanes - 1) / kRegRealignLanes;
}
TMAKIT_HD RegRealignAt reg_realign_block(const RegPlan& p, std::int64_t warp, int lane) {
  const std::int64_t wpm = reg_realign_warps_per_matrix(p);
  // m = warp / wpm (a 32-bit division where the warp count allows)
  const std::int64_t m = wpm == 1 ? warp
                         : p.realign_warps <= 0xffffffffLL
                             ? static_cast<std::uint32_t>(warp) / static_cast<std::uint32_t>(wpm)
                             : warp / wpm;
  const std::int64_t j = (warp - m * wpm) * kRegRealignLanes + lane;
  return {lane < kRegRealignLanes && j < p.blocks_per_matrix && warp < p.realign_warps, m, j};
}
// Its byte offsets (RegBlockAt's, for any j: lanes past the matrix's blocks included).
TMAKIT_HD RegBlockAt reg_realign_at(const RegPlan& p, const RegRealignAt& r) {
  return {r.m * p.strided_bs_bytes + r.j * 16, r.m * p.dense_bs_bytes + r.j * 16 * p.k, r.j};
}

// The form of a call: kWide where rows <= 32 and dst rows are dense, kTall where cols <= 32 and
// src rows are dense (the smaller short side where both apply), if every 16-byte rule holds.
// src / dst: the operands' addresses (only their alignment is read).
inline RegPlan reg_plan(std::int64_t rows, std::int64_t cols, int e, std::int64_t batch,
                        std::int64_t src_ld, std::int64_t dst_ld, std::int64_t src_bs,
                        std::int64_t dst_bs, std::uintptr_t src, std::uintptr_t dst) {
  RegPlan p;
  if (e != 1 && e != 2 && e != 4 && e != 8) {
    p.why_not = "element size not 1, 2, 4 or 8 bytes";
    return p;
  }
  const int v = 16 / e;
  auto k_ok = [](std::int64_t k) { return k >= kRegMinK && k <= kRegMaxK; };
  const bool wide = k_ok(rows) && dst_ld == rows;
  const bool tall = k_ok(cols) && src_ld == cols;
  if (!wide && !tall) {
    p.why_not = "no short side of 2..32 with dense lines on the other operand";
    return p;
  }
  const bool use_wide = wide && (!tall || rows <= cols);
  const std::int64_t k = use_wide ? rows : cols, n = use_wide ? cols : rows;
  // The strided side's pitch and both batch strides (unused with one matrix) in bytes.
  const std::int64_t ld = (use_wide ? src_ld : dst_ld) * e;
  const std::int64_t sbs = batch > 1 ? src_bs * e : 0, dbs = batch > 1 ? dst_bs * e : 0;
  // The strided side's base and strides, and the dense side's (kWide: src / dst).
  const std::uintptr_t strided_base = use_wide ? src : dst, dense_base = use_wide ? dst : src;
  const std::int64_t strided_bs = use_wide ? sbs : dbs, dense_bs = use_wide ? dbs : sbs;
  const bool strided_aligned = strided_base % 16 == 0 && ld % 16 == 0 && strided_bs % 16 == 0;
  const bool dense_aligned = dense_base % 16 == 0 && dense_bs % 16 == 0;
  const std::int64_t bpm = (n + v - 1) / v;
  // Realigned reads: 1-byte elements (at 2-8 B they ran at 0.70-0.93 of smem_flat, which the
  // launcher runs instead; docs/perf-guide.md), the dense side aligned, and at least
  // 32 blocks per matrix (a warp stays in one matrix, so fewer would leave most lanes idle).
  const bool realign = use_wide && e == 1 && dense_aligned && bpm >= 32;
  const char* const misaligned = "a base, pitch or batch stride not a multiple of 16 bytes";
  if (!dense_aligned) {
    p.why_not = misaligned;
    return p;
  }
  if (n % v != 0 && !realign) {
    p.why_not = use_wide && e == 1
                    ? "long side not a whole number of 16-byte chunks (and under 32 of them)"
                    : "long side not a whole number of 16-byte chunks";
    return p;
  }
  if (!strided_aligned && !realign) {
    p.why_not = misaligned;
    return p;
  }
  p.form = use_wide ? RegForm::kWide : RegForm::kTall;
  p.k = static_cast<int>(k);
  p.blocks_per_matrix = bpm;
  p.blocks = batch * p.blocks_per_matrix;
  p.realign = !strided_aligned || n % v != 0;
  p.tail_elems = static_cast<int>(n - (bpm - 1) * v);
  p.strided_span_bytes = (batch - 1) * strided_bs + (k - 1) * ld + n * e;
  p.realign_warps = batch * ((bpm + kRegRealignLanes - 1) / kRegRealignLanes);
  p.strided_ld_bytes = ld;
  p.strided_bs_bytes = strided_bs;
  p.dense_bs_bytes = dense_bs;
  return p;
}

// Blocks per thread: at least 8 chunks in flight per thread on the load side.
TMAKIT_HD constexpr int reg_blocks_per_thread(int k) {
  return k >= 8 ? 1 : (8 + k - 1) / k;
}

}  // namespace tmakit
