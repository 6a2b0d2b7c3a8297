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
//     (no sm_90 code, a pre-sm_90 GPU, a TMA rule broken) the plan picks among the techniques
//     that can, as for `auto`, and says why in fallback_reason();
//   - `auto` looks for wisdom first: a decision measured earlier on this GPU model (name, SM
//     count, memory clock) with this driver for the same problem;
//   - else Tuning::kHeuristic (the default) takes the built-in table's pick (no GPU time), and
//     Tuning::kMeasure times every technique that can run the call (docs/plans.md: the
//     rounds, the L2 flush, the cost) and keeps the fastest, recording it as wisdom.
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
  kHeuristic = 0,  // wisdom, else the built-in table: no GPU time at plan time
  kMeasure,        // wisdom, else time the candidates and keep the fastest (recorded as wisdom)
};
const char* to_string(Tuning mode);  // "heuristic", "measure"

struct TuneOptions {
  Tuning mode = Tuning::kHeuristic;
  // kMeasure: the operands to time on (they must be a valid call of the plan's problem). Both
  // null: scratch buffers of the problem's size are allocated and freed (cudaMalloc). With
  // them, dst holds the result of the call when make_plan returns (the winner runs last); an
  // accumulate always times on scratch buffers, so its dst is never touched.
  const void* src = nullptr;
  void* dst = nullptr;
  int rounds = 7;          // timed launches per candidate (>= 1): the median is kept
  bool use_wisdom = true;  // false: ignore recorded decisions (a measure plan measures again)
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
  Tuning tuning() const;
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
