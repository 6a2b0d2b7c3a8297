// tmakit plans: a transpose (or transpose-accumulate) problem validated, its technique picked
// and its tensor maps encoded once, then run on any operands of that shape.
//
//   tmakit::Plan plan;
//   tmakit::TuneOptions tune;
//   tune.mode = tmakit::Tuning::kMeasure;        // time every technique that can run it
//   if (auto s = tmakit::make_plan(&plan, rows, cols, 2, {}, {}, tune); !s) fail(s.message);
//   for (auto& [src, dst] : pairs) plan.run(src, dst, stream);   // only swaps the maps' addresses
//   std::puts(plan.explain().c_str());             // what it runs and why
//
// How the technique is chosen (Plan::explain() says which happened):
//   - a named technique (TransposeOptions::variant) runs as named; where it cannot run the call
//     (no sm_90 code, a pre-sm_90 GPU, a TMA rule broken) the plan runs the next technique of
//     the ranking below that can, and says why in fallback_reason();
//   - `auto` looks for wisdom first: a decision measured earlier on this GPU model (name, SM
//     count, memory clock) with this driver for the same problem;
//   - else Tuning::kHeuristic takes the first technique that can run the call of the one
//     decider's ranking (host/transpose/decider.hpp: the GPU's measured tuning table; no GPU
//     time), and Tuning::kMeasure times every technique that can run the call (docs/plans.md:
//     the rounds, the L2 flush, the cost) and keeps the fastest, recording it as wisdom.
//     Tuning::kDefault (TuneOptions' default, and every transpose() call's) is the process's
//     default: kHeuristic, unless set_default_tuning(Tuning::kMeasure) or TMAKIT_TUNING=measure
//     makes `auto` measure each new problem once per process, as cudnn.benchmark does (with
//     TMAKIT_WISDOM naming a file, each decision is also saved there, so later runs reuse it).
//
// Wisdom lives in memory for the process. It is read from a file only when asked
// (load_wisdom(), or the environment variable TMAKIT_WISDOM naming a file, read at the first
// plan) and written only by save_wisdom() (or `tmakit tune --wisdom FILE`). The file is text
// with a version line; decisions of other GPU models or drivers in it are kept but never used.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <tmakit/tmakit.hpp>

namespace tmakit {

enum class Tuning {
  kHeuristic = 0,  // wisdom, else the decider's ranking: no GPU time at plan time
  kMeasure,        // wisdom, else time the candidates and keep the fastest (recorded as wisdom)
  kDefault,        // the process's default (default_tuning())
};
const char* to_string(Tuning mode);  // "heuristic", "measure", "default"

// The process's default tuning, what Tuning::kDefault and every transpose() /
// transpose_accumulate() call use: kHeuristic, or kMeasure when the environment variable
// TMAKIT_TUNING is "measure" (read at the first call; any other value than "heuristic" is one
// warning on stderr and ignored), or as last set here (kDefault is refused: kInvalidArgument).
// A call measured this way on a stream being captured into a graph takes the heuristic
// instead (measuring would break the capture), as does a call whose measurement fails.
Status set_default_tuning(Tuning mode);
Tuning default_tuning();

struct TuneOptions {
  Tuning mode = Tuning::kDefault;
  // kMeasure: the operands to time on (they must be a valid call of the plan's problem). Both
  // null: scratch buffers of the problem's size are allocated and freed (cudaMalloc). With
  // them, dst holds the result of the call when make_plan returns (the winner runs last); an
  // accumulate always times on scratch buffers, so its dst is never touched.
  const void* src = nullptr;
  void* dst = nullptr;
  int rounds = 7;          // timed launches per candidate (>= 1): the median is kept
  bool use_wisdom = true;  // false: ignore recorded decisions (a measure plan measures again)
  // Empty: the plan is for the current device. A tuning table's GPU ("h100", "h200"; see
  // `tmakit list`): the plan is described for that GPU without using one. It ranks with that
  // GPU's table and checks every technique's rules (tensor maps validated, not encoded); no
  // device is queried, no wisdom read, nothing measured (mode kMeasure is refused). Such a plan
  // explains (`tmakit explain --gpu`); run() refuses it.
  std::string gpu;
};

namespace detail {
struct PlanState;
}

class Plan {
 public:
  Plan() = default;
  bool valid() const { return state_ != nullptr; }

  // Runs the plan on src -> dst (same shape, element size and layout as the plan; any
  // addresses). Checks what a new pointer pair can get wrong (null, alignment, overlap, not
  // device memory) and returns a Status as transpose() does; Status::variant is the technique
  // that ran. Operands that are not 16-byte aligned where the planned technique needs it run
  // the fallback, with the reason. Allowed while `stream` is being captured into a CUDA graph
  // (then synchronize must be false). The two-argument form runs on the plan's
  // TransposeOptions::stream.
  Status run(const void* src, void* dst) const;
  Status run(const void* src, void* dst, cudaStream_t stream) const;

  const std::string& variant() const;          // the technique it runs on aligned operands
  const std::string& fallback_reason() const;  // why that is not the one asked for; or empty
  Tuning tuning() const;                       // kHeuristic or kMeasure (kDefault resolved)
  // The techniques in the order the plan tried them (the decider's ranking, then the rest of
  // the candidates): variant() is the first of them that can run the call, unless wisdom or a
  // measurement chose it.
  const std::vector<std::string>& ranking() const;
  // How the technique was chosen: "named", "heuristic", "measured", "wisdom".
  const std::string& source() const;
  double measured_us() const;  // the winner's median when measured (or from wisdom), else 0
  double tune_ms() const;      // host wall time spent measuring in make_plan (0: none)
  // Every candidate's median when measured in make_plan, fastest first (token, microseconds);
  // empty otherwise.
  const std::vector<std::pair<std::string, double>>& timings() const;
  // Several lines: the problem, the device, the technique and why (the rule, the measured
  // figures of every candidate, or the wisdom entry), the fallback if any.
  std::string explain() const;

 private:
  friend Status make_plan(Plan*, std::int64_t, std::int64_t, int, const MatrixLayout&,
                          const TransposeOptions&, const TuneOptions&);
  friend Status make_accumulate_plan(Plan*, std::int64_t, std::int64_t, DataType, double, double,
                                     const MatrixLayout&, const TransposeOptions&,
                                     const TuneOptions&);
  std::shared_ptr<const detail::PlanState> state_;
};

// A plan for transpose(src, dst, rows, cols, elem_bytes, layout, options): every check that
// does not need the operands happens here (the same messages as transpose()). *plan is left
// as it was when the Status is not ok. Uses the current device.
Status make_plan(Plan* plan, std::int64_t rows, std::int64_t cols, int elem_bytes,
                 const MatrixLayout& layout = {}, const TransposeOptions& options = {},
                 const TuneOptions& tune = {});

// A plan for transpose_accumulate(src, dst, rows, cols, type, alpha, beta, layout, options).
Status make_accumulate_plan(Plan* plan, std::int64_t rows, std::int64_t cols, DataType type,
                            double alpha, double beta, const MatrixLayout& layout = {},
                            const TransposeOptions& options = {}, const TuneOptions& tune = {});

// ---- Wisdom: measured decisions, per GPU model, driver and problem ----

struct WisdomLoad {
  int entries = 0;         // read from the file
  int for_this_gpu = 0;    // of them, for the current GPU model and driver (used)
  int for_other_gpus = 0;  // kept (save_wisdom writes them back) but never used
};

// Merges a wisdom file into memory (an entry for the same GPU, driver and problem replaces
// the one held). A missing, corrupt or truncated file, or one of a newer format version, is
// an error naming the file and line; nothing of it is merged. `loaded` may be null.
Status load_wisdom(const std::string& path, WisdomLoad* loaded = nullptr);
// The same from text (`origin` names it in messages).
Status import_wisdom(const std::string& text, const std::string& origin,
                     WisdomLoad* loaded = nullptr);
// Writes every entry held (all GPUs) to `path` (replacing it through a temporary file).
Status save_wisdom(const std::string& path);
std::string export_wisdom();  // the same text
void clear_wisdom();
int wisdom_size();  // entries held, all GPUs

}  // namespace tmakit
