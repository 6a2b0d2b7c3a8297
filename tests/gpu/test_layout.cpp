// Batched and strided operands: every registered technique x element size x layout,
// every byte of the destination span compared with the CPU reference (padding between rows
// and gaps between matrices must stay untouched). On an sm_90 device, TMA techniques must run
// themselves where the pitches, batch strides and destination rows are 16-byte multiples and
// fall back (or, with a dense-only fallback, refuse), naming the rule, where not.
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <kernels/common/flat.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>
#include <tests/support/variant_cases.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

struct LayoutCase {
  const char* name;
  std::int64_t rows, cols;
  MatrixLayout layout;
};

// For a copy variant dst is rows x cols: its leading dimension must cover cols instead.
MatrixLayout for_kind(MatrixLayout l, std::int64_t rows, std::int64_t cols, bool copy) {
  if (copy && l.dst_ld_elems != 0 && l.dst_ld_elems < cols) {
    l.dst_ld_elems = l.src_ld_elems + 16;
    if (l.dst_batch_stride_elems != 0) l.dst_batch_stride_elems = rows * l.dst_ld_elems + 16;
  }
  // A copy's dst matrix is rows lines long: a gap sized for the transpose's cols lines may
  // not hold it.
  const std::int64_t dst_ld = l.dst_ld_elems != 0 ? l.dst_ld_elems : cols;
  if (copy && l.dst_batch_stride_elems != 0 && l.dst_batch_stride_elems < rows * dst_ld)
    l.dst_batch_stride_elems = rows * dst_ld + 16;
  return l;
}

const std::vector<LayoutCase>& layout_cases() {
  static const std::vector<LayoutCase> cases = {
      {"batch3_dense", 48, 80, {3, 0, 0, 0, 0}},
      {"ld_padded", 65, 47, {1, 96, 80, 0, 0}},
      {"batch4_ld_and_gaps", 40, 130, {4, 144, 48, 40 * 144 + 32, 130 * 48 + 16}},
      {"odd_pitches", 37, 29, {2, 31, 39, 0, 0}},
      {"batch66000_16x16", 16, 16, {66000, 0, 0, 0, 0}},               // more matrices than grid z
      {"batch300_97x75", 97, 75, {300, 0, 0, 0, 0}},                   // dense odd small matrices
      {"skinny_ld_and_gaps", 7, 1000, {3, 1003, 0, 7 * 1003 + 5, 0}},  // strided long rows
      {"tall_ld_and_gaps", 1000, 7, {3, 0, 1001, 0, 7 * 1001 + 3}},    // strided dst rows
      // 16-byte pitches and batch strides with gaps (reg_permute's blocks at every element size)
      {"batch5_16x48_ld_gaps", 16, 48, {5, 64, 0, 16 * 64 + 16, 48 * 16 + 32}},
      {"batch3_96x8_ld_gaps", 96, 8, {3, 0, 112, 96 * 8 + 48, 8 * 112 + 16}},
      {"batch4000_32x32", 32, 32, {4000, 0, 0, 0, 0}},
  };
  return cases;
}

using Case = test::VariantCase;

class Layout : public ::testing::TestWithParam<Case> {};

TEST_P(Layout, BatchedAndStridedMatchTheReference) {
  const Case& c = GetParam();
  const VariantInfo* info = find_variant(c.variant);
  ASSERT_NE(info, nullptr);
  TMAKIT_NEED_GPU(75);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  const bool copy = info->kind == VariantKind::kCopy;
  for (const LayoutCase& lc : layout_cases()) {
    const MatrixLayout layout = for_kind(lc.layout, lc.rows, lc.cols, copy);
    const bool dense = layout.src_ld_elems == 0 && layout.dst_ld_elems == 0 &&
                       layout.src_batch_stride_elems == 0 && layout.dst_batch_stride_elems == 0;
    TransposeOptions opt;
    opt.variant = c.variant;
    Status st;
    auto run = [&](const void* src, void* dst) {
      st = transpose(src, dst, lc.rows, lc.cols, c.elem_bytes, layout, opt);
      return st;
    };
    if (!info->strided && !dense) {  // dense-only techniques refuse, naming why
      const std::string err =
          test::check_transpose_layout(lc.rows, lc.cols, c.elem_bytes, copy, layout, run);
      EXPECT_EQ(st.code, StatusCode::kUnsupported) << lc.name << ": " << err;
      EXPECT_NE(st.message.find("dense operands only"), std::string::npos) << st.message;
      continue;
    }
    // What TMA needs here: every pitch and batch stride, and the destination row, a multiple
    // of 16 bytes (the TMA-store row rule, tests/sm90/test_tma_store_rows.cpp; it binds the
    // techniques that TMA-store, i.e. all but tma_load).
    const std::int64_t e = c.elem_bytes, dst_line = copy ? lc.cols : lc.rows;
    auto m16 = [&](std::int64_t elems) { return (elems * e) % 16 == 0; };
    const std::int64_t src_ld = layout.src_ld_elems ? layout.src_ld_elems : lc.cols;
    const std::int64_t dst_ld = layout.dst_ld_elems ? layout.dst_ld_elems : dst_line;
    const bool pitches_ok =
        m16(src_ld) && m16(dst_ld) &&
        (layout.batch == 1 ||
         (m16(layout.src_batch_stride_elems ? layout.src_batch_stride_elems : lc.rows * src_ld) &&
          m16(layout.dst_batch_stride_elems ? layout.dst_batch_stride_elems
                                            : (copy ? lc.rows : lc.cols) * dst_ld)));
    // The 1-D bulk copies also move src rows as whole 16-byte segments (kernels/async/).
    const bool bulk = c.variant == "bulk_copy" || c.variant == "bulk_roofline";
    const bool row_ok = (m16(dst_line) || c.variant == "tma_load") && (!bulk || m16(lc.cols));
    const bool tma_runs = info->uses_tma && dev.cc >= 90 && pitches_ok && row_ok;
    const bool fallback_dense_only =
        info->uses_tma &&
        !find_variant(fallback_variant(c.variant, lc.rows, lc.cols, c.elem_bytes))->strided;
    const std::string err =
        test::check_transpose_layout(lc.rows, lc.cols, c.elem_bytes, copy, layout, run);
    if (fallback_dense_only && !dense && !tma_runs) {  // tma_copy: its fallback `copy` cannot
      EXPECT_EQ(st.code, StatusCode::kUnsupported) << lc.name << ": " << st.message;
      EXPECT_NE(st.message.find("takes dense operands only"), std::string::npos) << st.message;
      continue;
    }
    EXPECT_EQ(err, "") << c.variant << " " << lc.name << " " << c.elem_bytes << "B ran "
                       << st.variant << " (" << st.fallback_reason << ")";
    if (!info->uses_tma || dev.cc < 90) continue;
    if (c.variant == "bulk_flat") {  // no alignment rule: its flat forms (kernels/async/)
      if (!tma_unavailable_reason().empty()) continue;  // the build-code tests cover this
      const FlatForm form =
          flat_plan(
              lc.rows, lc.cols, c.elem_bytes, layout.batch, src_ld, dst_ld,
              layout.src_batch_stride_elems ? layout.src_batch_stride_elems : lc.rows * src_ld,
              layout.dst_batch_stride_elems ? layout.dst_batch_stride_elems : lc.cols * dst_ld)
              .form;
      if (flat_src_is_one_run(form))
        EXPECT_EQ(st.variant, c.variant) << lc.name << ": fell back: " << st.fallback_reason;
      else
        EXPECT_NE(st.fallback_reason.find("bulk_flat moves"), std::string::npos)
            << lc.name << ": " << st.fallback_reason;
      continue;
    }
    if (tma_runs) {
      EXPECT_EQ(st.variant, c.variant) << lc.name << ": fell back: " << st.fallback_reason;
    } else if (!pitches_ok) {
      EXPECT_NE(st.variant, c.variant) << lc.name << ": pitches TMA cannot take";
      EXPECT_NE(st.fallback_reason.find("multiple of 16"), std::string::npos)
          << lc.name << ": " << st.fallback_reason;
    } else if (st.variant != c.variant) {  // only the destination row length is off
      EXPECT_NE(st.fallback_reason.find("bytes long, not a multiple of 16"), std::string::npos)
          << lc.name << ": " << st.fallback_reason;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registry, Layout, ::testing::ValuesIn(test::all_variant_cases()),
                         test::variant_case_name);

}  // namespace
}  // namespace tmakit
