#include <cmath>
#include <limits>
#include <cstdint>
#include <cstring>
#include <vector>
#include <gtest/gtest.h>
#include <host/tools/testdata.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

TEST(Reference, TransposesA2x3Matrix) {
  const std::vector<std::int32_t> src = {1, 2, 3, 4, 5, 6};  // [[1 2 3] [4 5 6]]
  std::vector<std::int32_t> dst(6, -1);
  ASSERT_TRUE(reference_transpose(src.data(), dst.data(), 2, 3, 4));
  EXPECT_EQ(dst, (std::vector<std::int32_t>{1, 4, 2, 5, 3, 6}));  // [[1 4] [2 5] [3 6]]
}

class ReferenceSizes : public ::testing::TestWithParam<int> {};

// Transposing twice gives the input back, and element (r, c) lands at (c, r), for shapes
// that straddle the 64x64 blocking.
TEST_P(ReferenceSizes, IsAnInvolutionAndMovesEachElement) {
  const int e = GetParam();
  for (auto [rows, cols] : {std::pair<int, int>{1, 1}, {1, 130}, {130, 1}, {65, 129}, {200, 77}}) {
    std::vector<unsigned char> src, t(rows * cols * e), back(rows * cols * e);
    fill_index_pattern(src, std::int64_t(rows) * cols, e);
    ASSERT_TRUE(reference_transpose(src.data(), t.data(), rows, cols, e));
    ASSERT_TRUE(reference_transpose(t.data(), back.data(), cols, rows, e));
    EXPECT_EQ(back, src) << rows << "x" << cols;
    const int r = rows - 1, c = cols / 2;
    EXPECT_EQ(0, std::memcmp(&t[(std::int64_t(c) * rows + r) * e],
                             &src[(std::int64_t(r) * cols + c) * e], e));
  }
}
INSTANTIATE_TEST_SUITE_P(ElemBytes, ReferenceSizes, ::testing::Values(1, 2, 4, 8, 16));

// dst = alpha * src^T + beta * dst on known values, per type: the rounding each type does.
TEST(ReferenceAccumulate, KnownValuesPerType) {
  {  // f32: 2x3, alpha 2, beta 1 (exact)
    const float src[6] = {1, 2, 3, 4, 5, 6};
    float dst[6] = {10, 20, 30, 40, 50, 60};  // 3x2
    ASSERT_TRUE(reference_transpose_accumulate(src, dst, 2, 3, DataType::kF32, 2, 1).ok());
    const float want[6] = {12, 28, 34, 50, 56, 72};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(dst[i], want[i]) << i;
  }
  {  // beta = 0 never reads dst: a NaN there does not propagate
    const double src[1] = {3};
    double dst[1] = {std::nan("")};
    ASSERT_TRUE(reference_transpose_accumulate(src, dst, 1, 1, DataType::kF64, -1, 0).ok());
    EXPECT_EQ(dst[0], -3.0);
  }
  {  // i32 wraps like two's complement
    const std::int32_t src[1] = {2147483647};
    std::int32_t dst[1] = {1};
    ASSERT_TRUE(reference_transpose_accumulate(src, dst, 1, 1, DataType::kI32, 1, 1).ok());
    EXPECT_EQ(dst[0], std::numeric_limits<std::int32_t>::min());
  }
  {  // f16: 2049 is not a half; 2048 + 1 rounds to even (2048); bf16: 256 + 1 -> 256
    const std::uint16_t one_h = 0x3C00, two048_h = 0x6800;  // 1.0, 2048.0
    std::uint16_t dst_h[1] = {two048_h};
    ASSERT_TRUE(reference_transpose_accumulate(&one_h, dst_h, 1, 1, DataType::kF16, 1, 1).ok());
    EXPECT_EQ(dst_h[0], two048_h);
    const std::uint16_t one_b = 0x3F80, two56_b = 0x4380;  // 1.0, 256.0
    std::uint16_t dst_b[1] = {two56_b};
    ASSERT_TRUE(reference_transpose_accumulate(&one_b, dst_b, 1, 1, DataType::kBF16, 3, 1).ok());
    EXPECT_EQ(dst_b[0], 0x4382);  // 259 -> 260 (bf16 step 2 there)
  }
  float f = 0;
  EXPECT_FALSE(reference_transpose_accumulate(nullptr, &f, 1, 1, DataType::kF32, 1, 1).ok());
  EXPECT_FALSE(reference_transpose_accumulate(&f, &f, 0, 1, DataType::kF32, 1, 1).ok());
}

TEST(Reference, RejectsBadArguments) {
  std::vector<unsigned char> a(64), b(64);
  EXPECT_EQ(reference_transpose(nullptr, b.data(), 2, 2, 4).code, StatusCode::kInvalidArgument);
  EXPECT_EQ(reference_transpose(a.data(), nullptr, 2, 2, 4).code, StatusCode::kInvalidArgument);
  EXPECT_EQ(reference_transpose(a.data(), b.data(), 0, 2, 4).code, StatusCode::kInvalidArgument);
  const Status s = reference_transpose(a.data(), b.data(), 2, 2, 3);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("3 bytes"), std::string::npos) << s.message;
}

TEST(TestData, PatternAvoidsPoisonAndWideElementsAreDistinct) {
  for (int e : {1, 2, 4, 8, 16}) {
    std::vector<unsigned char> v;
    fill_index_pattern(v, 70000, e);
    ASSERT_EQ(v.size(), std::size_t(70000) * e);
    for (std::int64_t i = 0; i < 70000; ++i) {
      bool all_poison = true;
      for (int b = 0; b < e; ++b) all_poison = all_poison && v[i * e + b] == kPoisonByte;
      ASSERT_FALSE(all_poison) << "element " << i << " of size " << e;
    }
    if (e >= 4)
      for (std::int64_t i = 0; i < 70000; ++i) {
        std::uint32_t low;
        std::memcpy(&low, &v[i * e], 4);
        ASSERT_EQ(low, std::uint32_t(i));
      }
  }
}

// The benchmark's inputs for library peers: each element, read as the peer's type at its size,
// is a finite, normal, integer-valued number (so alpha = 1 is exact), never the poison
// pattern, and neighbours differ (2 bytes and wider).
double as_peer_value(const unsigned char* p, int e, int part) {
  switch (e) {
    case 2: {  // bf16: the high half of an fp32
      std::uint16_t h;
      std::memcpy(&h, p, 2);
      const std::uint32_t w = std::uint32_t(h) << 16;
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case 4: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, p + 8 * part, 8);
      return d;
    }
  }
}

TEST(TestData, PeerValuesAreIntegerValuedFiniteAndDistinctNeighbours) {
  for (int e : {1, 2, 4, 8, 16}) {
    // A run near the start and one past 2^32 elements (the exponent and sign bits in use).
    for (std::int64_t first : {std::int64_t(0), std::int64_t(5'000'000'000)}) {
      const std::int64_t n = 20000;
      std::vector<unsigned char> v(std::size_t(n) * e);
      fill_peer_values_range(v.data(), first, n, e);
      for (std::int64_t i = 0; i < n; ++i) {
        const unsigned char* p = &v[i * e];
        bool all_poison = true;
        for (int b = 0; b < e; ++b) all_poison = all_poison && p[b] == kPoisonByte;
        ASSERT_FALSE(all_poison) << "element " << first + i << " of size " << e;
        if (e == 1) continue;  // int8: every pattern is an integer (a hash: neighbours may repeat)
        for (int part = 0; part < (e == 16 ? 2 : 1); ++part) {
          const double x = as_peer_value(p, e, part);
          ASSERT_TRUE(std::isfinite(x) && std::isnormal(x)) << x << " at " << first + i;
          ASSERT_EQ(x, std::trunc(x)) << "element " << first + i << " of size " << e;
        }
        if (i > 0)
          ASSERT_NE(std::memcmp(p, p - e, e), 0) << "element " << first + i << " of size " << e;
      }
    }
  }
}

TEST(TestData, FirstMismatchFindsTheElement) {
  std::vector<unsigned char> a, b;
  fill_index_pattern(a, 100, 8);
  b = a;
  EXPECT_EQ(first_mismatch(a.data(), b.data(), 100, 8), -1);
  b[8 * 57 + 3] ^= 0x10;
  EXPECT_EQ(first_mismatch(a.data(), b.data(), 100, 8), 57);
}

}  // namespace
}  // namespace tmakit
