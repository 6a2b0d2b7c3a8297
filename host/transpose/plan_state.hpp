// What a made plan holds (tmakit/plan.hpp's Plan points at one), and the steps both Plan and
// the one-call transpose() go through: check the request, pick and prepare the technique,
// launch on operands. transpose() keeps the states it made in a small cache (plan.cpp), so a
// call on a problem seen before skips the pick and the tensor-map encoding.
#pragma once
#include <array>
#include <atomic>
#include <mutex>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>
#include <host/device.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/registry.hpp>
#include <host/transpose/tma_dispatch.hpp>
#include <tmakit/plan.hpp>

namespace tmakit::detail {

// What a transpose-accumulate call adds to a transpose call.
struct AccumulateCall {
  DataType type = DataType::kF32;
  double alpha = 1, beta = 0;
};

// One problem, without its operands.
struct Request {
  std::int64_t rows = 0, cols = 0;
  int elem_bytes = 0;
  MatrixLayout layout;
  TransposeOptions options;
  bool accumulate = false;
  AccumulateCall acc;
  // A permutation's tile form (host/permute/permute.cpp): `layout` is ignored and the kernels
  // take these strides, a batch of up to three dimensions whose matrices may interleave,
  // checked by permute() (its exact no-overlap rule) with the spans it computed. Only the
  // techniques that take such a batch (VariantInfo::batch_dims) run it.
  bool permute_batch = false;
  BatchStrides batch_strides;
  std::int64_t src_span_bytes = 0, dst_span_bytes = 0;
};

struct PlanState {
  Request req;
  bool is_auto = false;
  ResolvedLayout lay;
  DeviceCaps caps;
  const VariantDef* def = nullptr;  // what runs on operands the plan's checks hold for
  // What runs on operands that break def's 16-byte alignment: the next technique of the ranking
  // that needs none (nullptr: none).
  const VariantDef* unaligned_def = nullptr;
  std::vector<std::string> ranking;  // the order the techniques were tried in
  std::string asked;                 // the named technique, or auto's pick before any fallback
  std::string fallback_reason;       // why def is not `asked`; empty when it is
  kernels::LaunchArgs args;          // src, dst and stream are set per run
  TmaMaps maps;                      // encoded for map_src / map_dst
  bool src_map = false, dst_map = false;
  const void* map_src = nullptr;
  const void* map_dst = nullptr;
  bool needs_align16 = false;  // def is planned: src and dst 16-byte aligned like map_src/dst
  // How def was chosen.
  Tuning tuning = Tuning::kHeuristic;
  std::string source;  // "named", "heuristic", "measured", "wisdom"
  std::string rule;    // the words for explain()
  double measured_us = 0, tune_ms = 0;
  std::vector<std::pair<std::string, double>> timings;  // measured: every candidate, fastest first
  std::string problem_key;
  // Per-run work a plan remembers for operands it saw recently: pointers that passed the
  // device-pointer check (cudaPointerGetAttributes), and tensor maps with their addresses
  // already replaced (cuTensorMapReplaceAddress), so that a plan alternating between a few
  // operand pairs (double buffers, a graph's pairs) pays for neither again.
  struct Recent {
    const void* src = nullptr;
    const void* dst = nullptr;
    TmaMaps maps;
  };
  mutable std::mutex recent_mu;
  mutable std::array<const void*, 8> checked{};
  mutable std::array<Recent, 4> recent{};
  mutable unsigned checked_next = 0, recent_next = 0;
};

// A transpose request; an accumulate one (an unknown data type is the error).
Request transpose_request(std::int64_t rows, std::int64_t cols, int elem_bytes,
                          const MatrixLayout& layout, const TransposeOptions& options);
Status accumulate_request(std::int64_t rows, std::int64_t cols, DataType type, double alpha,
                          double beta, const MatrixLayout& layout, const TransposeOptions& options,
                          Request* req);

// The operand checks every call makes before touching the device, with the messages
// transpose() and permute() give: null pointers, pointers off the element size, spans that
// overlap ("<operation> is out-of-place").
Status check_null(const void* src, const void* dst);
Status check_aligned_to_element(const void* src, const void* dst, int elem_bytes);
Status check_no_overlap(const void* src, std::int64_t src_span_bytes, const void* dst,
                        std::int64_t dst_span_bytes, const char* operation);

// Rejects pointers the GPU cannot dereference (pageable host memory, freed or foreign
// addresses) instead of letting the kernel fault and poison the context. `name`: "src", "dst".
Status check_device_pointer(const void* p, const char* name);

// check_context_and_stream, and synchronize refused on a stream being captured into a graph.
Status check_stream(int device, cudaStream_t stream, bool synchronize);

// Steps 1-2 of a call: options, arguments and layout, before anything touches the device.
// With operands (src or dst non-null, or `check_operands`), checks them in the order
// transpose() always has. *named: the named technique, nullptr for auto.
Status check_request(const Request& req, const void* src, const void* dst, bool check_operands,
                     const VariantDef** named, ResolvedLayout* lay);

// Picks and prepares the technique for `req` on the current device. map_src / map_dst: the
// operands the maps are encoded for (any 16-byte aligned address when the plan has none).
Status make_state(const Request& req, const TuneOptions& tune, const void* map_src,
                  const void* map_dst, PlanState* st);

// Runs a state on operands. `checked`: the caller already ran check_request with them and
// checked the context and stream (transpose()).
Status launch_state(const PlanState& st, const void* src, void* dst, cudaStream_t stream,
                    bool synchronize, bool checked);

// transpose() and transpose_accumulate(): the whole call through a cached state.
Status run_call(const Request& req, const void* src, void* dst);

// Cached states (run_call's) were made against the wisdom then held: wisdom.cpp calls this
// when the wisdom changes, so that they are made again.
void bump_wisdom_generation();

// The measure tuning: times every candidate that can run `req` on tune.src / tune.dst
// (scratch buffers when null) and returns them fastest first in *timings (median microseconds).
Status measure_candidates(const Request& req, const TuneOptions& tune,
                          const std::vector<const VariantDef*>& candidates,
                          std::vector<std::pair<std::string, double>>* timings);

// Whether `stream` is being captured into a CUDA graph (a stream the query refuses is not: the
// call's own checks name it). Measuring there would break the capture.
bool stream_capturing(cudaStream_t stream);

// The measure tuning's clock (measure.cpp), for any set of candidates: each launch (one call of
// a candidate on `stream`) runs once as a warm-up, then in `rounds` shuffled rounds after an L2
// flush, between two events; the slow ones are dropped after the first round and the close ones
// get extra rounds. *medians_us: each candidate's median, in the order of `launches`.
Status time_candidates(const std::vector<std::function<Status()>>& launches, int rounds,
                       cudaStream_t stream, std::vector<double>* medians_us);

// ---- Shared by the plan's files: plan_check.cpp, plan_select.cpp, plan_run.cpp, plan.cpp ----

inline bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}
// Any 16-byte aligned addresses for maps encoded before the operands are known (never
// dereferenced: a run swaps in its operands).
inline const void* const kPlanSrcAddress = reinterpret_cast<const void*>(std::uintptr_t{1} << 40);
inline const void* const kPlanDstAddress = reinterpret_cast<const void*>(std::uintptr_t{1} << 41);
// Bumped whenever the wisdom held changes, so that cached states pick it up.
extern std::atomic<unsigned> g_wisdom_generation;

// A technique's default swizzle: its widest (128B where it has one).
int default_swizzle_bytes(const VariantInfo& info);
// Why an accumulate technique cannot take this call's type and scalars (empty: it can).
std::string accumulate_unsupported(const VariantDef& def, const AccumulateCall& acc);
// Why planned technique `def` cannot run `req` with these arguments (their operands' addresses
// included): the accumulate's type and scalars, then every TMA / vector rule (prepare_tma,
// which on success encodes the maps into *maps and points *args at them).
std::string planned_needs(const Request& req, const VariantDef& def, const DeviceCaps& caps,
                          kernels::LaunchArgs* args, TmaMaps* maps);
// The refusal of a technique that cannot run a call (`why`) when the caller forbade fallbacks.
Status fallback_refusal(const VariantDef& def, const std::string& why);
// The techniques that take a batch of several dimensions (VariantInfo::batch_dims), listed.
std::string batch_dims_tokens();
// Whether the decider's pick for a permutation's batch (auto, or permute_transpose named) may
// take `def`: it takes such a batch, and it is not reg_tile, which runs one only named or by
// auto's rule for it (DevicePolicy::permute_reg_tile_max_bytes, measured off): the ranking's
// cells are whole transposes, and where its blocks do not fit its launcher runs smem_xor.
bool auto_batch_candidate(const VariantDef& def);
// "invalid argument" with the message.
Status invalid(std::string msg);

}  // namespace tmakit::detail
