// `tmakit banks`: the host bank model (host/bank_model.hpp) replayed over a technique's shared
// accesses: per instruction site, predicted wavefronts per request and the conflict-free ideal.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <host/bank_model.hpp>
#include <host/cli/commands.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::cli {

int run_banks(const std::vector<std::string>& args) {
  std::string variant;
  int e = 4, sw = -1;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has = i + 1 < args.size();
    if (a == "--variant" && has)
      variant = args[++i];
    else if (a == "--elem-bytes" && has)
      e = std::atoi(args[++i].c_str());
    else if (a == "--swizzle" && has)
      sw = std::atoi(args[++i].c_str());
    else {
      std::fprintf(stderr,
                   "usage: tmakit banks [--variant V] [--elem-bytes E] [--swizzle 0|32|64|128]\n"
                   "Predicted shared-memory wavefronts per request of each shared load/store of\n"
                   "a technique (all techniques without --variant; every swizzle mode of a TMA\n"
                   "technique without --swizzle), from the sm_90 bank model.\n");
      return 2;
    }
  }
  std::printf("%-16s %-5s %-4s %-58s %9s %9s %7s\n", "variant", "swz", "E", "site", "wf/req",
              "ideal", "ways");
  int printed = 0;
  for (const VariantInfo& v : variants()) {
    if (!variant.empty() && v.token != variant) continue;
    if (!v.supports_elem_bytes(e)) {
      if (!variant.empty())
        std::printf("%-16s does not take %d-byte elements\n", v.token.c_str(), e);
      continue;
    }
    std::vector<int> sws = {0};
    if (!v.swizzle_axis_bytes.empty()) sws = sw >= 0 ? std::vector<int>{sw} : v.swizzle_axis_bytes;
    for (int s : sws) {
      std::string why;
      const std::vector<AccessReport> r = technique_bank_report(v.token, e, s, &why);
      if (r.empty()) {
        if (!variant.empty()) std::printf("%-16s %s\n", v.token.c_str(), why.c_str());
        continue;
      }
      for (const AccessReport& a : r) {
        std::printf("%-16s %-5s %-4d %-58s %9.2f %9.2f %6.2fx\n", v.token.c_str(),
                    v.swizzle_axis_bytes.empty() ? "-" : std::to_string(s).c_str(), e,
                    a.site.c_str(), a.per_request(), a.ideal_per_request(),
                    a.per_request() / a.ideal_per_request());
        ++printed;
      }
    }
  }
  return printed > 0 ? 0 : 1;
}

}  // namespace tmakit::cli
