// smem_flat's kernel (kernels/classic/smem_flat.cu says what the technique adds), templated on
// its epilogue (kernels/primitives/epilogue.cuh): smem_flat instantiates it with StoreCopy,
// flat_accumulate with StoreAxpby.
#pragma once
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <kernels/common/flat.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/epilogue.cuh>
#include <kernels/primitives/flat_gather.cuh>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/prefetch_l2.cuh>

namespace tmakit::flat {

constexpr int kThreads = 256;
constexpr int kLoadUnroll = 4;  // chunks loaded per thread before they are stored to shared

// F: the form (flat.hpp); it fixes which levels of the gather walk can wrap (flat_gather.cuh).
// kPartials: the call is not 16-byte aligned throughout (flat_call_is_aligned), so runs have
// partial chunks inside the operand: read them whole (phase 1) and gather kTall's partial dst
// chunks before writing them (phase 2). An aligned call runs the kernel without that code: with
// it, aligned skinny calls ran 2.5-5% slower (H200: 4 x 4000000 1 B, 32 x 4000000
// 1 B), whose chunks are all whole.
// Blocks per SM: 5 at 2-16 B (48 registers), 4 at 1 B and for an accumulate that reads dst
// (64: its dst chunk and scalars spilled 8-20 bytes under 48). The gather
// (flat_gather.cuh: a walk placed once per unit and jumped from chunk to chunk) raised the
// 2-16 B one-run kernels from 48 to 51-56 registers under a bound of 4, one block per SM
// fewer: H100, % of memcpy, base -> that build, smem_flat 20000 x 16 x 48 8 B 98.9 -> 93.8,
// 10000 x 24 x 40 8 B 96.4 -> 92.1, 2048 x 64 x 64 4 B 84.7 -> 78.9 (docs/perf-guide.md);
// a bound of 5 keeps 48 (4 bytes of spill at 2 B).
template <class T, FlatForm F, bool kPartials, class Epi>
__global__ void __launch_bounds__(kThreads, sizeof(T) == 1 || Epi::kReadsDst ? 4 : 5)
    smem_flat_kernel(const T* __restrict__ src, T* __restrict__ dst, FlatPlan p,
                     FlatOperandChunks ok, Epi epi) {
  constexpr int E = sizeof(T);
  extern __shared__ uint4 flat_smem_raw[];
  unsigned char* smem = reinterpret_cast<unsigned char*>(flat_smem_raw);
  int* table = reinterpret_cast<int*>(smem + p.table_at);
  // (the first unit's __syncthreads after phase 1 orders these writes before phase 2)
  flat::build_table<T, F, kThreads>(table, p);
  for (std::int64_t u = blockIdx.x; u < p.units; u += gridDim.x) {
    const FlatUnit f = flat_unit(p, u);
    // An accumulate at 4 B in the kTall and kBatch forms asks the L2 for the unit's dst runs
    // before phase 1, so phase 2's dst reads find them there (prefetch_l2.cuh). Measured
    // (docs/perf-guide.md "Transpose-accumulate", % of the three-stream roofline, without ->
    // with): H100 4000000x16 87.5 -> 94.5, 16384x32x32 97.5 -> 101.6; H200 69.2 -> 72.0, 89.7 ->
    // 96.1. Not at 2 and 8 B, whose kTall reads 4 dst chunks at a time already (4000000x16 2 B
    // 96.7 -> 88.5 on the H100), nor kWide (16x4000000 4 B on the H200 96.7 -> 87.9).
    if constexpr (Epi::kReadsDst && E == 4 && F != FlatForm::kWide) {
      const int run_bytes = f.dst.len * E;
      prefetch_l2_ranges(run_addr<T>(dst, f.dst, 0), f.dst.pitch * E, f.dst.runs, run_bytes,
                         l2_sectors_max(run_bytes), threadIdx.x, kThreads);
    }
    const std::uintptr_t a0 = flat::run_addr<T>(src, f.src, 0);
    const int b0 = static_cast<int>(a0 & 15);
    // Phase 1: source runs -> shared. Item = (run, chunk k), chunk-major within a run, so a
    // warp reads consecutive chunks. Shared byte of global byte x of run:
    //   i * src_stride + b0 + (x - a(i)).
    {
      const int len_bytes = f.src.len * E, nv = flat_chunks_per_run(len_bytes);
      const int items = f.src.runs * nv;
      // kBatch and kTall read one run (f.src.runs == 1): item = chunk k, whole for k in
      // [head, kw) (flat_run_chunks, once a unit), without the division and 64-bit bounds that
      // place an item of several runs: the whole-chunk path's sm_90 SASS 55 -> 17 instructions.
      // With the prefetch's digit walk (prefetch_l2.cuh), flat_accumulate 4000000 x 16 4 B ran
      // 91.2 M warp instructions against 114.3 M (ncu). Measured (docs/perf-guide.md
      // "Transpose-accumulate", % of the three-stream roofline, before -> after, one A/B run
      // each): H200 4000000x16 2 / 4 B 88.2 -> 91.3, 87.6 -> 90.1, 16384x32x32 2 / 4 / 8 B
      // +2.4..+3.1; H100 4000000x16 4 B 95.4 -> 96.6; smem_flat (% of memcpy) H200 batched
      // 16384x32x32 2 B 81.6 -> 86.2, 3000x97x75 2 B 84.7 -> 89.0, skinny cells -2.1 to +5.9
      // points (4000000x2 2 B 96.9 -> 102.8).
      constexpr bool kOneRun = flat_src_is_one_run(F);
      const FlatRunChunks rc = flat_run_chunks(a0, len_bytes);
      for (int base = threadIdx.x; base < items; base += kLoadUnroll * kThreads) {
        uint4 v[kLoadUnroll];
        // The chunk's shared byte (a whole chunk), -2 - flat_chunk_slot (a partial chunk read
        // whole: its shared byte and its run's bytes), or -1 (none): a whole chunk's path is the
        // one compare it was before partial chunks were read whole (packing every
        // chunk's slot cost aligned skinny calls 2-4%).
        int at[kLoadUnroll];
#pragma unroll
        for (int q = 0; q < kLoadUnroll; ++q) {
          at[q] = -1;
          const int item = base + q * kThreads;
          if (item >= items) continue;
          if constexpr (kOneRun) {  // chunk k = item of the unit's one run: shared byte 16k
            if (item >= rc.head && item < rc.kw) {
              v[q] = __ldg(reinterpret_cast<const uint4*>((a0 & ~std::uintptr_t(15)) +
                                                          16u * static_cast<unsigned>(item)));
              at[q] = 16 * item;
              continue;
            }
          }
          const int i = kOneRun ? 0 : item / nv, k = item - i * nv;
          const std::uintptr_t a = flat::run_addr<T>(src, f.src, i);
          const FlatChunk s = flat_chunk(a, len_bytes, k);
          // The shared byte of c (c - a(i) >= -15: the head chunk starts below the run).
          const int sh = i * p.src_stride + b0 + static_cast<int>(std::intptr_t(s.c - a));
          // One load for both kinds of chunk read whole (two in separate branches cost the
          // partial ones their gain).
          const bool whole = s.whole();
          if (whole || (kPartials && s.lo < s.hi && ok.holds(s.c))) {
            v[q] = __ldg(reinterpret_cast<const uint4*>(s.c));
            at[q] = whole ? sh
                          : -2 - flat_chunk_slot(sh, static_cast<int>(s.lo - s.c),
                                                 static_cast<int>(s.hi - s.c));
          } else {  // the operand's first or last chunk, element by element (none: lo >= hi)
            for (std::uintptr_t x = s.lo; x < s.hi; x += E)
              *reinterpret_cast<T*>(smem + sh + static_cast<int>(x - s.c)) =
                  *reinterpret_cast<const T*>(x);
          }
        }
#pragma unroll
        for (int q = 0; q < kLoadUnroll; ++q) {
          if (at[q] >= 0) {
            *reinterpret_cast<uint4*>(smem + at[q]) = v[q];
          } else if (kPartials && at[q] < -1) {  // a partial chunk: the run's elements [lo, hi)
            const FlatChunkSlotParts c = flat_chunk_slot_parts(-2 - at[q]);
            union {
              uint4 v;
              T e[16 / E];
            } u;
            u.v = v[q];
#pragma unroll
            for (int j = 0; j < 16 / E; ++j)
              if (j * E >= c.lo && j * E < c.hi) reinterpret_cast<T*>(smem + c.sh)[j] = u.e[j];
          }
        }
      }
    }
    __syncthreads();
    // Phase 2: shared -> destination runs (flat_gather.cuh).
    flat::store_unit<T, F, kThreads, kPartials>(smem + b0, table, p, f, dst, epi);
    __syncthreads();  // shared memory is the next unit's
  }
}

template <class T, class Epi = StoreCopy>
cudaError_t launch_flat(const kernels::LaunchArgs& a, const FlatPlan& p, const Epi& epi = {}) {
  const dim3 grid(static_cast<unsigned>(p.units < 0x7fffffff ? p.units : 0x7fffffff));
  const auto smem = static_cast<std::uint32_t>(p.smem_bytes);
  const T* src = static_cast<const T*>(a.src);
  T* dst = static_cast<T*>(a.dst);
  const FlatOperandChunks ok = flat_operand_chunks(a.src, p);
  auto go = [&](auto partials) {
    constexpr bool kP = decltype(partials)::value;
    switch (p.form) {
      case FlatForm::kBatch:
        return launch_with_smem(smem_flat_kernel<T, FlatForm::kBatch, kP, Epi>, grid,
                                dim3(kThreads), smem, a.stream, src, dst, p, ok, epi);
      case FlatForm::kWide:
        return launch_with_smem(smem_flat_kernel<T, FlatForm::kWide, kP, Epi>, grid, dim3(kThreads),
                                smem, a.stream, src, dst, p, ok, epi);
      default:
        return launch_with_smem(smem_flat_kernel<T, FlatForm::kTall, kP, Epi>, grid, dim3(kThreads),
                                smem, a.stream, src, dst, p, ok, epi);
    }
  };
  if (flat_call_is_aligned(a.src, a.dst, p)) return go(std::false_type{});
  return go(std::true_type{});
}

// The plan smem_flat (and flat_accumulate) runs a call with: the unit size per GPU, then
// flat_plan's form and cuts.
inline FlatPlan flat_launch_plan(const kernels::LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  // The unit's bytes, per GPU (DevicePolicy): a single matrix with a short side >= 16 may take
  // larger units, which keep more bytes moving on HBM3e (docs/perf-guide.md, smem_flat's unit
  // size). Not a 4-byte accumulate with <= 32 columns (kTall), which reads its dst chunks one at
  // a time (flat_gather.cuh) and loses with them.
  const bool tall_accumulate_4b = a.num_type != NumType::kNone && a.elem_bytes == 4 && a.cols <= 32;
  const bool skinny = st.batch == 1 && std::min(a.rows, a.cols) >= 16 && !tall_accumulate_4b;
  const int tile_bytes = skinny ? a.policy.flat_skinny_unit_bytes : a.policy.flat_unit_bytes;
  return flat_plan_memo(a.rows, a.cols, a.elem_bytes, st.batch, st.src_ld_elems, st.dst_ld_elems,
                        st.src_batch_elems, st.dst_batch_elems, tile_bytes, a.policy.flat_limits);
}

}  // namespace tmakit::flat
