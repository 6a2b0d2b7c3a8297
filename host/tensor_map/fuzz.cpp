// Specs near every boundary: each field is usually valid (so that whole specs are often
// valid and a false accept can show) and sometimes just over a limit.
#include <host/tensor_map/fuzz.hpp>

#include <host/tensor_map/driver.hpp>

namespace tmakit {
namespace {

template <class T, std::size_t N>
T pick(std::mt19937_64& rng, const T (&values)[N]) {
  return values[std::uniform_int_distribution<std::size_t>(0, N - 1)(rng)];
}

bool chance(std::mt19937_64& rng, double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; }

// The fields tiled and im2col specs share, drawn in one order (type, interleave, swizzle, L2,
// OOB fill, address): packed types with probability `packed`, swizzles from `swizzles`.
template <class Spec, std::size_t N>
void draw_common(std::mt19937_64& rng, Spec& s, const unsigned char* base, double packed,
                 const int (&swizzles)[N]) {
  s.type = static_cast<TmaType>(chance(rng, 0.01) ? 16 : chance(rng, packed) ? 13 + int(rng() % 3) : int(rng() % 13));
  static const int interleaves[] = {0, 0, 0, 0, 0, 0, 1, 2};
  s.interleave = static_cast<TmaInterleave>(chance(rng, 0.01) ? 3 : pick(rng, interleaves));
  s.swizzle = static_cast<TmaSwizzle>(chance(rng, 0.01) ? 7 : pick(rng, swizzles));
  s.l2_promotion = static_cast<TmaL2Promotion>(chance(rng, 0.01) ? 4 : int(rng() % 4));
  s.oob_fill = static_cast<TmaOobFill>(chance(rng, 0.01) ? 2 : int(rng() % 2));
  static const std::uint64_t offsets[] = {0, 0, 0, 0, 16, 32, 64, 128, 256, 8, 48};
  s.address = chance(rng, 0.005) ? nullptr : base + pick(rng, offsets);
}

// Pitches, innermost first: usually the dense extent rounded up to 16 (or 32) plus padding;
// then the element strides.
template <class Spec>
void draw_pitches_and_strides(std::mt19937_64& rng, Spec& s, int rank, int bits) {
  for (int i = rank - 2; i >= 0; --i) {
    const std::uint64_t below = (i + 1 == rank - 1) ? (s.shape[rank - 1] * bits + 7) / 8
                                                    : s.pitch_bytes[i + 1] * s.shape[i + 1];
    const std::uint64_t align = chance(rng, 0.5) ? 32 : 16;
    std::uint64_t p = (below + align - 1) / align * align + align * (rng() % 3);
    const int r = static_cast<int>(rng() % 40);
    if (r == 0) p += 8;                                  // not a multiple of 16
    else if (r == 1) p = (1ull << 40);                   // at the limit
    else if (r == 2) p = (1ull << 40) - 16;              // just under it
    else if (r == 3 && p > 32) p -= 16;                  // smaller than the row: overlap
    else if (r == 4) p += 16;                            // a multiple of 16, not of 32
    s.pitch_bytes[i] = p;
  }
  for (int i = 0; i < rank; ++i) {
    const int r = static_cast<int>(rng() % 30);
    s.elem_strides[i] = r == 0 ? 0 : r == 1 ? 9 : r < 5 ? static_cast<std::uint32_t>(2 + rng() % 7) : 1;
  }
}

}  // namespace

TensorMapSpec random_boundary_spec(std::mt19937_64& rng, const unsigned char* base) {
  TensorMapSpec s;
  static const int ranks[] = {1, 2, 2, 2, 3, 3, 4, 5};
  s.rank = chance(rng, 0.02) ? (chance(rng, 0.5) ? 0 : 6) : pick(rng, ranks);
  static const int swizzles[] = {0, 0, 1, 2, 3, 3, 4, 5, 6};
  draw_common(rng, s, base, 0.08, swizzles);

  const int rank = s.rank < 1 ? 1 : s.rank > kTmaMaxRank ? kTmaMaxRank : s.rank;
  const int bits = tma_type_bits(s.type) ? tma_type_bits(s.type) : 8;
  static const std::uint64_t dims[] = {1, 2, 3, 7, 8, 31, 64, 127, 128, 129, 256, 1000, 4096, 65536};
  static const std::uint64_t big_dims[] = {0, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1};
  for (int i = 0; i < rank; ++i) s.shape[i] = chance(rng, 0.04) ? pick(rng, big_dims) : pick(rng, dims);

  // Box: the inner extent from inner byte counts around 16-byte multiples and swizzle spans.
  static const std::uint64_t inner_bytes[] = {16, 32, 32, 64, 64, 128, 128, 256, 512, 8, 24, 48, 96, 144};
  const std::uint64_t ib = pick(rng, inner_bytes);
  s.box[rank - 1] = static_cast<std::uint32_t>(ib * 8 / bits);
  static const std::uint32_t boxes[] = {1, 2, 4, 8, 16, 32, 64, 128, 255, 256};
  for (int i = 0; i + 1 < rank; ++i) s.box[i] = pick(rng, boxes);
  if (chance(rng, 0.03)) s.box[rng() % rank] = chance(rng, 0.5) ? 0 : 257;

  draw_pitches_and_strides(rng, s, rank, bits);
  return s;
}

Im2colSpec random_boundary_im2col_spec(std::mt19937_64& rng, const unsigned char* base) {
  Im2colSpec s;
  static const int ranks[] = {3, 4, 4, 4, 5, 5};
  s.rank = chance(rng, 0.03) ? (chance(rng, 0.5) ? 2 : 6) : pick(rng, ranks);
  static const int swizzles[] = {0, 0, 0, 1, 2, 3, 3, 4, 5, 6};
  draw_common(rng, s, base, 0.06, swizzles);

  const int rank = s.rank < 3 ? 3 : s.rank > 5 ? 5 : s.rank;
  const int bits = tma_type_bits(s.type) ? tma_type_bits(s.type) : 8;
  static const std::uint64_t dims[] = {1, 2, 3, 5, 7, 8, 9, 16, 31, 64, 100, 128, 129, 256, 1000};
  static const std::uint64_t big_dims[] = {0, (1ull << 32) - 1, 1ull << 32, (1ull << 32) + 1};
  for (int i = 0; i < rank; ++i) s.shape[i] = chance(rng, 0.03) ? pick(rng, big_dims) : pick(rng, dims);
  // Channels: byte counts around 16-byte multiples and swizzle spans; sometimes off the range.
  static const std::uint64_t ch_bytes[] = {16, 32, 32, 64, 64, 128, 128, 256, 512, 1024, 8, 24, 48};
  s.channels_per_pixel = static_cast<std::uint32_t>(pick(rng, ch_bytes) * 8 / bits);
  if (chance(rng, 0.03)) s.channels_per_pixel = chance(rng, 0.5) ? 0 : 257;
  static const std::uint32_t pixels[] = {1, 2, 8, 16, 32, 64, 128, 256, 512, 1023, 1024, 1025, 0};
  s.pixels_per_column = pick(rng, pixels);
  // Corners near each rank's limits, and boxes near empty.
  const int lim = rank == 3 ? 32768 : rank == 4 ? 128 : 16;
  for (int d = 0; d < rank - 2; ++d) {
    const int r = static_cast<int>(rng() % 12);
    const int ext = static_cast<int>(s.shape[1 + d] > 100000 ? 100000 : s.shape[1 + d]);
    s.lower_corner[d] = r == 0 ? -lim : r == 1 ? -lim - 1 : r == 2 ? lim - 1 : r == 3 ? lim : -static_cast<int>(rng() % 4);
    const int q = static_cast<int>(rng() % 12);
    s.upper_corner[d] = q == 0 ? -lim : q == 1 ? lim : q == 2 ? lim - 1
                        : q == 3 ? s.lower_corner[d] - ext          // empty box
                        : q == 4 ? s.lower_corner[d] - ext + 1      // one pixel
                                 : static_cast<int>(rng() % 4) - 3;
  }
  draw_pitches_and_strides(rng, s, rank, bits);
  return s;
}

namespace {

// One differential run: draw, validate, call the driver, tally. keep(res, spec, accepted)
// stores up to 100,000 specs of each outcome for --dump.
template <class Draw, class Encode, class Keep>
DifferentialResult differential(std::uint64_t n, std::uint64_t seed, int cc, Draw draw, Encode encode_fn,
                                Keep keep) {
  DifferentialResult res;
  std::mt19937_64 rng(seed);
  alignas(128) CUtensorMap map;
  for (std::uint64_t k = 0; k < n; ++k) {
    const auto spec = draw(rng);
    const ValidationReport rep = validate(spec, cc);
    Status why;
    const CUresult r = encode_fn(spec, &map, &why);
    if (!why.ok()) {
      res.status = why;
      return res;
    }
    ++res.cases;
    const bool driver_ok = r == CUDA_SUCCESS;
    if (rep.ok() && driver_ok) {
      ++res.both_accept;
      keep(res, spec, true);
    } else if (!rep.ok() && !driver_ok) {
      ++res.both_reject;
    } else if (rep.ok()) {
      keep(res, spec, false);
      if (res.false_accepts++ == 0)
        res.first_false_accept = "driver returned " + curesult_name(r) + " for:\n" + describe(spec) + rep.to_string();
    } else {
      ++res.stricter;
      bool all_expected = true;
      for (const RuleViolation& v : rep.errors) {
        ++res.stricter_by_rule[v.rule->id];
        all_expected = all_expected && !v.rule->driver_enforced;
      }
      if (!all_expected && res.first_unexpected_stricter.empty())
        res.first_unexpected_stricter = describe(spec) + rep.to_string();
    }
  }
  return res;
}

template <class Spec>
void keep_in(std::vector<Spec>* accepted, std::vector<Spec>* rejected, const Spec& spec, bool ok) {
  std::vector<Spec>* v = ok ? accepted : rejected;
  if (v->size() < 100000) v->push_back(spec);
}

}  // namespace

DifferentialResult run_im2col_differential(std::uint64_t n, std::uint64_t seed, int cc,
                                           const unsigned char* base) {
  return differential(
      n, seed, cc, [&](std::mt19937_64& rng) { return random_boundary_im2col_spec(rng, base); },
      encode_im2col_unchecked,
      [](DifferentialResult& res, const Im2colSpec& spec, bool ok) {
        keep_in(&res.im2col_accepted_specs, &res.im2col_false_accept_specs, spec, ok);
      });
}

DifferentialResult run_differential(std::uint64_t n, std::uint64_t seed, int cc,
                                    const unsigned char* base) {
  return differential(
      n, seed, cc, [&](std::mt19937_64& rng) { return random_boundary_spec(rng, base); },
      encode_unchecked,
      [](DifferentialResult& res, const TensorMapSpec& spec, bool ok) {
        keep_in(&res.accepted_specs, &res.false_accept_specs, spec, ok);
      });
}

}  // namespace tmakit
