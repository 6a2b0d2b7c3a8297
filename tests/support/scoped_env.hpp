// An environment variable set for one scope, unset after it, and tmakit's snapshot of its
// variables reloaded both times (tmakit reads them once: host/device.hpp, env_settings()).
#pragma once
#include <cstdlib>
#include <string>
#include <host/device.hpp>

namespace tmakit::test {

struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const char* value) : name(n) {
    setenv(n, value, 1);
    reload_env_settings();
  }
  ~ScopedEnv() {
    unsetenv(name.c_str());
    reload_env_settings();
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace tmakit::test
