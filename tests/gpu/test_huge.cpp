// Past 2^31 elements: 65536 x 40000 one-byte elements (2,621,440,000 > 2^31 = 2,147,483,648),
// so any 32-bit index arithmetic wraps; and a batch of two 32768 x 40000 matrices, whose
// second matrix starts past 2^31. Filled and checked on the device (a host check would take
// minutes); guard bytes after the output are checked too.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/gpu/device_check.hpp>
#include <tests/support/gpu.hpp>
#include <host/tools/testdata.hpp>

namespace tmakit {
namespace {

class Huge : public ::testing::TestWithParam<std::string> {};

void expect_huge_transpose(const VariantInfo& info, std::int64_t batch, std::int64_t rows,
                           std::int64_t cols) {
  const std::int64_t n = batch * rows * cols;
  ASSERT_GT(n, std::int64_t(1) << 31);
  const std::size_t guard = 4096;
  unsigned char *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), n + guard), cudaSuccess);
  ASSERT_EQ(test::fill_byte_pattern(src, n), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, kPoisonByte, n + guard), cudaSuccess);
  TransposeOptions opt;
  opt.variant = info.token;
  opt.synchronize = true;
  const Status s = transpose(src, dst, rows, cols, 1, MatrixLayout{batch, 0, 0, 0, 0}, opt);
  ASSERT_TRUE(s.ok()) << s.message;
  unsigned long long errors = 0;
  if (info.kind == VariantKind::kCopy) {
    // copy: out == in, i.e. the pattern itself; check it as a 1 x n "transpose".
    ASSERT_EQ(test::count_transpose_errors_u8(dst, 1, n, &errors), cudaSuccess);
  } else {
    ASSERT_EQ(test::count_transpose_errors_u8(dst, rows, cols, &errors, batch), cudaSuccess);
  }
  EXPECT_EQ(errors, 0ull) << info.token << " ran " << s.variant << " " << s.fallback_reason;
  std::vector<unsigned char> tail(guard);
  ASSERT_EQ(cudaMemcpy(tail.data(), dst + n, guard, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < guard; ++i) ASSERT_EQ(tail[i], kPoisonByte) << "guard byte " << i;
  cudaFree(src);
  cudaFree(dst);
}

TEST_P(Huge, PastTwoToThe31Elements) {
  const VariantInfo* info = find_variant(GetParam());
  ASSERT_NE(info, nullptr);
  TMAKIT_NEED_GPU(info->min_cc);
  expect_huge_transpose(*info, 1, 65536, 40000);
}

TEST_P(Huge, BatchWhoseSecondMatrixStartsPastTwoToThe31) {
  const VariantInfo* info = find_variant(GetParam());
  ASSERT_NE(info, nullptr);
  TMAKIT_NEED_GPU(info->min_cc);
  expect_huge_transpose(*info, 2, 32768, 40000);
}

// Skinny past 2^31 elements: 16 x 140,000,000 and its transpose (2,240,000,000 elements), where
// smem_flat's units and every technique's long-side index run past 32 bits.
TEST_P(Huge, SkinnyPastTwoToThe31) {
  const VariantInfo* info = find_variant(GetParam());
  ASSERT_NE(info, nullptr);
  TMAKIT_NEED_GPU(info->min_cc);
  expect_huge_transpose(*info, 1, 16, 140000000);
  expect_huge_transpose(*info, 1, 140000000, 16);
}

std::vector<std::string> one_byte_variants() {
  std::vector<std::string> v;
  for (const VariantInfo& i : variants())
    if (i.supports_elem_bytes(1)) v.push_back(i.token);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Registry, Huge, ::testing::ValuesIn(one_byte_variants()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace tmakit
