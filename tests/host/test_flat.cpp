// smem_flat's index math (kernels/common/flat.hpp), checked on the host: which form a call
// takes; the stepped gather walk equals the direct one; and the whole kernel, emulated on the
// host with the same functions over a byte array standing for global memory (any alignment),
// transposes exactly: every whole chunk is an aligned 16-byte access on both sides, every
// shared byte it reads was loaded, every destination byte is written once and nothing
// outside the destination is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <kernels/common/flat.hpp>
#include <tests/support/sweep.hpp>

namespace tmakit {
namespace {

struct Call {
  std::int64_t rows, cols;
  int e;
  std::int64_t batch = 1, src_ld = 0, dst_ld = 0, src_bs = 0, dst_bs = 0;  // 0: dense
  int src_mis = 0, dst_mis = 0;     // bytes past a 16-byte boundary (multiples of e)
  int tile_bytes = kFlatTileBytes;  // the unit size (32 KB: the H200's skinny calls)
  int batch_table_bytes = kFlatBatchTableMaxElemBytes;  // kBatch's table up to this element size
};

std::string name(const Call& c) {
  return std::to_string(c.batch) + "x" + std::to_string(c.rows) + "x" + std::to_string(c.cols) +
         " e" + std::to_string(c.e) + " ld " + std::to_string(c.src_ld) + "/" +
         std::to_string(c.dst_ld) + " mis " + std::to_string(c.src_mis) + "/" +
         std::to_string(c.dst_mis) + " unit " + std::to_string(c.tile_bytes);
}

FlatPlan plan_of(Call& c) {
  if (c.src_ld == 0) c.src_ld = c.cols;
  if (c.dst_ld == 0) c.dst_ld = c.rows;
  if (c.src_bs == 0) c.src_bs = c.rows * c.src_ld;
  if (c.dst_bs == 0) c.dst_bs = c.cols * c.dst_ld;
  return flat_plan(c.rows, c.cols, c.e, c.batch, c.src_ld, c.dst_ld, c.src_bs, c.dst_bs,
                   c.tile_bytes, {kFlatTableMaxRows, c.batch_table_bytes});
}

// Emulates smem_flat_kernel's two phases unit by unit; "" when the result is exact. `mutate`
// may break the plan, to show that the emulation catches it.
std::string emulate(Call c, void (*mutate)(FlatPlan&) = nullptr) {
  FlatPlan p = plan_of(c);
  if (mutate != nullptr) mutate(p);
  if (p.form == FlatForm::kNone) return "no form";
  const int e = c.e, V = 16 / e;
  const std::int64_t src_n = (c.batch - 1) * c.src_bs + (c.rows - 1) * c.src_ld + c.cols;
  const std::int64_t dst_n = (c.batch - 1) * c.dst_bs + (c.cols - 1) * c.dst_ld + c.rows;
  // "Global memory": src at byte kBase + src_mis, dst after it at a 16-byte boundary + dst_mis,
  // 64 guard bytes around dst.
  constexpr std::uintptr_t kBase = 0x100000;
  const std::uintptr_t src_at = kBase + c.src_mis;
  const std::uintptr_t dst_at = (src_at + src_n * e + 64 + 15) / 16 * 16 + c.dst_mis;
  std::vector<unsigned char> mem(dst_at + dst_n * e + 64 - kBase, 0xEE);
  for (std::int64_t i = 0; i < src_n * e; ++i)
    mem[src_at - kBase + i] = static_cast<unsigned char>((i * 131 + i / 251) & 0xff);
  std::vector<int> writes(dst_n * e, 0);
  auto at = [&](std::uintptr_t x) -> unsigned char& { return mem.at(x - kBase); };
  const FlatOperandChunks ok = flat_operand_chunks(reinterpret_cast<const void*>(src_at), p);
  const FlatOperandChunks dst_ok = flat_operand_chunks(dst_at, dst_n, e);
  // An aligned call (the kernel without the partial-chunk code) has no partial chunk inside
  // either operand.
  const bool aligned = flat_call_is_aligned(reinterpret_cast<const void*>(src_at),
                                            reinterpret_cast<const void*>(dst_at), p);
  for (std::int64_t u = 0; u < p.units; ++u) {
    const FlatUnit f = flat_unit(p, u);
    std::vector<unsigned char> smem(p.smem_bytes, 0);
    std::vector<char> loaded(p.smem_bytes, 0);
    const std::uintptr_t a0 = src_at + f.src.first * e;
    const int b0 = static_cast<int>(a0 & 15);
    const int s_len = f.src.len * e, s_nv = flat_chunks_per_run(s_len);
    for (int item = 0; item < f.src.runs * s_nv; ++item) {
      const int i = item / s_nv, k = item % s_nv;
      const std::uintptr_t a = src_at + (f.src.first + std::int64_t(i) * f.src.pitch) * e;
      const FlatChunk s = flat_chunk(a, s_len, k);
      const int sh = i * p.src_stride + b0 + static_cast<int>(std::intptr_t(s.c - a));
      if (s.whole() && (s.c % 16 != 0 || sh % 16 != 0))
        return "unit " + std::to_string(u) + ": a whole source chunk is not 16-byte aligned";
      // The kernel reads a partial chunk whole where the operand's chunks hold it (one LDG.128),
      // then stores only [lo, hi) from the slot it keeps.
      if (aligned && !s.whole() && s.lo < s.hi && ok.holds(s.c))
        return "an aligned call has a partial source chunk inside the operand";
      if (s.whole() || (s.lo < s.hi && ok.holds(s.c))) {
        if (s.c % 16 != 0 || sh % 16 != 0) return "a chunk read whole is not 16-byte aligned";
        if (s.c < src_at || s.c + 16 > src_at + src_n * e) return "a whole read left the operand";
        const FlatChunkSlotParts slot = flat_chunk_slot_parts(
            flat_chunk_slot(sh, static_cast<int>(s.lo - s.c), static_cast<int>(s.hi - s.c)));
        if (slot.sh != sh || s.c + slot.lo != s.lo || s.c + slot.hi != s.hi)
          return "the chunk slot lost its shared byte or its run bytes";
      }
      for (std::uintptr_t x = s.lo; x < s.hi; ++x) {
        const int to = sh + static_cast<int>(x - s.c);
        if (to < 0 || to >= p.smem_bytes) return "load outside shared memory";
        if (loaded[to]) return "two source bytes loaded to one shared byte";
        loaded[to] = 1;
        smem[to] = at(x);
      }
    }
    const int d_len = f.dst.len * e, d_nv = flat_chunks_per_run(d_len);
    // One-run forms: the kernel's thread t takes chunks t, t + kThreads, ...; the whole ones
    // (flat_run_chunks' [head, kw)) from a walk placed at its first and jumped kThreads * V
    // elements on per chunk (flat_advance), the partial ones (head, tail) element by element.
    constexpr int kThreads = 256;
    const bool one_run = p.form != FlatForm::kTall;
    const std::uintptr_t run_a = dst_at + f.dst.first * e;
    const FlatRunChunks rc = flat_run_chunks(run_a, d_len);
    const FlatJump jump = flat_jump(p.gather, kThreads * V);
    std::vector<FlatWalk> thread_walk(kThreads);
    std::vector<char> thread_placed(kThreads, 0);
    for (int item = 0; item < flat_dst_items(f.dst.runs, d_nv); ++item) {
      FlatItem it = flat_dst_item(item, f.dst.runs);
      if (it.d < 0 || it.d >= f.dst.runs) return "item outside the runs";
      const std::uintptr_t a = dst_at + (f.dst.first + std::int64_t(it.d) * f.dst.pitch) * e;
      it.k = flat_dst_chunk(it.k, f.dst.runs, a);
      if (it.k < 0 || it.k >= d_nv) continue;
      const FlatChunk s = flat_chunk(a, d_len, it.k);
      // A group of kFlatRunGroup items of one run (several runs) lies in one 32-byte sector.
      if (f.dst.runs > 1 && s.c / 32 != (s.c - 16 * (item % kFlatRunGroup)) / 32)
        return "a run's group of chunks splits over two 32-byte sectors";
      if (s.lo >= s.hi) continue;
      if (aligned && !s.whole() && dst_ok.holds(s.c))
        return "an aligned call has a partial destination chunk inside the operand";
      auto put = [&](std::uintptr_t x, int off) -> std::string {
        if (off < 0 || off + e > p.smem_bytes) return "gather outside shared memory";
        for (int b = 0; b < e; ++b) {
          if (!loaded[off + b]) return "gather read a shared byte never loaded";
          at(x + b) = smem[off + b];
          if (x + b < dst_at || x + b >= dst_at + dst_n * e) return "wrote outside dst";
          ++writes[x + b - dst_at];
        }
        return {};
      };
      {  // the kernel's split of the run's chunks (kTall: per run, from the run's own start)
        const FlatRunChunks r = one_run ? rc : flat_run_chunks(a, d_len);
        const bool whole = it.k >= r.head && it.k < r.kw;
        const bool partial = (it.k == 0 && r.head == 1) || (r.tail && it.k == r.kw);
        if (whole != s.whole() || (one_run && partial == s.whole()))
          return "flat_run_chunks split the run's chunks wrongly";
      }
      if (s.whole()) {
        if (s.c % 16 != 0) return "a whole destination chunk is not 16-byte aligned";
        FlatWalk w = flat_walk(p.gather, it.d, static_cast<int>(s.c - a) / e);
        if (one_run) {  // the jumped walk of the chunk's thread must land where flat_walk does
          FlatWalk& tw = thread_walk[it.k % kThreads];
          if (thread_placed[it.k % kThreads] && p.form == FlatForm::kBatch)
            flat_advance<true>(p.gather, jump, tw);
          else if (thread_placed[it.k % kThreads])
            flat_advance<false>(p.gather, jump, tw);
          else
            tw = w;
          thread_placed[it.k % kThreads] = 1;
          if (tw.off != w.off || tw.i1 != w.i1 || tw.i2 != w.i2)
            return "the jumped walk left flat_walk at chunk " + std::to_string(it.k);
          w = tw;
        }
        if (p.table_rows > 0 && flat_chunk_in_matrix(p.gather, w, V)) {  // the kernel's table
          if (w.i1 >= p.table_rows) return "table row out of range";
          if (p.table_at + (flat_table_row_at(V, p.table_rows, w.i1) + V) * 4 > p.smem_bytes)
            return "table outside shared memory";
          for (int j = 0; j < V; ++j)
            if (std::string err =
                    put(s.c + j * e, b0 + w.off + flat_table_value(p.gather, w.i1, j));
                !err.empty())
              return err;
          continue;
        }
        for (int j = 0; j < V; ++j) {
          if (w.off != flat_offset(p.gather, it.d, static_cast<int>(s.c - a) / e + j))
            return "the stepped walk left the direct gather";
          if (std::string err = put(s.c + j * e, b0 + w.off); !err.empty()) return err;
          // The kernel's step: only the wraps its form can take.
          if (p.form == FlatForm::kTall)
            flat_step<false, false>(p.gather, w);
          else if (p.form == FlatForm::kWide)
            flat_step<true, false>(p.gather, w);
          else
            flat_step<true, true>(p.gather, w);
        }
      } else if (p.form == FlatForm::kTall) {  // the kernel's linear gather, clamped to [j0, j1)
        const int j0 = static_cast<int>(s.lo - s.c) / e, j1 = static_cast<int>(s.hi - s.c) / e;
        const int off0 = it.d * p.gather.sd + static_cast<int>(s.lo - a) / e * p.gather.s1;
        for (int j = 0; j < V; ++j) {
          const int off = off0 + (std::min(std::max(j, j0), j1 - 1) - j0) * p.gather.s1;
          if (off < 0 || off + e > p.smem_bytes) return "a clamped read left shared memory";
          if (j < j0 || j >= j1) continue;  // read, never written
          const std::uintptr_t x = s.c + j * e;
          if (off != flat_offset(p.gather, it.d, static_cast<int>(x - a) / e))
            return "the partial chunk's gather left the direct one";
          if (std::string err = put(x, b0 + off); !err.empty()) return err;
        }
      } else {
        for (std::uintptr_t x = s.lo; x < s.hi; x += e)
          if (std::string err =
                  put(x, b0 + flat_offset(p.gather, it.d, static_cast<int>(x - a) / e));
              !err.empty())
            return err;
      }
    }
  }
  for (std::int64_t b = 0; b < c.batch; ++b)
    for (std::int64_t r = 0; r < c.rows; ++r)
      for (std::int64_t col = 0; col < c.cols; ++col) {
        const std::uintptr_t s = src_at + (b * c.src_bs + r * c.src_ld + col) * e;
        const std::uintptr_t d = dst_at + (b * c.dst_bs + col * c.dst_ld + r) * e;
        if (std::memcmp(&at(s), &at(d), e) != 0)
          return "dst (" + std::to_string(b) + ", " + std::to_string(col) + ", " +
                 std::to_string(r) + ") is wrong";
        for (int k = 0; k < e; ++k)
          if (writes[d - dst_at + k] != 1)
            return "a dst byte written " + std::to_string(writes[d - dst_at + k]) + " times";
      }
  std::int64_t total = 0;
  for (int w : writes) total += w;
  if (total != c.batch * c.rows * c.cols * e) return "padding between dst rows was written";
  return {};
}

TEST(Flat, FormsByShapeAndLayout) {
  Call wide{7, 4000000, 1};
  EXPECT_EQ(plan_of(wide).form, FlatForm::kWide);
  Call tall{4000000, 7, 2};
  EXPECT_EQ(plan_of(tall).form, FlatForm::kTall);
  Call batch{97, 75, 1, 3000};
  EXPECT_EQ(plan_of(batch).form, FlatForm::kBatch);
  EXPECT_EQ(plan_of(batch).block, 2);  // 16384 / 7275 bytes
  Call big{97, 75, 8, 3000};           // 58200-byte matrices: no batch form, no short side
  EXPECT_EQ(plan_of(big).form, FlatForm::kNone);
  Call strided_dst{7, 1000, 4, 1, 0, 9};  // the dense side strided: the tall form cannot help
  EXPECT_EQ(plan_of(strided_dst).form, FlatForm::kNone);
  Call strided_src{7, 1000, 4, 1, 1003};  // the long rows strided: still wide
  EXPECT_EQ(plan_of(strided_src).form, FlatForm::kWide);
  Call square{4096, 4096, 4};
  EXPECT_EQ(plan_of(square).form, FlatForm::kNone);
}

TEST(Flat, SteppedWalkEqualsTheDirectGather) {
  for (Call c : {Call{7, 5000, 1}, Call{31, 3000, 2}, Call{5000, 7, 4}, Call{32, 32, 1, 40},
                 Call{97, 75, 2, 5}, Call{3, 5, 8, 100}}) {
    const FlatPlan p = plan_of(c);
    const FlatUnit f = flat_unit(p, 0);
    for (int d = 0; d < f.dst.runs; ++d) {
      FlatWalk w = flat_walk(p.gather, d, 0);
      for (int o = 0; o < f.dst.len; ++o) {
        ASSERT_EQ(w.off, flat_offset(p.gather, d, o)) << name(c) << " run " << d << " o " << o;
        flat_step(p.gather, w);
      }
    }
  }
}

// flat_advance by flat_jump(D) equals flat_walk at o + D, for the one-run forms' gathers (kBatch:
// both digits carry, also where D spans several matrices; kWide: i2 unbounded; kTall: linear) and
// D = 256 V.
TEST(Flat, JumpedWalkEqualsTheDirectWalk) {
  int checked = 0;
  for (Call c :
       {Call{97, 75, 1, 3000}, Call{8, 8, 1, 100000}, Call{33, 65, 2, 5000}, Call{3, 5, 8, 1000},
        Call{128, 128, 1, 40}, Call{7, 5000, 1}, Call{31, 3000, 2}, Call{16, 48, 4, 20000},
        Call{5000, 7, 4}}) {  // the last kTall: i1 linear, no carry
    const FlatPlan p = plan_of(c);
    const int v = 16 / c.e, d = 256 * v;
    const FlatJump j = flat_jump(p.gather, d);
    const int len = flat_unit(p, 0).dst.len;
    for (int o = 0; o + d < len; o += (o < 4 * d ? 1 : 7)) {
      FlatWalk w = flat_walk(p.gather, 0, o);
      if (p.form == FlatForm::kBatch)
        flat_advance<true>(p.gather, j, w);
      else
        flat_advance<false>(p.gather, j, w);
      const FlatWalk direct = flat_walk(p.gather, 0, o + d);
      ASSERT_EQ(w.off, direct.off) << name(c) << " o " << o;
      ASSERT_EQ(w.i1, direct.i1) << name(c) << " o " << o;
      ASSERT_EQ(w.i2, direct.i2) << name(c) << " o " << o;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);  // the shapes' units are longer than one jump
}

// kTall's items as a thread walks them (store_unit): the digits moved kThreads on per item give
// flat_dst_item's (run, chunk position) for every item, at any run count (1 included).
TEST(Flat, ItemDigitsWalkTheItems) {
  constexpr int kThreads = 256;
  for (int runs = 1; runs <= 40; ++runs) {
    const FlatItemDigits step = flat_item_digits(kThreads, runs);
    for (int t = 0; t < kThreads; ++t) {
      FlatItemDigits x = flat_item_digits(t, runs);
      for (int item = t; item < 40 * kThreads; item += kThreads, flat_item_advance(x, step, runs)) {
        const FlatItem want = flat_dst_item(item, runs), got = flat_item_at(x);
        ASSERT_EQ(got.d, want.d) << "runs " << runs << " item " << item;
        ASSERT_EQ(got.k, want.k) << "runs " << runs << " item " << item;
      }
    }
  }
}

// The chunk starts' division by a float reciprocal: exact wherever the kernel uses it (o below
// 2^16, the elements of a unit; n up to a matrix side), checked against integer division.
TEST(Flat, ReciprocalDivisionIsExact) {
  for (int n = 1; n <= 4096; n += (n < 64 ? 1 : 37))
    for (int o = 0; o < 65536; o += (n < 64 ? 1 : 7)) {
      const FlatDiv d = flat_div(o, n, 1.0f / static_cast<float>(n));
      ASSERT_EQ(d.q, o / n) << o << " / " << n;
      ASSERT_EQ(d.r, o % n) << o << " % " << n;
    }
}

// Which partial source chunks smem_flat reads whole: those inside the operand's whole chunks.
// An operand of 100 bytes at 0x1003 has whole chunks [0x1010, 0x1060): its first chunk (0x1000,
// 13 bytes before src) and its last (0x1060, 9 bytes after the end) are read element by element.
TEST(Flat, OperandChunksAndChunkSlots) {
  const FlatOperandChunks ok = flat_operand_chunks(0x1003, 100, 1);
  EXPECT_EQ(ok.lo, 0x1010u);
  EXPECT_EQ(ok.hi, 0x1060u);
  EXPECT_FALSE(ok.holds(0x1000));
  EXPECT_TRUE(ok.holds(0x1010));
  EXPECT_TRUE(ok.holds(0x1050));
  EXPECT_FALSE(ok.holds(0x1060));
  const FlatOperandChunks ok8 = flat_operand_chunks(0x2000, 6, 8);  // 48 bytes, aligned
  EXPECT_TRUE(ok8.holds(0x2020));
  EXPECT_FALSE(ok8.holds(0x2030));
  // The slot keeps the shared byte (below 2^20) and the run's bytes [lo, hi) of the 16.
  for (int sh : {0, 16, 4096 + 48, 65536 + 16, (1 << 20) - 16})
    for (int lo = 0; lo < 16; ++lo)
      for (int hi = lo + 1; hi <= 16; ++hi) {
        const int slot = flat_chunk_slot(sh, lo, hi);
        ASSERT_GE(slot, 0) << sh << " " << lo << " " << hi;  // -1 means no chunk
        const FlatChunkSlotParts q = flat_chunk_slot_parts(slot);
        ASSERT_EQ(q.sh, sh);
        ASSERT_EQ(q.lo, lo);
        ASSERT_EQ(q.hi, hi);
      }
}

// Which calls smem_flat runs without the partial-chunk code: 16-byte aligned throughout.
TEST(Flat, AlignedCallsAreThoseWithoutPartialChunks) {
  auto aligned = [](Call c, std::uintptr_t src = 0x1000, std::uintptr_t dst = 0x9000) {
    const FlatPlan p = plan_of(c);
    return flat_call_is_aligned(reinterpret_cast<const void*>(src),
                                reinterpret_cast<const void*>(dst), p);
  };
  EXPECT_TRUE(aligned({4, 4000000, 1}));   // kWide, rows of 4000000 bytes
  EXPECT_TRUE(aligned({4000000, 4, 1}));   // kTall
  EXPECT_TRUE(aligned({32, 32, 1, 100}));  // kBatch, 1 KB matrices
  EXPECT_FALSE(aligned({4, 1000003, 1}));  // rows off 16 bytes
  EXPECT_FALSE(aligned({1000003, 4, 2}));  // dst rows off 16 bytes
  EXPECT_FALSE(aligned({97, 75, 1, 3000}));
  EXPECT_FALSE(aligned({4, 4000000, 1}, 0x1001));                    // src off 16 bytes
  EXPECT_FALSE(aligned({4000000, 4, 1}, 0x1000, 0x9004));            // dst off 16 bytes
  EXPECT_FALSE(aligned({4, 4000, 4, 3, 4004, 0, 4 * 4004 + 1, 0}));  // a batch stride off
  // The emulation checks the rule: an aligned call meets no partial chunk inside an operand.
  for (Call c : {Call{4, 4096, 1}, Call{4096, 4, 2}, Call{16, 16, 4, 300}, Call{7, 4096, 8, 3}})
    EXPECT_EQ(emulate(c), "") << name(c);
}

TEST(Flat, EmulatedKernelTransposesSkinnyMatricesAtAnyAlignment) {
  for (int e : {1, 2, 4, 8, 16})
    for (std::int64_t k : {2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32})
      for (std::int64_t n : {1, 17, 1000, 4099})
        for (int mis : {0, 1}) {
          // Misaligned: src one element past a 16-byte boundary, dst one element before one.
          const int a = e < 16 ? mis * e : 0, b = e < 16 ? mis * (16 - e) : 0;
          for (int unit : {kFlatTileBytes, 2 * kFlatTileBytes}) {
            const Call wide{k, n, e, 1, 0, 0, 0, 0, a, b, unit},
                tall{n, k, e, 1, 0, 0, 0, 0, b, a, unit};
            EXPECT_EQ(emulate(wide), "") << name(wide);
            EXPECT_EQ(emulate(tall), "") << name(tall);
          }
        }
}

TEST(Flat, EmulatedKernelTransposesBatchesAndStridedLongSides) {
  const std::vector<Call> calls = {
      {32, 32, 1, 100},
      {97, 75, 1, 7},
      {97, 75, 2, 5},
      {16, 16, 4, 300},
      {5, 3, 8, 1000},
      {33, 31, 2, 3},
      {32, 32, 16, 9},
      {1, 1, 1, 1},
      {7, 1000, 1, 3, 1003, 0, 7 * 1003 + 5, 0, 1, 0},  // wide: strided rows, gaps between
      {1000, 7, 2, 3, 0, 1001, 0, 7 * 1001 + 3, 0, 2},  // tall: strided dst rows and gaps
      {3, 4099, 4, 2, 4101, 0, 0, 0, 4, 8},
  };
  for (Call c : calls)
    for (int table_bytes : {kFlatBatchTableMaxElemBytes, 8}) {  // kBatch's table at 2-8 B too
      c.batch_table_bytes = table_bytes;
      const FlatPlan p = plan_of(c);
      if (p.table_rows > 0) EXPECT_EQ(p.table_rows, c.rows) << name(c);
      EXPECT_EQ(emulate(c), "") << name(c) << " table up to " << table_bytes << " B";
    }
}

// A seeded sweep of the classes smem_flat / bulk_flat take (the fixed lists above pin chosen
// cases): k x N and N x k with k 1..32, batches of small matrices, at 1-16 B; padded lines and
// gapped batch strides of any residue, operands off 16 bytes by whole elements, both unit sizes
// and both batch-table limits.
TEST(Flat, SweptCallsTransposeExactly) {
  test::SweepPicker pick;  // kSweepSeed
  const int sizes[] = {1, 2, 4, 8, 16};
  int planned = 0;
  for (int t = 0; t < 600; ++t) {
    const int e = sizes[pick(0, 4)];
    Call c{1, 1, e};
    switch (pick(0, 2)) {
      case 0:  // k x N
        c.rows = pick(1, 32);
        c.cols = pick(1, 3000);
        break;
      case 1:  // N x k
        c.rows = pick(1, 3000);
        c.cols = pick(1, 32);
        break;
      default:  // a batch of small matrices
        c.rows = pick(1, 80);
        c.cols = pick(1, 80);
        c.batch = pick(2, 40);
    }
    if (pick(0, 1)) {
      c.src_ld = c.cols + pick(0, 9);
      c.dst_ld = c.rows + pick(0, 9);
      if (c.batch > 1) {
        c.src_bs = c.rows * c.src_ld + pick(0, 21);
        c.dst_bs = c.cols * c.dst_ld + pick(0, 21);
      }
    }
    if (e < 16 && pick(0, 1)) {
      c.src_mis = static_cast<int>(pick(0, 16 / e - 1)) * e;
      c.dst_mis = static_cast<int>(pick(0, 16 / e - 1)) * e;
    }
    c.tile_bytes = pick(0, 1) ? kFlatTileBytes : 2 * kFlatTileBytes;
    c.batch_table_bytes = pick(0, 1) ? kFlatBatchTableMaxElemBytes : 8;
    Call cc = c;
    if (plan_of(cc).form == FlatForm::kNone) {  // only where no form applies (smem_strip runs)
      const bool dense =
          cc.src_ld == cc.cols && cc.dst_ld == cc.rows &&
          (cc.batch == 1 || (cc.src_bs == cc.rows * cc.cols && cc.dst_bs == cc.rows * cc.cols));
      const bool small = cc.rows * cc.cols * e <= flat_max_matrix_bytes(e);  // kBatch's matrices
      EXPECT_TRUE(!(dense && small) && !(cc.rows <= kFlatShortSide && cc.dst_ld == cc.rows) &&
                  !(cc.cols <= kFlatShortSide && cc.src_ld == cc.cols))
          << name(c) << ": no form";
      continue;
    }
    ++planned;
    EXPECT_EQ(emulate(c), "") << name(c) << " batch strides " << c.src_bs << "/" << c.dst_bs
                              << " table up to " << c.batch_table_bytes << " B";
  }
  EXPECT_GT(planned, 250);
}

// The offset table's layout: every row of every table size has its own V ints inside the table,
// 16-byte aligned where it is read with LDS.128, and the rows that 8 consecutive chunks start on
// (V apart, no wrap) begin on 8 different 16-byte bank groups.
TEST(Flat, TableRowsAreDisjointAndSpreadOverBankGroups) {
  for (int v : {2, 4, 8, 16})
    for (int rows = 1; rows <= kFlatTableMaxRows; ++rows) {
      const int ints = flat_table_ints(v, rows);
      std::vector<int> owner(ints, -1);
      for (int i1 = 0; i1 < rows; ++i1) {
        const int at = flat_table_row_at(v, rows, i1);
        ASSERT_TRUE(at >= 0 && at + v <= ints) << "v " << v << " rows " << rows << " i1 " << i1;
        if (v >= 4) ASSERT_EQ(at % 4, 0) << "v " << v << " rows " << rows << " i1 " << i1;
        for (int j = 0; j < v; ++j) {
          ASSERT_EQ(owner[at + j], -1) << "v " << v << " rows " << rows << " i1 " << i1;
          owner[at + j] = i1;
        }
      }
      for (int i0 = 0; i0 + 7 * v < rows; ++i0) {
        int seen = 0;
        for (int lane = 0; lane < 8; ++lane)
          seen |= 1 << (flat_table_row_at(v, rows, i0 + lane * v) / 4 % 8);
        EXPECT_EQ(seen, 0xff) << "v " << v << " rows " << rows << " from row " << i0;
      }
    }
}

// flat_bank_degree, stepped, against the direct gather (flat_offset) counted by brute force; and
// kBatch's table rule on the shapes that chose it (flat.hpp, 2026-11-24).
TEST(Flat, BankDegreeAndTheBatchTableRule) {
  const std::int64_t shapes[][2] = {{97, 75}, {100, 60}, {128, 128}, {64, 64}, {32, 32},  {33, 65},
                                    {8, 8},   {1, 7},    {250, 130}, {3, 5},   {127, 129}};
  for (const auto& sh : shapes)
    for (int e : {1, 2, 4, 8}) {
      Call c{sh[0], sh[1], e, 100};
      const FlatPlan p = plan_of(c);
      if (p.form != FlatForm::kBatch) continue;
      std::vector<std::vector<int>> bank(32);
      for (int k = 0; k < 32; ++k) {
        const int word = flat_offset(p.gather, 0, k * (16 / e)) / 4;
        auto& b = bank[word % 32];
        if (std::find(b.begin(), b.end(), word) == b.end()) b.push_back(word);
      }
      std::size_t worst = 0;
      for (const auto& b : bank) worst = std::max(worst, b.size());
      EXPECT_EQ(flat_bank_degree(p.gather, e), static_cast<int>(worst)) << name(c);
    }
  auto table_rows = [](std::int64_t r, std::int64_t c, int e) {
    Call call{r, c, e, 100};
    return plan_of(call).table_rows;
  };
  Call c97{97, 75, 1, 100}, c100{100, 60, 1, 100};
  EXPECT_EQ(flat_bank_degree(plan_of(c97).gather, 1), 2);
  EXPECT_EQ(flat_bank_degree(plan_of(c100).gather, 1), 4);
  EXPECT_EQ(table_rows(97, 75, 1), 97);     // degree 2
  EXPECT_EQ(table_rows(97, 75, 2), 97);     // degree 2
  EXPECT_EQ(table_rows(97, 75, 4), 0);      // degree 4, more than 48 rows
  EXPECT_EQ(table_rows(100, 60, 1), 0);     // degree 4
  EXPECT_EQ(table_rows(128, 128, 1), 0);    // degree 8
  EXPECT_EQ(table_rows(64, 64, 1), 64);     // up to 64 rows at 1 B, any degree
  EXPECT_EQ(table_rows(64, 64, 2), 0);      // degree 8 at 2 B
  EXPECT_EQ(table_rows(33, 65, 4), 33);     // up to 48 rows at 2-4 B
  EXPECT_EQ(table_rows(32, 32, 8), 0);      // never at 8 B
  EXPECT_EQ(table_rows(127, 129, 1), 127);  // degree 2, up to 128 rows
  EXPECT_EQ(table_rows(250, 130, 1), 0);    // more than 128 rows
}

// The launchers' per-thread memo returns flat_plan's plan of the call it is given, not the last
// one: calls alternate between shapes, layouts, unit sizes and table limits that change the
// plan (the memo keys on every argument).
TEST(Flat, MemoizedPlanIsThePlanOfEachCall) {
  struct Args {
    std::int64_t rows, cols;
    int e;
    std::int64_t batch, src_ld, dst_ld, src_bs, dst_bs;
    int tile_bytes;
    FlatTableLimits limits;
  };
  const std::vector<Args> calls = {
      {64, 64, 4, 1, 64, 64, 4096, 4096, kFlatTileBytes, {}},
      {97, 75, 1, 3000, 75, 97, 97 * 75, 97 * 75, kFlatTileBytes, {}},
      {97, 75, 1, 3000, 75, 97, 97 * 75, 97 * 75, kFlatTileBytes, {0, 4}},  // no table
      {97, 75, 1, 3000, 75, 97, 97 * 75, 97 * 75, 2 * kFlatTileBytes, {}},
      {4000000, 16, 2, 1, 16, 4000000, 64000000, 64000000, kFlatTileBytes, {}},
      {16, 4000000, 2, 1, 4000016, 16, 64000256, 64000000, kFlatTileBytes, {}},  // strided
      {64, 64, 4, 1, 64, 64, 4096, 4096, kFlatTileBytes, {}},
      {64, 64, 4, 2, 64, 64, 4096, 4096, kFlatTileBytes, {}},
      {64, 64, 4, 2, 64, 64, 4096, 8192, kFlatTileBytes, {}},  // dst batch stride only
  };
  for (int round = 0; round < 2; ++round)
    for (const Args& a : calls) {
      const FlatPlan want = flat_plan(a.rows, a.cols, a.e, a.batch, a.src_ld, a.dst_ld, a.src_bs,
                                      a.dst_bs, a.tile_bytes, a.limits);
      const FlatPlan got = flat_plan_memo(a.rows, a.cols, a.e, a.batch, a.src_ld, a.dst_ld,
                                          a.src_bs, a.dst_bs, a.tile_bytes, a.limits);
      const std::string at = std::to_string(a.batch) + "x" + std::to_string(a.rows) + "x" +
                             std::to_string(a.cols) + " e" + std::to_string(a.e);
      EXPECT_EQ(got.form, want.form) << at;
      EXPECT_EQ(got.block, want.block) << at;
      EXPECT_EQ(got.units, want.units) << at;
      EXPECT_EQ(got.src_ld, want.src_ld) << at;
      EXPECT_EQ(got.dst_bs, want.dst_bs) << at;
      EXPECT_EQ(got.table_rows, want.table_rows) << at;
      EXPECT_EQ(got.smem_bytes, want.smem_bytes) << at;
      EXPECT_EQ(got.gather.s1, want.gather.s1) << at;
    }
}

// The emulation itself catches a wrong plan: a gather one column off, a shared stride that
// lets rows overlap, a walk that never moves to the next matrix.
TEST(Flat, EmulationCatchesBrokenPlans) {
  EXPECT_NE(emulate({7, 5000, 1}, [](FlatPlan& p) { p.gather.s2 *= 2; }), "");
  EXPECT_NE(emulate({7, 5000, 4}, [](FlatPlan& p) { p.src_stride -= 32; }), "");
  EXPECT_NE(emulate({32, 32, 2, 100}, [](FlatPlan& p) { p.gather.s3 = 0; }), "");
  EXPECT_NE(emulate({5000, 7, 2}, [](FlatPlan& p) { p.gather.sd = 0; }), "");
  EXPECT_NE(emulate({7, 5000, 1},
                    [](FlatPlan& p) {
                      p.table_rows = 0;
                      p.gather.s1 += 1;
                    }),
            "");
}

}  // namespace
}  // namespace tmakit

namespace tmakit {
namespace {

// kBatch's largest matrix by element size (2026-11-27): 64 KB at 2 B, 32 KB otherwise; the
// experiment knob's limits override both.
TEST(Flat, BatchFormTakesLargerMatricesAt2B) {
  auto form = [](std::int64_t rows, std::int64_t cols, int e, FlatTableLimits limits = {}) {
    return flat_plan(rows, cols, e, 10, cols, rows, rows * cols, rows * cols, kFlatTileBytes,
                     limits)
        .form;
  };
  EXPECT_EQ(form(81, 240, 2), FlatForm::kBatch);   // 38880 B
  EXPECT_EQ(form(256, 128, 2), FlatForm::kBatch);  // 65536 B
  EXPECT_EQ(form(257, 128, 2), FlatForm::kNone);   // one row more
  EXPECT_EQ(form(81, 240, 1), FlatForm::kBatch);   // 19440 B
  EXPECT_EQ(form(181, 181, 1), FlatForm::kBatch);  // 32761 B fits ...
  EXPECT_EQ(form(182, 181, 1), FlatForm::kNone);   // ... 32942 B does not
  EXPECT_EQ(form(81, 240, 4), FlatForm::kNone);    // 77760 B
  EXPECT_EQ(form(64, 128, 4), FlatForm::kBatch);   // 32768 B
  FlatTableLimits big;
  big.batch_max_matrix_bytes = 98304;
  EXPECT_EQ(form(81, 240, 4, big), FlatForm::kBatch);
  EXPECT_GE(flat_plan(81, 240, 2, 10, 240, 81, 81 * 240, 81 * 240).smem_bytes, 38880);
}

}  // namespace
}  // namespace tmakit
