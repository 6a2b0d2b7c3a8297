// tmakit reads its environment variables once (host/device.hpp, env_settings()): a change
// takes effect at reload_env_settings(), and each variable parses as documented.
#include <cstdlib>
#include <gtest/gtest.h>
#include <host/device.hpp>
#include <tests/support/scoped_env.hpp>

namespace tmakit {
namespace {

constexpr int kNoSimulation = 1 << 30;

TEST(EnvSettings, ReadOnceUntilReloaded) {
  unsetenv("TMAKIT_SIMULATE_CC");
  unsetenv("TMAKIT_DISABLE_TMA");
  reload_env_settings();
  EXPECT_EQ(env_settings().simulated_cc, kNoSimulation);
  EXPECT_FALSE(env_settings().tma_disabled);
  setenv("TMAKIT_SIMULATE_CC", "80", 1);
  setenv("TMAKIT_DISABLE_TMA", "1", 1);
  EXPECT_EQ(env_settings().simulated_cc, kNoSimulation) << "read again without a reload";
  EXPECT_FALSE(env_settings().tma_disabled) << "read again without a reload";
  reload_env_settings();
  EXPECT_EQ(env_settings().simulated_cc, 80);
  EXPECT_TRUE(env_settings().tma_disabled);
  unsetenv("TMAKIT_SIMULATE_CC");
  unsetenv("TMAKIT_DISABLE_TMA");
  reload_env_settings();
  EXPECT_EQ(env_settings().simulated_cc, kNoSimulation);
  EXPECT_FALSE(env_settings().tma_disabled);
}

TEST(EnvSettings, ValuesParseAsDocumented) {
  struct Case {
    const char* value;
    int cc;
  };
  for (const Case& c :
       {Case{"75", 75}, Case{"90", 90}, Case{"", kNoSimulation}, Case{"8x", kNoSimulation},
        Case{"-80", kNoSimulation}, Case{"0", kNoSimulation}}) {
    test::ScopedEnv env("TMAKIT_SIMULATE_CC", c.value);
    EXPECT_EQ(env_settings().simulated_cc, c.cc) << "TMAKIT_SIMULATE_CC='" << c.value << "'";
  }
  for (const char* off : {"0", "", "10", "yes", "1 "}) {
    test::ScopedEnv env("TMAKIT_DISABLE_TMA", off);
    EXPECT_FALSE(env_settings().tma_disabled) << "TMAKIT_DISABLE_TMA='" << off << "'";
  }
  test::ScopedEnv on("TMAKIT_DISABLE_TMA", "1");
  EXPECT_TRUE(env_settings().tma_disabled);
}

}  // namespace
}  // namespace tmakit
