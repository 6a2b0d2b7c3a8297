// tmakit permute: what a permutation reduces to, then each technique that can run it verified
// against the CPU reference and timed, next to cudaMemcpyAsync of the same bytes.
//   tmakit permute --shape 8,4096,32,128 --perm 0,2,1,3 [--elem-bytes 2] [--variant V,W]
//                  [--iters N] [--tune] [--explain]
// tmakit permute-cases: the permute preset's random cases with the walk permute_tile takes for
// each (no GPU), or benchmark filters of those of chosen walks (an A/B of one walk's lever).
//   tmakit permute-cases --seeds 1,8,341-352 [--walk box-registers] [--changed-by POLICY]
//                        [--explain-has TEXT]
//                        [--filter permute_tile,memcpy]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>
#include <host/cli/operands.hpp>
#include <host/cli/shapes.hpp>
#include <host/device_policy.hpp>
#include <host/error.hpp>
#include <host/tools/scoped_env.hpp>
#include <host/tools/testdata.hpp>
#include <host/tools/timing.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::cli {
namespace {

constexpr const char* kCmd = "permute";

// "auto, permute_tile, ...": what --variant takes (the permutation registry's techniques).
std::string variant_words() {
  std::string s = "auto";
  for (const VariantInfo& v : permute_variants()) s += ", " + v.token;
  return s;
}

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: tmakit permute --shape N0,N1,... --perm P0,P1,... [options]\n"
               "  --shape LIST      src extents, outermost first (rank 1-8)\n"
               "  --perm LIST       dst dimension d is src dimension perm[d] (x.permute(perm))\n"
               "  --elem-bytes E    1, 2, 4, 8 or 16 (default 4)\n"
               "  --variant V[,W]   only these (default: auto, permute_tma, permute_tile), of\n"
               "                    %s\n"
               "  --iters N         timed runs per technique, median reported (default 20)\n"
               "  --tune            then tune_permute: every candidate timed (measure mode's\n"
               "                    clock), the fastest kept as wisdom and its output verified\n"
               "  --explain         print the reduction, the kernels' walk and permute_tma's\n"
               "                    tensor maps (no GPU needed), then stop\n"
               "\n"
               "Prints the reduction (extents of 1 dropped, dimensions that stay adjacent fused:\n"
               "a copy, a transpose that transpose() runs, whole rows, or a tile in a batch),\n"
               "then each technique's output compared bit for bit with reference_permute and\n"
               "its CUDA-event median with L2 flushed; GB/s counts bytes read + written; %%\n"
               "memcpy is against cudaMemcpyAsync of the same bytes in the same run.\n",
               variant_words().c_str());
}

bool parse_list(const std::string& text, long long lo, long long hi, std::vector<long long>* out) {
  out->clear();
  for (const std::string& piece : split_commas(text)) {
    long long v = 0;
    if (!parse_integer(piece, lo, hi, &v)) return false;
    out->push_back(v);
  }
  return !out->empty();
}

int fail(const Status& s) {
  return status_error("permute", s);
}

}  // namespace

int run_permute(const std::vector<std::string>& args) {
  std::vector<std::int64_t> extents;
  std::vector<int> perm;
  int elem_bytes = 4, iters = 20;
  std::vector<std::string> tokens = {"auto", "permute_tma", "permute_tile"};
  bool have_shape = false, have_perm = false, explain = false, tune = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string text;
    std::vector<long long> list;
    long long v = 0;
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    } else if (a == "--shape") {
      if (!take_value(args, &i, &text) || !parse_list(text, 1, 1ll << 40, &list))
        return arg_error(
            kCmd, "--shape needs a comma-separated list of extents >= 1 (got '" + text + "')");
      extents.assign(list.begin(), list.end());
      have_shape = true;
    } else if (a == "--perm") {
      if (!take_value(args, &i, &text) || !parse_list(text, 0, 63, &list))
        return arg_error(kCmd,
                         "--perm needs a comma-separated list of dimensions (got '" + text + "')");
      perm.assign(list.begin(), list.end());
      have_perm = true;
    } else if (a == "--explain") {
      explain = true;
    } else if (a == "--tune") {
      tune = true;
    } else if (a == "--elem-bytes") {
      if (!take_integer(kCmd, args, &i, 1, 16, &v)) return 2;
      elem_bytes = static_cast<int>(v);
    } else if (a == "--iters") {
      if (!take_integer(kCmd, args, &i, 1, 100000, &v)) return 2;
      iters = static_cast<int>(v);
    } else if (a == "--variant") {
      if (!take_value(args, &i, &text))
        return arg_error(kCmd, "--variant needs one of " + variant_words() + ", or a list");
      tokens = split_commas(text);
      for (const std::string& t : tokens)
        if (t != "auto" && find_permute_variant(t) == nullptr)
          return arg_error(kCmd, "--variant: '" + t + "' is not one of " + variant_words());
    } else {
      return arg_error(kCmd, "unknown argument '" + a + "' (see tmakit permute --help)");
    }
  }
  if (!have_shape) return arg_error(kCmd, "--shape is required");
  if (!have_perm) return arg_error(kCmd, "--perm is required");
  PermuteReduction red;
  if (Status s = reduce_permutation(extents, perm, elem_bytes, {}, &red); !s)
    return arg_error(kCmd, s.message);
  if (explain) {
    std::fputs(explain_permute(extents, perm, elem_bytes).c_str(), stdout);
    return 0;
  }

  DeviceInfo dev;
  if (Status s = query_device(&dev); !s) return fail(s);
  std::printf("device %d: %s, compute capability %d.%d, driver %d.%d\n", dev.device,
              dev.name.c_str(), dev.cc / 10, dev.cc % 10, dev.driver_version / 1000,
              (dev.driver_version % 1000) / 10);
  std::printf("reduces to %s\n", red.to_string().c_str());
  std::int64_t n = 1;
  for (std::int64_t x : extents) n *= x;
  const std::size_t bytes = static_cast<std::size_t>(n) * elem_bytes;
  const double moved = 2.0 * static_cast<double>(bytes);
  std::vector<unsigned char> h_src, h_ref(bytes), h_out(bytes);
  fill_index_pattern(h_src, n, elem_bytes);
  if (Status s = reference_permute(h_src.data(), h_ref.data(), extents, perm, elem_bytes); !s)
    return fail(s);
  TimedOperands ops;  // src, dst, the L2 flusher, and cudaMemcpyAsync timed
  if (Status s = prepare_operands(h_src, dev.l2_bytes, 3, iters, &ops); !s) return fail(s);
  const TimingStats& copy = ops.memcpy;
  L2Flusher& flusher = ops.flusher;
  DeviceBuffer &d_src = ops.src, &d_dst = ops.dst;
  const double copy_gbps = gbps(moved, copy.median_ms);
  std::printf("%lld elements of %d bytes, %.1f MB moved per run; cudaMemcpyAsync %.1f GB/s\n\n",
              static_cast<long long>(n), elem_bytes, moved / 1e6, copy_gbps);
  std::printf("%-14s %-16s %10s %10s %9s %9s  %s\n", "variant", "ran", "time_ms", "GB/s", "%memcpy",
              "verified", "note");
  int failures = 0;
  for (const std::string& token : tokens) {
    TransposeOptions o;
    o.variant = token;
    cudaMemset(d_dst.p, kPoisonByte, bytes);
    const Status ran = permute(d_src.p, d_dst.p, extents, perm, elem_bytes, {}, o);
    Status s = ran;
    if (s) s = cuda_status(cudaDeviceSynchronize(), "kernel execution");
    if (s)
      s = cuda_status(cudaMemcpy(h_out.data(), d_dst.p, bytes, cudaMemcpyDeviceToHost),
                      "cudaMemcpy(dst)");
    if (!s) {
      std::printf("%-14s %-16s %10s %10s %9s %9s  %s\n", token.c_str(), "-", "-", "-", "-", "NO",
                  s.message.c_str());
      ++failures;
      if (s.code == StatusCode::kCudaError) break;
      continue;
    }
    const bool verified = std::memcmp(h_out.data(), h_ref.data(), bytes) == 0;
    failures += verified ? 0 : 1;
    TimingStats st;
    s = time_launches([&] { return permute(d_src.p, d_dst.p, extents, perm, elem_bytes, {}, o); },
                      3, iters, &flusher, nullptr, &st);
    if (!s) return fail(s);
    const double g = gbps(moved, st.median_ms);
    std::string note = ran.fallback_reason.empty() ? "" : "fell back: " + ran.fallback_reason;
    std::printf("%-14s %-16s %10.4f %10.1f %8.1f%% %9s  %s\n", token.c_str(), ran.variant.c_str(),
                st.median_ms, g, 100.0 * g / copy_gbps, verified ? "yes" : "NO", note.c_str());
  }
  if (tune) {
    cudaMemset(d_dst.p, kPoisonByte, bytes);
    PermuteTuning t;
    if (Status s = tune_permute(d_src.p, d_dst.p, extents, perm, elem_bytes, {}, {}, &t); !s)
      return fail(s);
    Status s = cuda_status(cudaMemcpy(h_out.data(), d_dst.p, bytes, cudaMemcpyDeviceToHost),
                           "cudaMemcpy(dst)");
    if (!s) return fail(s);
    const bool verified = std::memcmp(h_out.data(), h_ref.data(), bytes) == 0;
    failures += verified ? 0 : 1;
    std::printf(
        "\ntune_permute (median of the rounds, L2 flushed; kept as wisdom): %s fastest, "
        "output verified: %s\n",
        t.variant.c_str(), verified ? "yes" : "NO");
    for (const auto& [token, us] : t.timings)
      std::printf("  %-20s %10.2f us %10.1f GB/s\n", token.c_str(), us, moved / (us * 1e3));
  }
  return failures == 0 ? 0 : 1;
}

namespace {

void cases_usage(std::FILE* out) {
  std::fprintf(
      out,
      "usage: tmakit permute-cases --seeds A[-B][,...] [options]\n"
      "  --seeds LIST      the random set's seeds (tmakit_bench --permute-seed=S): seeds and\n"
      "                    ranges A-B, e.g. 1,8,9,20-27\n"
      "  --count N         cases a seed (default 40, --permute-random=N)\n"
      "  --min-mb M        smallest tensor (default 16, --permute-min-mb=M)\n"
      "  --max-mb M        largest tensor (default 256, --permute-max-mb=M)\n"
      "  --elem-bytes LIST only cases of these element sizes\n"
      "  --walk LIST       only cases permute_tile walks so (labels below)\n"
      "  --changed-by P    only cases whose explain (what auto and each technique run) the\n"
      "                    policy overrides P change (TMAKIT_POLICY syntax, added to it):\n"
      "                    the cases an A/B of P against the default measures (the values\n"
      "                    explain prints of P's fields, \"(field = N)\", do not count)\n"
      "  --named           the preset's named cases as well (every seed's process runs\n"
      "                    them; listed with the first seed)\n"
      "  --explain-has T   only cases whose explain holds the text T (repeatable: all of\n"
      "                    them), e.g. \"stores of 4 bytes\" for a walk's dst words\n"
      "  --filter LIST     print per seed \"SEED REGEX\" instead: a --benchmark_filter of the\n"
      "                    kept cases' rows of these techniques (e.g. permute_tile,memcpy)\n"
      "\n"
      "Lists the cases tmakit_bench --preset=permute draws for each seed, one a line:\n"
      "\"SEED NAME WALK\", NAME the case's part of the benchmark name\n"
      "(eE/LABEL/EXTENTS/PERM/, LABEL random or a named case's) and WALK the walk\n"
      "explain_permute describes for permute_tile under the default policy and\n"
      "TMAKIT_POLICY (no GPU; operands 16-byte aligned): box-registers, box-elements,\n"
      "box-words, box-pipelined-words, box-cp.async-elements, box-cp.async-words, rows,\n"
      "rows-flat, tile-2d, or none (explain names none: a split into transposes).\n");
}

// The list's words, empty pieces dropped.
std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> out = split_commas(text);
  out.erase(std::remove(out.begin(), out.end(), std::string()), out.end());
  return out;
}

// permute_tile's walk named from explain_permute's text (--help's labels).
std::string permute_tile_walk(const std::string& how) {
  auto has = [&](const char* s) { return how.find(s) != std::string::npos; };
  if (has("box walk (permute_tile, each thread's offsets in registers)")) return "box-registers";
  if (has("box walk (permute_tile, each thread's offsets in shared tables)")) {
    const bool words = has("\nin words (");
    if (has("\nloads: by cp.async")) return words ? "box-cp.async-words" : "box-cp.async-elements";
    if (has("\nloads: the next box's loads in flight (registers)")) return "box-pipelined-words";
    return words ? "box-words" : "box-elements";
  }
  if (has("\npermute_tile: whole rows of") && has("into a dense dst, written as one run"))
    return "rows-flat";
  if (has("\npermute_tile: whole rows")) return "rows";
  if (has(" shared tiles of cols x rows")) return "tile-2d";
  return "none";
}

// explain_permute's text without the least-waste comparison line, which describes the largest
// box, one that does not run, and with the values it prints of the fields `overrides` names
// ("(field = N)": the policy in force, not what runs) as "(field = *)": what --changed-by
// compares.
std::string what_runs(const std::string& how, const std::string& overrides) {
  static const std::string kLeastWaste = "the least-waste box";
  std::string out;
  std::size_t at = 0;
  while (at < how.size()) {
    std::size_t end = how.find('\n', at);
    end = end == std::string::npos ? how.size() : end + 1;
    if (how.compare(at, kLeastWaste.size(), kLeastWaste) != 0) out.append(how, at, end - at);
    at = end;
  }
  for (const std::string& item : split_words(overrides)) {
    const std::string open = "(" + item.substr(0, item.find('=')) + " = ";
    for (std::size_t from = out.find(open); from != std::string::npos;
         from = out.find(open, from + 1)) {
      const std::size_t value = from + open.size(), close = out.find(')', value);
      if (close != std::string::npos) out.replace(value, close - value, "*");
    }
  }
  return out;
}

// --seeds' list: seeds and ranges A-B, comma-separated, in order; false on anything else or on
// more than 10000 seeds in all.
bool parse_seeds(const std::string& text, std::vector<long long>* seeds) {
  seeds->clear();
  for (const std::string& item : split_commas(text)) {
    const std::size_t dash = item.find('-');
    const std::string lo = item.substr(0, dash),
                      hi = dash == std::string::npos ? lo : item.substr(dash + 1);
    long long first = 0, last = 0;
    if (!parse_integer(lo, 0, 4294967295ll, &first) || !parse_integer(hi, 0, 4294967295ll, &last) ||
        last < first || last - first >= 10000 - static_cast<long long>(seeds->size()))
      return false;
    for (long long s = first; s <= last; ++s) seeds->push_back(s);
  }
  return !seeds->empty();
}

// explain_permute of `c` with `overrides` added to TMAKIT_POLICY (restored after).
std::string explain_under(const std::string& overrides, const PermutationCell& c) {
  const char* outer = std::getenv("TMAKIT_POLICY");
  const std::string both =
      outer == nullptr || *outer == '\0' ? overrides : std::string(outer) + "," + overrides;
  ScopedEnv env("TMAKIT_POLICY", both.c_str());
  return explain_permute(c.extents, c.perm, c.elem_bytes);
}

}  // namespace

int run_permute_cases(const std::vector<std::string>& args) {
  constexpr const char* kCases = "permute-cases";
  static const char* const kWalks[] = {"box-registers",
                                       "box-elements",
                                       "box-words",
                                       "box-pipelined-words",
                                       "box-cp.async-elements",
                                       "box-cp.async-words",
                                       "rows",
                                       "rows-flat",
                                       "tile-2d",
                                       "none"};
  long long count = 40, min_mb = 16, max_mb = 256, v = 0;
  std::vector<long long> seeds, sizes;
  std::vector<std::string> walks, techniques;
  std::string changed_by;
  std::vector<std::string> explain_has;
  bool named = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string text;
    if (a == "--help" || a == "-h") {
      cases_usage(stdout);
      return 0;
    } else if (a == "--seeds") {
      if (!take_value(args, &i, &text) || !parse_seeds(text, &seeds))
        return arg_error(kCases,
                         "--seeds needs seeds and ranges A-B (A <= B), comma-separated, at most "
                         "10000 seeds in all (got '" +
                             text + "')");
    } else if (a == "--count") {
      if (!take_integer(kCases, args, &i, 1, 10000, &count)) return 2;
    } else if (a == "--min-mb") {
      if (!take_integer(kCases, args, &i, 1, 65536, &min_mb)) return 2;
    } else if (a == "--max-mb") {
      if (!take_integer(kCases, args, &i, 1, 65536, &max_mb)) return 2;
    } else if (a == "--elem-bytes") {
      if (!take_value(args, &i, &text) || !parse_list(text, 1, 16, &sizes) ||
          std::any_of(sizes.begin(), sizes.end(), [](long long e) { return (e & (e - 1)) != 0; }))
        return arg_error(kCases,
                         "--elem-bytes needs a list of 1, 2, 4, 8, 16 (got '" + text + "')");
    } else if (a == "--walk") {
      if (!take_value(args, &i, &text) || (walks = split_words(text)).empty())
        return arg_error(kCases, "--walk needs a list of walks (see --help)");
      for (const std::string& w : walks)
        if (std::find(std::begin(kWalks), std::end(kWalks), w) == std::end(kWalks))
          return arg_error(kCases, "--walk: '" + w + "' is not a walk (see --help)");
    } else if (a == "--changed-by") {
      DevicePolicy check;
      if (!take_value(args, &i, &changed_by) || changed_by.empty())
        return arg_error(kCases, "--changed-by needs policy overrides (name=value,...)");
      if (const std::string why = apply_policy_overrides(changed_by, &check); !why.empty())
        return arg_error(kCases, "--changed-by: " + why);
    } else if (a == "--named") {
      named = true;
    } else if (a == "--explain-has") {
      if (!take_value(args, &i, &text) || text.empty())
        return arg_error(kCases, "--explain-has needs a text that explain prints");
      explain_has.push_back(text);
    } else if (a == "--filter") {
      if (!take_value(args, &i, &text) || (techniques = split_words(text)).empty())
        return arg_error(kCases, "--filter needs a list of techniques (e.g. permute_tile,memcpy)");
    } else {
      return arg_error(kCases, "unknown argument '" + a + "' (see tmakit permute-cases --help)");
    }
  }
  if (seeds.empty()) return arg_error(kCases, "--seeds is required");
  if (min_mb > max_mb) return arg_error(kCases, "--min-mb is above --max-mb");
  for (long long seed : seeds) {
    std::string regex;
    // The named cases with the first seed, then the seed's random set.
    std::vector<NamedPermutation> cells;
    if (named && seed == seeds.front()) cells = named_permutations();
    for (PermutationCell& c : random_permutations(
             static_cast<int>(count), static_cast<unsigned>(seed),
             static_cast<double>(min_mb) * 1e6, static_cast<double>(max_mb) * 1e6, 1))
      cells.push_back({"random", std::move(c)});
    for (const auto& [label, c] : cells) {
      if (!sizes.empty() && std::find(sizes.begin(), sizes.end(), c.elem_bytes) == sizes.end())
        continue;
      const std::string how = explain_permute(c.extents, c.perm, c.elem_bytes);
      const std::string walk = permute_tile_walk(how);
      if (!walks.empty() && std::find(walks.begin(), walks.end(), walk) == walks.end()) continue;
      if (std::any_of(explain_has.begin(), explain_has.end(),
                      [&](const std::string& t) { return how.find(t) == std::string::npos; }))
        continue;
      if (!changed_by.empty() &&
          what_runs(how, changed_by) == what_runs(explain_under(changed_by, c), changed_by))
        continue;
      const std::string name = permutation_case_name(c.elem_bytes, label, c.extents, c.perm);
      if (techniques.empty())
        std::printf("%lld %s %s\n", seed, name.c_str(), walk.c_str());
      else
        regex += (regex.empty() ? "(" : "|") + name;
    }
    if (!techniques.empty() && !regex.empty()) {
      std::string techs;
      for (const std::string& t : techniques) techs += (techs.empty() ? "(" : "|") + t;
      std::printf("%lld %s)%s)/\n", seed, regex.c_str(), techs.c_str());
    }
  }
  return 0;
}

}  // namespace tmakit::cli
