// Bad input gets a clear error before anything is launched. These checks run without a GPU:
// the pointers below are never dereferenced because validation rejects the call first.
#include <string>
#include <gtest/gtest.h>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

alignas(256) unsigned char g_a[1 << 16];
alignas(256) unsigned char g_b[1 << 16];

void expect_error(const Status& s, StatusCode code, const std::string& needle) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code, code) << s.message;
  EXPECT_NE(s.message.find(needle), std::string::npos)
      << "message '" << s.message << "' should mention '" << needle << "'";
}

TEST(ApiErrors, NullSource) {
  expect_error(transpose(nullptr, g_b, 4, 4, 4), StatusCode::kInvalidArgument,
               "src is a null pointer");
}

TEST(ApiErrors, NullDestination) {
  expect_error(transpose(g_a, nullptr, 4, 4, 4), StatusCode::kInvalidArgument,
               "dst is a null pointer");
}

TEST(ApiErrors, ZeroRows) {
  expect_error(transpose(g_a, g_b, 0, 4, 4), StatusCode::kInvalidArgument,
               "rows must be >= 1 (got 0)");
}

TEST(ApiErrors, ZeroCols) {
  expect_error(transpose(g_a, g_b, 4, 0, 4), StatusCode::kInvalidArgument,
               "cols must be >= 1 (got 0)");
}

TEST(ApiErrors, NegativeDims) {
  expect_error(transpose(g_a, g_b, -3, 4, 4), StatusCode::kInvalidArgument,
               "rows must be >= 1 (got -3)");
}

TEST(ApiErrors, AbsurdDimsOverflow) {
  expect_error(transpose(g_a, g_b, std::int64_t(1) << 40, std::int64_t(1) << 40, 4),
               StatusCode::kInvalidArgument, "too large");
}

TEST(ApiErrors, ElementSizeNotAPowerOfTwo) {
  expect_error(transpose(g_a, g_b, 4, 4, 3), StatusCode::kInvalidArgument, "element size 3 bytes");
}

TEST(ApiErrors, VariantDoesNotSupportElementSize) {
  TransposeOptions o;
  o.variant = "smem";
  expect_error(transpose(g_a, g_b, 4, 4, 16, o), StatusCode::kUnsupported,
               "'smem' does not support 16-byte elements");
}

TEST(ApiErrors, UnknownVariantListsTheKnownOnes) {
  TransposeOptions o;
  o.variant = "fastest_please";
  const Status s = transpose(g_a, g_b, 4, 4, 4, o);
  expect_error(s, StatusCode::kInvalidArgument, "unknown variant 'fastest_please'");
  EXPECT_NE(s.message.find("smem_padded"), std::string::npos) << s.message;
}

TEST(ApiErrors, OverlappingBuffers) {
  expect_error(transpose(g_a, g_a + 32, 8, 8, 4), StatusCode::kInvalidArgument, "overlap");
  expect_error(transpose(g_a + 32, g_a, 8, 8, 4), StatusCode::kInvalidArgument, "overlap");
  expect_error(transpose(g_a, g_a, 1, 1, 1), StatusCode::kInvalidArgument, "overlap");
}

TEST(ApiErrors, AdjacentBuffersDoNotOverlap) {
  // [g_a, g_a+256) and [g_a+256, ...) touch but do not overlap: whatever else happens
  // (no device here, or host memory rejected on a GPU machine), it is not an overlap error.
  const Status s = transpose(g_a, g_a + 256, 8, 8, 4);
  EXPECT_EQ(s.message.find("overlap"), std::string::npos) << s.message;
}

// A well-formed call on host (pageable) memory is refused with a reason: on a machine without
// a GPU because there is no device, on a GPU machine because the memory is not device memory.
TEST(ApiErrors, HostMemoryOrNoDeviceIsAClearError) {
  const Status s = transpose(g_a, g_b, 8, 8, 4);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.code == StatusCode::kNoDevice || s.code == StatusCode::kInvalidArgument)
      << to_string(s.code) << ": " << s.message;
  EXPECT_FALSE(s.message.empty());
}

TEST(ApiErrors, StatusCodesHaveNames) {
  for (StatusCode c : {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kUnsupported,
                       StatusCode::kNoDevice, StatusCode::kCudaError})
    EXPECT_STRNE(to_string(c), "unknown");
}

}  // namespace
}  // namespace tmakit
