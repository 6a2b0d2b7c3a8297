// validate() against the real driver: 20,000 specs drawn near every rule boundary. Zero may
// pass validate() and fail in the driver; those validate() rejects and the driver accepts must
// all be explained by rules marked not driver-enforced (counted by rule).
#include <cstdio>
#include <gtest/gtest.h>
#include <host/tensor_map/fuzz.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/rule_cases.hpp>

namespace tmakit {
namespace {

TEST(TensorMapDriver, DifferentialAgainstCuTensorMapEncodeTiled) {
  TMAKIT_NEED_GPU(90);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  alignas(1024) static unsigned char base[4096];
  const DifferentialResult r = run_differential(20000, 20261121, dev.cc, base);
  test::expect_clean_differential("differential", r, 20000, 1000);
}

}  // namespace
}  // namespace tmakit
