// A build without sm_90 device code on an sm_90 GPU: a package built for "80", a
// machine configured with `native` on an A100, a project's own CMAKE_CUDA_ARCHITECTURES. Its
// TMA kernels would be compute_80 PTX with TMA compiled out (a trap that kills the context), so
// every TMA technique must fall back before launching and say that the build is why.
//
// In a build with sm_90 code, TMA must be available. scripts/ci-sm90.sh also builds an
// arch-80-only configuration and runs this file there with TMAKIT_EXPECT_NO_SM90_CODE=1, so the
// test knows which of the two it must see (and cannot pass by seeing the other).
#include <cstdlib>
#include <string>
#include <gtest/gtest.h>
#include <tests/support/ranking.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

bool expect_no_sm90_code() {
  const char* e = std::getenv("TMAKIT_EXPECT_NO_SM90_CODE");
  return e != nullptr && std::string(e) == "1";
}

TEST(BuildCode, TmaAvailabilityMatchesTheBuild) {
  TMAKIT_NEED_GPU(90);
  const std::string why = tma_unavailable_reason();
  if (expect_no_sm90_code()) {
    EXPECT_NE(why.find("built without sm_90 code"), std::string::npos) << "reason: '" << why << "'";
    EXPECT_NE(why.find("CMAKE_CUDA_ARCHITECTURES="), std::string::npos) << why;
  } else {
    EXPECT_EQ(why, "");
  }
  TransposeOptions off;
  off.allow_tma = false;
  EXPECT_EQ(tma_unavailable_reason(off), "TMA disabled by TransposeOptions::allow_tma = false");
}

// Every TMA technique on a shape it takes: correct, and either TMA ran or (no sm_90 code) the
// fallback ran with the build's reason; with allow_fallback = false that reason is the error.
TEST(BuildCode, EveryTmaTechniqueRunsOrFallsBackForTheBuild) {
  TMAKIT_NEED_GPU(90);
  const bool no_code = expect_no_sm90_code();
  for (const VariantInfo& v : variants()) {
    if (!v.uses_tma || v.kind == VariantKind::kAccumulate) continue;  // test_accumulate.cpp
    const int e = v.supports_elem_bytes(4) ? 4 : 16;
    // A shape TMA takes; a shape-limited technique's own form instead (bulk_flat: a matrix of
    // at most 32 dense-row columns, its tall form).
    const std::int64_t rows = v.shape_limited ? 4099 : 256, cols = v.shape_limited ? 16 : 512;
    TransposeOptions opt;
    opt.variant = v.token;
    Status st;
    const std::string err = test::check_transpose(rows, cols, e, v.kind == VariantKind::kCopy, 0,
                                                  [&](const void* src, void* dst) {
                                                    st = transpose(src, dst, rows, cols, e, opt);
                                                    return st;
                                                  });
    EXPECT_EQ(err, "") << v.token;
    if (no_code) {
      EXPECT_EQ(st.variant, test::next_runnable(rows, cols, e, opt)) << v.token;
      EXPECT_NE(st.fallback_reason.find("built without sm_90 code"), std::string::npos)
          << v.token << ": '" << st.fallback_reason << "'";
    } else {
      EXPECT_EQ(st.variant, v.token) << st.fallback_reason;
    }
    opt.allow_fallback = false;
    const std::string err2 = test::check_transpose(
        rows, cols, e, v.kind == VariantKind::kCopy, 0, [&](const void* src, void* dst) {
          st = transpose(src, dst, rows, cols, e, opt);
          return no_code ? Status{} : st;  // the refusal is checked below
        });
    if (no_code) {
      EXPECT_EQ(st.code, StatusCode::kUnsupported) << v.token;
      EXPECT_NE(st.message.find("built without sm_90 code"), std::string::npos) << st.message;
    } else {
      EXPECT_EQ(err2, "") << v.token;
      EXPECT_TRUE(st.ok()) << st.message;
    }
  }
  // The context is alive: a plain transpose still runs.
  TransposeOptions o;
  o.variant = "smem";
  const std::string err = test::check_transpose(
      33, 65, 4, false, 0,
      [&](const void* src, void* dst) { return transpose(src, dst, 33, 65, 4, o); });
  EXPECT_EQ(err, "");
}

}  // namespace
}  // namespace tmakit
