// bulk_flat: smem_flat whose load phase is the TMA unit's. smem_flat moves a unit's source run
// (g whole dense matrices of a batch, or h rows of a matrix with at most 32 dense columns) into
// shared memory with one LDG.128 + STS.128 per 16-byte chunk, waits for all of it at a
// __syncthreads, and only then gathers: every CTA alternates between waiting on DRAM and
// issuing its gather, and the load phase's address math and stores are instructions the
// gather could have used (ncu: 70-76% issue active at 28-38% of DRAM peak on
// batches of 97 x 75 matrices). A source run is one contiguous byte range, so one thread can
// hand the whole of it to the TMA unit as a single 1-D cp.async.bulk; here a persistent CTA
// keeps the next S - 1 units' copies in flight in a ring of S stages (one mbarrier each) while
// its 256 threads gather the current unit exactly as smem_flat does (flat_gather.cuh).
//
// Coordinates. Unit u's source run is the bytes [a, a + L) (flat_unit: a = src + first * E,
// L = len * E). Its stage holds global byte x at stage + (x - (a & ~15)), i.e. at x's address
// modulo 16 (smem_flat's FlatSmem rule, run 0 from b0 = a & 15), so the bulk copy of the
// run's whole 16-byte chunks [c0, c1) lands 16-byte aligned. The chunks are the run's own,
// widened to the 16-byte boundaries around it ([a & ~15, ceil16(a + L))): the bytes that
// widening adds belong to the neighbouring units, are never gathered, and lie inside the
// operand. Only where a widened chunk would leave the operand's span (its first or last chunk
// when src or its end is not 16-byte aligned) are [c0, c1) clipped to the operand's whole
// chunks [lo, hi), and the run's bytes outside them loaded element by element (plain loads,
// then fence.proxy.async before the stage is bulk-written again).
//
// Ring bookkeeping (tma_pipeline's): the CTA's it-th unit uses stage s = it % S and waits for
// phase it / S of that stage's barrier; tid 0 refills the stage with the unit S * gridDim.x
// further on once every thread has gathered from it (the __syncthreads after phase 2).
//
// Needs (the planner refuses otherwise, naming why, and the classic fallback runs): sm_90 and a
// flat form whose source is one run per unit (kBatch, kTall; flat.hpp). Any alignment, any
// element size, any short side.
#include <algorithm>
#include <cstdint>
#include <kernels/common/flat.hpp>
#include <kernels/launchers.hpp>
#include <kernels/primitives/dispatch.cuh>
#include <kernels/primitives/flat_gather.cuh>
#include <kernels/primitives/launch_smem.cuh>
#include <kernels/primitives/tma.cuh>

namespace tmakit {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxCtasPerSm = 6;  // registers capped at 40 by the launch bounds
constexpr std::uint32_t kAlign = 128;

// A launch's ring: shared memory from the 128-byte aligned base: S stages of stage_bytes, the
// offset table at table_at, S mbarriers at bars_at.
struct BulkFlatRing {
  std::uintptr_t lo = 0, hi = 0;  // the src operand's whole 16-byte chunks, [lo, hi)
  int stages = 2;
  int stage_bytes = 0;
  int table_at = 0;
  int bars_at = 0;
};

// A unit's source run [a, end) and its bulk-copied chunks [c0, c1) (c0 = c1 = end: none).
struct RunSpan {
  std::uintptr_t a, end, c0, c1;
};
template <class T>
__device__ __forceinline__ RunSpan run_span(const T* src, const FlatUnit& f,
                                            const BulkFlatRing& r) {
  RunSpan s;
  s.a = flat::run_addr<T>(src, f.src, 0);
  s.end = s.a + static_cast<std::uintptr_t>(f.src.len) * sizeof(T);
  s.c0 = std::max<std::uintptr_t>(s.a & ~std::uintptr_t(15), r.lo);
  s.c1 = std::min<std::uintptr_t>((s.end + 15) & ~std::uintptr_t(15), r.hi);
  if (s.c1 <= s.c0) s.c0 = s.c1 = s.end;  // no whole chunk of the operand: all by elements
  return s;
}

template <class T, FlatForm F>
__global__ void __launch_bounds__(kThreads, kMaxCtasPerSm)
    bulk_flat_kernel(const T* __restrict__ src, T* __restrict__ dst, FlatPlan p, BulkFlatRing r) {
#if TMAKIT_DEVICE_HAS_TMA
  constexpr int E = sizeof(T);
  extern __shared__ unsigned char bulk_flat_smem_raw[];
  unsigned char* base = tma::align_smem<unsigned char>(bulk_flat_smem_raw, kAlign);
  int* table = reinterpret_cast<int*>(base + r.table_at);
  std::uint64_t* bars = reinterpret_cast<std::uint64_t*>(base + r.bars_at);
  const int tid = threadIdx.x, S = r.stages;
  auto stage = [&](int s) { return base + s * r.stage_bytes; };
  // tid 0: unit u's whole chunks -> stage s, credited to its barrier (0 bytes: just arrives).
  auto issue = [&](std::int64_t u, int s) {
    const RunSpan sp = run_span(src, flat_unit(p, u), r);
    const auto bytes = static_cast<std::uint32_t>(sp.c1 - sp.c0);
    tma::mbar_arrive_expect_tx(&bars[s], bytes);
    if (bytes > 0)
      tma::bulk_load(stage(s) + (sp.c0 - (sp.a & ~std::uintptr_t(15))),
                     reinterpret_cast<const void*>(sp.c0), bytes, &bars[s]);
  };

  if (tid == 0) {
    for (int s = 0; s < S; ++s) tma::mbar_init(&bars[s], 1);
    tma::fence_proxy_async_smem();
  }
  flat::build_table<T, F, kThreads>(table, p);
  __syncthreads();
  if (tid == 0)
    for (int s = 0; s < S; ++s) {  // prologue: fill the ring
      const std::int64_t u = blockIdx.x + static_cast<std::int64_t>(s) * gridDim.x;
      if (u < p.units) issue(u, s);
    }

  std::uint32_t it = 0;
  for (std::int64_t u = blockIdx.x; u < p.units; u += gridDim.x, ++it) {
    const int s = static_cast<int>(it % static_cast<std::uint32_t>(S));
    const FlatUnit f = flat_unit(p, u);
    const RunSpan sp = run_span(src, f, r);
    unsigned char* at = stage(s);  // global byte x lies at at + (x - a0)
    const std::uintptr_t a0 = sp.a & ~std::uintptr_t(15);
    // The run's bytes outside [c0, c1): element by element (first and last units only).
    const bool edges = sp.a < sp.c0 || sp.c1 < sp.end;
    if (edges) {
      for (std::uintptr_t x = sp.a + tid * E; x < sp.c0; x += kThreads * E)
        *reinterpret_cast<T*>(at + (x - a0)) = *reinterpret_cast<const T*>(x);
      for (std::uintptr_t x = std::max(sp.c1, sp.a) + tid * E; x < sp.end; x += kThreads * E)
        *reinterpret_cast<T*>(at + (x - a0)) = *reinterpret_cast<const T*>(x);
    }
    tma::mbar_wait(&bars[s], {static_cast<std::uint32_t>(s), it / S,
                              static_cast<std::uint32_t>(sp.c1 - sp.c0)});
    __syncthreads();  // the edge elements (and, the first time, the table) are in place
    flat::store_unit<T, F, kThreads>(at + (sp.a - a0), table, p, f, dst);
    if (edges) tma::fence_proxy_async_smem();  // these generic writes before the next bulk one
    __syncthreads();                           // every thread is done with stage s
    if (tid == 0) {
      const std::int64_t next = u + static_cast<std::int64_t>(S) * gridDim.x;
      if (next < p.units) issue(next, s);
    }
  }
#else
  __trap();  // sm_90 only; the host never launches it on older devices
#endif
}

FlatPlan bulk_flat_plan(const kernels::LaunchArgs& a) {
  const BatchStrides& st = a.strides;
  return flat_plan_memo(a.rows, a.cols, a.elem_bytes, st.batch, st.src_ld_elems, st.dst_ld_elems,
                        st.src_batch_elems, st.dst_batch_elems, a.policy.bulk_flat_unit_bytes,
                        a.policy.flat_limits);
}

template <class T>
cudaError_t launch_bulk(const kernels::LaunchArgs& a, const FlatPlan& p) {
  constexpr int E = sizeof(T), V = 16 / E;
  BulkFlatRing r;
  const FlatOperandChunks ok = flat_operand_chunks(a.src, p);  // the operand's whole chunks
  r.lo = ok.lo;
  r.hi = ok.hi;
  // The longest source run: a unit of p.block matrices (kBatch) or rows (kTall); its chunks
  // span at most its bytes rounded up to 16, plus 16.
  const std::int64_t run_elems =
      p.form == FlatForm::kBatch ? p.block * a.rows * a.cols : std::int64_t(p.block) * a.cols;
  const std::int64_t chunk_bytes = (run_elems * E + 15) / 16 * 16 + 16;
  r.stages = std::max(1, std::min(4, a.policy.bulk_flat_stages));
  r.stage_bytes = static_cast<int>((chunk_bytes + kAlign - 1) / kAlign * kAlign);
  r.table_at = r.stages * r.stage_bytes;
  const int table_bytes = p.table_rows > 0 ? flat_table_ints(V, p.table_rows) * 4 : 0;
  r.bars_at = r.table_at + (table_bytes + 15) / 16 * 16;
  const auto smem = static_cast<std::uint32_t>(kAlign + r.bars_at + 8 * r.stages);
  // Persistent: as many CTAs as fit an SM's 227 KB (1 KB reserved each), at most
  // the policy's bulk_flat_ctas_per_sm.
  const int fit = static_cast<int>((227u * 1024u) / (smem + 1024u));
  const int per_sm = std::max(1, std::min(fit, a.policy.bulk_flat_ctas_per_sm));
  const auto grid = static_cast<unsigned>(
      std::min<std::int64_t>(p.units, static_cast<std::int64_t>(a.sm_count) * per_sm));
  const T* src = static_cast<const T*>(a.src);
  T* dst = static_cast<T*>(a.dst);
  if (p.form == FlatForm::kBatch)
    return launch_with_smem(bulk_flat_kernel<T, FlatForm::kBatch>, dim3(grid), dim3(kThreads), smem,
                            a.stream, src, dst, p, r);
  return launch_with_smem(bulk_flat_kernel<T, FlatForm::kTall>, dim3(grid), dim3(kThreads), smem,
                          a.stream, src, dst, p, r);
}

}  // namespace

// Forms whose source is one run per unit; nothing about alignment.
kernels::TmaPlan kernels::plan_bulk_flat(const LaunchArgs& a) {
  TmaPlan plan;
  const FlatForm form = bulk_flat_plan(a).form;
  if (!flat_src_is_one_run(form))
    plan.shape_rule =
        "bulk_flat moves dense batches of small matrices (one matrix at most 32768 bytes, 65536 "
        "at 2 B) and matrices of at most 32 columns with dense rows (src_ld_elems == cols): this "
        "call is neither";
  return plan;
}

cudaError_t kernels::launch_bulk_flat(const LaunchArgs& a) {
  const FlatPlan p = bulk_flat_plan(a);
  if (!flat_src_is_one_run(p.form)) return cudaErrorInvalidValue;
  if (a.elem_bytes == 16) return launch_bulk<uint4>(a, p);
  return dispatch_elem_1248(a.elem_bytes, [&](auto t) { return launch_bulk<decltype(t)>(a, p); });
}

}  // namespace tmakit
