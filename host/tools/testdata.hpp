// Index-encoded test data shared by the CLI, the tests and the benchmarks: element i of the
// input is a mix of its index, so a transposed, shifted or duplicated element is a different
// value; no element equals the poison byte pattern, so an unwritten output is always caught.
#pragma once
#include <cstdint>
#include <vector>

namespace tmakit {

inline constexpr unsigned char kPoisonByte = 0xCD;

// n elements of elem_bytes (1, 2, 4, 8, 16) into out (resized to n*elem_bytes).
void fill_index_pattern(std::vector<unsigned char>& out, std::int64_t n, int elem_bytes);
// Elements [first, first + n) of the same pattern into out (n * elem_bytes bytes), so large
// matrices can be filled by several threads.
void fill_index_pattern_range(unsigned char* out, std::int64_t first, std::int64_t n,
                              int elem_bytes);

// The same contract (elements [first, first + n), never the all-poison element), with values
// that library peers can scale by alpha = 1 without changing a bit: each element is an
// integer-valued, finite, normal number of the type a peer reads at that size (1 B int8,
// 2 B bf16, 4 B fp32, 8 B fp64, 16 B complex fp64), its low mantissa bits taken from the
// index so neighbours differ (bf16 repeats after 30,720 elements, fp32 after 1.7e9).
void fill_peer_values_range(unsigned char* out, std::int64_t first, std::int64_t n, int elem_bytes);

// Index of the first differing elem_bytes-sized element, or -1 if equal.
std::int64_t first_mismatch(const unsigned char* a, const unsigned char* b, std::int64_t n,
                            int elem_bytes);

}  // namespace tmakit
