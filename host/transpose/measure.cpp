// Tuning::kMeasure: time every technique that can run a problem, keep the fastest.
//
// Each candidate is prepared as a named technique with allow_fallback = false (one that cannot
// run the call is not a candidate: it would be timed as its fallback), launched once (a warm
// up, and the check that it launches), then timed in `rounds` rounds. A round runs every
// candidate once in its own shuffled order (fixed seed), each launch between two CUDA events
// after the L2 was flushed as the benchmark flushes it (host/tools/timing.hpp's L2Flusher:
// persisting lines demoted, then a 2 x L2 memset on the same stream, which also covers the
// host's enqueue time); the median over the rounds is kept. After the first round, a candidate more
// than 1.25x (+ 2 us) behind the best is dropped: it cannot win, and the slow rungs of the
// ladder (naive_write on a large matrix) would otherwise dominate the tuning time.
#include <algorithm>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <host/error.hpp>
#include <host/tools/timing.hpp>
#include <host/transpose/plan_state.hpp>

namespace tmakit::detail {
namespace {

struct DeviceBuffer {
  void* p = nullptr;
  ~DeviceBuffer() {
    if (p != nullptr) cudaFree(p);
  }
};

struct Events {
  std::vector<cudaEvent_t> ev;
  ~Events() {
    for (cudaEvent_t e : ev) cudaEventDestroy(e);
  }
};

}  // namespace

Status measure_candidates(const Request& req, const TuneOptions& tune,
                          const std::vector<const VariantDef*>& candidates,
                          std::vector<std::pair<std::string, double>>* timings) {
  timings->clear();
  const cudaStream_t stream = req.options.stream;
  if (stream_capturing(stream))
    return make_status(StatusCode::kInvalidArgument,
                       "Tuning::kMeasure on a stream that is being captured into a CUDA graph: "
                       "make the plan before the capture");

  // The operands: the caller's (a transpose only: an accumulate would change dst each launch),
  // else scratch ones of the problem's spans.
  const VariantDef* named = nullptr;
  ResolvedLayout lay;
  if (Status s = check_request(req, nullptr, nullptr, false, &named, &lay); !s) return s;
  DeviceBuffer scratch_src, scratch_dst;
  const void* src = tune.src;
  void* dst = tune.dst;
  if (src == nullptr || req.accumulate) {
    for (auto& [buf, bytes] :
         {std::pair<DeviceBuffer*, std::int64_t>{&scratch_src, lay.src_span_bytes},
          {&scratch_dst, lay.dst_span_bytes}}) {
      if (const cudaError_t err = cudaMalloc(&buf->p, static_cast<std::size_t>(bytes));
          err != cudaSuccess) {
        cudaGetLastError();
        return make_status(StatusCode::kCudaError,
                           "Tuning::kMeasure: cannot allocate " + std::to_string(bytes) +
                               " bytes of scratch operands (" + cuda_error_text(err) +
                               "); pass the call's own operands in TuneOptions::src / dst");
      }
      TMAKIT_CUDA_TRY(cudaMemsetAsync(buf->p, 0, static_cast<std::size_t>(bytes), stream));
    }
    src = scratch_src.p;
    dst = scratch_dst.p;
  }
  // The candidates that can run the call as themselves.
  std::vector<std::unique_ptr<PlanState>> states;
  for (const VariantDef* def : candidates) {
    Request r = req;
    r.options.variant = def->info.token;
    r.options.allow_fallback = false;
    r.options.swizzle_bytes = -1;
    r.options.barrier = TmaBarrier::kDefault;
    r.options.synchronize = false;
    auto st = std::make_unique<PlanState>();
    if (!make_state(r, TuneOptions{}, src, dst, st.get()).ok()) continue;
    if (!st->fallback_reason.empty()) continue;
    states.push_back(std::move(st));
  }
  if (states.empty()) return {};
  std::vector<std::function<Status()>> launches;
  for (auto& st : states)
    launches.push_back(
        [&st, src, dst, stream] { return launch_state(*st, src, dst, stream, false, true); });
  std::vector<double> us;
  if (Status s = time_candidates(launches, tune.rounds, stream, &us); !s) return s;
  std::vector<std::pair<std::string, double>> out;
  for (std::size_t i = 0; i < states.size(); ++i)
    out.emplace_back(states[i]->def->info.token, us[i]);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  // The caller's dst holds the winner's result (every candidate wrote the same bits; this
  // makes it the winner's).
  if (tune.src != nullptr && !req.accumulate) {
    for (auto& st : states)
      if (st->def->info.token == out[0].first) {
        if (Status s = launch_state(*st, src, dst, stream, false, true); !s) return s;
        break;
      }
    TMAKIT_CUDA_TRY(cudaStreamSynchronize(stream));
  }
  *timings = std::move(out);
  return {};
}

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  const bool yes =
      cudaStreamIsCapturing(stream, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone;
  cudaGetLastError();
  return yes;
}

Status time_candidates(const std::vector<std::function<Status()>>& launches, int rounds_asked,
                       cudaStream_t stream, std::vector<double>* medians_us) {
  medians_us->clear();
  const std::size_t n = launches.size();
  if (n == 0) return {};
  DeviceCaps caps;
  if (Status s = current_device_caps(&caps); !s) return s;
  int l2_bytes = 0;
  TMAKIT_CUDA_TRY(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, caps.device));
  L2Flusher flusher;
  if (Status s = flusher.init(static_cast<std::size_t>(l2_bytes)); !s)
    return make_status(s.code, "Tuning::kMeasure: the L2 flush buffer: " + s.message);
  for (const auto& launch : launches)  // warm up, and every candidate launches
    if (Status s = launch(); !s) {
      cudaStreamSynchronize(stream);
      return make_status(s.code, "Tuning::kMeasure: " + s.message);
    }
  TMAKIT_CUDA_TRY(cudaStreamSynchronize(stream));

  std::vector<std::vector<double>> samples(n);
  std::vector<bool> alive(n, true);
  Events ev;
  ev.ev.resize(2 * n);
  for (cudaEvent_t& e : ev.ev) TMAKIT_CUDA_TRY(cudaEventCreate(&e));
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(20261127u);
  // The main rounds, then the finalists' extra rounds (see the top of this file).
  int rounds = rounds_asked;
  for (int round = 0; round < rounds; ++round) {
    if (round == rounds_asked) {  // the finalists: within 3% (+ 0.3 us) of the best median
      double best = 1e300;
      for (std::size_t i = 0; i < n; ++i)
        if (alive[i]) best = std::min(best, median(samples[i]));
      int finalists = 0;
      for (std::size_t i = 0; i < n; ++i) {
        alive[i] = alive[i] && median(samples[i]) <= 1.03 * best + 0.3;
        finalists += alive[i];
      }
      if (finalists < 2) break;
      rounds += (best < 20 ? 6 : 2) * rounds_asked;
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i : order) {
      if (!alive[i]) continue;
      if (Status s = flusher.flush(stream); !s) return s;
      TMAKIT_CUDA_TRY(cudaEventRecord(ev.ev[2 * i], stream));
      if (Status s = launches[i](); !s) {
        cudaStreamSynchronize(stream);
        return make_status(s.code, "Tuning::kMeasure: " + s.message);
      }
      TMAKIT_CUDA_TRY(cudaEventRecord(ev.ev[2 * i + 1], stream));
    }
    TMAKIT_CUDA_TRY(cudaStreamSynchronize(stream));
    double best = 1e300;
    for (std::size_t i = 0; i < n; ++i) {
      if (!alive[i]) continue;
      float ms = 0;
      TMAKIT_CUDA_TRY(cudaEventElapsedTime(&ms, ev.ev[2 * i], ev.ev[2 * i + 1]));
      samples[i].push_back(1e3 * ms);
      best = std::min(best, 1e3 * static_cast<double>(ms));
    }
    if (round == 0)
      for (std::size_t i = 0; i < n; ++i)
        if (samples[i].back() > 1.25 * best + 2.0) alive[i] = false;
  }
  for (std::size_t i = 0; i < n; ++i) medians_us->push_back(median(samples[i]));
  return {};
}

}  // namespace tmakit::detail
