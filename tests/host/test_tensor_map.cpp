// validate(): for every rule, one spec that breaks exactly that rule (its message is checked)
// and one at the boundary that passes it. Plus: several rules at once, the order reversal,
// describe(), and the swizzle functions.
#include <functional>
#include <set>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <kernels/common/swizzle.hpp>
#include <tests/support/rule_cases.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

alignas(1024) unsigned char g_buf[4096];

// fp32 1024 x 1024, row pitch 4096, box 32 x 32, 128B swizzle, 1024-aligned: valid on sm_90.
TensorMapSpec base2() { return matrix_spec(TmaType::kF32, g_buf, 1024, 1024, 4096, 32, 32, TmaSwizzle::k128B); }

// fp32 8 x 1024 x 1024 (pitches 4 MiB and 4096), box 4 x 32 x 32, 128B swizzle.
TensorMapSpec base3() {
  TensorMapSpec s = base2();
  s.rank = 3;
  s.shape = {8, 1024, 1024, 0, 0};
  s.pitch_bytes = {4096ull * 1024, 4096, 0, 0, 0};
  s.box = {4, 32, 32, 0, 0};
  return s;
}

using RuleCase = test::RuleCaseOf<TensorMapSpec>;

void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.rule; }

using Sp = TensorMapSpec;
const std::vector<RuleCase>& cases() {
  static const std::vector<RuleCase> v = {
      {"cc_tensor_map", [](Sp&, int& cc) { cc = 89; }, [](Sp&, int& cc) { cc = 90; }, "compute capability 8.9"},
      {"rank_range", [](Sp& s, int&) { s.rank = 6; }, [](Sp& s, int&) {
         s.rank = 5; s.shape = {2, 2, 2, 1024, 1024}; s.box = {1, 1, 1, 32, 32};
         s.pitch_bytes = {4096ull * 1024 * 4, 4096ull * 1024 * 2, 4096ull * 1024, 4096, 0}; }, "rank 6"},
      {"data_type_enum", [](Sp& s, int&) { s.type = static_cast<TmaType>(16); },
       [](Sp& s, int&) { s.type = TmaType::kTF32Ftz; }, "type 16"},
      {"cc_packed_type", [](Sp& s, int&) { s.type = TmaType::k16U4Align8B; },
       [](Sp& s, int& cc) { s.type = TmaType::k16U4Align8B; cc = 100; }, "16U4_ALIGN8B on compute capability 9.0"},
      {"interleave_enum", [](Sp& s, int&) { s.interleave = static_cast<TmaInterleave>(3); },
       [](Sp& s, int&) { s.interleave = TmaInterleave::k16B; }, "interleave 3", true},
      {"swizzle_enum", [](Sp& s, int&) { s.swizzle = static_cast<TmaSwizzle>(7); },
       [](Sp& s, int& cc) { s.swizzle = TmaSwizzle::k128BAtom64B; cc = 100; }, "swizzle 7"},
      {"cc_atom_swizzle", [](Sp& s, int&) { s.swizzle = TmaSwizzle::k128BAtom32B; },
       [](Sp& s, int& cc) { s.swizzle = TmaSwizzle::k128BAtom32B; cc = 100; }, "128B_ATOM_32B on compute capability 9.0"},
      {"l2_promotion_enum", [](Sp& s, int&) { s.l2_promotion = static_cast<TmaL2Promotion>(4); },
       [](Sp& s, int&) { s.l2_promotion = TmaL2Promotion::k256B; }, "L2 promotion 4"},
      {"oob_fill_enum", [](Sp& s, int&) { s.oob_fill = static_cast<TmaOobFill>(2); },
       [](Sp& s, int&) { s.oob_fill = TmaOobFill::kNanRequestZeroFma; }, "OOB fill 2"},
      {"rank_interleave", [](Sp& s, int&) { s = base2(); s.interleave = TmaInterleave::k16B; },
       [](Sp& s, int&) { s.interleave = TmaInterleave::k16B; }, "rank 2 with interleave 16B", true},
      {"address_null", [](Sp& s, int&) { s.address = nullptr; }, [](Sp&, int&) {}, "global address"},
      {"address_align_16", [](Sp& s, int&) { s.address = g_buf + 8; }, [](Sp& s, int&) { s.address = g_buf + 16; },
       "8 bytes past a 16-byte boundary"},
      {"address_align_32", [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; s.swizzle = TmaSwizzle::k32B; s.address = g_buf + 16; },
       [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; s.swizzle = TmaSwizzle::k32B; s.address = g_buf + 32; },
       "global address", true},
      {"address_align_128_swizzle", [](Sp& s, int&) { s.address = g_buf + 16; }, [](Sp& s, int&) { s.address = g_buf + 128; },
       "with swizzle 128B"},
      {"dim_range", [](Sp& s, int&) { s.shape[0] = (1ull << 32) + 1; }, [](Sp& s, int&) { s.shape[0] = 1ull << 32; },
       "shape[0] (driver dim 1) = 4294967297"},
      {"dim_packed_multiple", [](Sp& s, int& cc) { s.type = TmaType::k16U4Align8B; cc = 100; s.shape[1] = 1023; },
       [](Sp& s, int& cc) { s.type = TmaType::k16U4Align8B; cc = 100; s.shape[1] = 1022; }, "shape[1] (driver dim 0, innermost) = 1023"},
      {"stride_multiple_16", [](Sp& s, int&) { s.pitch_bytes[0] = 4104; }, [](Sp& s, int&) { s.pitch_bytes[0] = 4112; },
       "pitch_bytes[0] (row pitch of dim 0, driver globalStrides[0]) = 4104 bytes"},
      {"stride_multiple_32", [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; s.swizzle = TmaSwizzle::k32B; s.pitch_bytes[1] = 4112; },
       [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; s.swizzle = TmaSwizzle::k32B; s.pitch_bytes[1] = 4128; },
       "4112 bytes", true},
      {"stride_max", [](Sp& s, int&) { s.pitch_bytes[0] = 1ull << 40; }, [](Sp& s, int&) { s.pitch_bytes[0] = (1ull << 40) - 16; },
       "1099511627776 bytes"},
      {"stride_covers_dim", [](Sp& s, int&) { s.pitch_bytes[0] = 4080; }, [](Sp& s, int&) { s.pitch_bytes[0] = 4096; },
       "4080 bytes < 4096 bytes"},
      {"box_range", [](Sp& s, int&) { s.box[0] = 257; }, [](Sp& s, int&) { s.box[0] = 256; }, "box[0] (driver dim 1) = 257"},
      {"box_inner_multiple_16", [](Sp& s, int&) { s.box[1] = 30; }, [](Sp& s, int&) { s.box[1] = 28; },
       "box[1] (driver dim 0, innermost) = 30"},
      {"box_packed_128", [](Sp& s, int& cc) { s.type = TmaType::k16U4Align16B; cc = 100; s.box[1] = 64; },
       [](Sp& s, int& cc) { s.type = TmaType::k16U4Align16B; cc = 100; s.box[1] = 128; }, "= 64 with type 16U4_ALIGN16B"},
      {"elem_stride_range", [](Sp& s, int&) { s.elem_strides[0] = 9; }, [](Sp& s, int&) { s.elem_strides[0] = 8; },
       "elem_strides[0] (driver dim 1) = 9"},
      {"elem_stride_inner_ignored", [](Sp& s, int&) { s.elem_strides[1] = 2; }, [](Sp& s, int&) { s.elem_strides[1] = 1; },
       "elem_strides[1] (driver dim 0, innermost) = 2"},
      {"swizzle_span", [](Sp& s, int&) { s.swizzle = TmaSwizzle::k64B; }, [](Sp& s, int&) { s.swizzle = TmaSwizzle::k64B; s.box[1] = 16; },
       "inner box 128 bytes with swizzle 64B (span 64 bytes)"},
      {"interleave_32_swizzle_32", [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; },
       [](Sp& s, int&) { s.interleave = TmaInterleave::k32B; s.swizzle = TmaSwizzle::k32B; }, "interleave 32B with swizzle 128B", true},
      {"packed_u6_interleave_none", [](Sp& s, int& cc) { s.type = TmaType::k16U6Align16B; cc = 100; s.box[2] = 128; s.interleave = TmaInterleave::k16B; },
       [](Sp& s, int& cc) { s.type = TmaType::k16U6Align16B; cc = 100; s.box[2] = 128; }, "16U6_ALIGN16B with interleave 16B", true},
      {"packed_swizzle_modes", [](Sp& s, int& cc) { s.type = TmaType::k16U4Align16B; cc = 100; s.box[1] = 128; s.swizzle = TmaSwizzle::k128BAtom64B; },
       [](Sp& s, int& cc) { s.type = TmaType::k16U4Align16B; cc = 100; s.box[1] = 128; s.swizzle = TmaSwizzle::k128BAtom32B; },
       "16U4_ALIGN16B with swizzle 128B_ATOM_64B"},
      {"oob_nan_float_only", [](Sp& s, int&) { s.type = TmaType::kU32; s.oob_fill = TmaOobFill::kNanRequestZeroFma; },
       [](Sp& s, int&) { s.type = TmaType::kF32; s.oob_fill = TmaOobFill::kNanRequestZeroFma; }, "with type UINT32"},
      {"box_fits_smem", [](Sp& s, int&) { s.box = {58, 32, 32, 0, 0}; }, [](Sp& s, int&) { s.box = {57, 32, 32, 0, 0}; },
       "box of 237568 bytes per copy", true},
  };
  return v;
}

class Rule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Rule, BrokenAloneIsReportedAndBoundaryPasses) {
  const RuleCase& c = GetParam();
  const TensorMapRule* rule = find_tensor_map_rule(c.rule);
  ASSERT_NE(rule, nullptr) << c.rule;
  test::expect_broken_alone_and_boundary_passes(c, *rule, c.rank3 ? base3() : base2());
}

INSTANTIATE_TEST_SUITE_P(TensorMap, Rule, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<RuleCase>& p) { return p.param.rule; });

TEST(TensorMapRules, EveryRuleHasACase) { test::expect_every_rule_covered(cases(), tensor_map_rules()); }

TEST(TensorMapValidate, InnerBoxMultipleOf16AppliesToInterleavedLayoutsToo) {
  TensorMapSpec s = base3();
  s.interleave = TmaInterleave::k16B;
  s.box[2] = 6;  // 24 bytes: the H100 driver rejects it although cuda.h only states the rule for NONE
  const ValidationReport r = validate(s, 90);
  EXPECT_TRUE(r.has("box_inner_multiple_16")) << r.to_string();
  s.box[2] = 4;  // 16 bytes
  EXPECT_TRUE(validate(s, 90).ok()) << validate(s, 90).to_string();
}

TEST(TensorMapRules, WarningsAreTheRulesTheDriverDoesNotEnforce) {
  for (const TensorMapRule& r : tensor_map_rules())
    if (r.severity == RuleSeverity::kWarning) EXPECT_FALSE(r.driver_enforced) << r.id;
}

TEST(TensorMapValidate, ReportsEveryViolationAtOnce) {
  TensorMapSpec s = base2();
  s.type = TmaType::kU32;
  s.pitch_bytes[0] = 4104;
  s.box[0] = 257;
  s.elem_strides[0] = 9;
  s.oob_fill = TmaOobFill::kNanRequestZeroFma;
  s.address = g_buf + 8;
  const ValidationReport r = validate(s, 80);
  std::set<std::string> ids;
  for (const RuleViolation& v : r.errors) ids.insert(v.rule->id);
  EXPECT_EQ(ids, (std::set<std::string>{"cc_tensor_map", "address_align_16", "stride_multiple_16", "box_range",
                                        "elem_stride_range", "oob_nan_float_only"}))
      << r.to_string();
}

TEST(TensorMapOrder, RowMajorBecomesInnermostFirst) {
  TensorMapSpec s = base3();
  s.shape = {5, 6, 7, 0, 0};
  s.pitch_bytes = {6 * 32, 32, 0, 0, 0};
  s.box = {1, 2, 4, 0, 0};
  s.elem_strides = {3, 2, 1, 1, 1};
  const DriverOrder d = to_driver_order(s);
  EXPECT_EQ(d.rank, 3u);
  EXPECT_EQ(d.global_dim[0], 7u);
  EXPECT_EQ(d.global_dim[1], 6u);
  EXPECT_EQ(d.global_dim[2], 5u);
  EXPECT_EQ(d.global_strides[0], 32u);      // pitch of the rows (row-major dim 1)
  EXPECT_EQ(d.global_strides[1], 6u * 32);  // pitch of the planes (row-major dim 0)
  EXPECT_EQ(d.box_dim[0], 4u);
  EXPECT_EQ(d.box_dim[2], 1u);
  EXPECT_EQ(d.element_strides[0], 1u);
  EXPECT_EQ(d.element_strides[2], 3u);
}

TEST(TensorMapDescribe, NamesBoxBytesAlignmentAndPeriod) {
  const std::string d = describe(base2());
  for (const char* needle : {"globalDim {1024, 1024}", "globalStrides {4096}", "boxDim {32, 32}",
                             "shape 1024 x 1024", "4096 bytes per copy", "repeats every 1024 bytes",
                             "align the destination to 1024 bytes"})
    EXPECT_NE(d.find(needle), std::string::npos) << needle << " not in:\n" << d;
  TensorMapSpec s = base2();
  s.box = {8, 8, 0, 0, 0};  // elem strides divide the box: ceil(8/3) rows of 8 elements
  s.elem_strides = {3, 1, 1, 1, 1};
  EXPECT_EQ(box_bytes(s), 3u * 8 * 4);
}

TEST(TensorMapEncode, WithoutADriverIsAClearErrorElseEncodes) {
  alignas(128) CUtensorMap map;
  DeviceInfo dev;
  const Status s = encode(base2(), &map);
  if (!query_device(&dev).ok()) {
    EXPECT_EQ(s.code, StatusCode::kNoDevice) << s.message;
    EXPECT_FALSE(s.message.empty());
  } else {
    EXPECT_TRUE(s.ok()) << s.message;
  }
}

// ---- swizzle functions ----------------------------------------------------------------------
TEST(Swizzle, ModesAreBijectionsWithTheirPeriods) {
  for (int mode : {kSwizzleNone, kSwizzle32B, kSwizzle64B, kSwizzle128B, kSwizzle128BAtom32B,
                   kSwizzle128BAtom32BFlip8B, kSwizzle128BAtom64B}) {
    SCOPED_TRACE(mode);
    std::set<std::uint32_t> seen;
    for (std::uint32_t a = 0; a < 8192; ++a) {
      const std::uint32_t p = tma_swizzle(a, mode);
      EXPECT_TRUE(seen.insert(p).second);
      EXPECT_EQ(p / 128, a / 128) << "stays in its 128-byte line";
    }
    const std::uint32_t period = tma_swizzle_period_bytes(mode);
    if (period == 0) continue;
    for (std::uint32_t a = 0; a < 4096; ++a) EXPECT_EQ(tma_swizzle(a + period, mode), tma_swizzle(a, mode) + period);
    // ... and no shorter period: the pattern differs at some offset within the period
    bool differs = false;
    for (std::uint32_t a = 0; a < period; ++a) differs |= tma_swizzle(a + period / 2, mode) != tma_swizzle(a, mode) + period / 2;
    EXPECT_TRUE(differs);
  }
  EXPECT_EQ(tma_swizzle_period_bytes(kSwizzle32B), 256u);
  EXPECT_EQ(tma_swizzle_period_bytes(kSwizzle64B), 512u);
  EXPECT_EQ(tma_swizzle_period_bytes(kSwizzle128B), 1024u);
}

TEST(Swizzle, Mode128BMovesChunkCToCXorRow) {
  for (std::uint32_t r = 0; r < 16; ++r)
    for (std::uint32_t c = 0; c < 8; ++c)
      for (std::uint32_t b = 0; b < 16; ++b)
        EXPECT_EQ(tma_swizzle(r * 128 + c * 16 + b, kSwizzle128B), r * 128 + ((c ^ (r % 8)) * 16) + b);
  // The Programming Guide's int4 8x8 formula is the same function on 16-byte elements.
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_EQ(tma_swizzle(i * 128 + j * 16, kSwizzle128B), std::uint32_t(i * 128 + int4_8x8_swizzled_col(i, j) * 16));
}

TEST(Swizzle, Modes32And64UseOneAndTwoLineBits) {
  EXPECT_EQ(tma_swizzle(128 + 0, kSwizzle32B), 128u + 16);   // line 1: chunk 0 <-> 1
  EXPECT_EQ(tma_swizzle(256 + 0, kSwizzle32B), 256u);        // line 2 repeats line 0
  EXPECT_EQ(tma_swizzle(384 + 16, kSwizzle64B), 384u + 32);  // line 3: chunk 1 -> 1^3 = 2
  EXPECT_EQ(tma_swizzle(512 + 16, kSwizzle64B), 512u + 16);  // line 4 repeats line 0
}

}  // namespace
}  // namespace tmakit
