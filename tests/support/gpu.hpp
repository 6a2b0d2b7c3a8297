// GPU test gate: a test that needs a device calls TMAKIT_NEED_GPU(min_cc). Without a suitable
// device it is skipped with the reason, unless TMAKIT_REQUIRE_GPU=1, when it FAILS: a runner
// that lost its GPU cannot report green.
#pragma once
#include <cstdlib>
#include <string>
#include <gtest/gtest.h>
#include <tmakit/tmakit.hpp>

namespace tmakit::test {

inline bool gpu_required() {
  const char* e = std::getenv("TMAKIT_REQUIRE_GPU");
  return e != nullptr && std::string(e) == "1";
}

// Empty when the current device has at least compute capability min_cc, else why not.
inline std::string missing_gpu_reason(int min_cc) {
  DeviceInfo info;
  const Status s = query_device(&info);
  if (!s) return s.message;
  if (info.cc < min_cc)
    return "needs compute capability " + std::to_string(min_cc / 10) + "." +
           std::to_string(min_cc % 10) + ", device is " + info.name + " (" +
           std::to_string(info.cc / 10) + "." + std::to_string(info.cc % 10) + ")";
  return {};
}

}  // namespace tmakit::test

#define TMAKIT_NEED_GPU(min_cc)                                                               \
  do {                                                                                        \
    const std::string tmakit_why_ = ::tmakit::test::missing_gpu_reason(min_cc);               \
    if (!tmakit_why_.empty()) {                                                               \
      if (::tmakit::test::gpu_required()) FAIL() << tmakit_why_ << " (TMAKIT_REQUIRE_GPU=1)"; \
      GTEST_SKIP() << tmakit_why_;                                                            \
    }                                                                                         \
  } while (0)
