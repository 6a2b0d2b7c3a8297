#include <cstring>
#include <host/testdata.hpp>

namespace tmakit {
namespace {

// splitmix64 finaliser: every bit of the index reaches every bit of the value.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

void fill_index_pattern(std::vector<unsigned char>& out, std::int64_t n, int elem_bytes) {
  out.resize(static_cast<std::size_t>(n) * elem_bytes);
  fill_index_pattern_range(out.data(), 0, n, elem_bytes);
}

void fill_index_pattern_range(unsigned char* out, std::int64_t first, std::int64_t n, int elem_bytes) {
  for (std::int64_t i = first; i < first + n; ++i) {
    unsigned char* e = out + (i - first) * elem_bytes;
    for (int b = 0; b < elem_bytes; b += 8) {
      std::uint64_t v = mix(static_cast<std::uint64_t>(i) * 2 + (b / 8));
      // Wide elements carry the index itself in their low bytes: distinct for every element.
      if (elem_bytes >= 4 && b == 0) v = (v & ~0xFFFFFFFFull) | static_cast<std::uint32_t>(i);
      std::memcpy(e + b, &v, elem_bytes - b < 8 ? elem_bytes - b : 8);
    }
    // Never produce the all-poison element: flip one bit of it.
    bool all_poison = true;
    for (int b = 0; b < elem_bytes; ++b) all_poison = all_poison && e[b] == kPoisonByte;
    if (all_poison) e[0] ^= 1;
  }
}

std::int64_t first_mismatch(const unsigned char* a, const unsigned char* b, std::int64_t n,
                            int elem_bytes) {
  const std::size_t bytes = static_cast<std::size_t>(n) * elem_bytes;
  if (std::memcmp(a, b, bytes) == 0) return -1;
  for (std::int64_t i = 0; i < n; ++i)
    if (std::memcmp(a + i * elem_bytes, b + i * elem_bytes, elem_bytes) != 0) return i;
  return -1;
}

}  // namespace tmakit
