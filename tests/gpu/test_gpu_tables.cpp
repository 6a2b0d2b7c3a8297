// Per-GPU kernel paths, checked on whichever GPU runs the tests. A classic launcher reads the
// device's policy (LaunchArgs::policy, host/device_policy.hpp) and runs differently on the H200
// than on the H100: smem_flat's unit size, smem_sector's tile order and height. transpose()
// passes the real device's policy, so the rest of the suite checks only the current GPU's path.
// Here every classic transpose technique is launched directly through its registry row with the
// H100's policy (3350 GB/s) and the H200's (4800 GB/s), and with every policy override a
// launcher reads (sector_bytes, strip_tile, flat units), on the shape classes the
// per-GPU paths serve (odd rows, skinny with a short side >= 16, small batches), bit for bit
// against the CPU reference, guards included. Each also runs with compute capability 0 and 90
// (LaunchArgs::cc, kernels::l2_hint_pays): the plain loads and the L2-hinted ones, whichever
// GPU runs the suite.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/device.hpp>
#include <host/device_policy.hpp>
#include <host/transpose/layout.hpp>
#include <host/transpose/registry.hpp>
#include <kernels/launchers.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/variant_cases.hpp>

namespace tmakit {
namespace {

using Case = test::VariantCase;

std::vector<Case> classic_cases() {
  std::vector<Case> cases;
  for (const Case& c : test::all_variant_cases()) {
    const VariantDef* def = find_variant_def(c.variant);
    if (def != nullptr && def->plan == nullptr && def->info.kind == VariantKind::kTranspose)
      cases.push_back(c);
  }
  return cases;
}

class GpuTables : public ::testing::TestWithParam<Case> {};

TEST_P(GpuTables, BothGpusPathsMatchReference) {
  const Case& c = GetParam();
  const VariantDef* def = find_variant_def(c.variant);
  ASSERT_NE(def, nullptr);
  TMAKIT_NEED_GPU(def->info.min_cc);
  DeviceCaps caps;
  ASSERT_TRUE(current_device_caps(&caps).ok());
  const DevicePolicy h100 = device_policy(3350), h200 = device_policy(4800);
  ASSERT_TRUE(h200.sector_column_tiles && !h100.sector_column_tiles);
  std::vector<std::pair<std::string, DevicePolicy>> policies = {{"hbm3", h100}, {"hbm3e", h200}};
  for (const char* o : {"sector_bytes=16", "sector_bytes=64", "sector_bytes=128",
                        "strip_tile=128x64", "flat_unit_bytes=8192,flat_table_max_rows=0"}) {
    DevicePolicy p = h200;
    ASSERT_EQ(apply_policy_overrides(o, &p), "") << o;
    policies.push_back({std::string("hbm3e+") + o, p});
  }
  struct Shape {
    std::int64_t batch, rows, cols;
  };
  // Odd rows at every element size; skinny k x N and N x k with k >= 16 (N a multiple of 16);
  // a batch of odd matrices; batches of 32 x 32 and 64 x 64 for reg_tile's blocks (its hint
  // skips 64-byte source rows); rows either side of smem_sector's 128-row tile at 4 B on HBM3e
  // (119 and 121 with its 8 pad rows: one tile and two; 128 unpadded: exactly one).
  const std::vector<Shape> shapes = {{1, 1001, 999}, {1, 333, 4097}, {1, 17, 40016}, {1, 40016, 24},
                                     {7, 75, 97},    {9, 32, 32},    {3, 64, 64},    {1, 119, 257},
                                     {1, 121, 333},  {2, 128, 97}};
  for (const auto& [policy_name, policy] : policies)
    for (const int cc : {0, 90})
      for (const Shape& s : shapes) {
        MatrixLayout layout;
        layout.batch = s.batch;
        ResolvedLayout lay;  // the strides transpose() passes for this layout
        ASSERT_TRUE(resolve_layout(s.rows, s.cols, c.elem_bytes, layout, false, &lay).ok());
        const std::string err = test::check_transpose_layout(
            s.rows, s.cols, c.elem_bytes, false, layout, [&](const void* src, void* dst) {
              kernels::LaunchArgs a;
              a.src = src;
              a.dst = dst;
              a.rows = s.rows;
              a.cols = s.cols;
              a.elem_bytes = c.elem_bytes;
              a.strides = lay.strides;
              a.sm_count = caps.sm_count;
              a.policy = policy;
              a.cc = cc;
              const cudaError_t e = def->launch(a);
              Status st;
              if (e != cudaSuccess) {
                st.code = StatusCode::kCudaError;
                st.message = std::string("launch: ") + cudaGetErrorName(e);
              }
              return st;
            });
        EXPECT_EQ(err, "") << c.variant << " " << s.batch << " x " << s.rows << "x" << s.cols
                           << " x" << c.elem_bytes << "B with policy " << policy_name
                           << ", cc = " << cc;
      }
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuTables, ::testing::ValuesIn(classic_cases()),
                         test::variant_case_name);

}  // namespace
}  // namespace tmakit
