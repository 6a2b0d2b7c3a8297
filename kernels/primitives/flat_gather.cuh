// Device pieces the flat family (smem_flat, bulk_flat) shares: the per-block offset table, and
// phase 2, which builds each 16-byte destination chunk of a unit element by element from the
// unit's source bytes in shared memory and writes it with one STG.128 (partial chunks at a
// run's ends element by element). How the source bytes got to shared memory (LDG + STS in
// smem_flat, one 1-D bulk copy in bulk_flat) is the caller's; where they sit is FlatSmem's rule
// (kernels/common/flat.hpp): every byte at its global address modulo 16, run 0 from `b0`.
#pragma once
#include <cstdint>
#include <kernels/common/flat.hpp>
#include <kernels/primitives/epilogue.cuh>

namespace tmakit::flat {

// A 16-byte chunk built element by element from shared memory, in order: element j of V.
// 1- and 2-byte elements are inserted into their word with one PRMT each (__byte_perm: byte i
// of the result is byte sel_i of {y:x}, y's bytes numbered 4-7).
template <class T>
struct ChunkBuilder {
  static constexpr int V = 16 / sizeof(T);
  union {
    uint4 v;
    T e[V];
    unsigned w[4];
  };
  __device__ __forceinline__ void put(int j, const unsigned char* p) {
    if constexpr (sizeof(T) == 1) {
      const unsigned b = *p;  // LDS.U8, zero-extended
      constexpr unsigned kSel[4] = {0, 0x3240, 0x3410, 0x4210};
      w[j / 4] = j % 4 == 0 ? b : __byte_perm(w[j / 4], b, kSel[j % 4]);
    } else if constexpr (sizeof(T) == 2) {
      const unsigned h = *reinterpret_cast<const std::uint16_t*>(p);
      w[j / 2] = j % 2 == 0 ? h : __byte_perm(w[j / 2], h, 0x5410);
    } else {
      e[j] = *reinterpret_cast<const T*>(p);
    }
  }
};

// Run i of a side starts at global byte address a(i) = base + (first + i * pitch) * E.
template <class T>
__device__ __forceinline__ std::uintptr_t run_addr(const void* base, const FlatSide& s, int i) {
  return reinterpret_cast<std::uintptr_t>(base) + (s.first + std::int64_t(i) * s.pitch) * sizeof(T);
}

// Whether form F gathers through the offset table (where the plan built one).
template <class T, FlatForm F>
inline constexpr bool kUsesTable = F != FlatForm::kTall && sizeof(T) < 16;

// The offset table (flat.hpp), once per block, at `table`: row i1 holds T[i1][0 .. V). The
// caller orders these writes before the first gather with a __syncthreads.
template <class T, FlatForm F, int kThreads>
__device__ __forceinline__ void build_table(int* table, const FlatPlan& p) {
  constexpr int V = 16 / sizeof(T);
  if constexpr (kUsesTable<T, F>) {
    for (int i = threadIdx.x; i < p.table_rows * V; i += kThreads)  // row i / V, entry i % V
      table[flat_table_row_at(V, p.table_rows, i / V) + i % V] =
          flat_table_value(p.gather, i / V, i % V);
  }
}

// One whole 16-byte dst chunk at c (global), its V elements from the walk position w: through
// the offset table where the plan has one and the chunk stays in its matrix, else by stepping a
// copy of the walk element by element. An accumulate's dst chunk is read first, so the load is in
// flight while the chunk is gathered (epilogue.cuh).
template <class T, FlatForm F>
__device__ __forceinline__ uint4 build_chunk(const unsigned char* run0, const int* table,
                                             const FlatPlan& p, const FlatWalk& w) {
  constexpr bool kWrap1 = F != FlatForm::kTall, kWrap2 = F == FlatForm::kBatch;
  constexpr int V = 16 / sizeof(T);
  const FlatGather& g = p.gather;
  const unsigned char* at = run0;
  ChunkBuilder<T> out;
  if (kUsesTable<T, F> && p.table_rows > 0 && (!kWrap2 || flat_chunk_in_matrix(g, w, V))) {
    at += w.off;
    const int* row = table + flat_table_row_at(V, p.table_rows, w.i1);
    if constexpr (V >= 4) {
#pragma unroll
      for (int j = 0; j < V; j += 4) {
        const int4 q = *reinterpret_cast<const int4*>(row + j);
        out.put(j, at + q.x);
        out.put(j + 1, at + q.y);
        out.put(j + 2, at + q.z);
        out.put(j + 3, at + q.w);
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) out.put(j, at + row[j]);
    }
  } else {
    FlatWalk s = w;
#pragma unroll
    for (int j = 0; j < V; ++j) {
      out.put(j, at + s.off);
      flat_step<kWrap1, kWrap2>(g, s);
    }
  }
  return out.v;
}
template <class T, FlatForm F, class Epi>
__device__ __forceinline__ void gather_chunk(const unsigned char* run0, const int* table,
                                             const FlatPlan& p, const FlatWalk& w, std::uintptr_t c,
                                             const Epi& epi) {
  uint4* at = reinterpret_cast<uint4*>(c);
  const uint4 old = epi.load_chunk(at);
  epi.template store_chunk<T>(at, build_chunk<T, F>(run0, table, p, w), old);
}

// Phase 2 of one unit: shared -> destination runs.
// `run0` is the shared byte of the unit's first source element (smem + b0).
// One-run forms (kBatch, kWide: the unit's dst is one run from byte a): thread t takes chunks
// k = t, t + kThreads, ... of the run (c = (a & ~15) + 16k), as consecutive lanes on consecutive
// chunks; the whole ones, k in [head, kw) (head = 1 where a is not 16-byte aligned, kw = the
// chunks that end by the run's end), gather from a walk that flat_walk places once, at the
// thread's first chunk, and flat_advance moves kThreads * V elements on per chunk. Before
// (before) every chunk placed its walk with flat_walk (two divisions) and
// recomputed its run, chunk and bounds: 129 instructions per 16-byte chunk at 4 B (the sm_90
// SASS of bulk_flat's kBatch gather, one chunk's path through the table), of which 12 moved data;
// now 48. Measured (docs/perf-guide.md, % of memcpy, before -> after): H200 A/B
// bulk_flat 3000x97x75 2 / 4 B 82.1 -> 86.4, 83.8 -> 91.0, smem_flat 12 x 1000003 2 B 91.0 ->
// 97.7; H100 final runs, `auto` 3000x97x75 4 B 94.8 -> 99.5.
// The run's partial first and last chunks (at most one each) go element by element.
// kTall (C dst runs): item -> (run, chunk k) as flat_dst_item and flat_dst_chunk define it,
// the thread's items walked by their digits (flat_item_digits: placed once, moved kThreads items
// on with one carry, no division per item) and whole chunks told by flat_run_chunks per run (no
// 64-bit bounds). Before each item took flat_dst_item's two divisions
// and flat_chunk's bounds: 103 -> 63 instructions per 16-byte chunk at 4 B (smem_flat's sm_90
// SASS). Measured (docs/perf-guide.md, % of memcpy, two rounds each, before -> after):
// H200 smem_flat 4000000x4 4 B 86.0 / 87.0 -> 92.0 / 92.4, 4000000x7 1 B 84.4 / 84.9 -> 95.6 /
// 94.9; H100 4000000x7 1 B 98.2 / 99.4 -> 105.4 / 104.3; but 4000000x16 4 B on the H200 only
// 90.6 -> 91.1 (its issue-bound time is not in this path).
// kGatherPartials: kTall's partial dst chunks as below (bulk_flat always; smem_flat where the
// call is not 16-byte aligned throughout, flat_call_is_aligned), else element by element.
// Epi: what each dst element becomes (epilogue.cuh): the transpose's store, or an accumulate's.
template <class T, FlatForm F, int kThreads, bool kGatherPartials = true, class Epi = StoreCopy>
__device__ __forceinline__ void store_unit(const unsigned char* run0, const int* table,
                                           const FlatPlan& p, const FlatUnit& f, T* dst,
                                           const Epi& epi = {}) {
  constexpr int E = sizeof(T), V = 16 / E;
  const FlatGather& g = p.gather;
  const int len_bytes = f.dst.len * E;
  // A partial chunk (bytes [lo, hi) of chunk s.c belong to run): element by element.
  auto partial = [&](const FlatChunk& s, std::uintptr_t a, int d) {
    for (std::uintptr_t x = s.lo; x < s.hi; x += E)
      epi.elem(reinterpret_cast<T*>(x),
               *reinterpret_cast<const T*>(run0 + flat_offset(g, d, static_cast<int>(x - a) / E)));
  };
  if constexpr (F != FlatForm::kTall) {
    constexpr bool kWrap2 = F == FlatForm::kBatch;
    const std::uintptr_t a = run_addr<T>(dst, f.dst, 0);
    const FlatRunChunks rc = flat_run_chunks(a, len_bytes);
    const int kw = rc.kw;
    int k = static_cast<int>(threadIdx.x);
    if (k < rc.head) {
      partial(flat_chunk(a, len_bytes, 0), a, 0);
      k += kThreads;
    }
    if (k < kw) {
      // Element o of the run at chunk k: o = (16k - (a & 15)) / E.
      FlatWalk w = flat_walk(g, 0, (16 * k - static_cast<int>(a & 15)) / E);
      const FlatJump jump = flat_jump(g, kThreads * V);
      std::uintptr_t c = (a & ~std::uintptr_t(15)) + 16u * static_cast<unsigned>(k);
      for (; k < kw; k += kThreads, c += 16u * kThreads) {
        gather_chunk<T, F>(run0, table, p, w, c, epi);
        flat_advance<kWrap2>(g, jump, w);
      }
    }
    // The last chunk, where the run ends inside it (and it is not chunk 0, done above).
    if (threadIdx.x == kThreads - 1 && rc.tail) partial(flat_chunk(a, len_bytes, kw), a, 0);
  } else {
    const int nv = flat_chunks_per_run(len_bytes);
    const int runs = f.dst.runs;
    const int items = flat_dst_items(runs, nv);
    // The thread's items by their digits (flat_item_digits), moved kThreads on per item.
    FlatItemDigits x = flat_item_digits(static_cast<int>(threadIdx.x), runs);
    const FlatItemDigits step = flat_item_digits(kThreads, runs);
    // An accumulate at 2 and 8 B reads the dst chunks of U items first, all in flight,
    // then gathers and writes them. One read at a time, each waited for before its chunk was
    // written, kept 4000000 x 16 at 87-88% of the three-stream roofline on the H100; 4 at a time
    // ran it at 96.6% (2 B) and 98.7% (8 B), but at 4 B at 54.9%, and 1, 2, 4 or 8 at a time
    // chosen at run time 50-53%. With the L2 prefetch (flat_kernel.cuh), 4 at a time at 4 B
    // still ran at 43.9% against 87.8 (H200, docs/data/flat-accumulate-refuted-ab-2026-11-28.txt);
    // ncu names the stall but not its cause: short-scoreboard (shared-memory results) 4.3 stalls
    // per issue against 0.5, MIO throttle 2.1 against 0.03, the same DRAM bytes and bank
    // conflicts, 63 registers against 54. 4 B reads one at a time (the loop below).
    constexpr int U = sizeof(T) == 4 ? 1 : 4;
    if constexpr (Epi::kReadsDst && U > 1) {
      for (int item0 = threadIdx.x; item0 < items; item0 += U * kThreads) {
        uint4 old[U];
        FlatItemDigits y = x;
#pragma unroll
        for (int u = 0; u < U; ++u, flat_item_advance(y, step, runs)) {
          old[u] = uint4{};
          if (item0 + u * kThreads >= items) continue;
          const FlatItem it = flat_item_at(y);
          const std::uintptr_t a = run_addr<T>(dst, f.dst, it.d);
          const int k = flat_dst_chunk(it.k, runs, a);
          if (k < 0 || k >= nv) continue;
          const FlatRunChunks rc = flat_run_chunks(a, len_bytes);
          if (k >= rc.head && k < rc.kw)
            old[u] = epi.load_chunk(reinterpret_cast<const uint4*>((a & ~std::uintptr_t(15)) +
                                                                   16u * static_cast<unsigned>(k)));
        }
#pragma unroll
        for (int u = 0; u < U; ++u, flat_item_advance(x, step, runs)) {
          if (item0 + u * kThreads >= items) continue;
          const FlatItem it = flat_item_at(x);
          const int d = it.d;
          const std::uintptr_t a = run_addr<T>(dst, f.dst, d);
          const int k = flat_dst_chunk(it.k, runs, a);
          if (k < 0 || k >= nv) continue;
          const FlatRunChunks rc = flat_run_chunks(a, len_bytes);
          if (k >= rc.head && k < rc.kw) {
            const int o = (16 * k - static_cast<int>(a & 15)) / E;
            epi.template store_chunk<T>(
                reinterpret_cast<uint4*>((a & ~std::uintptr_t(15)) +
                                         16u * static_cast<unsigned>(k)),
                build_chunk<T, F>(run0, table, p, {o, 0, d * g.sd + o * g.s1}), old[u]);
          } else {
            partial(flat_chunk(a, len_bytes, k), a, d);
          }
        }
      }
      return;
    }
    for (int item = threadIdx.x; item < items; item += kThreads, flat_item_advance(x, step, runs)) {
      const FlatItem it = flat_item_at(x);
      const int d = it.d;
      const std::uintptr_t a = run_addr<T>(dst, f.dst, d);
      const int k = flat_dst_chunk(it.k, runs, a);
      if (k < 0 || k >= nv) continue;
      const FlatRunChunks rc = flat_run_chunks(a, len_bytes);
      if (k >= rc.head && k < rc.kw) {
        // dst elements o .. o + V - 1 of run: o = (16k - (a & 15)) / E; kTall's walk is
        // linear (d * sd + o * s1).
        const int o = (16 * k - static_cast<int>(a & 15)) / E;
        gather_chunk<T, F>(run0, table, p, {o, 0, d * g.sd + o * g.s1},
                           (a & ~std::uintptr_t(15)) + 16u * static_cast<unsigned>(k), epi);
        continue;
      }
      const FlatChunk s = flat_chunk(a, len_bytes, k);
      if (kGatherPartials && s.lo < s.hi) {
        // A partial chunk of kTall's C dst runs (N x k with N * E not a multiple of 16 has two
        // in every run): its elements j0 .. j1 - 1 of the V. kTall's gather is linear (dst
        // element o of run d reads d * sd + o * s1), so element j reads at off0 + (j - j0) *
        // s1, clamped to [j0, j1) so that every read stays in the unit; all V read first, then
        // the run's written. Element by element with a division each (flat_offset), each shared
        // load waiting on the global store before it, the threads that hold these chunks held
        // up their block (H200: 1000003 x 24 4 B 58% of memcpy against 93 at
        // 1000000 x 24).
        const int j0 = static_cast<int>(s.lo - s.c) / E, j1 = static_cast<int>(s.hi - s.c) / E;
        const int off0 = d * g.sd + (static_cast<int>(s.lo - a) / E) * g.s1;
        ChunkBuilder<T> out;
#pragma unroll
        for (int j = 0; j < V; ++j) out.put(j, run0 + off0 + (min(max(j, j0), j1 - 1) - j0) * g.s1);
#pragma unroll
        for (int j = 0; j < V; ++j)
          if (j >= j0 && j < j1) epi.elem(reinterpret_cast<T*>(s.c) + j, out.e[j]);
      } else {
        partial(s, a, d);
      }
    }
  }
}

}  // namespace tmakit::flat
