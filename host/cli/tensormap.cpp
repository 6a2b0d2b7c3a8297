// `tmakit tensormap`: validate a descriptor, describe it, draw where the box's 16-byte chunks
// land in shared memory for the first swizzle period; or fuzz validate() against the driver.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>
#include <host/cli/args.hpp>
#include <host/cli/commands.hpp>
#include <host/tensor_map/driver.hpp>
#include <host/tensor_map/fuzz.hpp>
#include <kernels/common/swizzle.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit::cli {
namespace {

void usage(std::FILE* out) {
  std::fprintf(out,
               "usage: tmakit tensormap --elem T --shape AxB[x...] --box AxB[x...] [options]\n"
               "       tmakit tensormap --mode im2col --elem T --shape NxHxWxC --lower A,B\n"
               "                        --upper A,B --channels N --pixels N [options]\n"
               "       tmakit tensormap [--mode im2col] --fuzz N [--seed S] [--dump FILE]\n"
               "       tmakit tensormap [--mode im2col] --rules\n"
               "examples:\n"
               "  tmakit tensormap --elem f32 --shape 1024x1024 --box 32x32 --swizzle 128B\n"
               "  tmakit tensormap --mode im2col --elem f32 --shape 3x7x9x8 --lower -1,-2 \\\n"
               "      --upper -1,-2 --channels 8 --pixels 32\n"
               "\n"
               "  --elem T           u8 u16 u32 i32 u64 i64 f16 bf16 f32 f64 f32ftz tf32 tf32ftz\n"
               "                     16u4a8 16u4a16 16u6a16 (default f32)\n"
               "  --shape AxB        row-major extents, outermost first (rank 1..5)\n"
               "  --box AxB          box extents, outermost first\n"
               "  --pitch P[,P..]    row pitches in bytes of dims 0..rank-2 (default: dense,\n"
               "                     rounded up to 16)\n"
               "  --swizzle M        none 32B 64B 128B 128B_ATOM_32B 128B_ATOM_32B_FLIP_8B\n"
               "                     128B_ATOM_64B (default none)\n"
               "  --interleave M     none 16B 32B;  --l2 none 64B 128B 256B;  --oob zero nan\n"
               "  --elem-strides AxB element strides, outermost first (default all 1); im2col:\n"
               "                     the traversal strides (convolution stride) of N, D, H, W, C\n"
               "  --mode M           tiled (default) or im2col (cuTensorMapEncodeIm2col)\n"
               "  im2col: --shape N[xD][xH]xWxC (rank 3-5, channels innermost); --lower and\n"
               "  --upper: the pixel-box corners of the spatial dims, row-major ([D,][H,]W; for a\n"
               "  convolution lower = -pad, upper = pad - (filter - 1)); --channels: channels per\n"
               "  pixel a copy reads; --pixels: pixels per column (per copy)\n"
               "  --address-offset N bytes past a 1024-aligned address (default 0)\n"
               "  --cc XY            compute capability to validate for (default: the device's,\n"
               "                     else 90)\n"
               "Exit status: 0 valid, 1 invalid (every violated rule is printed), 2 bad usage.\n"
               "--fuzz N draws N specs near every rule boundary and compares validate() with\n"
               "cuTensorMapEncodeTiled (or cuTensorMapEncodeIm2col) on this machine's driver\n"
               "(needs a GPU).\n");
}

bool parse_list(const std::string& text, char sep, std::vector<std::uint64_t>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep)) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(item.c_str(), &end, 10);
    if (item.empty() || item[0] == '-' || errno == ERANGE || *end != '\0') return false;
    out->push_back(v);
  }
  return !out->empty() && out->size() <= kTmaMaxRank;
}

template <class E>
bool parse_enum(const std::string& v, const std::vector<std::string>& names, E* out) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (v == names[i]) {
      *out = static_cast<E>(i);
      return true;
    }
  return false;
}

// The first swizzle period (at least 8 lines of 128 bytes) of a dense box: for each 128-byte
// shared line, which box element row r and 16-byte chunk c sits in each 16-byte bank group
// (4 banks of 4 bytes).
void draw_bank_groups(const TensorMapSpec& s) {
  const int sw = static_cast<int>(s.swizzle);
  const std::uint64_t inner =
      static_cast<std::uint64_t>(s.box[s.rank - 1]) * tma_type_bits(s.type) / 8;
  if (inner == 0 || inner % 16 != 0) return;
  const std::uint64_t total = box_bytes(s);
  const std::uint32_t period = tma_swizzle_period_bytes(sw) ? tma_swizzle_period_bytes(sw) : 1024;
  const std::uint32_t lines =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(period, (total + 127) / 128 * 128) / 128);
  std::vector<std::string> cell(lines * 8, "  .  ");
  for (std::uint32_t logical = 0; logical < lines * 128; logical += 16) {
    if (logical >= total) break;
    const std::uint32_t phys = tma_swizzle(logical, sw);
    char buf[16];
    std::snprintf(buf, sizeof buf, "r%uc%u", static_cast<unsigned>(logical / inner),
                  static_cast<unsigned>((logical % inner) / 16));
    cell[(phys / 128) * 8 + (phys % 128) / 16] = buf;
  }
  std::printf("\nshared memory, first %u bytes: box row r, 16-byte chunk c, per bank group\n",
              lines * 128);
  std::printf("line  bytes     ");
  for (int g = 0; g < 8; ++g) std::printf(" banks%2d-%-2d", 4 * g, 4 * g + 3);
  std::printf("\n");
  for (std::uint32_t l = 0; l < lines; ++l) {
    std::printf("%4u  %4u-%-4u ", l, l * 128, l * 128 + 127);
    for (int g = 0; g < 8; ++g) std::printf(" %-10s", cell[l * 8 + g].c_str());
    std::printf("\n");
  }
}

// One line per spec: type rank shape pitches box elem_strides interleave swizzle l2 oob
// address%1024, row-major, comma-separated lists.
void dump_specs(const std::string& path, const std::vector<TensorMapSpec>& specs,
                const unsigned char* base) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  auto list = [](const auto& a, int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? "," : "") + std::to_string(a[i]);
    return t;
  };
  for (const TensorMapSpec& s : specs) {
    const int r = s.rank < 0 ? 0 : s.rank > kTmaMaxRank ? kTmaMaxRank : s.rank;
    std::fprintf(
        f, "%d %d %s %s %s %s %d %d %d %d %ld\n", static_cast<int>(s.type), s.rank,
        list(s.shape, r).c_str(), r > 1 ? list(s.pitch_bytes, r - 1).c_str() : "-",
        list(s.box, r).c_str(), list(s.elem_strides, r).c_str(), static_cast<int>(s.interleave),
        static_cast<int>(s.swizzle), static_cast<int>(s.l2_promotion), static_cast<int>(s.oob_fill),
        s.address ? static_cast<long>(static_cast<const unsigned char*>(s.address) - base) : -1L);
  }
  std::fclose(f);
}

bool parse_signed_list(const std::string& text, std::vector<int>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || errno == ERANGE || *end != '\0' || v < -2147483647L || v > 2147483647L)
      return false;
    out->push_back(static_cast<int>(v));
  }
  return !out->empty() && out->size() <= 3;
}

// One line per im2col spec: type rank shape pitches lower upper channels pixels elem_strides
// interleave swizzle l2 oob address%1024.
void dump_im2col_specs(const std::string& path, const std::vector<Im2colSpec>& specs,
                       const unsigned char* base) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  auto list = [](const auto& a, int n) {
    std::string t;
    for (int i = 0; i < n; ++i) t += (i ? "," : "") + std::to_string(a[i]);
    return t.empty() ? std::string("-") : t;
  };
  for (const Im2colSpec& s : specs) {
    const int r = s.rank < 0 ? 0 : s.rank > kTmaMaxRank ? kTmaMaxRank : s.rank;
    const int ns = r >= 3 ? r - 2 : 0;
    std::fprintf(f, "%d %d %s %s %s %s %u %u %s %d %d %d %d %ld\n", static_cast<int>(s.type), s.rank,
                 list(s.shape, r).c_str(), list(s.pitch_bytes, r > 0 ? r - 1 : 0).c_str(),
                 list(s.lower_corner, ns).c_str(), list(s.upper_corner, ns).c_str(), s.channels_per_pixel,
                 s.pixels_per_column, list(s.elem_strides, r).c_str(), static_cast<int>(s.interleave),
                 static_cast<int>(s.swizzle), static_cast<int>(s.l2_promotion), static_cast<int>(s.oob_fill),
                 s.address ? static_cast<long>(static_cast<const unsigned char*>(s.address) - base) : -1L);
  }
  std::fclose(f);
}

int run_fuzz(std::uint64_t n, std::uint64_t seed, const std::string& dump, bool im2col) {
  DeviceInfo dev;
  if (Status s = query_device(&dev); !s) {
    std::fprintf(stderr, "tmakit: --fuzz compares with the driver and needs a GPU: %s\n",
                 s.message.c_str());
    return 3;
  }
  alignas(1024) static unsigned char base[4096];
  const DifferentialResult r = im2col ? run_im2col_differential(n, seed, dev.cc, base)
                                      : run_differential(n, seed, dev.cc, base);
  if (!r.status.ok()) {
    std::fprintf(stderr, "tmakit: %s\n", r.status.message.c_str());
    return 3;
  }
  std::printf("%s: %s (cc %d.%d), driver %d: %llu cases (seed %llu)\n",
              im2col ? "cuTensorMapEncodeIm2col" : "cuTensorMapEncodeTiled", dev.name.c_str(), dev.cc / 10,
              dev.cc % 10, dev.driver_version, static_cast<unsigned long long>(r.cases),
              static_cast<unsigned long long>(seed));
  std::printf("  both accept %llu, both reject %llu\n",
              static_cast<unsigned long long>(r.both_accept),
              static_cast<unsigned long long>(r.both_reject));
  std::printf("  false accepts (validate ok, driver rejects): %llu\n",
              static_cast<unsigned long long>(r.false_accepts));
  std::printf("  stricter than the driver (validate rejects, driver accepts): %llu\n",
              static_cast<unsigned long long>(r.stricter));
  for (const auto& [rule, count] : r.stricter_by_rule)
    std::printf("    %-28s %llu\n", rule.c_str(), static_cast<unsigned long long>(count));
  if (r.false_accepts) std::printf("first false accept:\n%s", r.first_false_accept.c_str());
  if (!dump.empty()) {
    if (im2col) {
      dump_im2col_specs(dump, r.im2col_false_accept_specs, base);
      dump_im2col_specs(dump + ".accepted", r.im2col_accepted_specs, base);
    } else {
      dump_specs(dump, r.false_accept_specs, base);
      dump_specs(dump + ".accepted", r.accepted_specs, base);
    }
  }
  if (!r.first_unexpected_stricter.empty())
    std::printf("a rule marked driver-enforced was not enforced:\n%s",
                r.first_unexpected_stricter.c_str());
  return r.false_accepts == 0 && r.first_unexpected_stricter.empty() ? 0 : 1;
}

// Dense pitches (the inner row rounded up to 16 bytes) where --pitch was not given.
template <class Spec>
void fill_pitches(Spec& s, const std::vector<std::uint64_t>& shape,
                  const std::vector<std::uint64_t>& pitch) {
  const int bits = tma_type_bits(s.type);
  for (int i = s.rank - 2; i >= 0; --i) {
    const std::uint64_t dense = i == s.rank - 2 ? (shape[s.rank - 1] * bits / 8 + 15) / 16 * 16
                                                : s.pitch_bytes[i + 1] * shape[i + 1];
    s.pitch_bytes[i] = pitch.empty() ? dense : pitch[i];
  }
}

// Describe, validate for `cc` (the device's when < 0, else 9.0) and, when valid and a GPU is
// there, call the driver's encode (encode_fn) on the spec; prints all of it. True when valid.
template <class Spec, class Encode>
bool explain(const Spec& s, int cc, Encode encode_fn) {
  DeviceInfo dev;
  const Status dev_status = query_device(&dev);
  if (cc < 0) cc = dev_status.ok() ? dev.cc : 90;
  const ValidationReport rep = validate(s, cc);
  std::printf("%s", describe(s).c_str());
  std::printf("validated for compute capability %d.%d: %s\n", cc / 10, cc % 10,
              rep.ok() ? (rep.warnings.empty() ? "valid" : "valid, with warnings") : "INVALID");
  std::printf("%s", rep.to_string().c_str());
  if (!rep.ok()) return false;
  if (dev_status.ok()) {
    alignas(128) CUtensorMap map;
    Status why;
    const CUresult r = encode_fn(s, &map, &why);
    std::printf("driver (%s): %s\n", dev.name.c_str(),
                why.ok() ? curesult_name(r).c_str() : why.message.c_str());
  } else {
    std::printf("driver: not called (%s)\n", dev_status.message.c_str());
  }
  return true;
}

// The specs' address: validation and encoding never touch it.
alignas(1024) unsigned char g_fake[2048];

// Validate, describe and (with a GPU) encode one im2col spec.
int run_im2col(Im2colSpec s, const std::vector<std::uint64_t>& shape,
               const std::vector<std::uint64_t>& pitch, const std::vector<std::uint64_t>& strides,
               const std::vector<int>& lower, const std::vector<int>& upper, std::uint64_t offset,
               int cc) {
  const int rank = static_cast<int>(shape.size());
  if (rank < 3 || rank > 5 || lower.size() != static_cast<std::size_t>(rank - 2) ||
      upper.size() != lower.size() || (!strides.empty() && strides.size() != shape.size()) ||
      (!pitch.empty() && pitch.size() + 1 != shape.size())) {
    std::fprintf(stderr,
                 "tmakit tensormap --mode im2col: --shape needs rank 3 to 5 (N[xD][xH]xWxC), "
                 "--lower and --upper one value per spatial dim (rank - 2), --elem-strides the "
                 "rank, --pitch one fewer\n");
    return 2;
  }
  s.rank = rank;
  for (int i = 0; i < rank; ++i) {
    s.shape[i] = shape[i];
    s.elem_strides[i] = strides.empty() ? 1 : static_cast<std::uint32_t>(strides[i]);
  }
  for (int d = 0; d < rank - 2; ++d) {
    s.lower_corner[d] = lower[d];
    s.upper_corner[d] = upper[d];
  }
  fill_pitches(s, shape, pitch);
  s.address = g_fake + offset;
  return explain(s, cc, encode_im2col_unchecked) ? 0 : 1;
}

}  // namespace

int run_tensormap(const std::vector<std::string>& args) {
  TensorMapSpec s;
  std::vector<std::uint64_t> shape, box, pitch, strides;
  std::vector<int> lower, upper;
  std::uint64_t offset = 0, fuzz = 0, seed = 1;
  long long channels = 0, pixels = 0;
  bool im2col = false;
  std::string dump;
  int cc = -1;
  const std::vector<std::string> types = {
      "u8",  "u16",  "u32",    "i32",  "u64",     "i64",    "f16",     "f32",
      "f64", "bf16", "f32ftz", "tf32", "tf32ftz", "16u4a8", "16u4a16", "16u6a16"};
  const std::vector<std::string> swizzles = {
      "none", "32B", "64B", "128B", "128B_ATOM_32B", "128B_ATOM_32B_FLIP_8B", "128B_ATOM_64B"};
  for (std::size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--mode" && args[i + 1] == "im2col") im2col = true;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      usage(stdout);
      return 0;
    }
    if (a == "--rules") {
      for (const TensorMapRule& r : im2col ? im2col_rules() : tensor_map_rules())
        std::printf("%-28s %-7s %-16s %s (%s)\n", r.id,
                    r.severity == RuleSeverity::kError ? "error" : "warning",
                    r.driver_enforced ? "driver-enforced" : "not-enforced", r.text, r.source);
      return 0;
    }
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "tmakit tensormap: %s needs a value\n", a.c_str());
      return 2;
    }
    const std::string v = args[++i];
    bool ok = true;
    if (a == "--elem")
      ok = parse_enum(v, types, &s.type);
    else if (a == "--shape")
      ok = parse_list(v, 'x', &shape);
    else if (a == "--box")
      ok = parse_list(v, 'x', &box);
    else if (a == "--pitch")
      ok = parse_list(v, ',', &pitch);
    else if (a == "--elem-strides")
      ok = parse_list(v, 'x', &strides);
    else if (a == "--swizzle")
      ok = parse_enum(v, swizzles, &s.swizzle);
    else if (a == "--interleave")
      ok = parse_enum(v, {"none", "16B", "32B"}, &s.interleave);
    else if (a == "--l2")
      ok = parse_enum(v, {"none", "64B", "128B", "256B"}, &s.l2_promotion);
    else if (a == "--oob")
      ok = parse_enum(v, {"zero", "nan"}, &s.oob_fill);
    else if (a == "--mode")
      ok = v == "tiled" || v == "im2col";
    else if (a == "--lower")
      ok = parse_signed_list(v, &lower);
    else if (a == "--upper")
      ok = parse_signed_list(v, &upper);
    else if (a == "--channels" || a == "--pixels") {
      long long n = 0;
      if (!parse_integer(v, 0, 1ll << 32, &n))
        return arg_error("tensormap", a + ": '" + v + "' is not an integer from 0 to 2^32");
      (a == "--channels" ? channels : pixels) = n;
    }
    else if (a == "--address-offset" || a == "--cc" || a == "--fuzz" || a == "--seed") {
      long long n = 0;
      const long long hi = a == "--cc" ? 1000 : a == "--fuzz" ? 100000000 : (1ll << 62);
      if (!parse_integer(v, 0, hi, &n))
        return arg_error("tensormap",
                         a + ": '" + v + "' is not an integer from 0 to " + std::to_string(hi));
      if (a == "--address-offset") offset = static_cast<std::uint64_t>(n);
      if (a == "--cc") cc = static_cast<int>(n);
      if (a == "--fuzz") fuzz = static_cast<std::uint64_t>(n);
      if (a == "--seed") seed = static_cast<std::uint64_t>(n);
    } else if (a == "--dump")
      dump = v;
    else {
      std::fprintf(stderr, "tmakit tensormap: unknown argument '%s'\n\n", a.c_str());
      usage(stderr);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "tmakit tensormap: %s: bad value '%s'\n", a.c_str(), v.c_str());
      return 2;
    }
  }
  if (fuzz > 0) return run_fuzz(fuzz, seed, dump, im2col);
  if (im2col) {
    if (!box.empty()) return arg_error("tensormap", "--box is for tiled maps; im2col takes --channels and --pixels");
    Im2colSpec m;
    m.type = s.type;
    m.swizzle = s.swizzle;
    m.interleave = s.interleave;
    m.l2_promotion = s.l2_promotion;
    m.oob_fill = s.oob_fill;
    m.channels_per_pixel = static_cast<std::uint32_t>(channels > 0xffffffffLL ? 0xffffffffLL : channels);
    m.pixels_per_column = static_cast<std::uint32_t>(pixels > 0xffffffffLL ? 0xffffffffLL : pixels);
    if (shape.empty() || lower.empty() || upper.empty() || channels == 0 || pixels == 0) {
      arg_error("tensormap", "--mode im2col needs --shape, --lower, --upper, --channels and --pixels");
      return 2;
    }
    return run_im2col(m, shape, pitch, strides, lower, upper, offset, cc);
  }
  if (shape.empty() || box.empty()) {
    arg_error("tensormap", std::string(shape.empty() ? "--shape" : "--box") +
                               " is required (or --fuzz N, or --rules)");
    usage(stderr);
    return 2;
  }
  if (box.size() != shape.size() || (!strides.empty() && strides.size() != shape.size()) ||
      (!pitch.empty() && pitch.size() + 1 != shape.size())) {
    std::fprintf(stderr,
                 "tmakit tensormap: --shape, --box, --elem-strides need the same rank and --pitch "
                 "one fewer\n");
    return 2;
  }
  s.rank = static_cast<int>(shape.size());
  for (int i = 0; i < s.rank; ++i) {
    s.shape[i] = shape[i];
    s.box[i] = static_cast<std::uint32_t>(box[i]);
    s.elem_strides[i] = strides.empty() ? 1 : static_cast<std::uint32_t>(strides[i]);
  }
  fill_pitches(s, shape, pitch);
  s.address = g_fake + offset;
  if (!explain(s, cc, encode_unchecked)) return 1;
  draw_bank_groups(s);
  return 0;
}

}  // namespace tmakit::cli
