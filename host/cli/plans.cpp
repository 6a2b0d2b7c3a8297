// tmakit tune | explain | wisdom: plans from the command line (tmakit/plan.hpp).
//   tune     measure a list of shapes (or a benchmark preset, or the random survey) and
//            keep the decisions as wisdom, in a file when --wisdom names one
//   explain  what a plan of one problem would run, and why
//   wisdom   check a wisdom file and list its decisions (no GPU needed)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>
#include <host/cli/shapes.hpp>
#include <host/transpose/decider.hpp>
#include <tmakit/plan.hpp>

namespace tmakit::cli {
namespace {

bool file_exists(const std::string& path) {
  std::ifstream f(path);
  return static_cast<bool>(f);
}

void tune_usage() {
  std::fprintf(
      stderr,
      "usage: tmakit tune (--shapes LIST | --preset quick|full|probe | --survey N[:SEED])\n"
      "                   [--elem-bytes 1,2,4,8,16] [--rounds N] [--wisdom FILE]\n"
      "  Makes a measure plan (every technique that can run the call timed, L2 flushed,\n"
      "  median of --rounds launches, default 7) for each shape and element size, on\n"
      "  scratch buffers, and prints the decisions. --wisdom FILE: merged with the file's\n"
      "  decisions (read first when it exists) and written back.\n"
      "  LIST: comma-separated ROWSxCOLS or BATCHxROWSxCOLS (as tmakit_bench --shapes).\n");
}

void explain_usage() {
  std::fprintf(stderr,
               "usage: tmakit explain --rows R --cols C [--batch B] [--elem-bytes E]\n"
               "                      [--variant V] [--no-tma] [--measure] [--wisdom FILE]\n"
               "                      [--accumulate f16|bf16|f32|f64|i32 --beta B]\n"
               "                      [--gpu h100|h200]\n"
               "  Prints what a plan of this problem runs and why: the heuristic's rule, the\n"
               "  measured figures of every candidate (--measure), or the wisdom entry.\n"
               "  --gpu: the plan for that GPU's tuning table, made without a GPU (the ranking\n"
               "  and every technique's rules; not with --measure or --wisdom).\n");
}

bool parse_elem_list(const std::string& text, std::vector<int>* out) {
  out->clear();
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    long long v = 0;
    if (!parse_integer(text.substr(at, comma - at), 1, 16, &v) ||
        (v != 1 && v != 2 && v != 4 && v != 8 && v != 16))
      return false;
    out->push_back(static_cast<int>(v));
    at = comma + 1;
  }
  return !out->empty();
}

// Loads --wisdom FILE when it exists; prints and returns false on a bad file.
bool load_existing(const std::string& cmd, const std::string& path) {
  if (path.empty() || !file_exists(path)) return true;
  WisdomLoad loaded;
  if (Status s = load_wisdom(path, &loaded); !s) {
    std::fprintf(stderr, "tmakit %s: %s\n", cmd.c_str(), s.message.c_str());
    return false;
  }
  std::printf("wisdom %s: %d decisions read (%d for this GPU, %d for others: kept, not used)\n",
              path.c_str(), loaded.entries, loaded.for_this_gpu, loaded.for_other_gpus);
  return true;
}

}  // namespace

int run_tune(const std::vector<std::string>& args) {
  std::vector<Shape> shapes;
  std::vector<SurveyCell> cells;
  std::vector<int> elems = {1, 2, 4, 8, 16};
  bool have_elems = false;
  std::string wisdom;
  long long rounds = 7;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string text;
    if (a == "--shapes" || a == "--preset" || a == "--survey") {
      if (!take_value(args, &i, &text)) return arg_error("tune", a + " needs a value");
      if (!shapes.empty() || !cells.empty())
        return arg_error("tune", a + ": give one of --shapes, --preset, --survey");
      std::string why;
      if (a == "--shapes") {
        shapes = parse_shapes(text, &why);
        if (shapes.empty()) return arg_error("tune", "--shapes: " + why);
      } else if (a == "--preset") {
        shapes = preset_shapes(text);
        if (shapes.empty())
          return arg_error("tune", "--preset: '" + text + "' is not quick, full or probe");
      } else {
        const std::size_t colon = text.find(':');
        long long n = 0, seed = 20261127;
        if (!parse_integer(text.substr(0, colon), 1, 100000, &n) ||
            (colon != std::string::npos &&
             !parse_integer(text.substr(colon + 1), 0, 4294967295ll, &seed)))
          return arg_error("tune", "--survey: '" + text + "' is not N or N:SEED");
        cells = survey_cells(static_cast<int>(n), static_cast<unsigned>(seed));
      }
    } else if (a == "--elem-bytes") {
      if (!take_value(args, &i, &text) || !parse_elem_list(text, &elems))
        return arg_error("tune", "--elem-bytes: '" + text + "' is not a list of 1, 2, 4, 8, 16");
      have_elems = true;
    } else if (a == "--rounds") {
      if (!take_integer("tune", args, &i, 1, 1000, &rounds)) return 2;
    } else if (a == "--wisdom") {
      if (!take_value(args, &i, &wisdom)) return arg_error("tune", "--wisdom needs a file name");
    } else if (a == "--help" || a == "-h") {
      tune_usage();
      return 0;
    } else {
      arg_error("tune", "unknown argument '" + a + "'");
      tune_usage();
      return 2;
    }
  }
  if (shapes.empty() && cells.empty())
    return arg_error("tune", "give the problems: --shapes LIST, --preset NAME or --survey N");
  if (!cells.empty() && have_elems)
    return arg_error("tune", "--elem-bytes: the survey draws its own element sizes");
  for (const Shape& s : shapes)
    for (int e : elems) cells.push_back({s, e});
  if (!load_existing("tune", wisdom)) return 1;
  DeviceInfo dev;
  if (Status s = query_device(&dev); !s) return status_error("tune", s);
  std::printf("%s, driver %d, %d problems, %lld rounds\n", dev.name.c_str(), dev.driver_version,
              static_cast<int>(cells.size()), rounds);
  std::printf("%-8s %-22s %3s  %-16s %10s  %-16s %7s  %9s\n", "class", "shape", "E", "fastest",
              "us", "next", "behind", "tune ms");
  std::vector<double> tune_ms;
  int failed = 0;
  for (const SurveyCell& c : cells) {
    TuneOptions tune;
    tune.mode = Tuning::kMeasure;
    tune.rounds = static_cast<int>(rounds);
    tune.use_wisdom = false;
    MatrixLayout lay;
    lay.batch = c.shape.batch;
    Plan plan;
    const Status s = make_plan(&plan, c.shape.rows, c.shape.cols, c.elem_bytes, lay, {}, tune);
    if (!s) {
      std::printf("%-8s %-22s %3d  not tuned: %s\n", c.shape.cls, c.shape.name().c_str(),
                  c.elem_bytes, s.message.c_str());
      ++failed;
      continue;
    }
    tune_ms.push_back(plan.tune_ms());
    // The runner-up and how far behind the winner it was.
    const auto& t = plan.timings();
    const std::string next = t.size() > 1 ? t[1].first : "-";
    const double behind = t.size() > 1 ? 100.0 * (t[1].second / t[0].second - 1) : 0;
    std::printf("%-8s %-22s %3d  %-16s %10.2f  %-16s %+6.1f%%  %9.1f\n", c.shape.cls,
                c.shape.name().c_str(), c.elem_bytes, plan.variant().c_str(), plan.measured_us(),
                next.c_str(), behind, plan.tune_ms());
    std::fflush(stdout);
  }
  if (!tune_ms.empty()) {
    std::sort(tune_ms.begin(), tune_ms.end());
    std::printf("tune time per problem: median %.1f ms, worst %.1f ms (%zu problems)\n",
                tune_ms[tune_ms.size() / 2], tune_ms.back(), tune_ms.size());
  }
  if (!wisdom.empty()) {
    if (Status s = save_wisdom(wisdom); !s) {
      std::fprintf(stderr, "tmakit tune: %s\n", s.message.c_str());
      return 1;
    }
    std::printf("wisdom %s: %d decisions written\n", wisdom.c_str(), wisdom_size());
  }
  return failed == 0 ? 0 : 1;
}

// The problem's flags that `explain` and `rank` share: --rows, --cols, --batch, --elem-bytes,
// --accumulate TYPE, --beta B.
struct ProblemArgs {
  long long rows = 0, cols = 0, batch = 1, e = 4;
  std::string acc_type;  // empty: a transpose; else `type`'s name
  DataType type = DataType::kF32;
  double beta = 1;
  bool have_beta = false;
};

// -1: args[*i] is none of them; 0: taken (with its value); 2: a bad value, said.
int take_problem_arg(const char* cmd, const std::vector<std::string>& args, std::size_t* i,
                     ProblemArgs* p) {
  const std::string& a = args[*i];
  std::string text;
  if (a == "--rows" || a == "--cols" || a == "--batch") {
    long long v = 0;
    if (!take_integer(cmd, args, i, 1, 1ll << 40, &v)) return 2;
    (a == "--rows" ? p->rows : a == "--cols" ? p->cols : p->batch) = v;
  } else if (a == "--elem-bytes") {
    if (!take_integer(cmd, args, i, 1, 16, &p->e)) return 2;
    if (p->e != 1 && p->e != 2 && p->e != 4 && p->e != 8 && p->e != 16)
      return arg_error(cmd, "--elem-bytes: " + std::to_string(p->e) + " is not 1, 2, 4, 8 or 16");
  } else if (a == "--accumulate") {
    bool known = take_value(args, i, &p->acc_type) && !p->acc_type.empty();
    if (known) {
      known = false;
      for (DataType t :
           {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32})
        if (p->acc_type == to_string(t)) {
          p->type = t;
          known = true;
        }
    }
    if (!known)
      return arg_error(cmd,
                       "--accumulate: '" + p->acc_type + "' is not f16, bf16, f32, f64 or i32");
  } else if (a == "--beta") {
    if (!take_value(args, i, &text)) return arg_error(cmd, "--beta needs a number");
    char* end = nullptr;
    p->beta = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      return arg_error(cmd, "--beta: '" + text + "' is not a number");
    p->have_beta = true;
  } else {
    return -1;
  }
  return 0;
}

int run_explain(const std::vector<std::string>& args) {
  ProblemArgs pa;
  std::string variant = "auto", wisdom, gpu;
  bool measure = false, no_tma = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (const int rc = take_problem_arg("explain", args, &i, &pa); rc >= 0) {
      if (rc > 0) return rc;
    } else if (a == "--variant") {
      if (!take_value(args, &i, &variant))
        return arg_error("explain", "--variant needs a technique");
      if (std::string why = check_technique(variant, true); !why.empty())
        return arg_error("explain", "--variant: " + why);
    } else if (a == "--wisdom") {
      if (!take_value(args, &i, &wisdom)) return arg_error("explain", "--wisdom needs a file name");
      if (!file_exists(wisdom))
        return arg_error("explain", "--wisdom: cannot open '" + wisdom + "'");
    } else if (a == "--measure") {
      measure = true;
    } else if (a == "--gpu") {
      TableGpu t;
      if (!take_value(args, &i, &gpu) || !tuning_table_gpu(gpu, &t))
        return arg_error("explain",
                         "--gpu: '" + gpu + "' is not a tuning table's GPU (h100, h200)");
    } else if (a == "--no-tma") {
      no_tma = true;
    } else if (a == "--help" || a == "-h") {
      explain_usage();
      return 0;
    } else {
      arg_error("explain", "unknown argument '" + a + "'");
      explain_usage();
      return 2;
    }
  }
  if (pa.rows == 0 || pa.cols == 0) return arg_error("explain", "--rows and --cols are required");
  if (pa.have_beta && pa.acc_type.empty())
    return arg_error("explain", "--beta goes with --accumulate");
  if (!gpu.empty() && (measure || !wisdom.empty()))
    return arg_error("explain", std::string("--gpu describes a GPU without using one: it cannot ") +
                                    (measure ? "--measure" : "read --wisdom (this GPU's)"));
  const long long rows = pa.rows, cols = pa.cols, batch = pa.batch, e = pa.e;
  const std::string& acc_type = pa.acc_type;
  const double beta = pa.beta;
  if (!load_existing("explain", wisdom)) return 1;
  TransposeOptions opt;
  opt.variant = variant;
  opt.allow_tma = !no_tma;
  TuneOptions tune;
  tune.mode = measure ? Tuning::kMeasure : Tuning::kHeuristic;
  tune.gpu = gpu;
  MatrixLayout lay;
  lay.batch = batch;
  Plan plan;
  Status s;
  if (acc_type.empty()) {
    s = make_plan(&plan, rows, cols, static_cast<int>(e), lay, opt, tune);
  } else {
    s = make_accumulate_plan(&plan, rows, cols, pa.type, 1.0, beta, lay, opt, tune);
  }
  if (!s) return status_error("explain", s);
  std::fputs(plan.explain().c_str(), stdout);
  return 0;
}

int run_wisdom(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr,
                 "usage: tmakit wisdom FILE   check a wisdom file and print its decisions\n");
    return args.size() == 1 && (args[0] == "--help" || args[0] == "-h") ? 0 : 2;
  }
  clear_wisdom();
  WisdomLoad loaded;
  if (Status s = load_wisdom(args[0], &loaded); !s) {
    std::fprintf(stderr, "tmakit wisdom: %s\n", s.message.c_str());
    return 1;
  }
  std::printf("# %d decisions (%d for the GPU here, %d for other GPUs or drivers)\n",
              loaded.entries, loaded.for_this_gpu, loaded.for_other_gpus);
  std::fputs(export_wisdom().c_str(), stdout);
  return 0;
}

}  // namespace tmakit::cli

namespace tmakit::cli {

// tmakit rank: the one decider's ranking for problems, without a GPU (host/transpose/decider.hpp).
int run_rank(const std::vector<std::string>& args) {
  ProblemArgs pa;
  std::string gpu = "h100", cells;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (const int rc = take_problem_arg("rank", args, &i, &pa); rc >= 0) {
      if (rc > 0) return rc;
    } else if (a == "--gpu") {
      if (!take_value(args, &i, &gpu)) return arg_error("rank", "--gpu needs h100, h200 or a name");
    } else if (a == "--cells") {
      if (!take_value(args, &i, &cells))
        return arg_error("rank", "--cells needs a file (- for stdin)");
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: tmakit rank --rows R --cols C [--batch B] [--elem-bytes E | --accumulate TYPE\n"
          "                   [--beta B]] [--gpu h100|h200|NAME]\n"
          "       tmakit rank --cells FILE [--gpu ...]   lines 'KIND E BATCH ROWS COLS' (KIND\n"
          "                   transpose, accumulate or accumulate0): each one's ranked tokens\n"
          "The one decider's ranking (host/transpose/decider.hpp) on a GPU's tuning table; no\n"
          "GPU needed. A plan runs the first of it that can run the call.\n");
      return 0;
    } else {
      return arg_error("rank", "unknown argument '" + a + "' (--help)");
    }
  }
  TableGpu table;  // a table's short name (h100, h200) as its GPU's; any other name as given
  const std::string name = tuning_table_gpu(gpu, &table) ? table.name : gpu;
  if (!cells.empty()) {
    std::ifstream file;
    if (cells != "-") {
      file.open(cells);
      if (!file) return arg_error("rank", "--cells: cannot open '" + cells + "'");
    }
    std::istream& in = cells == "-" ? std::cin : file;
    std::string kind;
    long long ce = 0, cb = 0, cr = 0, cc = 0;
    while (in >> kind >> ce >> cb >> cr >> cc) {
      const Problem p{kind == "accumulate"    ? ProblemKind::kAccumulate
                      : kind == "accumulate0" ? ProblemKind::kAccumulateBeta0
                                              : ProblemKind::kTranspose,
                      static_cast<int>(ce), cb, cr, cc};
      const Ranking r = rank_techniques(name, 0, p);
      std::string line;
      for (const auto& [token, ratio] : r.ranked) line += (line.empty() ? "" : " ") + token;
      std::printf("%s\n", line.empty() ? last_resort_technique(p).c_str() : line.c_str());
    }
    return 0;
  }
  if (pa.rows == 0 || pa.cols == 0)
    return arg_error("rank", "--rows and --cols are required (--help)");
  const ProblemKind kind = pa.acc_type.empty() ? ProblemKind::kTranspose
                           : pa.beta == 0      ? ProblemKind::kAccumulateBeta0
                                               : ProblemKind::kAccumulate;
  const int e = pa.acc_type.empty() ? static_cast<int>(pa.e) : data_type_bytes(pa.type);
  const Problem p{kind, e, pa.batch, pa.rows, pa.cols};
  std::printf("%s\n", explain_ranking(name, 0, p).c_str());
  return 0;
}

}  // namespace tmakit::cli
