// validate() against the real driver: 20,000 specs drawn near every rule boundary. Zero may
// pass validate() and fail in the driver; those validate() rejects and the driver accepts must
// all be explained by rules marked not driver-enforced (counted by rule).
#include <cstdio>
#include <gtest/gtest.h>
#include <host/tensor_map/fuzz.hpp>
#include <tests/support/gpu.hpp>

namespace tmakit {
namespace {

TEST(TensorMapDriver, DifferentialAgainstCuTensorMapEncodeTiled) {
  TMAKIT_NEED_GPU(90);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  alignas(1024) static unsigned char base[4096];
  const DifferentialResult r = run_differential(20000, 20261121, dev.cc, base);
  ASSERT_TRUE(r.status.ok()) << r.status.message;
  std::printf("differential: %llu cases, both accept %llu, both reject %llu, false accepts %llu, stricter %llu\n",
              (unsigned long long)r.cases, (unsigned long long)r.both_accept, (unsigned long long)r.both_reject,
              (unsigned long long)r.false_accepts, (unsigned long long)r.stricter);
  for (const auto& [rule, n] : r.stricter_by_rule) std::printf("  stricter by rule %-28s %llu\n", rule.c_str(), (unsigned long long)n);
  EXPECT_EQ(r.cases, 20000u);
  EXPECT_GT(r.both_accept, 1000u) << "too few valid specs drawn to find false accepts";
  EXPECT_EQ(r.false_accepts, 0u) << r.first_false_accept;
  EXPECT_EQ(r.first_unexpected_stricter, "") << "a rule marked driver-enforced was accepted by the driver";
}

}  // namespace
}  // namespace tmakit
