// Bad input gets a clear error before anything is launched. These checks run without a GPU:
// the pointers below are never dereferenced because validation rejects the call first.
#include <cstring>
#include <string>
#include <gtest/gtest.h>
#include <kernels/launchers.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

alignas(256) unsigned char g_a[1 << 16];
alignas(256) unsigned char g_b[1 << 16];

void expect_error(const Status& s, StatusCode code, const std::string& needle) {
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code, code) << s.message;
  EXPECT_NE(s.message.find(needle), std::string::npos)
      << "message '" << s.message << "' should mention '" << needle << "'";
}

TEST(ApiErrors, NullSource) {
  expect_error(transpose(nullptr, g_b, 4, 4, 4), StatusCode::kInvalidArgument,
               "src is a null pointer");
}

TEST(ApiErrors, NullDestination) {
  expect_error(transpose(g_a, nullptr, 4, 4, 4), StatusCode::kInvalidArgument,
               "dst is a null pointer");
}

TEST(ApiErrors, ZeroRows) {
  expect_error(transpose(g_a, g_b, 0, 4, 4), StatusCode::kInvalidArgument,
               "rows must be >= 1 (got 0)");
}

TEST(ApiErrors, ZeroCols) {
  expect_error(transpose(g_a, g_b, 4, 0, 4), StatusCode::kInvalidArgument,
               "cols must be >= 1 (got 0)");
}

TEST(ApiErrors, NegativeDims) {
  expect_error(transpose(g_a, g_b, -3, 4, 4), StatusCode::kInvalidArgument,
               "rows must be >= 1 (got -3)");
}

TEST(ApiErrors, AbsurdDimsOverflow) {
  expect_error(transpose(g_a, g_b, std::int64_t(1) << 40, std::int64_t(1) << 40, 4),
               StatusCode::kInvalidArgument, "too large");
}

TEST(ApiErrors, ElementSizeNotAPowerOfTwo) {
  expect_error(transpose(g_a, g_b, 4, 4, 3), StatusCode::kInvalidArgument, "element size 3 bytes");
}

TEST(ApiErrors, VariantDoesNotSupportElementSize) {
  TransposeOptions o;
  o.variant = "smem";
  expect_error(transpose(g_a, g_b, 4, 4, 16, o), StatusCode::kUnsupported,
               "'smem' does not support 16-byte elements");
}

TEST(ApiErrors, UnknownVariantListsTheKnownOnes) {
  TransposeOptions o;
  o.variant = "fastest_please";
  const Status s = transpose(g_a, g_b, 4, 4, 4, o);
  expect_error(s, StatusCode::kInvalidArgument, "unknown variant 'fastest_please'");
  EXPECT_NE(s.message.find("smem_padded"), std::string::npos) << s.message;
}

TEST(ApiErrors, OverlappingBuffers) {
  expect_error(transpose(g_a, g_a + 32, 8, 8, 4), StatusCode::kInvalidArgument, "overlap");
  expect_error(transpose(g_a + 32, g_a, 8, 8, 4), StatusCode::kInvalidArgument, "overlap");
  expect_error(transpose(g_a, g_a, 1, 1, 1), StatusCode::kInvalidArgument, "overlap");
}

TEST(ApiErrors, AdjacentBuffersDoNotOverlap) {
  // [g_a, g_a+256) and [g_a+256, ...) touch but do not overlap: whatever else happens
  // (no device here, or host memory rejected on a GPU machine), it is not an overlap error.
  const Status s = transpose(g_a, g_a + 256, 8, 8, 4);
  EXPECT_EQ(s.message.find("overlap"), std::string::npos) << s.message;
}

// A well-formed call on host (pageable) memory is refused with a reason: on a machine without
// a GPU because there is no device, on a GPU machine because the memory is not device memory.
TEST(ApiErrors, HostMemoryOrNoDeviceIsAClearError) {
  const Status s = transpose(g_a, g_b, 8, 8, 4);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.code == StatusCode::kNoDevice || s.code == StatusCode::kInvalidArgument)
      << to_string(s.code) << ": " << s.message;
  EXPECT_FALSE(s.message.empty());
}

TEST(ApiErrors, StatusCodesHaveNames) {
  for (StatusCode c : {StatusCode::kOk, StatusCode::kInvalidArgument, StatusCode::kUnsupported,
                       StatusCode::kNoDevice, StatusCode::kCudaError})
    EXPECT_STRNE(to_string(c), "unknown");
}

// The TMA axes: values a technique does not have are rejected by name, before the device.
TEST(ApiErrors, SwizzleOutsideTheList) {
  TransposeOptions o;
  o.variant = "tma_load_store";
  o.swizzle_bytes = 16;
  expect_error(transpose(g_a, g_b, 64, 64, 4, o), StatusCode::kInvalidArgument,
               "swizzle_bytes must be -1 (default), 0, 32, 64 or 128 (got 16)");
}

TEST(ApiErrors, SwizzleTheTechniqueDoesNotHave) {
  TransposeOptions o;
  o.variant = "int4_8x8";
  o.swizzle_bytes = 64;
  expect_error(transpose(g_a, g_b, 8, 8, 16, o), StatusCode::kInvalidArgument,
               "'int4_8x8' does not take swizzle_bytes = 64 (its swizzle modes: none, 128)");
  o.variant = "smem";
  o.swizzle_bytes = 128;
  expect_error(transpose(g_a, g_b, 8, 8, 4, o), StatusCode::kInvalidArgument,
               "'smem' does not take swizzle_bytes = 128");
}

TEST(ApiErrors, BarrierStyleOnATechniqueWithoutOne) {
  TransposeOptions o;
  o.variant = "tma_store";  // loads with LDG: no mbarrier
  o.barrier = TmaBarrier::kCudaBarrier;
  expect_error(transpose(g_a, g_b, 64, 64, 4, o), StatusCode::kInvalidArgument,
               "'tma_store' has no barrier-style axis (barrier = cuda_barrier)");
}

TEST(ApiErrors, AxesNeedANamedTechnique) {
  TransposeOptions o;
  o.swizzle_bytes = 64;
  expect_error(transpose(g_a, g_b, 64, 64, 4, o), StatusCode::kInvalidArgument,
               "name the technique instead of 'auto'");
}

// Every TMA technique's fallback (the decider's first ranked technique without alignment or
// tensor-map needs) is a classic technique of its kind that takes the element size.
TEST(Fallback, ClassicFallbackPerKindAndElementSize) {
  EXPECT_EQ(fallback_variant("tma_copy", 4096, 4096, 4), "copy");
  for (const VariantInfo& v : variants()) {
    if (!v.uses_tma) continue;
    for (int e : {1, 2, 4, 8, 16}) {
      if (!v.supports_elem_bytes(e)) continue;
      const VariantInfo* fb = find_variant(fallback_variant(v.token, 4096, 4096, e));
      ASSERT_NE(fb, nullptr) << v.token;
      EXPECT_FALSE(fb->uses_tma) << v.token << " falls back to " << fb->token;
      EXPECT_TRUE(fb->supports_elem_bytes(e)) << v.token << " -> " << fb->token << " " << e;
      EXPECT_EQ(fb->kind, v.kind) << v.token;
    }
  }
}

}  // namespace
}  // namespace tmakit

namespace tmakit {
namespace {

// Every pick of the decider, over a grid of shapes neither preset names (sides 1 to 4000000,
// batches, both GPUs' tables), is a registered technique of the right kind that takes the
// element size, and every technique's fallback is a classic one that does: a table that names a
// token the registry does not have, or one without that element size, fails here, not on a
// user's call.
TEST(Decider, EveryPickIsARegisteredTechniqueForItsElementSize) {
  const std::int64_t sides[] = {1,    2,    3,    7,     16,    31,      32,     33,
                                63,   64,   66,   97,    128,   130,     255,    256,
                                1000, 1001, 4096, 12345, 65536, 1000003, 4000000};
  int checked = 0;
  for (double gbps : {0.0, 3350.0, 4800.0}) {
    for (int e : {1, 2, 4, 8, 16}) {
      for (std::int64_t batch : {1, 3, 3000}) {
        for (std::int64_t r : sides) {
          for (std::int64_t c : sides) {
            if (batch * r * c > (std::int64_t{1} << 34)) continue;  // beyond any device's memory
            const std::string pick = auto_variant(r, c, e, batch, gbps);
            const VariantInfo* v = find_variant(pick);
            ASSERT_NE(v, nullptr) << pick << " for " << batch << "x" << r << "x" << c << " " << e
                                  << " B at " << gbps;
            EXPECT_EQ(v->kind, VariantKind::kTranspose) << pick;
            EXPECT_TRUE(v->supports_elem_bytes(e))
                << pick << " for " << batch << "x" << r << "x" << c << " " << e << " B at " << gbps;
            ++checked;
          }
        }
      }
    }
  }
  for (const VariantInfo& v : variants()) {
    if (v.kind != VariantKind::kTranspose || !v.may_fall_back) continue;
    for (int e : {1, 2, 4, 8, 16}) {
      if (!v.supports_elem_bytes(e)) continue;
      for (std::int64_t r : sides) {
        for (std::int64_t c : sides) {
          const VariantInfo* fb = find_variant(fallback_variant(v.token, r, c, e));
          ASSERT_NE(fb, nullptr) << v.token << " " << r << "x" << c << " " << e << " B";
          EXPECT_FALSE(fb->may_fall_back) << v.token << " -> " << fb->token;
          EXPECT_TRUE(fb->supports_elem_bytes(e)) << v.token << " -> " << fb->token << " " << e;
        }
      }
    }
  }
  for (DataType t :
       {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64, DataType::kI32}) {
    for (double beta : {0.0, 1.0, 2.0}) {
      for (double gbps : {3350.0, 4800.0}) {
        const VariantInfo* v = find_variant(auto_accumulate_variant(4000000, 16, t, beta, gbps));
        ASSERT_NE(v, nullptr);
        EXPECT_EQ(v->kind, VariantKind::kAccumulate) << v->token;
        EXPECT_TRUE(v->supports_elem_bytes(data_type_bytes(t))) << v->token;
      }
    }
  }
  EXPECT_GT(checked, 10000);  // the grid ran
}

// Layout rules are checked before any device work, so these hold on machines without a GPU.
// The classic loads' L2 prefetch hint runs on Hopper only, where 2026-11-25 measured it:
// unknown, sm_80 and newer GPUs keep the plain loads (kernels/launchers.hpp).
TEST(Fallback, L2HintOnHopperOnly) {
  kernels::LaunchArgs a;
  for (const int cc : {0, 75, 80, 89, 90, 100, 120}) {
    a.cc = cc;
    EXPECT_EQ(kernels::l2_hint_pays(a), cc == 90) << "cc " << cc;
  }
}

TEST(LayoutErrors, EachRuleNamesItsField) {
  auto call = [](MatrixLayout l, std::int64_t rows = 8, std::int64_t cols = 8,
                 const char* variant = "auto") {
    TransposeOptions o;
    o.variant = variant;
    return transpose(g_a, g_b + 1024, rows, cols, 4, l, o);
  };
  expect_error(call({0, 0, 0, 0, 0}), StatusCode::kInvalidArgument, "batch must be >= 1 (got 0)");
  expect_error(call({1, 7, 0, 0, 0}), StatusCode::kInvalidArgument,
               "src_ld_elems = 7 is smaller than a src row (cols = 8 elements)");
  expect_error(call({1, 0, 5, 0, 0}, 6, 8), StatusCode::kInvalidArgument,
               "dst_ld_elems = 5 is smaller than a dst row (rows = 6 elements)");
  expect_error(call({1, -1, 0, 0, 0}), StatusCode::kInvalidArgument, "src_ld_elems must be >= 0");
  expect_error(call({2, 0, 0, 63, 0}), StatusCode::kInvalidArgument,
               "src_batch_stride_elems = 63 is smaller than one src matrix (64 elements");
  expect_error(call({2, 0, 0, 0, 10}), StatusCode::kInvalidArgument,
               "matrices of the batch would overlap");
  expect_error(call({std::int64_t(1) << 60, 0, 0, 0, 0}), StatusCode::kInvalidArgument,
               "too large to address");
}

TEST(LayoutErrors, OverlapCountsTheWholeStridedSpan) {
  // src: 2 matrices of 4 x 4 with ld 16, 128 elements apart: its span is 128 + 3*16 + 4 = 180
  // elements (720 bytes). dst 700 bytes in overlaps; 720 bytes in does not.
  const MatrixLayout l{2, 16, 0, 128, 0};
  expect_error(transpose(g_a, g_a + 700, 4, 4, 4, l), StatusCode::kInvalidArgument, "overlap");
  const Status s = transpose(g_a, g_a + 720, 4, 4, 4, l);
  EXPECT_EQ(s.message.find("overlap"), std::string::npos) << s.message;
}

TEST(LayoutErrors, ElementAlignmentIsChecked) {
  expect_error(transpose(g_a + 1, g_b, 4, 4, 4), StatusCode::kInvalidArgument,
               "is not aligned to the 4-byte element size");
}

TEST(ReferenceLayout, StridedBatchLeavesPaddingAlone) {
  // 2 matrices of 2 x 3 bytes, src ld 4, dst ld 3, dst matrices 8 apart.
  const unsigned char src[] = {1, 2, 3, 0, 4,  5,  6, 0,  // matrix 0 (row pitch 4)
                               7, 8, 9, 0, 10, 11, 12};   // matrix 1
  unsigned char dst[16];
  std::memset(dst, 0xEE, sizeof dst);
  ASSERT_TRUE(reference_transpose(src, dst, 2, 3, 1, MatrixLayout{2, 4, 3, 8, 8}).ok());
  const unsigned char want[16] = {1, 4, 0xEE, 2, 5, 0xEE, 3, 6, 7, 10, 0xEE, 8, 11, 0xEE, 9, 12};
  for (int i = 0; i < 16; ++i) EXPECT_EQ(dst[i], want[i]) << "byte " << i;
}

// Transpose-accumulate's own argument checks, all before the device.
TEST(AccumulateErrors, ArgumentsAreCheckedFirst) {
  expect_error(transpose_accumulate(nullptr, g_b, 4, 4, DataType::kF32, 1, 1),
               StatusCode::kInvalidArgument, "src is a null pointer");
  expect_error(transpose_accumulate(g_a, g_b, 4, 0, DataType::kF32, 1, 1),
               StatusCode::kInvalidArgument, "cols must be >= 1");
  expect_error(transpose_accumulate(g_a, g_b, 4, 4, static_cast<DataType>(42), 1, 1),
               StatusCode::kInvalidArgument, "unknown data type 42");
  expect_error(transpose_accumulate(g_a, g_b, 4, 4, DataType::kI32, 1.5, 1),
               StatusCode::kInvalidArgument, "alpha must be an integer");
  expect_error(transpose_accumulate(g_a, g_b, 4, 4, DataType::kI32, 1, 3e9),
               StatusCode::kInvalidArgument, "beta must be an integer in int32's range");
  expect_error(transpose_accumulate(g_a + 2, g_b, 4, 4, DataType::kF32, 1, 1),
               StatusCode::kInvalidArgument, "not aligned to the 4-byte element size");
  TransposeOptions o;
  o.variant = "smem_wide";
  expect_error(transpose_accumulate(g_a, g_b, 4, 4, DataType::kF32, 1, 1, {}, o),
               StatusCode::kInvalidArgument,
               "'smem_wide' is not a transpose-accumulate technique (those are: auto, "
               "smem_accumulate, flat_accumulate, sector_accumulate, tma_reduce, tma_accumulate)");
  o.variant = "tma_reduce";
  expect_error(transpose(g_a, g_b, 4, 4, 4, o), StatusCode::kInvalidArgument,
               "'tma_reduce' is a transpose-accumulate technique: call transpose_accumulate()");
  expect_error(transpose_accumulate(g_a, g_a + 8, 4, 4, DataType::kF32, 1, 1),
               StatusCode::kInvalidArgument, "overlap");
}

// auto_accumulate_variant: the decider's first ranked accumulate technique that takes the type
// and beta (tma_reduce adds into dst: never for beta != 1 or f64), of the beta class's data.
TEST(AccumulateAuto, PicksARankedTechniqueThatTakesTheCall) {
  for (DataType t : {DataType::kF16, DataType::kBF16, DataType::kF32, DataType::kF64})
    for (double beta : {0.0, 1.0, 2.0})
      for (double gbps : {3350.0, 4800.0})
        for (const auto& [rows, cols] : {std::pair<long, long>{4096, 4096},
                                         {4096, 4097},
                                         {12345, 6789},
                                         {4000000, 16},
                                         {16, 4000000},
                                         {33, 33}}) {
          const std::string pick = auto_accumulate_variant(rows, cols, t, beta, gbps);
          const VariantInfo* v = find_variant(pick);
          ASSERT_NE(v, nullptr) << pick;
          EXPECT_EQ(v->kind, VariantKind::kAccumulate) << pick;
          EXPECT_TRUE(v->supports_elem_bytes(data_type_bytes(t))) << pick;
          if (beta != 1 || t == DataType::kF64) {
            EXPECT_NE(pick, "tma_reduce");
          }
        }
  EXPECT_EQ(find_variant(fallback_variant("tma_reduce", 4096, 4096, 4))->kind,
            VariantKind::kAccumulate);
  EXPECT_NE(fallback_variant("tma_accumulate", 4096, 4096, 4), "tma_accumulate");
  EXPECT_EQ(data_type_bytes(DataType::kBF16), 2);
  EXPECT_EQ(data_type_bytes(DataType::kF64), 8);
  EXPECT_STREQ(to_string(DataType::kI32), "i32");
}

}  // namespace
}  // namespace tmakit
