// Past 2^31 elements: 46341 x 46349 one-byte elements (2,147,858,409 > 2^31 = 2,147,483,648),
// so any 32-bit index arithmetic wraps. Filled and checked on the device (a host check would
// take minutes); guard bytes after the output are checked too.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/gpu/device_check.hpp>
#include <tests/support/gpu.hpp>
#include <host/testdata.hpp>

namespace tmakit {
namespace {

class Huge : public ::testing::TestWithParam<std::string> {};

TEST_P(Huge, PastTwoToThe31Elements) {
  const VariantInfo* info = find_variant(GetParam());
  ASSERT_NE(info, nullptr);
  TMAKIT_NEED_GPU(info->min_cc);
  const std::int64_t rows = 46341, cols = 46349, n = rows * cols;
  ASSERT_GT(n, std::int64_t(1) << 31);
  const std::size_t guard = 4096;
  unsigned char *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), n + guard), cudaSuccess);
  ASSERT_EQ(test::fill_byte_pattern(src, n), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, kPoisonByte, n + guard), cudaSuccess);
  TransposeOptions opt;
  opt.variant = info->token;
  opt.synchronize = true;
  const Status s = transpose(src, dst, rows, cols, 1, opt);
  ASSERT_TRUE(s.ok()) << s.message;
  unsigned long long errors = 0;
  if (info->kind == VariantKind::kCopy) {
    // copy: out == in, i.e. the pattern itself; check it as a 1 x n "transpose".
    ASSERT_EQ(test::count_transpose_errors_u8(dst, 1, n, &errors), cudaSuccess);
  } else {
    ASSERT_EQ(test::count_transpose_errors_u8(dst, rows, cols, &errors), cudaSuccess);
  }
  EXPECT_EQ(errors, 0ull) << info->token;
  std::vector<unsigned char> tail(guard);
  ASSERT_EQ(cudaMemcpy(tail.data(), dst + n, guard, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < guard; ++i) ASSERT_EQ(tail[i], kPoisonByte) << "guard byte " << i;
  cudaFree(src);
  cudaFree(dst);
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
