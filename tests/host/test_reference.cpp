#include <cstdint>
#include <cstring>
#include <vector>
#include <gtest/gtest.h>
#include <host/testdata.hpp>
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
