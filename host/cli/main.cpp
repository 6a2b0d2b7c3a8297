// tmakit: the command-line front end.
//   tmakit [--rows R] [--cols C] [--elem-bytes E] [--variant V] [--iters N] [--json]
//   tmakit list
//   tmakit --help
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <host/cli/commands.hpp>

namespace {

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: tmakit [options]        verify and time every variant (a table)\n"
               "       tmakit list             print the variant registry\n"
               "       tmakit tensormap ...    validate and explain a tensor map (--help)\n"
               "       tmakit banks ...        predicted shared-memory bank conflicts (--help)\n"
               "       tmakit --help           this text\n"
               "\n"
               "options for the table:\n"
               "  --rows R          matrix rows (default 8192)\n"
               "  --cols C          matrix columns (default 8192)\n"
               "  --elem-bytes E    element size in bytes: 1, 2, 4, 8 (default 4)\n"
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

bool parse_int(const char* text, long long* out) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0') return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    usage(stdout);
    return 0;
  }
  if (!args.empty() && args[0] == "list") return tmakit::cli::run_list();
  if (!args.empty() && args[0] == "banks")
    return tmakit::cli::run_banks(std::vector<std::string>(args.begin() + 1, args.end()));
  if (!args.empty() && args[0] == "tensormap")
    return tmakit::cli::run_tensormap(std::vector<std::string>(args.begin() + 1, args.end()));

  tmakit::cli::TableOptions opt;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto need_value = [&](long long* v) {
      if (i + 1 >= args.size() || !parse_int(args[i + 1].c_str(), v)) {
        std::fprintf(stderr, "tmakit: %s needs an integer value\n", a.c_str());
        return false;
      }
      ++i;
      return true;
    };
    long long v = 0;
    if (a == "--rows") {
      if (!need_value(&v)) return 2;
      opt.rows = v;
    } else if (a == "--cols") {
      if (!need_value(&v)) return 2;
      opt.cols = v;
    } else if (a == "--elem-bytes") {
      if (!need_value(&v)) return 2;
      opt.elem_bytes = static_cast<int>(v);
    } else if (a == "--iters") {
      if (!need_value(&v)) return 2;
      opt.iters = static_cast<int>(v);
    } else if (a == "--variant") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "tmakit: --variant needs a token (see `tmakit list`)\n");
        return 2;
      }
      opt.variant = args[++i];
    } else if (a == "--swizzle") {
      if (!need_value(&v)) return 2;
      opt.swizzle_bytes = static_cast<int>(v);
    } else if (a == "--barrier") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "tmakit: --barrier needs ptx or cuda_barrier\n");
        return 2;
      }
      opt.barrier = args[++i];
    } else if (a == "--axes") {
      opt.all_axes = true;
    } else if (a == "--json") {
      opt.json = true;
    } else {
      std::fprintf(stderr, "tmakit: unknown argument '%s'\n\n", a.c_str());
      usage(stderr);
      return 2;
    }
  }
  return tmakit::cli::run_table(opt);
}
