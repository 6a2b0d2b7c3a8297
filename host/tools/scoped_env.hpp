// An environment variable set for one scope, restored after it (to its earlier value, or unset),
// and tmakit's snapshot of its variables reloaded both times (tmakit reads them once:
// host/device.hpp, env_settings()). Restoring keeps a process run with the variable set (a
// TMAKIT_POLICY for a whole test run, or the CLI's) under it after the scope. The tests set
// TMAKIT_POLICY and friends so; `tmakit permute-cases --changed-by` explains a case under a policy
// so.
#pragma once
#include <cstdlib>
#include <string>
#include <host/device.hpp>

namespace tmakit {

struct ScopedEnv {
  std::string name, before;
  bool was_set = false;
  ScopedEnv(const char* n, const char* value) : name(n) {
    if (const char* old = std::getenv(n); old != nullptr) was_set = true, before = old;
    setenv(n, value, 1);
    reload_env_settings();
  }
  ~ScopedEnv() {
    if (was_set)
      setenv(name.c_str(), before.c_str(), 1);
    else
      unsetenv(name.c_str());
    reload_env_settings();
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

}  // namespace tmakit
