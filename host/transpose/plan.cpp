// Plans: transpose() and transpose_accumulate()'s one-call cache of plan states (run_call), and
// the public Plan (tmakit/plan.hpp). A state is checked in plan_check.cpp, chosen in
// plan_select.cpp and run in plan_run.cpp.
#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <host/error.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/transpose/decider.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/wisdom.hpp>
#include <kernels/common/elem.hpp>
#include <kernels/common/swizzle.hpp>

namespace tmakit {
namespace detail {

namespace {

// transpose()'s states, by everything a state depends on but the operands' addresses.
struct CacheKey {
  std::int64_t rows = 0, cols = 0;
  int elem_bytes = 0;
  MatrixLayout layout;
  std::string variant;
  int swizzle = 0;
  TmaBarrier barrier = TmaBarrier::kDefault;
  bool allow_tma = true, allow_fallback = true, accumulate = false;
  AccumulateCall acc;
  int device = 0, cc = 0;
  bool tma_disabled = false, src16 = false, dst16 = false;
  unsigned wisdom_generation = 0;
  Tuning tuning = Tuning::kHeuristic;  // the process default the state was made under
  bool permute_batch = false;          // a permutation's batch (Request::batch_strides)
  BatchStrides pb;
  static bool same(const BatchStrides& a, const BatchStrides& b) {
    return a.batch == b.batch && a.src_ld_elems == b.src_ld_elems &&
           a.dst_ld_elems == b.dst_ld_elems && a.src_batch_elems == b.src_batch_elems &&
           a.dst_batch_elems == b.dst_batch_elems && a.batch_n0 == b.batch_n0 &&
           a.batch_n1 == b.batch_n1 && a.src_batch1_elems == b.src_batch1_elems &&
           a.dst_batch1_elems == b.dst_batch1_elems && a.src_batch2_elems == b.src_batch2_elems &&
           a.dst_batch2_elems == b.dst_batch2_elems;
  }
  bool operator==(const CacheKey& o) const {
    return rows == o.rows && cols == o.cols && elem_bytes == o.elem_bytes &&
           layout.batch == o.layout.batch && layout.src_ld_elems == o.layout.src_ld_elems &&
           layout.dst_ld_elems == o.layout.dst_ld_elems &&
           layout.src_batch_stride_elems == o.layout.src_batch_stride_elems &&
           layout.dst_batch_stride_elems == o.layout.dst_batch_stride_elems &&
           variant == o.variant && swizzle == o.swizzle && barrier == o.barrier &&
           allow_tma == o.allow_tma && allow_fallback == o.allow_fallback &&
           accumulate == o.accumulate && acc.type == o.acc.type && acc.alpha == o.acc.alpha &&
           acc.beta == o.acc.beta && device == o.device && cc == o.cc &&
           tma_disabled == o.tma_disabled && src16 == o.src16 && dst16 == o.dst16 &&
           wisdom_generation == o.wisdom_generation && tuning == o.tuning &&
           permute_batch == o.permute_batch && (!permute_batch || same(pb, o.pb));
  }
};

class StateCache {
 public:
  std::shared_ptr<const PlanState> find(const CacheKey& k) {
    std::lock_guard<std::mutex> lock(mu_);
    for (std::size_t i = 0; i < ring_.size(); ++i)
      if (ring_[i].second && ring_[i].first == k) return ring_[i].second;
    return nullptr;
  }
  void put(const CacheKey& k, std::shared_ptr<const PlanState> st) {
    std::lock_guard<std::mutex> lock(mu_);
    ring_[next_++ % ring_.size()] = {k, std::move(st)};
  }

 private:
  std::mutex mu_;
  std::array<std::pair<CacheKey, std::shared_ptr<const PlanState>>, 32> ring_{};
  std::size_t next_ = 0;
};

StateCache& state_cache() {
  static StateCache cache;
  return cache;
}

}  // namespace

Status run_call(const Request& req, const void* src, void* dst) {
  const VariantDef* named = nullptr;
  ResolvedLayout lay;
  if (Status s = check_request(req, src, dst, true, &named, &lay); !s) return s;
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  if (Status s = check_stream(caps.device, req.options.stream, req.options.synchronize); !s)
    return s;
  CacheKey k;
  k.rows = req.rows;
  k.cols = req.cols;
  k.elem_bytes = req.elem_bytes;
  k.layout = req.layout;
  k.variant = req.options.variant;
  k.swizzle = req.options.swizzle_bytes;
  k.barrier = req.options.barrier;
  k.allow_tma = req.options.allow_tma;
  k.allow_fallback = req.options.allow_fallback;
  k.accumulate = req.accumulate;
  if (req.accumulate) k.acc = req.acc;
  k.device = caps.device;
  k.cc = caps.cc;
  k.tma_disabled = env_settings().tma_disabled;
  k.src16 = aligned16(src);
  k.dst16 = aligned16(dst);
  k.wisdom_generation = g_wisdom_generation.load(std::memory_order_relaxed);
  k.tuning = default_tuning();
  k.permute_batch = req.permute_batch;
  if (req.permute_batch) k.pb = req.batch_strides;
  std::shared_ptr<const PlanState> st = state_cache().find(k);
  if (!st) {
    auto fresh = std::make_shared<PlanState>();
    TuneOptions tune;
    tune.mode = default_tuning();
    if (tune.mode == Tuning::kMeasure) {
      // Measured on the call's own operands (a transpose leaves its result in dst; an
      // accumulate measures on scratch buffers), unless the stream is being captured.
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      if (cudaStreamIsCapturing(req.options.stream, &capture) != cudaSuccess ||
          capture != cudaStreamCaptureStatusNone) {
        cudaGetLastError();
        tune.mode = Tuning::kHeuristic;
      } else if (!req.accumulate) {
        tune.src = src;
        tune.dst = dst;
      }
    }
    Status made = make_state(req, tune, src, dst, fresh.get());
    if (!made && tune.mode == Tuning::kMeasure && made.code != StatusCode::kInvalidArgument) {
      fresh = std::make_shared<PlanState>();  // the measurement failed (scratch memory, say)
      tune = TuneOptions{};
      tune.mode = Tuning::kHeuristic;
      made = make_state(req, tune, src, dst, fresh.get());
    }
    if (!made) return made;
    if (fresh->source == "measured") save_measured_wisdom();
    st = fresh;
    state_cache().put(k, st);
  }
  return launch_state(*st, src, dst, req.options.stream, req.options.synchronize, true);
}

void bump_wisdom_generation() {
  g_wisdom_generation.fetch_add(1);
}

}  // namespace detail

// ---- The public Plan ----

namespace {

const std::string& empty_string() {
  static const std::string s;
  return s;
}

Status make_any(Plan* plan, std::shared_ptr<const detail::PlanState>* out,
                const detail::Request& req, const TuneOptions& tune) {
  if (plan == nullptr) return make_status(StatusCode::kInvalidArgument, "plan is a null pointer");
  if (tune.rounds < 1)
    return make_status(StatusCode::kInvalidArgument, "TuneOptions::rounds must be >= 1 (got " +
                                                         std::to_string(tune.rounds) + ")");
  if ((tune.src == nullptr) != (tune.dst == nullptr))
    return make_status(StatusCode::kInvalidArgument,
                       "TuneOptions: give both src and dst to measure on, or neither (scratch "
                       "buffers)");
  if (tune.mode != Tuning::kHeuristic && tune.mode != Tuning::kMeasure &&
      tune.mode != Tuning::kDefault)
    return make_status(StatusCode::kInvalidArgument, "TuneOptions::mode is not a Tuning value");
  if (tune.src != nullptr) {  // the operands to measure on must be a valid call
    const VariantDef* named = nullptr;
    ResolvedLayout lay;
    if (Status s = detail::check_request(req, tune.src, tune.dst, true, &named, &lay); !s) {
      s.message = "TuneOptions::src/dst: " + s.message;
      return s;
    }
  }
  auto st = std::make_shared<detail::PlanState>();
  const void* ms = tune.src != nullptr ? tune.src : detail::kPlanSrcAddress;
  const void* md = tune.dst != nullptr ? tune.dst : detail::kPlanDstAddress;
  if (Status s = detail::make_state(req, tune, ms, md, st.get()); !s) return s;
  *out = st;
  return {};
}

}  // namespace

Status make_plan(Plan* plan, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout, const TransposeOptions& options,
                 const TuneOptions& tune) {
  std::shared_ptr<const detail::PlanState> st;
  if (Status s = make_any(plan, &st,
                          detail::transpose_request(rows, cols, elem_bytes, layout, options), tune);
      !s)
    return s;
  plan->state_ = st;
  return {};
}

Status make_accumulate_plan(Plan* plan, std::int64_t rows, std::int64_t cols, DataType type,
                            double alpha, double beta, const MatrixLayout& layout,
                            const TransposeOptions& options, const TuneOptions& tune) {
  detail::Request req;
  if (Status s = detail::accumulate_request(rows, cols, type, alpha, beta, layout, options, &req);
      !s)
    return s;
  std::shared_ptr<const detail::PlanState> st;
  if (Status s = make_any(plan, &st, req, tune); !s) return s;
  plan->state_ = st;
  return {};
}

Status Plan::run(const void* src, void* dst) const {
  if (!state_)
    return make_status(StatusCode::kInvalidArgument, "an empty Plan: make it with make_plan()");
  return run(src, dst, state_->req.options.stream);
}

Status Plan::run(const void* src, void* dst, cudaStream_t stream) const {
  if (!state_)
    return make_status(StatusCode::kInvalidArgument, "an empty Plan: make it with make_plan()");
  return detail::launch_state(*state_, src, dst, stream, state_->req.options.synchronize, false);
}

const std::string& Plan::variant() const {
  return state_ ? state_->def->info.token : empty_string();
}
const std::string& Plan::fallback_reason() const {
  return state_ ? state_->fallback_reason : empty_string();
}
Tuning Plan::tuning() const {
  return state_ ? state_->tuning : Tuning::kHeuristic;
}
const std::string& Plan::source() const {
  return state_ ? state_->source : empty_string();
}
double Plan::measured_us() const {
  return state_ ? state_->measured_us : 0;
}
double Plan::tune_ms() const {
  return state_ ? state_->tune_ms : 0;
}
const std::vector<std::string>& Plan::ranking() const {
  static const std::vector<std::string> none;
  return state_ ? state_->ranking : none;
}
const std::vector<std::pair<std::string, double>>& Plan::timings() const {
  static const std::vector<std::pair<std::string, double>> none;
  return state_ ? state_->timings : none;
}

std::string Plan::explain() const {
  if (!state_) return "an empty plan\n";
  const detail::PlanState& st = *state_;
  const detail::Request& r = st.req;
  const BatchStrides& s = st.lay.strides;
  char buf[160];
  std::string out = "problem:  ";
  out += r.accumulate
             ? std::string("transpose-accumulate ") + to_string(r.acc.type) + " (alpha " +
                   std::to_string(r.acc.alpha) + ", beta " + std::to_string(r.acc.beta) + "), "
             : std::string("transpose, ") + std::to_string(r.elem_bytes) + "-byte elements, ";
  out += std::to_string(s.batch) + " x " + std::to_string(r.rows) + " x " + std::to_string(r.cols) +
         " (src ld " + std::to_string(s.src_ld_elems) + ", dst ld " +
         std::to_string(s.dst_ld_elems) + (st.lay.dense ? ", dense" : ", strided") + ")\n";
  out += "device:   " +
         (st.caps.described ? st.caps.name + " as described (TuneOptions::gpu: no device used)"
                            : std::to_string(st.caps.device)) +
         ", compute capability " + std::to_string(st.caps.cc / 10) + "." +
         std::to_string(st.caps.cc % 10) + ", " + std::to_string(st.caps.sm_count) + " SMs\n";
  out += "asked:    " + r.options.variant + " (tuning: " + to_string(st.tuning) + ")\n";
  out += "runs:     " + st.def->info.token + "\n";
  out += "chosen:   " + st.source + ": ";
  if (st.source == "measured") {
    std::snprintf(
        buf, sizeof buf,
        "the fastest of %zu techniques timed (median of the launches, L2 flushed), in %.1f ms:",
        st.timings.size(), st.tune_ms);
    out += buf;
    for (const auto& [token, us] : st.timings) {
      std::snprintf(buf, sizeof buf, "\n            %-16s %10.2f us  %+6.1f%%", token.c_str(), us,
                    100.0 * (us / st.timings[0].second - 1));
      out += buf;
    }
    out += "\n";
  } else if (st.source == "wisdom") {
    std::snprintf(buf, sizeof buf, " (%.2f us)", st.measured_us);
    out += st.rule + buf + "\n";
  } else {
    out += st.rule + "\n";
  }
  if (!st.fallback_reason.empty())
    out += "fallback: " + st.asked + " cannot run this call: " + st.fallback_reason + "; runs " +
           st.def->info.token + " instead\n";
  if (st.needs_align16 && st.unaligned_def != nullptr)
    out += "operands: " + st.def->info.token +
           " needs 16-byte aligned src and dst; other operands run the next technique of the "
           "ranking that needs no alignment, " +
           st.unaligned_def->info.token + "\n";
  if (!st.ranking.empty()) {
    out += "ranking:  ";
    for (std::size_t i = 0; i < st.ranking.size(); ++i) out += (i ? ", " : "") + st.ranking[i];
    out += "\n";
  }
  out += "key:      " + st.problem_key + "\n";
  return out;
}

}  // namespace tmakit
