// test::ScopedEnv: an environment variable set for one scope (host/tools/scoped_env.hpp).
#pragma once
#include <host/tools/scoped_env.hpp>

namespace tmakit::test {
using ScopedEnv = tmakit::ScopedEnv;
}  // namespace tmakit::test
