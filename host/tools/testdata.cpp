#include <cstring>
#include <host/tools/testdata.hpp>

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

void fill_index_pattern_range(unsigned char* out, std::int64_t first, std::int64_t n,
                              int elem_bytes) {
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

namespace {

// An integer-valued float of `mant_bits` mantissa bits and bias `bias`: sign, exponent and
// mantissa from the index. The exponent stays in [bias + mant_bits, bias + mant_bits + range):
// there every mantissa value makes an integer, far below the type's largest finite value.
std::uint64_t integer_float_bits(std::uint64_t i, int mant_bits, std::uint64_t bias,
                                 std::uint64_t range) {
  const std::uint64_t mant = i & ((1ull << mant_bits) - 1);
  const std::uint64_t hi = i >> mant_bits;
  const std::uint64_t exp = bias + static_cast<std::uint64_t>(mant_bits) + hi % range;
  const std::uint64_t sign = (hi / range) & 1;
  const int exp_bits = mant_bits == 7 ? 8 : mant_bits == 23 ? 8 : 11;
  return (sign << (mant_bits + exp_bits)) | (exp << mant_bits) | mant;
}

}  // namespace

void fill_peer_values_range(unsigned char* out, std::int64_t first, std::int64_t n,
                            int elem_bytes) {
  for (std::int64_t i = first; i < first + n; ++i) {
    unsigned char* e = out + (i - first) * elem_bytes;
    const auto u = static_cast<std::uint64_t>(i);
    switch (elem_bytes) {
      case 1: {
        const auto v = static_cast<std::uint8_t>(mix(u));  // int8: every bit pattern is one
        std::memcpy(e, &v, 1);
        break;
      }
      case 2: {  // bf16: 7 mantissa bits, bias 127, exponents 134..253
        const auto v = static_cast<std::uint16_t>(integer_float_bits(u, 7, 127, 120));
        std::memcpy(e, &v, 2);
        break;
      }
      case 4: {  // fp32: 23 mantissa bits, exponents 150..253
        const auto v = static_cast<std::uint32_t>(integer_float_bits(u, 23, 127, 104));
        std::memcpy(e, &v, 4);
        break;
      }
      default: {  // fp64 (and both halves of complex fp64): 52 mantissa bits, bias 1023
        for (int b = 0; b < elem_bytes; b += 8) {
          const std::uint64_t v = integer_float_bits(b == 0 ? u : mix(u) >> 12, 52, 1023, 900);
          std::memcpy(e + b, &v, 8);
        }
      }
    }
    bool all_poison = true;
    for (int b = 0; b < elem_bytes; ++b) all_poison = all_poison && e[b] == kPoisonByte;
    // A low mantissa bit: still an integer. Not bit 0, which would repeat the element before
    // (its mantissa is one less).
    if (all_poison) e[0] ^= 2;
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
