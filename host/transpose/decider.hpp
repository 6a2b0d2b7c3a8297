// The one decider: every technique choice tmakit makes (auto for transposes of every shape,
// transpose-accumulate by its beta class, the fallback of a named technique that cannot run a
// call, the technique a plan runs on operands that break its alignment) is the first entry of
// one ranking that can run the call. The ranking comes from the GPU's tuning table
// (host/transpose/tuning/*.inc, measured data that scripts/tuning_table.py regenerates): the
// measured cells nearest the problem in a feature space of what explains the kernels' speed
// (bytes moved, bytes per source and destination row, each side's 16-byte and the destination's
// 32-byte row alignment, a batch or not), each technique scored by its time over the fastest in
// those cells (docs/plans.md says how the data is made and how the ranking is judged on shapes
// it never saw).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tmakit {

// What a ranking is for: a transpose, or a transpose-accumulate that reads dst (beta != 0) or
// does not (beta == 0), the two classes the accumulate data is measured in.
enum class ProblemKind { kTranspose, kAccumulate, kAccumulateBeta0 };

// An aggregate: Problem{kind, elem_bytes, batch, rows, cols}.
struct Problem {
  ProblemKind kind = ProblemKind::kTranspose;
  int elem_bytes = 0;
  std::int64_t batch = 1, rows = 0, cols = 0;
};

struct Ranking {
  std::string table;    // the GPU whose data ranked it; "" when no table has cells of its class
  int cells = 0;        // the measured cells it was ranked from
  double distance = 0;  // the farthest of them
  std::vector<std::pair<std::string, double>> ranked;  // token, predicted time over the fastest
};

// The ranking on the table of `gpu_name` (by name), else of the table whose GPU's peak DRAM
// bandwidth is nearest `dram_gbps` (0: the first table's).
Ranking rank_techniques(const std::string& gpu_name, double dram_gbps, const Problem& p);

// The last resort for a class without data (no table cell of its kind and element size): a
// technique that runs every call of its kind, chosen by shape class alone.
std::string last_resort_technique(const Problem& p);

// One line: the problem, the table, the cells and their distance, the first five techniques with
// their predicted time over the fastest (or the last resort): `tmakit rank` prints it.
std::string explain_ranking(const std::string& gpu_name, double dram_gbps, const Problem& p);

// The GPU of a compiled table, named by the table's file name ("h100", "h200") or by the GPU's
// name: what a plan made with TuneOptions::gpu is described for (no device queried). False when
// no table has that name.
struct TableGpu {
  std::string name;  // as the device reports it: "NVIDIA H100 80GB HBM3"
  double dram_gbps = 0;
  int sm_count = 0;
};
bool tuning_table_gpu(const std::string& name, TableGpu* out);

// The tables compiled in: "gpu name (cells)" each, for messages and `tmakit list`.
std::vector<std::string> tuning_tables();

}  // namespace tmakit
