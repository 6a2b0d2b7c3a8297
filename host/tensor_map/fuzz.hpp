// Random tensor-map specs drawn near every rule's boundary, for the differential test of
// validate() against the real driver (tests/sm90, `tmakit tensormap --fuzz N`).
#pragma once
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>
#include <tmakit/tensor_map.hpp>

namespace tmakit {

// `base` must be 1024-byte aligned; the spec's address is base plus a small offset.
TensorMapSpec random_boundary_spec(std::mt19937_64& rng, const unsigned char* base);

struct DifferentialResult {
  std::uint64_t cases = 0;
  std::uint64_t both_accept = 0, both_reject = 0;
  std::uint64_t false_accepts = 0;  // validate ok, driver rejected: must be zero
  std::uint64_t stricter = 0;       // validate rejected, driver accepted
  std::map<std::string, std::uint64_t> stricter_by_rule;  // error rule ids of those cases
  std::string first_false_accept;                         // describe() of the first one
  std::vector<TensorMapSpec> false_accept_specs;          // up to the first 100,000
  std::vector<TensorMapSpec> accepted_specs;              // both accept, up to the first 100,000
  std::vector<Im2colSpec> im2col_false_accept_specs, im2col_accepted_specs;  // likewise
  std::string first_unexpected_stricter;  // a stricter case whose rules are all driver_enforced
  Status status;                          // driver unavailable, etc.
};

// Draws n specs from seed, compares validate(spec, cc) with cuTensorMapEncodeTiled.
DifferentialResult run_differential(std::uint64_t n, std::uint64_t seed, int cc,
                                    const unsigned char* base);

// The same for im2col maps against cuTensorMapEncodeIm2col (the specs go to the im2col_
// vectors; first_false_accept holds describe() of the first).
Im2colSpec random_boundary_im2col_spec(std::mt19937_64& rng, const unsigned char* base);
DifferentialResult run_im2col_differential(std::uint64_t n, std::uint64_t seed, int cc,
                                           const unsigned char* base);

}  // namespace tmakit
