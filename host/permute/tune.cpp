// Tuning for permutations: tune_permute (every technique that can run a call timed on its own
// operands, the fastest kept as wisdom) and permute()'s `auto` before its rules (wisdom, or a
// measurement in measure mode). The clock is the transposes' (measure.cpp, time_candidates), the
// store is theirs (wisdom.cpp), under a key of the reduced problem. Host compiler only.
#include <host/permute/tune.hpp>

#include <algorithm>
#include <functional>
#include <host/device.hpp>
#include <host/error.hpp>
#include <host/permute/reduce.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/tma_dispatch.hpp>
#include <host/transpose/wisdom.hpp>
#include <tmakit/plan.hpp>

namespace tmakit {
namespace detail {
namespace {

// The largest power of two up to 16 that both addresses are multiples of: what decides which
// techniques can run (permute_tma and the word walks at 16, a transpose of wider elements at
// its width).
int common_alignment(const void* src, const void* dst) {
  const auto a = reinterpret_cast<std::uintptr_t>(src) | reinterpret_cast<std::uintptr_t>(dst);
  int align = 16;
  while (align > 1 && a % static_cast<std::uintptr_t>(align) != 0) align /= 2;
  return align;
}

// What a candidate is: its name in timings and wisdom, and one call of it.
struct Candidate {
  std::string token;
  std::function<Status()> launch;
};

}  // namespace

std::string permute_problem_key(const PermuteReduction& r, int elem_bytes, const void* src,
                                const void* dst, bool allow_tma, const DeviceCaps& caps) {
  return "permute e" + std::to_string(elem_bytes) + " " + r.to_string() + " ss" +
         list(r.src_strides_elems) + " ds" + list(r.dst_strides_elems) + " a" +
         std::to_string(common_alignment(src, dst)) +
         (tma_unavailable(allow_tma, caps).empty() ? " tma" : " notma") + " cc" +
         std::to_string(caps.cc) + " policy " + caps.policy_key;
}

Status permute_auto_tuned(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                          const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout,
                          const TransposeOptions& options, const PermuteReduction& r, bool* ran) {
  *ran = false;
  const bool measure = default_tuning() == Tuning::kMeasure;
  if (!measure && wisdom_size() == 0) return {};
  DeviceCaps caps;
  GpuKey gpu;
  if (!current_device_caps(&caps).ok() || !current_gpu_key(&gpu).ok()) {
    cudaGetLastError();
    return {};  // permute()'s own checks name the problem
  }
  const std::string key = permute_problem_key(r, elem_bytes, src, dst, options.allow_tma, caps);
  WisdomEntry e;
  if (wisdom_store().find(gpu, key, &e)) {
    TransposeOptions o = options;
    o.variant = e.variant;
    o.allow_fallback = false;
    Status s = permute(src, dst, extents, perm, elem_bytes, layout, o);
    if (s.code != StatusCode::kUnsupported) {  // an entry that no longer runs: the rules below
      *ran = true;
      return s;
    }
  }
  if (!measure || stream_capturing(options.stream)) return {};
  TransposeOptions o = options;
  o.variant = "auto";
  PermuteTuning t;
  Status s = tune_permute(src, dst, extents, perm, elem_bytes, layout, o, &t);
  if (!s) return {};  // a failed measurement (the flush buffer, say) takes the rules
  save_measured_wisdom();
  *ran = true;
  return s;
}

}  // namespace detail

Status tune_permute(const void* src, void* dst, const std::vector<std::int64_t>& extents,
                    const std::vector<int>& perm, int elem_bytes, const PermuteLayout& layout,
                    const TransposeOptions& options, PermuteTuning* out, int rounds) {
  if (out == nullptr) return detail::invalid("tune_permute: out is null");
  if (options.variant != "auto")
    return detail::invalid(
        "tune_permute measures auto's candidates: options.variant must be "
        "\"auto\" (got '" +
        options.variant + "')");
  if (rounds < 1) return detail::invalid("tune_permute: rounds must be at least 1");
  if (options.swizzle_bytes != -1 || options.barrier != TmaBarrier::kDefault)
    return detail::invalid("tune_permute: leave swizzle_bytes and barrier default");
  detail::PermuteProblem p;
  if (Status s = detail::check_permute_call(src, dst, extents, perm, elem_bytes, layout, &p); !s)
    return s;
  if (detail::stream_capturing(options.stream))
    return detail::invalid(
        "tune_permute on a stream that is being captured into a CUDA graph: tune before the "
        "capture");
  const PermuteReduction r = detail::reduce(p);
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;

  TransposeOptions base = options;
  base.synchronize = false;
  base.allow_fallback = false;
  const cudaStream_t stream = options.stream;
  std::vector<detail::Candidate> cands;
  // A copy or transpose form: transpose()'s pick, measured among its own techniques.
  Plan plan;
  const bool transposes = r.form == PermuteForm::kCopy || r.form == PermuteForm::kTranspose;
  const auto te = static_cast<std::uintptr_t>(r.transpose_elem_bytes);
  if (transposes && reinterpret_cast<std::uintptr_t>(src) % te == 0 &&
      reinterpret_cast<std::uintptr_t>(dst) % te == 0) {
    TuneOptions tune;
    tune.mode = Tuning::kMeasure;
    tune.src = src;
    tune.dst = dst;
    tune.rounds = rounds;
    TransposeOptions to = options;
    to.synchronize = false;
    if (Status s = make_plan(&plan, r.rows, r.cols, r.transpose_elem_bytes, r.layout, to, tune); !s)
      return s;
    cands.push_back(
        {plan.variant(), [&plan, src, dst, stream] { return plan.run(src, dst, stream); }});
  }
  for (const VariantInfo& v : permute_variants()) {
    TransposeOptions o = base;
    o.variant = v.token;
    // The check that it can run this call as itself, and that it launches.
    const Status probe = permute(src, dst, extents, perm, elem_bytes, layout, o);
    if (probe.code == StatusCode::kUnsupported) continue;
    if (!probe) return probe;
    cands.push_back(
        {v.token, [=] { return permute(src, dst, extents, perm, elem_bytes, layout, o); }});
  }
  if (cands.empty())
    return make_status(StatusCode::kUnsupported, "tune_permute: no technique can run this call");
  std::vector<std::function<Status()>> launches;
  for (const detail::Candidate& c : cands) launches.push_back(c.launch);
  std::vector<double> us;
  if (Status s = detail::time_candidates(launches, rounds, stream, &us); !s) return s;
  std::vector<std::size_t> order(cands.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return us[a] < us[b]; });
  PermuteTuning t;
  for (std::size_t i : order) t.timings.emplace_back(cands[i].token, us[i]);
  t.variant = t.timings[0].first;
  t.measured_us = t.timings[0].second;
  // dst holds the fastest's result (every candidate writes the same bits; this makes it its),
  // and its Status is the call's (Status::variant: what it ran).
  Status last = cands[order[0]].launch();
  if (!last) return last;
  TMAKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  GpuKey gpu;
  if (current_gpu_key(&gpu).ok())
    wisdom_store().record(
        gpu, detail::permute_problem_key(r, elem_bytes, src, dst, options.allow_tma, caps),
        {t.variant, t.measured_us, static_cast<int>(t.timings.size())});
  cudaGetLastError();
  detail::bump_wisdom_generation();
  *out = std::move(t);
  return last;
}

}  // namespace tmakit
