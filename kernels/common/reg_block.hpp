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
// pitches and batch strides, and a long side that is a whole number of chunks.
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
  std::int64_t strided_ld_bytes = 0;  // between the K lines of a block
  std::int64_t strided_bs_bytes = 0, dense_bs_bytes = 0;  // between matrices
  const char* why_not = nullptr;  // kNone: the rule the call breaks
};

// The block b's byte offsets: chunk x of the strided side at strided + x * strided_ld_bytes,
// the dense side's K chunks from dense.
struct RegBlockAt {
  std::int64_t strided, dense;
};
TMAKIT_HD RegBlockAt reg_block_at(const RegPlan& p, std::int64_t b) {
  std::int64_t m = 0;  // the matrix (a 32-bit division where the block count allows)
  if (p.blocks_per_matrix != p.blocks)
    m = p.blocks <= 0xffffffffLL ? static_cast<std::uint32_t>(b) /
                                       static_cast<std::uint32_t>(p.blocks_per_matrix)
                                 : b / p.blocks_per_matrix;
  const std::int64_t j = b - m * p.blocks_per_matrix;
  return {m * p.strided_bs_bytes + j * 16, m * p.dense_bs_bytes + j * 16 * p.k};
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
  if (n % v != 0) {
    p.why_not = "long side not a whole number of 16-byte chunks";
    return p;
  }
  if (src % 16 != 0 || dst % 16 != 0 || ld % 16 != 0 || sbs % 16 != 0 || dbs % 16 != 0) {
    p.why_not = "a base, pitch or batch stride not a multiple of 16 bytes";
    return p;
  }
  p.form = use_wide ? RegForm::kWide : RegForm::kTall;
  p.k = static_cast<int>(k);
  p.blocks_per_matrix = n / v;
  p.blocks = batch * p.blocks_per_matrix;
  p.strided_ld_bytes = ld;
  p.strided_bs_bytes = use_wide ? sbs : dbs;
  p.dense_bs_bytes = use_wide ? dbs : sbs;
  return p;
}

// Blocks per thread: at least 8 chunks in flight per thread on the load side.
TMAKIT_HD constexpr int reg_blocks_per_thread(int k) {
  return k >= 8 ? 1 : (8 + k - 1) / k;
}

}  // namespace tmakit
