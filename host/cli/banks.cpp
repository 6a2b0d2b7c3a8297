// `tmakit banks`: the host bank model (host/tools/bank_model.hpp) replayed over a technique's
// shared accesses: per instruction site, predicted wavefronts per request and the conflict-free
// ideal.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
#include <host/tools/bank_model.hpp>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::cli {

namespace {

// The site a figure should outline: the most conflicted one, a load on ties (the column read).
const AccessReport& worst_site(const std::vector<AccessReport>& r) {
  const AccessReport* best = &r.front();
  for (const AccessReport& a : r) {
    const double ways = a.per_request() / a.ideal_per_request();
    const double best_ways = best->per_request() / best->ideal_per_request();
    if (ways > best_ways + 1e-9 || (ways > best_ways - 1e-9 && !a.is_store && best->is_store))
      best = &a;
  }
  return *best;
}

int write_svg(const std::string& variant, int e, int sw, const std::string& path) {
  std::string why;
  const std::vector<AccessReport> r = technique_bank_report(variant, e, sw, &why);
  const TileMap map = technique_tile_map(variant, e, sw, &why);
  if (r.empty() || map.cells.empty()) {
    std::fprintf(stderr, "tmakit banks: cannot draw %s with %d-byte elements: %s\n",
                 variant.c_str(), e, why.c_str());
    return 1;
  }
  const AccessReport& site = worst_site(r);
  const Wavefronts first = shared_wavefronts(site.first, site.width_bytes);
  std::string title = variant + ", " + std::to_string(e) + "-byte elements";
  if (!find_variant(variant)->swizzle_axis_bytes.empty() || variant == "int4_8x8")
    title += sw > 0 ? ", " + std::to_string(sw) + "B swizzle" : ", no swizzle";
  char sub[256];
  std::snprintf(sub, sizeof sub,
                "outlined: one warp request of \"%s\": %d wavefronts (ideal %d); site average "
                "%.2f per request",
                site.site.c_str(), first.actual, first.ideal, site.per_request());
  std::string esc;  // the site strings hold no markup but '&' and '<' would break the SVG
  for (char ch : std::string(sub))
    esc += ch == '<' ? std::string("&lt;") : ch == '&' ? std::string("&amp;") : std::string(1, ch);
  std::ofstream out(path);
  if (!out) {
    std::fprintf(stderr, "tmakit banks: cannot write %s\n", path.c_str());
    return 1;
  }
  out << bank_map_svg(title, esc, map, &site.first, site.width_bytes);
  std::printf("wrote %s (%s)\n", path.c_str(), title.c_str());
  return out.good() ? 0 : 1;
}

}  // namespace

int run_banks(const std::vector<std::string>& args) {
  std::string variant, svg;
  bool csv = false;
  int e = 4, sw = -1;
  long long rows = 0, cols = 0, batch = 1, tile_bytes = 16384;  // smem_flat's call
  auto usage = [] {
    std::fprintf(stderr,
                 "usage: tmakit banks [--variant V] [--elem-bytes E] [--swizzle 0|32|64|128]\n"
                 "                    [--csv] [--svg FILE]\n"
                 "       tmakit banks --variant smem_flat --rows R --cols C [--batch B]\n"
                 "                    [--elem-bytes E] [--tile-bytes T] [--csv]\n"
                 "Predicted shared-memory wavefronts per request of each shared load/store of\n"
                 "a technique (all techniques without --variant; every swizzle mode of a TMA\n"
                 "technique without --swizzle), from the sm_90 bank model. --csv prints\n"
                 "machine-readable rows; --svg FILE draws the bank map of one tile of\n"
                 "--variant (swizzle 0 unless given), outlining its most conflicted request.\n"
                 "smem_flat's shared loads depend on the call: its gather (element loads of\n"
                 "whole destination chunks, and the offset table's) over the first 40 units of\n"
                 "a dense call of B matrices of R x C, units of about T bytes (16384; the\n"
                 "launcher takes 32768 on HBM3e for a short side >= 16).\n");
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    long long v = 0;
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    } else if (a == "--variant") {
      if (!take_value(args, &i, &variant))
        return arg_error("banks", "--variant needs a technique token (see `tmakit list`)");
      if (std::string why = check_technique(variant, false); !why.empty())
        return arg_error("banks", "--variant: " + why);
    } else if (a == "--elem-bytes") {
      if (!take_integer("banks", args, &i, 1, 16, &v)) return 2;
      if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
        return arg_error("banks",
                         "--elem-bytes: " + std::to_string(v) + " is not 1, 2, 4, 8 or 16");
      e = static_cast<int>(v);
    } else if (a == "--swizzle") {
      if (!take_integer("banks", args, &i, 0, 128, &v)) return 2;
      if (v != 0 && v != 32 && v != 64 && v != 128)
        return arg_error("banks", "--swizzle: " + std::to_string(v) + " is not 0, 32, 64 or 128");
      sw = static_cast<int>(v);
    } else if (a == "--rows" || a == "--cols" || a == "--batch") {
      if (!take_integer("banks", args, &i, 1, 1LL << 31, &v)) return 2;
      (a == "--rows" ? rows : a == "--cols" ? cols : batch) = v;
    } else if (a == "--tile-bytes") {
      if (!take_integer("banks", args, &i, 4096, 32768, &tile_bytes)) return 2;
    } else if (a == "--svg") {
      if (!take_value(args, &i, &svg)) return arg_error("banks", "--svg needs a file name");
    } else if (a == "--csv") {
      csv = true;
    } else {
      arg_error("banks", "unknown argument '" + a + "'");
      usage();
      return 2;
    }
  }
  if (!variant.empty() && !find_variant(variant)->supports_elem_bytes(e))
    return arg_error("banks", "--variant " + variant + " does not take " + std::to_string(e) +
                                  "-byte elements (--elem-bytes)");
  if (rows > 0 || cols > 0) {
    if (variant != "smem_flat" || rows == 0 || cols == 0)
      return arg_error("banks", "--rows and --cols go with --variant smem_flat, which needs both");
    std::string why;
    const std::vector<AccessReport> r =
        flat_gather_bank_report(rows, cols, batch, e, static_cast<int>(tile_bytes), &why);
    if (r.empty()) return arg_error("banks", "smem_flat: " + why);
    for (const AccessReport& a : r)
      if (csv)
        std::printf("smem_flat,%lld,%lld,%lld,%d,%lld,%d,%ld,%ld,%ld,\"%s\"\n", batch, rows, cols,
                    e, tile_bytes, a.width_bytes, a.requests, a.wavefronts, a.ideal,
                    a.site.c_str());
      else
        std::printf("smem_flat %lldx%lldx%lld E=%d tile %lld: %-24s %8.2f wf/req (ideal %.2f)\n",
                    batch, rows, cols, e, tile_bytes, a.site.c_str(), a.per_request(),
                    a.ideal_per_request());
    return 0;
  }
  if (!svg.empty()) {
    if (variant.empty()) return arg_error("banks", "--svg needs --variant (the technique to draw)");
    return write_svg(variant, e, sw < 0 ? 0 : sw, svg);
  }
  if (csv)
    std::printf(
        "variant,swizzle_bytes,elem_bytes,kind,width_bytes,requests,wavefronts,ideal,site\n");
  else
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
        if (csv) {
          std::printf("%s,%d,%d,%s,%d,%ld,%ld,%ld,\"%s\"\n", v.token.c_str(), s, e,
                      a.is_store ? "st" : "ld", a.width_bytes, a.requests, a.wavefronts, a.ideal,
                      a.site.c_str());
          ++printed;
          continue;
        }
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
