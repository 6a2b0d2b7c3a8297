// validate(Im2colSpec): for every im2col rule (the shared tiled ones included), one spec that
// breaks exactly that rule (its message is checked) and one at the boundary that passes it;
// the order reversal, describe(), box bytes, and replace_address's host-side checks.
#include <functional>
#include <set>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/rule_cases.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

alignas(1024) unsigned char g_buf[4096];

// fp32 N x H x W x C = 2 x 8 x 8 x 32, dense (pitches 8192, 1024, 128), a 3 x 3 filter with
// padding 1 (corners -1, -1), 32 channels (128 bytes) x 64 pixels a copy, 128B swizzle.
Im2colSpec base() {
  Im2colSpec s = conv2d_im2col_spec(TmaType::kF32, g_buf, 2, 8, 8, 32, 3, 3, 1, 1, 32, 64);
  s.swizzle = TmaSwizzle::k128B;
  return s;
}
// 4-bit packed 16U4_ALIGN16B (16 values in 16 bytes): C = 128, 128 channels, 32-byte pitches.
void packed16(Im2colSpec& s, int& cc) {
  s.type = TmaType::k16U4Align16B;
  cc = 100;
  s.shape[3] = 128;
  s.channels_per_pixel = 128;
  s.pitch_bytes = {8192, 1024, 128, 0, 0};
}
// 16U4_ALIGN8B (16 values in 8 bytes): C = 32 values = 16 bytes, 32 channels = 128 bits.
void packed8(Im2colSpec& s) {
  s.type = TmaType::k16U4Align8B;
  s.channels_per_pixel = 32;
}

using RuleCase = test::RuleCaseOf<Im2colSpec>;
void PrintTo(const RuleCase& c, std::ostream* os) { *os << c.rule; }

using Sp = Im2colSpec;
const std::vector<RuleCase>& cases() {
  static const std::vector<RuleCase> v = {
      {"cc_tensor_map", [](Sp&, int& cc) { cc = 89; }, [](Sp&, int& cc) { cc = 90; }, "compute capability 8.9"},
      {"im2col_rank", [](Sp& s, int&) { s.rank = 6; s.shape[4] = 32; }, [](Sp& s, int&) {
         s.rank = 5; s.shape = {2, 4, 8, 8, 32}; s.pitch_bytes = {32768, 8192, 1024, 128, 0};
         s.lower_corner = {-1, -1, -1}; s.upper_corner = {-1, -1, -1}; }, "rank 6"},
      {"data_type_enum", [](Sp& s, int&) { s.type = static_cast<TmaType>(16); },
       [](Sp& s, int&) { s.type = TmaType::kTF32Ftz; }, "type 16"},
      {"cc_packed_type", [](Sp& s, int&) { packed8(s); }, [](Sp& s, int& cc) { packed8(s); cc = 100; },
       "16U4_ALIGN8B on compute capability 9.0"},
      {"interleave_enum", [](Sp& s, int&) { s.interleave = static_cast<TmaInterleave>(3); },
       [](Sp& s, int&) { s.interleave = TmaInterleave::kNone; }, "interleave 3"},
      {"swizzle_enum", [](Sp& s, int&) { s.swizzle = static_cast<TmaSwizzle>(7); },
       [](Sp& s, int& cc) { s.swizzle = TmaSwizzle::k128BAtom64B; cc = 100; }, "swizzle 7"},
      {"cc_atom_swizzle", [](Sp& s, int&) { s.swizzle = TmaSwizzle::k128BAtom32B; },
       [](Sp& s, int& cc) { s.swizzle = TmaSwizzle::k128BAtom32B; cc = 100; }, "128B_ATOM_32B on compute capability 9.0"},
      {"l2_promotion_enum", [](Sp& s, int&) { s.l2_promotion = static_cast<TmaL2Promotion>(4); },
       [](Sp& s, int&) { s.l2_promotion = TmaL2Promotion::k256B; }, "L2 promotion 4"},
      {"oob_fill_enum", [](Sp& s, int&) { s.oob_fill = static_cast<TmaOobFill>(2); },
       [](Sp& s, int&) { s.oob_fill = TmaOobFill::kNanRequestZeroFma; }, "OOB fill 2"},
      {"address_null", [](Sp& s, int&) { s.address = nullptr; }, [](Sp&, int&) {}, "global address"},
      {"address_align_16", [](Sp& s, int&) { s.address = g_buf + 8; }, [](Sp& s, int&) { s.address = g_buf + 16; },
       "8 bytes past a 16-byte boundary"},
      {"address_align_32", [](Sp& s, int& cc) { packed16(s, cc); s.address = g_buf + 16; },
       [](Sp& s, int& cc) { packed16(s, cc); s.address = g_buf + 32; }, "global address"},
      {"address_align_128_swizzle", [](Sp& s, int&) { s.address = g_buf + 16; },
       [](Sp& s, int&) { s.address = g_buf + 128; }, "with swizzle 128B"},
      {"dim_range", [](Sp& s, int&) { s.shape[0] = (1ull << 32) + 1; }, [](Sp& s, int&) { s.shape[0] = 1ull << 32; },
       "shape[0] (N, driver dim 3) = 4294967297"},
      {"dim_packed_multiple", [](Sp& s, int& cc) { packed8(s); cc = 100; s.shape[3] = 31; },
       [](Sp& s, int& cc) { packed8(s); cc = 100; s.shape[3] = 30; }, "shape[3] (C, driver dim 0) = 31"},
      {"stride_multiple_16", [](Sp& s, int&) { s.pitch_bytes[0] = 8200; }, [](Sp& s, int&) { s.pitch_bytes[0] = 8208; },
       "pitch_bytes[0] (N, driver dim 3) = 8200 bytes"},
      {"stride_multiple_32", [](Sp& s, int& cc) { packed16(s, cc); s.pitch_bytes[1] = 1040; },
       [](Sp& s, int& cc) { packed16(s, cc); s.pitch_bytes[1] = 1056; }, "= 1040 bytes"},
      {"stride_max", [](Sp& s, int&) { s.pitch_bytes[0] = 1ull << 40; }, [](Sp& s, int&) { s.pitch_bytes[0] = (1ull << 40) - 16; },
       "1099511627776 bytes"},
      {"stride_covers_dim", [](Sp& s, int&) { s.pitch_bytes[0] = 8176; }, [](Sp& s, int&) { s.pitch_bytes[0] = 8192; },
       "8176 bytes < 8192 bytes"},
      {"elem_stride_range", [](Sp& s, int&) { s.elem_strides[1] = 9; }, [](Sp& s, int&) { s.elem_strides[1] = 8; },
       "elem_strides[1] (H, driver dim 2) = 9"},
      {"elem_stride_inner_ignored", [](Sp& s, int&) { s.elem_strides[3] = 2; }, [](Sp& s, int&) { s.elem_strides[3] = 1; },
       "elem_strides[3] (C, driver dim 0) = 2"},
      {"packed_swizzle_modes", [](Sp& s, int& cc) { packed16(s, cc); s.swizzle = TmaSwizzle::k128BAtom64B; },
       [](Sp& s, int& cc) { packed16(s, cc); s.swizzle = TmaSwizzle::k128BAtom32B; }, "16U4_ALIGN16B with swizzle 128B_ATOM_64B"},
      {"oob_nan_float_only", [](Sp& s, int&) { s.type = TmaType::kU32; s.oob_fill = TmaOobFill::kNanRequestZeroFma; },
       [](Sp& s, int&) { s.oob_fill = TmaOobFill::kNanRequestZeroFma; }, "with type UINT32"},
      {"im2col_corner_range", [](Sp& s, int&) { s.lower_corner[0] = -129; }, [](Sp& s, int&) { s.lower_corner[0] = -128; },
       "lower_corner[0] (H) = -129 for rank 4"},
      {"im2col_box_nonempty", [](Sp& s, int&) { s.upper_corner[1] = -9; }, [](Sp& s, int&) { s.upper_corner[1] = -8; },
       "W: shape 8 + upper -9 - lower -1 = 0"},
      {"im2col_box_extent_max", [](Sp& s, int&) {
         s.rank = 3; s.shape = {1, (1ull << 31) - 32768, 32}; s.pitch_bytes = {((1ull << 31) - 32768) * 128, 128};
         s.lower_corner = {-32768}; s.upper_corner = {0}; },
       [](Sp& s, int&) {
         s.rank = 3; s.shape = {1, (1ull << 31) - 32769, 32}; s.pitch_bytes = {((1ull << 31) - 32769) * 128, 128};
         s.lower_corner = {-32768}; s.upper_corner = {0}; }, "= 2147483648"},
      {"im2col_interleave_none", [](Sp& s, int&) { s.interleave = TmaInterleave::k16B; },
       [](Sp& s, int&) { s.interleave = TmaInterleave::kNone; }, "interleave 16B"},
      {"im2col_channels_range", [](Sp& s, int&) { s.channels_per_pixel = 0; },
       [](Sp& s, int&) { s.swizzle = TmaSwizzle::kNone; s.channels_per_pixel = 256; }, "channels_per_pixel = 0"},
      {"im2col_channels_packed_128", [](Sp& s, int& cc) { packed16(s, cc); s.channels_per_pixel = 64; },
       [](Sp& s, int& cc) { packed16(s, cc); }, "channels_per_pixel = 64 with type 16U4_ALIGN16B"},
      {"im2col_channels_multiple_16", [](Sp& s, int&) { s.channels_per_pixel = 30; },
       [](Sp& s, int&) { s.channels_per_pixel = 28; }, "channels_per_pixel = 30 of 32 bits"},
      {"im2col_pixels_range", [](Sp& s, int&) { s.pixels_per_column = 1025; }, [](Sp& s, int&) { s.pixels_per_column = 1024; },
       "pixels_per_column = 1025"},
      {"im2col_swizzle_span", [](Sp& s, int&) { s.swizzle = TmaSwizzle::k64B; },
       [](Sp& s, int&) { s.swizzle = TmaSwizzle::k64B; s.channels_per_pixel = 16; }, "channels 128 bytes with swizzle 64B (span 64 bytes)"},
      {"im2col_box_fits_smem", [](Sp& s, int&) { s.swizzle = TmaSwizzle::kNone; s.channels_per_pixel = 64; s.pixels_per_column = 1024; },
       [](Sp& s, int&) { s.swizzle = TmaSwizzle::kNone; s.channels_per_pixel = 64; s.pixels_per_column = 912; },
       "one copy of 262144 bytes"},
  };
  return v;
}

class Im2colRule : public ::testing::TestWithParam<RuleCase> {};

TEST_P(Im2colRule, BrokenAloneIsReportedAndBoundaryPasses) {
  const RuleCase& c = GetParam();
  const TensorMapRule* rule = nullptr;
  for (const TensorMapRule& r : im2col_rules())
    if (c.rule == r.id) rule = &r;
  ASSERT_NE(rule, nullptr) << c.rule << " is not an im2col rule";
  ASSERT_TRUE(validate(base(), 90).warnings.empty()) << validate(base(), 90).to_string();
  test::expect_broken_alone_and_boundary_passes(c, *rule, base());
}

INSTANTIATE_TEST_SUITE_P(TensorMap, Im2colRule, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<RuleCase>& p) { return p.param.rule; });

TEST(Im2colRules, EveryRuleHasACase) { test::expect_every_rule_covered(cases(), im2col_rules()); }

TEST(Im2colOrder, RowMajorBecomesCFirstAndCornersWFirst) {
  Im2colSpec s = base();
  s.rank = 5;
  s.shape = {2, 3, 5, 7, 32};
  s.pitch_bytes = {3 * 5 * 7 * 128, 5 * 7 * 128, 7 * 128, 128, 0};
  s.lower_corner = {-1, -2, -3};  // D, H, W
  s.upper_corner = {4, 5, 6};
  s.elem_strides = {1, 2, 3, 4, 1};
  const Im2colDriverOrder d = to_driver_order(s);
  EXPECT_EQ(d.dims.rank, 5u);
  EXPECT_EQ(d.dims.global_dim[0], 32u);  // C
  EXPECT_EQ(d.dims.global_dim[1], 7u);   // W
  EXPECT_EQ(d.dims.global_dim[4], 2u);   // N
  EXPECT_EQ(d.dims.global_strides[0], 128u);
  EXPECT_EQ(d.dims.global_strides[3], 3u * 5 * 7 * 128);
  EXPECT_EQ(d.lower_corner[0], -3);  // W first: the order the H100 run of the worked example confirmed
  EXPECT_EQ(d.lower_corner[2], -1);
  EXPECT_EQ(d.upper_corner[0], 6);
  EXPECT_EQ(d.dims.element_strides[1], 4u);  // W's traversal stride
}

TEST(Im2colDescribe, NamesTheWalkTheBytesAndTheLayout) {
  const Im2colSpec s = base();
  EXPECT_EQ(box_bytes(s), 64u * 32 * 4);
  const auto px = im2col_box_pixels(s);
  EXPECT_EQ(px[0], 8u);  // H: -1 .. 6
  EXPECT_EQ(px[1], 8u);
  Im2colSpec t = s;
  t.elem_strides[2] = 3;  // W stride 3: ceil(8 / 3)
  EXPECT_EQ(im2col_box_pixels(t)[1], 3u);
  const std::string d = describe(s);
  for (const char* needle : {"pixelBoxLowerCorner {-1, -1}", "H -1..6 step 1 (8), W -1..6 step 1 (8) = 64 pixels",
                             "delivers 8192 bytes per copy", "64 x 32 matrix", "128B, period 1024"})
    EXPECT_NE(d.find(needle), std::string::npos) << needle << "\n" << d;
}

TEST(ReplaceAddress, RejectsWhatTheEncodeWouldBeforeTheDriver) {
  alignas(64) CUtensorMap map{};
  const Im2colSpec s = base();
  Status st = replace_address(&map, s, g_buf + 8);
  EXPECT_EQ(st.code, StatusCode::kInvalidArgument);
  EXPECT_NE(st.message.find("address_align_16"), std::string::npos) << st.message;
  st = replace_address(&map, s, nullptr);
  EXPECT_NE(st.message.find("address_null"), std::string::npos) << st.message;
  st = replace_address(nullptr, s, g_buf);
  EXPECT_NE(st.message.find("tensor map is null"), std::string::npos) << st.message;
  alignas(64) unsigned char raw[192];
  st = replace_address(reinterpret_cast<CUtensorMap*>(raw + 16), s, g_buf);
  EXPECT_NE(st.message.find("64-byte aligned"), std::string::npos) << st.message;
  Im2colSpec p = s;
  int cc = 100;
  packed16(p, cc);
  st = replace_address(&map, p, g_buf + 16);  // ALIGN16B packed types need 32 bytes
  EXPECT_NE(st.message.find("address_align_32"), std::string::npos) << st.message;
}

}  // namespace
}  // namespace tmakit
