// tmakit: the command-line front end.
//   tmakit [--rows R] [--cols C] [--elem-bytes E] [--variant V] [--iters N] [--json]
//   tmakit list
//   tmakit tune | explain | wisdom | rank ...   plans and the decider (host/cli/plans.cpp)
//   tmakit permute --shape ... --perm ...  permutations (host/cli/permute.cpp)
//   tmakit permute-cases --seeds A-B  the permute preset's random cases (host/cli/permute.cpp)
//   tmakit --help
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>

namespace {

void usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: tmakit [options]        verify and time every variant (a table)\n"
      "       tmakit list             print the variant registry\n"
      "       tmakit tensormap ...    validate and explain a tensor map (--help)\n"
      "       tmakit banks ...        predicted shared-memory bank conflicts (--help)\n"
      "       tmakit tune ...         measure shapes, keep the fastest as wisdom (--help)\n"
      "       tmakit explain ...      what a plan runs for a problem, and why (--help)\n"
      "       tmakit rank ...         the decider's ranking for a problem, no GPU (--help)\n"
      "       tmakit wisdom FILE      check a wisdom file and print its decisions\n"
      "       tmakit permute ...      verify and time a tensor permutation (--help)\n"
      "       tmakit permute-cases ... the permute preset's random cases and their walks\n"
      "       tmakit --help           this text\n"
      "\n"
      "options for the table:\n"
      "  --rows R          matrix rows (default 8192)\n"
      "  --cols C          matrix columns (default 8192)\n"
      "  --elem-bytes E    element size in bytes: 1, 2, 4, 8, 16 (default 4)\n"
      "  --variant V[,W]  only these variants (tokens from `tmakit list`, or auto)\n"
      "  --iters N         timed runs per variant, median reported (default 20, >= 1)\n"
      "  --swizzle S       TMA techniques: swizzle bytes 0, 32, 64 or 128 (default: 128)\n"
      "  --barrier B       TMA techniques: ptx or cuda_barrier (default: ptx)\n"
      "  --axes            a row for every swizzle mode x barrier style of each TMA\n"
      "                    technique\n"
      "  --json            print JSON instead of the table\n"
      "\n"
      "Each variant's output is compared bit for bit with the CPU reference before it\n"
      "is timed. Times are CUDA-event medians with L2 flushed before each run; GB/s\n"
      "counts bytes read + written (2 x rows x cols x elem bytes, decimal); \"%% copy\"\n"
      "is relative to the best copy (cudaMemcpyAsync D2D or the `copy` kernel) measured\n"
      "in the same run.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    usage(stdout);
    return 0;
  }
  if (!args.empty() && args[0] == "list") {
    if (args.size() > 1)
      return tmakit::cli::arg_error("list", "takes no arguments (got '" + args[1] + "')");
    return tmakit::cli::run_list();
  }
  if (!args.empty() && args[0] == "banks")
    return tmakit::cli::run_banks(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && (args[0] == "tune" || args[0] == "explain" || args[0] == "wisdom")) {
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    return args[0] == "tune"      ? tmakit::cli::run_tune(rest)
           : args[0] == "explain" ? tmakit::cli::run_explain(rest)
                                  : tmakit::cli::run_wisdom(rest);
  }
  if (!args.empty() && args[0] == "rank")
    return tmakit::cli::run_rank(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "permute-cases")
    return tmakit::cli::run_permute_cases(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "permute")
    return tmakit::cli::run_permute(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "tensormap")
    return tmakit::cli::run_tensormap(std::vector<std::string>(args.begin() + 1, args.end()));

  using tmakit::cli::arg_error;
  tmakit::cli::TableOptions opt;
  // Every value is checked here, whole, before the table touches a GPU.
  constexpr long long kMaxSide = 1ll << 31;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    long long v = 0;
    std::string text;
    auto integer = [&](long long lo, long long hi) {
      return tmakit::cli::take_integer("", args, &i, lo, hi, &v);
    };
    if (a == "--rows") {
      if (!integer(1, kMaxSide)) return 2;
      opt.rows = v;
    } else if (a == "--cols") {
      if (!integer(1, kMaxSide)) return 2;
      opt.cols = v;
    } else if (a == "--elem-bytes") {
      if (!integer(1, 16)) return 2;
      if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
        return arg_error("", "--elem-bytes: " + std::to_string(v) + " is not 1, 2, 4, 8 or 16");
      opt.elem_bytes = static_cast<int>(v);
    } else if (a == "--iters") {
      if (!integer(1, 100000)) return 2;
      opt.iters = static_cast<int>(v);
    } else if (a == "--variant") {
      if (!tmakit::cli::take_value(args, &i, &text))
        return arg_error("",
                         "--variant needs a technique token or a comma-separated list (see "
                         "`tmakit list`)");
      std::size_t at = 0;
      while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (std::string why = tmakit::cli::check_technique(text.substr(at, comma - at), true);
            !why.empty())
          return arg_error("", "--variant: " + why);
        at = comma + 1;
      }
      opt.variant = text;
    } else if (a == "--swizzle") {
      if (!integer(0, 128)) return 2;
      if (v != 0 && v != 32 && v != 64 && v != 128)
        return arg_error("", "--swizzle: " + std::to_string(v) + " is not 0, 32, 64 or 128");
      opt.swizzle_bytes = static_cast<int>(v);
    } else if (a == "--barrier") {
      if (!tmakit::cli::take_value(args, &i, &text))
        return arg_error("", "--barrier needs ptx or cuda_barrier");
      if (text != "ptx" && text != "cuda_barrier")
        return arg_error("", "--barrier: '" + text + "' is not ptx or cuda_barrier");
      opt.barrier = text;
    } else if (a == "--axes") {
      opt.all_axes = true;
    } else if (a == "--json") {
      opt.json = true;
    } else {
      arg_error("", "unknown argument '" + a + "' (see tmakit --help)");
      return 2;
    }
  }
  return tmakit::cli::run_table(opt);
}
