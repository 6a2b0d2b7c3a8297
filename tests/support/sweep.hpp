// Seeded draws for the sweep tests (host emulations and the GPU sweep): one engine, and
// pick(a, b) uniform over [a, b]. A fixed default seed keeps every run's calls the same, so a
// failure names a call that reproduces.
#pragma once
#include <cstdint>
#include <random>

namespace tmakit::test {

inline constexpr std::uint64_t kSweepSeed = 20261127;

class SweepPicker {
 public:
  explicit SweepPicker(std::uint64_t seed = kSweepSeed) : rng_(seed) {}
  explicit SweepPicker(std::seed_seq& seq) : rng_(seq) {}
  std::int64_t operator()(std::int64_t a, std::int64_t b) {
    return std::uniform_int_distribution<std::int64_t>(a, b)(rng_);
  }

 private:
  std::mt19937_64 rng_;
};

}  // namespace tmakit::test
