#include <host/cli/shapes.hpp>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <iterator>
#include <random>
#include <numeric>
#include <host/cli/args.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::cli {

// The presets. quick: one or two shapes of each class, every technique, a few minutes (the sm_90
// CI script runs it). full: every class at several sizes (docs/results.md).
std::vector<Shape> preset_shapes(const std::string& preset) {
  if (preset == "quick")
    return {{"square", 1, 8192, 2048}, {"square", 1, 16384, 16384}, {"odd", 1, 12345, 6789},
            {"skinny", 1, 4, 4000000}, {"skinny", 1, 4000000, 4},   {"batched", 4096, 64, 64},
            {"batched", 3000, 97, 75}};
  // probe: members of the skinny, batched and odd classes that the full preset does not name
  // (other k, an odd N, other matrix sizes and counts, other odd sizes), to check that a class
  // is fast, not a list.
  if (preset == "probe") {
    std::vector<Shape> v;
    for (std::int64_t k : {3, 5, 8, 12, 24}) {
      v.push_back({"skinny", 1, k, 1000003});
      v.push_back({"skinny", 1, 1000003, k});
    }
    v.push_back({"skinny", 1, 9, 1 << 21});
    v.push_back({"skinny", 1, 1 << 21, 9});
    const Shape batched[] = {{"batched", 100000, 8, 8},  {"batched", 20000, 16, 48},
                             {"batched", 10000, 24, 40}, {"batched", 5000, 33, 65},
                             {"batched", 2000, 100, 60}, {"batched", 500, 250, 130}};
    v.insert(v.end(), std::begin(batched), std::end(batched));
    // Odd shapes (no row a 16-byte multiple at 1-8 B) of other sizes and aspect ratios.
    const Shape odd[] = {{"odd", 1, 1001, 999},
                         {"odd", 1, 4097, 4095},
                         {"odd", 1, 9999, 9999},
                         {"odd", 1, 20001, 777},
                         {"odd", 1, 777, 20001}};
    v.insert(v.end(), std::begin(odd), std::end(odd));
    return v;
  }
  if (preset != "full") return {};
  std::vector<Shape> v = {{"square", 1, 2048, 2048},   {"square", 1, 4096, 4096},
                          {"square", 1, 8192, 2048},   {"square", 1, 16384, 16384},
                          {"square", 1, 32768, 32768}, {"odd", 1, 12345, 6789},
                          {"odd", 1, 6789, 12345},     {"odd", 1, 3001, 4999}};
  // k x N and N x k: k = 1 is a copy; 2, 4 and 16 divide a 16-byte vector's elements or not
  // depending on the element size; 7 never does; 32 is the widest skinny.
  for (std::int64_t k : {1, 2, 4, 7, 16, 32}) {
    v.push_back({"skinny", 1, k, 4000000});
    v.push_back({"skinny", 1, 4000000, k});
  }
  const Shape batched[] = {{"batched", 16384, 32, 32},  {"batched", 4096, 64, 64},
                           {"batched", 2048, 128, 128}, {"batched", 1024, 256, 256},
                           {"batched", 1000, 512, 512}, {"batched", 3000, 97, 75}};
  v.insert(v.end(), std::begin(batched), std::end(batched));
  return v;
}

std::vector<Shape> parse_shapes(const std::string& list, std::string* why) {
  static const char* const kClasses[] = {"square", "odd", "skinny", "batched"};
  std::vector<Shape> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t end = std::min(list.find(',', at), list.size());
    const std::string item = list.substr(at, end - at);
    at = end + 1;
    const char* cls = nullptr;
    std::string dims = item;
    if (const std::size_t colon = item.find(':'); colon != std::string::npos) {
      const std::string name = item.substr(0, colon);
      for (const char* c : kClasses)
        if (name == c) cls = c;
      if (cls == nullptr) {
        *why = "'" + item + "': class '" + name + "' is not square, odd, skinny or batched";
        return {};
      }
      dims = item.substr(colon + 1);
    }
    std::vector<std::int64_t> n;
    std::size_t p = 0;
    while (p <= dims.size()) {
      const std::size_t x = std::min(dims.find('x', p), dims.size());
      const std::string num = dims.substr(p, x - p);
      long long v = 0;
      if (!parse_integer(num, 1, std::int64_t{1} << 40, &v)) {
        *why = "'" + item + "': '" + num + "' is not a positive integer";
        return {};
      }
      n.push_back(v);
      p = x + 1;
    }
    if (n.size() != 2 && n.size() != 3) {
      *why = "'" + item + "': a shape is ROWSxCOLS or BATCHxROWSxCOLS";
      return {};
    }
    Shape s{nullptr, n.size() == 3 ? n[0] : 1, n[n.size() - 2], n[n.size() - 1]};
    if (s.batch > (std::int64_t{1} << 40) / s.rows / s.cols) {
      *why = "'" + item + "': more than 2^40 elements";
      return {};
    }
    s.cls = cls                                    ? cls
            : n.size() == 3                        ? "batched"
            : std::min(s.rows, s.cols) <= 32       ? "skinny"
            : s.rows % 16 != 0 && s.cols % 16 != 0 ? "odd"
                                                   : "square";
    if (std::strcmp(s.cls, "batched") == 0 && n.size() != 3) s.batch = 1;
    out.push_back(s);
  }
  return out;
}

std::vector<SurveyCell> survey_cells(int count, unsigned seed, std::int64_t max_bytes) {
  // Draws from std::mt19937 by hand (its output is fixed by the standard; the distributions'
  // are not), so a seed gives the same cells with every standard library.
  std::mt19937 rng(seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
  };
  auto log_uniform = [&](std::int64_t lo, std::int64_t hi) {
    const double u = static_cast<double>(rng()) / 4294967296.0;
    return static_cast<std::int64_t>(
        std::exp(std::log(double(lo)) + u * (std::log(double(hi)) - std::log(double(lo)))));
  };
  std::vector<Shape> named;
  for (const char* p : {"quick", "full", "probe"})
    for (const Shape& s : preset_shapes(p)) named.push_back(s);
  static const int kElems[] = {1, 2, 4, 8, 16};
  std::vector<SurveyCell> out;
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) {
    const int e = kElems[rng() % 5];
    Shape s{nullptr, 1, 0, 0};
    switch (i % 4) {
      case 0:  // square: both sides multiples of 16 elements (16-byte rows at every size)
        s.cls = "square";
        s.rows = 16 * (log_uniform(1024, 20000) / 16);
        s.cols = 16 * (log_uniform(1024, 20000) / 16);
        break;
      case 1:  // odd: both sides odd (no row a 16-byte multiple below 16 B)
        s.cls = "odd";
        s.rows = log_uniform(300, 20000) | 1;
        s.cols = log_uniform(300, 20000) | 1;
        break;
      case 2: {  // skinny: a side of 2-32 elements, the other long
        s.cls = "skinny";
        const std::int64_t k = uniform(2, 32), n = log_uniform(100000, 8000000);
        s.rows = rng() % 2 ? k : n;
        s.cols = s.rows == k ? n : k;
        break;
      }
      default:  // batched: many small matrices of any size
        s.cls = "batched";
        s.rows = log_uniform(8, 600);
        s.cols = log_uniform(8, 600);
        s.batch = log_uniform(16, 50000);
        break;
    }
    std::int64_t bytes = s.batch * s.rows * s.cols * e;
    while (bytes > max_bytes) {  // shrink the longest dimension
      std::int64_t& d = s.batch > 1 && s.batch >= std::max(s.rows, s.cols)
                            ? s.batch
                            : (s.rows >= s.cols ? s.rows : s.cols);
      d = std::max<std::int64_t>(1, d / 2);
      if (std::string(s.cls) == "square") {
        s.rows = std::max<std::int64_t>(16, s.rows / 16 * 16);
        s.cols = std::max<std::int64_t>(16, s.cols / 16 * 16);
      } else if (std::string(s.cls) == "odd") {
        s.rows |= 1;
        s.cols |= 1;
      }
      bytes = s.batch * s.rows * s.cols * e;
    }
    bool preset = false;
    for (const Shape& n : named)
      preset = preset || (n.batch == s.batch && n.rows == s.rows && n.cols == s.cols);
    if (!preset) out.push_back({s, e});
  }
  return out;
}

namespace {
// One permutation of the permute preset's random set (random_permutations), its reduction in *r.
PermutationCell draw_permutation(std::mt19937& rng, double min_bytes, double max_bytes,
                                 PermuteReduction* r, int min_reduced_rank = 0) {
  std::uniform_real_distribution<double> log_extent(std::log(2.0), std::log(601.0));
  for (;;) {
    PermutationCell c;
    const int rank = 3 + static_cast<int>(rng() % 4);
    const int sizes[] = {1, 2, 4, 8, 16};
    c.elem_bytes = sizes[rng() % 5];
    double bytes = c.elem_bytes;
    for (int k = 0; k < rank; ++k) {
      const auto n = std::min<std::int64_t>(
          600, std::max<std::int64_t>(2, static_cast<std::int64_t>(std::exp(log_extent(rng)))));
      c.extents.push_back(n);
      bytes *= static_cast<double>(n);
    }
    c.perm.resize(rank);
    std::iota(c.perm.begin(), c.perm.end(), 0);
    std::shuffle(c.perm.begin(), c.perm.end(), rng);
    if (bytes < min_bytes || bytes > max_bytes) continue;
    if (!reduce_permutation(c.extents, c.perm, c.elem_bytes, {}, r) ||
        r->form == PermuteForm::kCopy || static_cast<int>(r->extents.size()) < min_reduced_rank)
      continue;
    return c;
  }
}
}  // namespace

std::string permutation_case_name(int elem_bytes, const std::string& label,
                                  const std::vector<std::int64_t>& extents,
                                  const std::vector<int>& perm) {
  std::string name = "e" + std::to_string(elem_bytes) + "/" + label + "/";
  for (std::size_t k = 0; k < extents.size(); ++k)
    name += (k ? "x" : "") + std::to_string(extents[k]);
  name += "/";
  for (std::size_t k = 0; k < perm.size(); ++k) name += (k ? "." : "") + std::to_string(perm[k]);
  return name + "/";
}

std::vector<NamedPermutation> named_permutations() {
  return {
      {"attention_bshd_to_bhsd", {{8, 4096, 32, 128}, {0, 2, 1, 3}, 2}},
      {"attention_bhsd_to_bshd", {{8, 32, 4096, 128}, {0, 2, 1, 3}, 2}},
      {"qkv_split", {{8, 2048, 3, 16, 64}, {2, 0, 3, 1, 4}, 2}},
      {"vit_heads", {{16, 197, 12, 64}, {0, 2, 1, 3}, 4}},
      {"nchw_to_nhwc", {{64, 256, 56, 56}, {0, 2, 3, 1}, 2}},
      {"nhwc_to_nchw", {{64, 56, 56, 256}, {0, 3, 1, 2}, 2}},
      {"nchw_to_nhwc", {{64, 256, 56, 56}, {0, 2, 3, 1}, 1}},
      {"nhwc_to_nchw", {{64, 56, 56, 256}, {0, 3, 1, 2}, 1}},
      {"nchw_to_nhwc", {{32, 192, 56, 56}, {0, 2, 3, 1}, 4}},
      {"nhwc_to_nchw", {{32, 56, 56, 192}, {0, 3, 1, 2}, 4}},
      {"ncdhw_to_ndhwc", {{8, 64, 32, 56, 56}, {0, 2, 3, 4, 1}, 2}},
      {"pixel_shuffle", {{8, 64, 2, 2, 128, 128}, {0, 1, 4, 2, 5, 3}, 2}},
      {"reverse3", {{301, 405, 217}, {2, 1, 0}, 4}},
      {"reverse4", {{24, 40, 56, 72}, {3, 2, 1, 0}, 2}},
      {"odd_3210", {{63, 95, 97, 101}, {3, 2, 1, 0}, 4}},
      {"reverse5", {{24, 40, 32, 48, 40}, {4, 3, 2, 1, 0}, 4}},
      {"odd_0231", {{63, 95, 97, 101}, {0, 2, 3, 1}, 4}},
      {"small_41302", {{8, 9, 10, 11, 120}, {4, 1, 3, 0, 2}, 4}},
      {"small_43201", {{34, 19, 21, 37, 6}, {4, 3, 2, 0, 1}, 2}},
      {"rows16_102", {{4096, 2048, 4}, {1, 0, 2}, 4}},
      {"rows256_102", {{2048, 512, 64}, {1, 0, 2}, 4}},
  };
}

std::vector<PermutationCell> random_permutations(int count, unsigned seed, double min_bytes,
                                                 double max_bytes, int min_reduced_rank) {
  std::mt19937 rng(seed);
  std::vector<PermutationCell> out;
  PermuteReduction r;
  while (static_cast<int>(out.size()) < count)
    out.push_back(draw_permutation(rng, min_bytes, max_bytes, &r, min_reduced_rank));
  return out;
}

std::vector<PermutationCell> matrix_permutations(int count, unsigned seed, double min_bytes,
                                                 double max_bytes, double min_matrix_bytes,
                                                 double max_matrix_bytes,
                                                 const int (&min_side_bytes)[5]) {
  std::mt19937 rng(seed);
  auto unit = [&] { return static_cast<double>(rng()) / 4294967296.0; };  // [0, 1)
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::log(lo) + unit() * (std::log(hi) - std::log(lo)));
  };
  static const int kSizes[] = {1, 2, 4, 8, 16};
  std::vector<PermutationCell> out;
  PermuteReduction r;
  for (long draws = 0; static_cast<int>(out.size()) < count; ++draws) {
    if (draws > 100000L * (count + 1)) break;  // a range nothing meets: as many as were found
    const int size = static_cast<int>(rng() % 5), e = kSizes[size];
    const int rank = 4 + static_cast<int>(rng() % 2);
    // The matrix: src's contiguous dimension (the last) a elements, dst's (perm's last) b, both
    // at least min_side_bytes, a x b x e log-uniform in the matrix range.
    const auto side = std::max<std::int64_t>(2, (min_side_bytes[size] + e - 1) / e);
    const double m = log_uniform(std::max(min_matrix_bytes / e, double(side * side)),
                                 std::max(max_matrix_bytes / e, double(side * side)));
    if (m / side < side) continue;
    const auto a = static_cast<std::int64_t>(log_uniform(double(side), m / side));
    const auto b = static_cast<std::int64_t>(m / double(a));
    if (b < side || a > 600 || b > 600) continue;
    PermutationCell c;
    c.elem_bytes = e;
    c.perm.resize(rank);
    std::iota(c.perm.begin(), c.perm.end(), 0);
    do std::shuffle(c.perm.begin(), c.perm.end(), rng);
    while (c.perm[rank - 1] == rank - 1);
    c.extents.assign(rank, 0);
    c.extents[rank - 1] = a;
    c.extents[c.perm[rank - 1]] = b;
    // The other dimensions share what the tensor's bytes leave, each 2-600.
    double left = log_uniform(min_bytes, max_bytes) / e / double(a * b);
    int others = rank - 2;
    for (std::int64_t& n : c.extents) {
      if (n != 0) continue;
      const double even = std::pow(std::max(left, 1.0), 1.0 / others);
      n = others == 1 ? static_cast<std::int64_t>(std::llround(left))
                      : static_cast<std::int64_t>(even * log_uniform(0.3, 2.5));
      n = std::clamp<std::int64_t>(n, 2, 600);
      left /= double(n);
      --others;
    }
    double bytes = e;
    for (std::int64_t n : c.extents) bytes *= double(n);
    if (bytes < min_bytes || bytes > max_bytes) continue;
    if (!reduce_permutation(c.extents, c.perm, e, {}, &r) || r.form != PermuteForm::kTile ||
        r.extents.size() > 5)
      continue;
    const std::int64_t ra = r.extents.back(), rb = r.extents[r.perm.back()];
    const double matrix = double(ra * rb * e);
    if (std::min(ra, rb) < side || matrix < min_matrix_bytes || matrix > max_matrix_bytes) continue;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<SurveyCell> decider_survey_cells(const std::string& dist, int count, unsigned seed) {
  std::mt19937 rng(seed);
  auto unit = [&] { return static_cast<double>(rng()) / 4294967296.0; };  // [0, 1)
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {                  // [lo, hi]
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint32_t>(hi - lo + 1));
  };
  auto log_uniform = [&](double lo, double hi) {
    return std::exp(std::log(lo) + unit() * (std::log(hi) - std::log(lo)));
  };
  static const int kElems[] = {1, 2, 4, 8, 16};
  if (dist == "permute") {
    // A dense permutation's transpose form is dense too: a batch of rows x cols matrices, each
    // operand's rows and matrices back to back (its layout's strides are the dense ones).
    std::vector<SurveyCell> out;
    PermuteReduction r;
    while (static_cast<int>(out.size()) < count) {
      draw_permutation(rng, 1024.0 * 1024, 256.0 * 1024 * 1024, &r);
      if (r.form != PermuteForm::kTranspose) continue;
      const MatrixLayout& l = r.layout;
      const std::int64_t m = r.rows * r.cols;
      const bool dense =
          (l.src_ld_elems == 0 || l.src_ld_elems == r.cols) &&
          (l.dst_ld_elems == 0 || l.dst_ld_elems == r.rows) &&
          (l.batch == 1 || ((l.src_batch_stride_elems == 0 || l.src_batch_stride_elems == m) &&
                            (l.dst_batch_stride_elems == 0 || l.dst_batch_stride_elems == m)));
      if (!dense) continue;
      const bool skinny = std::min(r.rows, r.cols) <= 32;
      const char* cls = l.batch > 1 ? "batched" : skinny ? "skinny" : "odd";
      out.push_back({Shape{cls, l.batch, r.rows, r.cols}, r.transpose_elem_bytes});
    }
    return out;
  }
  if (dist == "skinny") {
    // One k x N or N x k matrix, k log-uniform in 2-600 (any length, so aligned and unaligned
    // short rows alike), 4-512 MB: the region where whole short rows decide the speed and the
    // other distributions draw few cells (k of 33-600 above all).
    std::vector<SurveyCell> out;
    while (static_cast<int>(out.size()) < count) {
      const int e = kElems[rng() % 5];
      const double elems = log_uniform(4.0 * 1024 * 1024, 512.0 * 1024 * 1024) / e;
      const auto k = static_cast<std::int64_t>(log_uniform(2, 601));
      const std::int64_t n = std::max<std::int64_t>(k, static_cast<std::int64_t>(elems / k));
      const bool k_rows = rng() % 2;
      out.push_back({Shape{"skinny", 1, k_rows ? k : n, k_rows ? n : k}, e});
    }
    return out;
  }
  if (dist == "channels" || dist == "channels_aligned") {
    // Batches of matrices with one short side: a layout change of activations (NCHW <-> NHWC,
    // NCDHW -> NDHWC: batch x channels x spatial) is a batch of 2-64 transposes of C x HW or
    // HW x C, C log-uniform in 3-512, HW whatever the bytes leave (at least C). No other
    // distribution has a batch of skinny matrices. channels_aligned: C and HW rounded up to
    // whole 16 bytes, as a network's channel counts and spatial sizes mostly are (64 x 3136 at
    // 2 B): the only cells of this class the TMA techniques can run (their rows must be whole 16
    // bytes), which "channels" draws once in 16 / E at best.
    const bool aligned = dist == "channels_aligned";
    std::vector<SurveyCell> out;
    while (static_cast<int>(out.size()) < count) {
      const int e = kElems[rng() % 5];
      const double elems = log_uniform(1024.0 * 1024, 1024.0 * 1024 * 1024) / e;
      Shape s{"batched", 1, 0, 0};
      s.batch = static_cast<std::int64_t>(log_uniform(2, 65));
      const std::int64_t m = aligned ? std::max(1, 16 / e) : 1;  // elements of 16 bytes
      const std::int64_t c = (static_cast<std::int64_t>(log_uniform(3, 513)) + m - 1) / m * m;
      const auto hw =
          (std::max<std::int64_t>(c, static_cast<std::int64_t>(elems / (s.batch * c))) + m - 1) /
          m * m;
      const bool c_rows = rng() % 2;  // NCHW -> NHWC: each image is C x HW, read along HW
      s.rows = c_rows ? c : hw;
      s.cols = c_rows ? hw : c;
      out.push_back({s, e});
    }
    return out;
  }
  if (dist == "domain") {
    // The judged classes with their own parameterisation: bytes from 512 KB, aspect up to 8:1,
    // 16-element-multiple and any-length sides, a short side uniform in 1-160, batches of sides
    // log-uniform in 20-400.
    std::vector<SurveyCell> out;
    for (int i = 0; static_cast<int>(out.size()) < count; ++i) {
      const int e = kElems[rng() % 5];
      const double elems = log_uniform(512.0 * 1024, 1024.0 * 1024 * 1024) / e;
      const double aspect = log_uniform(1.0 / 8, 8);
      Shape s{nullptr, 1, 0, 0};
      switch (i % 4) {
        case 0:
        case 1: {
          const std::int64_t m = i % 4 == 0 ? 16 : 1;
          s.cls = i % 4 == 0 ? "square" : "odd";
          s.rows = std::max<std::int64_t>(
              m, static_cast<std::int64_t>(std::sqrt(elems * aspect)) / m * m);
          s.cols = std::max<std::int64_t>(m, static_cast<std::int64_t>(elems / s.rows) / m * m);
          break;
        }
        case 2: {
          s.cls = "skinny";
          const std::int64_t k = uniform(1, 160);
          const std::int64_t n = std::max<std::int64_t>(k, static_cast<std::int64_t>(elems / k));
          const bool k_rows = rng() % 2;
          s.rows = k_rows ? k : n;
          s.cols = k_rows ? n : k;
          break;
        }
        default:
          s.cls = "batched";
          s.rows = static_cast<std::int64_t>(log_uniform(20, 401));
          s.cols = static_cast<std::int64_t>(log_uniform(20, 401));
          s.batch = std::max<std::int64_t>(2, static_cast<std::int64_t>(elems / (s.rows * s.cols)));
          break;
      }
      out.push_back({s, e});
    }
    return out;
  }
  const bool train = dist == "train";
  const double lo_bytes = train ? 256.0 * 1024 : 1024.0 * 1024, hi_bytes = 1024.0 * 1024 * 1024;
  const int families = train ? 6 : 4;
  std::vector<SurveyCell> out;
  for (int i = 0; static_cast<int>(out.size()) < count; ++i) {
    const int e = kElems[rng() % 5];
    const double elems = log_uniform(lo_bytes, hi_bytes) / e;
    Shape s{nullptr, 1, 0, 0};
    auto sides = [&](double aspect,
                     std::int64_t multiple) {  // rows x cols of `elems`, rows/cols ~ aspect
      const double r = std::sqrt(elems * aspect);
      s.rows = std::max<std::int64_t>(multiple, static_cast<std::int64_t>(r) / multiple * multiple);
      s.cols = std::max<std::int64_t>(
          multiple, static_cast<std::int64_t>(elems / s.rows) / multiple * multiple);
    };
    const double max_aspect = train ? 64 : 4;
    const double aspect = log_uniform(1 / max_aspect, max_aspect);
    switch (i % families) {
      case 0:
        s.cls = "square";
        sides(aspect, 16);
        break;
      case 1:
        s.cls = "odd";
        sides(aspect, 1);
        if (!train) {
          s.rows |= 1;
          s.cols |= 1;
        }
        break;
      case 2:
      case 3: {
        if (!train && i % families == 3) {  // heldout: batches, sides 30-300
          s.cls = "batched";
          s.rows = uniform(30, 300);
          s.cols = uniform(30, 300);
          s.batch = std::max<std::int64_t>(2, static_cast<std::int64_t>(elems / (s.rows * s.cols)));
          break;
        }
        s.cls = "skinny";
        const std::int64_t k = !train              ? uniform(1, 128)
                               : i % families == 2 ? static_cast<std::int64_t>(log_uniform(1, 193))
                                                   : uniform(1, 40);
        const std::int64_t n = std::max<std::int64_t>(k, static_cast<std::int64_t>(elems / k));
        const bool k_rows = rng() % 2;
        s.rows = k_rows ? k : n;
        s.cols = k_rows ? n : k;
        break;
      }
      case 4:
        s.cls = "batched";
        s.rows = static_cast<std::int64_t>(log_uniform(2, 701));
        s.cols = static_cast<std::int64_t>(log_uniform(2, 701));
        s.batch = std::max<std::int64_t>(2, static_cast<std::int64_t>(elems / (s.rows * s.cols)));
        break;
      default:
        s.cls = "batched";
        s.rows = 8 * uniform(2, 64);
        s.cols = 8 * uniform(2, 64);
        s.batch = std::max<std::int64_t>(2, static_cast<std::int64_t>(elems / (s.rows * s.cols)));
        break;
    }
    if (s.batch * s.rows * s.cols * e > static_cast<std::int64_t>(hi_bytes) * 2) continue;
    out.push_back({s, e});
  }
  return out;
}

}  // namespace tmakit::cli
