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

TEST(Fallback, ClassicFallbackPerKindAndElementSize) {
  EXPECT_EQ(fallback_variant("tma_copy", 4096, 4096, 4), "copy");
  EXPECT_EQ(fallback_variant("tma_pipeline", 4096, 4096, 4), "smem_wide");
  EXPECT_EQ(fallback_variant("tma_load_store", 4096, 4096, 1), "vec_padded");
  EXPECT_EQ(fallback_variant("int4_8x8", 4096, 4096, 16), "smem_padded");
  // Shape classes: odd rows (no 16-byte vectors) and a side of at most 32 elements.
  EXPECT_EQ(fallback_variant("tma_load_store", 12345, 6789, 1), "reg_realign");
  EXPECT_EQ(fallback_variant("tma_load_store", 12345, 6789, 2), "reg_realign");
  EXPECT_EQ(fallback_variant("tma_load_store", 97, 75, 1), "smem_wide");  // small: not realign
  EXPECT_EQ(fallback_variant("tma_load_store", 4, 4000000, 2), "smem_flat");
  EXPECT_EQ(fallback_variant("tma_pipeline", 4000000, 32, 8), "smem_strip");
  EXPECT_EQ(auto_variant(4096, 4096, 1), "tma_pipeline");           // 16-192 MB, 1-2 B
  EXPECT_EQ(auto_variant(2048, 2048, 1), "tma_pipeline");           // 1 B: the window opens at 4 MB
  EXPECT_EQ(auto_variant(1024, 1024, 1), "tma_load_store");         // 1 MB: below it
  EXPECT_EQ(auto_variant(16384, 16384, 1), "tma_wide");             // 4096 tiles of 256 x 256 bytes
  EXPECT_EQ(auto_variant(8192, 2048, 2), "tma_pipeline");           // 1024 tiles, 32 MB: the window
  EXPECT_EQ(auto_variant(8192, 2048, 2, 1, 4800), "tma_pipeline");  // the H200 too
  EXPECT_EQ(auto_variant(2048, 2048, 2), "tma_pipeline");           // 2 B: the window opens at 8 MB
  EXPECT_EQ(auto_variant(128, 128, 2, 200), "tma_load_store");      // 6.5 MB, 200 tiles: below it
  EXPECT_EQ(auto_variant(2048, 2048, 2, 1, 4800), "tma_pipeline");
  EXPECT_EQ(auto_variant(1024, 1024, 2), "tma_load_store");  // 64 tiles: too few
  EXPECT_EQ(auto_variant(512, 512, 1, 1000), "tma_wide");    // a batch counts its tiles
  EXPECT_EQ(auto_variant(256, 256, 1, 1024), "tma_pipeline");
  // Odd rows at 2 B: reg_realign on both GPUs (2026-11-26).
  EXPECT_EQ(auto_variant(12345, 6789, 2), "reg_realign");
  EXPECT_EQ(auto_variant(12345, 6789, 2, 1, 4800.0), "reg_realign");
  EXPECT_EQ(auto_variant(3001, 4999, 2, 1, 4800.0), "reg_realign");
  EXPECT_EQ(auto_variant(3000, 97, 2, 1, 4800.0), "smem_wide");  // the H200's small odd 2 B
  // Output rows that split 32-byte sectors (rows * E not a multiple of 32), 2-8 B: smem_sector;
  // 1 B keeps smem_wide; output rows on sectors keep smem_wide even when the input rows are odd.
  EXPECT_EQ(auto_variant(12345, 6789, 4), "smem_sector");
  EXPECT_EQ(fallback_variant("tma_pipeline", 3001, 4999, 8), "smem_sector");
  EXPECT_EQ(auto_variant(12345, 6789, 1), "reg_realign");  // odd rows at 1 B: both GPUs
  // Either side of reg_realign's own-next size at 1 B (tests/gpu RegRealign.*): still auto's.
  for (double gbps : {3350.0, 4800.0})
    for (std::int64_t cols : {6139, 6141})
      EXPECT_EQ(auto_variant(4099, cols, 1, 1, gbps), "reg_realign");
  EXPECT_EQ(auto_variant(12345, 6789, 1, 1, 4800.0), "reg_realign");
  EXPECT_EQ(auto_variant(1000, 75, 1), "smem_wide");
  EXPECT_EQ(auto_variant(4096, 6789, 4), "smem_wide");
  EXPECT_EQ(auto_variant(4100, 4096, 4), "smem_sector");
  EXPECT_EQ(auto_variant(97, 75, 4), "smem_wide");  // small matrices: smem_sector lost at 2-4 B
  EXPECT_EQ(auto_variant(97, 75, 8), "smem_sector");
  // Short sides above kOddMidSide = 512 (the 2026-11-24 odd probe shapes): the realign family at
  // 1-2 B given one wave of smem_realign's tiles (512), else smem_sector at 2-4 B; both GPUs.
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(20001, 777, 1, 1, gbps), "reg_realign");
    EXPECT_EQ(auto_variant(777, 20001, 2, 1, gbps), "reg_realign");
    EXPECT_EQ(auto_variant(20001, 777, 4, 1, gbps), "smem_sector");
    EXPECT_EQ(auto_variant(777, 20001, 8, 1, gbps), "smem_sector");
    EXPECT_EQ(auto_variant(1001, 999, 2, 1, gbps), "smem_wide");     // 144 realign tiles (s. 40)
    EXPECT_EQ(auto_variant(1001, 999, 1, 1, gbps), "smem_wide");     // 72 realign tiles
    EXPECT_EQ(auto_variant(1001, 999, 4, 1, gbps), "smem_wide");     // 4 MB: under 11 MiB
    EXPECT_EQ(auto_variant(2897, 2903, 4, 1, gbps), "smem_sector");  // 33.6 MB
    EXPECT_EQ(auto_variant(1001, 999, 8, 1, gbps), "smem_sector");
  }
  EXPECT_EQ(auto_variant(3000, 500, 4), "smem_wide");   // 6 MB: under 11 MiB
  EXPECT_EQ(auto_variant(30000, 170, 4), "smem_wide");  // 20 MB, short side <= 180
  EXPECT_EQ(auto_variant(7, 4000000, 4), "smem_flat");
  EXPECT_EQ(auto_variant(24, 1000003, 4), "smem_flat");           // k x N at 4 B, k <= 32
  EXPECT_EQ(auto_variant(24, 1000003, 4, 1, 4800), "smem_flat");  // (2026-11-26, both GPUs)
  EXPECT_EQ(auto_variant(1000003, 24, 4), "smem_flat");           // N x k at 4 B, k <= 32
  EXPECT_EQ(auto_variant(1000003, 24, 4, 1, 4800), "smem_flat");  // (2026-11-27, both GPUs)
  EXPECT_EQ(auto_variant(1000000, 20, 4, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(20000, 24, 4), "smem_strip");            // N < 65536: the strip
  EXPECT_EQ(auto_variant(1000003, 24, 8), "smem_strip");          // 8 B: the strip
  EXPECT_EQ(auto_variant(24, 1000003, 8), "smem_strip");          // 8 B: the strip
  EXPECT_EQ(auto_variant(4000000, 7, 8), "smem_strip");           // 8 B: the strip
  EXPECT_EQ(auto_variant(16384, 16384, 8), "smem_sector");        // one 8 B matrix on the H100
  EXPECT_EQ(auto_variant(2048, 2048, 8), "smem_sector");          // 4096 tiles at 4-8 B
  EXPECT_EQ(auto_variant(4000000, 32, 8), "smem_sector");         // k = 32 at 8 B, H100
  EXPECT_EQ(auto_variant(16384, 16384, 8, 1, 4800), "tma_wide");  // H200: TMA
  EXPECT_EQ(auto_variant(2048, 2048, 8, 1, 4800), "tma_wide");
  EXPECT_EQ(auto_variant(4000000, 32, 8, 1, 4800), "tma_wide");
  EXPECT_EQ(auto_variant(1024, 1024, 8), "smem_padded");  // 1024 tiles: classic
  EXPECT_EQ(auto_variant(4096, 4096, 4), "tma_wide");     // 4096 tiles
  EXPECT_EQ(auto_variant(64, 64, 4, 4096), "tma_wide");   // a short side of 64
  EXPECT_EQ(auto_variant(64, 64, 8, 4096), "tma_wide");   // 16384 tiles, a side of 64
  EXPECT_EQ(auto_variant(48, 48, 8, 4096), "smem_wide");  // 48 x 48: partial 32 x 32 tiles (the
  // 8 B batch rule of 2026-11-27, measured at 100 x 60 only)
  EXPECT_EQ(auto_variant(32, 4000000, 4), "tma_wide");        // skinny k = 32, long rows
  EXPECT_EQ(auto_variant(4000000, 16, 4), "smem_flat");       // k = 16 at 4 B: flat
  EXPECT_EQ(auto_variant(32, 4000000, 2), "tma_load_store");  // 32 rows at 1-2 B
  EXPECT_EQ(auto_variant(4000000, 32, 2), "smem_flat");       // 32 columns: flat
  // Small odd batches: bulk_flat up to 12 KB a matrix on the H100, 24 KB on the H200 (sessions
  // 34, 39).
  EXPECT_EQ(auto_variant(97, 75, 1, 3000), "bulk_flat");        // 7275 B
  EXPECT_EQ(auto_variant(97, 75, 2, 3000), "smem_flat");        // 14550 B on the H100: flat
  EXPECT_EQ(auto_variant(97, 75, 2, 3000, 4800), "bulk_flat");  // ... on the H200: bulk
  EXPECT_EQ(auto_variant(97, 75, 4, 3000), "smem_flat");        // 29100 B on the H100: flat
  EXPECT_EQ(auto_variant(97, 75, 4, 3000, 4800), "smem_flat");  // ... the H200 too (2026-11-27)
  EXPECT_EQ(auto_variant(70, 71, 4, 3000, 4800), "bulk_flat");  // 19880 B on the H200: bulk
  EXPECT_EQ(auto_variant(70, 71, 4, 3000), "smem_flat");        // ... on the H100: flat
  EXPECT_EQ(auto_variant(33, 65, 4, 5000), "smem_flat");  // 4 B on the H100: flat (2026-11-27)
  EXPECT_EQ(auto_variant(33, 65, 4, 5000, 4800), "bulk_flat");  // ... the H200: bulk
  EXPECT_EQ(auto_variant(100, 60, 2, 2000), "bulk_flat");       // 12000 B: bulk on both
  EXPECT_EQ(auto_variant(250, 130, 1, 500), "smem_flat");       // 32500 B: flat on both
  EXPECT_EQ(auto_variant(250, 130, 1, 500, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(33, 65, 8, 5000, 4800), "bulk_flat");  // 8 B on the H200 (2026-11-27)
  EXPECT_NE(auto_variant(97, 75, 8, 3000, 4800), "bulk_flat");  // ... not above 32 KB a matrix
  EXPECT_EQ(auto_variant(33, 65, 8, 5000), "smem_wide");    // the H100: short side < 64, not sector
  EXPECT_EQ(auto_variant(97, 75, 8, 3000), "smem_sector");  // ... 75 keeps smem_sector
  EXPECT_EQ(auto_variant(100, 60, 8, 2000), "smem_wide");   // 8 B, 16-byte rows, side 33..63
  EXPECT_EQ(auto_variant(100, 60, 8, 2000, 4800), "smem_wide");
  // The H200's small batches with 16-byte rows and a short side of 16..31 at 8 B: tma_store
  // (at 4 B too until the 2026-11-27 smem_flat took those).
  for (int e : {4, 8}) {
    EXPECT_EQ(auto_variant(16, 48, e, 20000, 4800), e == 8 ? "tma_store" : "smem_flat");
    EXPECT_EQ(auto_variant(24, 40, e, 10000, 4800), e == 8 ? "tma_store" : "smem_flat");
    EXPECT_NE(auto_variant(16, 48, e, 20000), "tma_store");        // the H100 keeps its kernels
    EXPECT_NE(auto_variant(32, 32, e, 16384, 4800), "tma_store");  // a side of 32: as before
  }
  // Batches at 2 B of 16-byte rows with a short side of 16..31: smem_flat on both GPUs (session
  // 38), not reg_permute; sides of 8 and of 32 keep reg_permute / reg_tile.
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(16, 48, 2, 20000, gbps), "smem_flat");
    EXPECT_EQ(auto_variant(24, 40, 2, 10000, gbps), "smem_flat");
    EXPECT_EQ(auto_variant(8, 8, 2, 100000, gbps), "reg_permute");
    EXPECT_EQ(auto_variant(32, 32, 2, 16384, gbps), "reg_tile");
    EXPECT_EQ(auto_variant(16, 48, 1, 20000, gbps), "reg_permute");  // 1 B keeps it
  }
  EXPECT_EQ(auto_variant(48, 40, 2, 3000, 4800), "reg_tile");  // 16-byte rows, side 32..63
  for (double gbps : {3350.0, 4800.0})
    for (int e : {4, 8, 16}) {
      // N x 1 at 4-16 B: bulk, below the line memcpy's 56 MiB (4000000 x 1 at 16 B is above)
      EXPECT_EQ(auto_variant(3000000, 1, e, 1, gbps), "bulk_flat");
      EXPECT_NE(auto_variant(1000, 1, e, 1, gbps), "bulk_flat");  // ... N >= 1M only
    }
  // Lines from kLineMemcpyMinBytes: smem_strip, whose line path is cudaMemcpyAsync; one byte
  // fewer keeps the kernels (a batch of lines counts every line's bytes).
  const std::int64_t line_elems = kernels::kLineMemcpyMinBytes / 16;
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(line_elems, 1, 16, 1, gbps), "smem_strip");
    EXPECT_EQ(auto_variant(1, line_elems, 16, 1, gbps), "smem_strip");
    EXPECT_EQ(auto_variant(1, line_elems / 4, 16, 4, gbps), "smem_strip");
    EXPECT_EQ(auto_variant(line_elems - 1, 1, 16, 1, gbps), "bulk_flat");
    EXPECT_EQ(auto_variant(1, 4000000, 16, 1, gbps), "smem_strip");
    EXPECT_EQ(auto_variant(4000000, 1, 8, 1, gbps), "bulk_flat");  // 30.5 MB: the kernels
  }
  EXPECT_NE(auto_variant(4000000, 1, 2), "bulk_flat");  // 2 B: it lost
  EXPECT_NE(auto_variant(1, 4000000, 4), "bulk_flat");  // 1 x N: no tall form
  EXPECT_EQ(fallback_variant("bulk_flat", 4000000, 1, 8), "smem_flat");
  EXPECT_EQ(fallback_variant("bulk_flat", 97, 75, 1), "smem_flat");  // its gather, no TMA
  EXPECT_EQ(fallback_variant("bulk_flat", 4000000, 7, 2), "smem_flat");
  EXPECT_EQ(fallback_variant("bulk_flat", 1000, 999, 4), "smem_wide");  // no flat form
  EXPECT_EQ(auto_variant(8, 8, 8, 100000), "reg_tile");  // 8 B, sides <= 8: 2 x 2 blocks
  EXPECT_EQ(auto_variant(8, 8, 8, 100000, 4800), "reg_tile");
  EXPECT_EQ(auto_variant(8, 8, 4, 100000), "smem_flat");              // ... 4 B keeps smem_flat
  EXPECT_EQ(auto_variant(64, 64, 2, 4096), "tma_load_store");         // 16-byte rows, sides >= 64
  EXPECT_EQ(auto_variant(32, 32, 4, 16384), "smem_padded");           // batches of 32 x 32 (H100)
  EXPECT_EQ(auto_variant(32, 32, 4, 16384, 4800), "tma_load_store");  // ... the H200
  EXPECT_EQ(auto_variant(128, 128, 1, 2048), "tma_pipeline");         // a side < the 256-byte tile
  EXPECT_EQ(auto_variant(128, 128, 2, 2048), "tma_wide");             // a 2 B batch: wide
  EXPECT_EQ(auto_variant(128, 128, 2, 2048, 4800), "tma_wide");
  EXPECT_EQ(auto_variant(64, 64, 1, 4096), "reg_tile");           // a side below 128 bytes, 1 B
  EXPECT_EQ(auto_variant(96, 96, 1, 4096), "vec_padded");         // ... past reg_tile's 64
  EXPECT_EQ(auto_variant(32, 4000000, 1), "reg_permute");         // 32 x N, 1 B: registers
  EXPECT_EQ(auto_variant(32, 1000003, 1, 1, 4800), "smem_flat");  // N not whole chunks: flat
  // ... except k x N at 1 B with k not a multiple of 16 (and 32 on the H100): reg_permute's
  // realigned reads (2026-11-27), one matrix only; 2 B keeps smem_flat.
  EXPECT_EQ(auto_variant(32, 1000003, 1), "reg_permute");
  EXPECT_EQ(auto_variant(16, 1000003, 1), "smem_flat");
  EXPECT_EQ(auto_variant(12, 1000003, 1), "reg_permute");
  EXPECT_EQ(auto_variant(12, 1000003, 1, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(8, 1000003, 1), "smem_flat");  // k = 8: flat (2026-11-27), both GPUs
  EXPECT_EQ(auto_variant(8, 1000003, 1, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(24, 1000003, 1), "reg_permute");  // ... 24 keeps the registers
  EXPECT_EQ(auto_variant(7, 1000003, 1), "reg_permute");
  EXPECT_EQ(auto_variant(3, 1000001, 1, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(16, 1000003, 1, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(12, 1000003, 2, 1, 4800), "smem_flat");
  EXPECT_NE(auto_variant(16, 1003, 1, 100, 4800), "reg_permute");  // a batch: not measured
  EXPECT_EQ(auto_variant(2048, 2048, 4), "tma_pipeline");          // 4 B, 16-64 MB, one matrix
  EXPECT_EQ(auto_variant(16, 4000000, 4), "tma_load_store");       // 16 x N, 4 B
  EXPECT_EQ(auto_variant(4000000, 32, 2, 1, 4800), "reg_tile");    // H200: N x 16 / N x 32, 2 B
  EXPECT_EQ(auto_variant(4000000, 16, 2, 1, 4800), "reg_tile");
  EXPECT_EQ(auto_variant(4000000, 32, 1, 1, 4800), "reg_permute");  // ... 1 B: reg_permute
  EXPECT_EQ(auto_variant(4000000, 16, 1, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(32, 4000000, 1, 1, 4800), "reg_tile");     // H200: 32 x N at 1 B
  EXPECT_NE(auto_variant(32, 4000000, 2, 1, 4800), "reg_tile");     // ... not at 2 B
  EXPECT_EQ(auto_variant(16, 4000000, 1, 1, 4800), "reg_permute");  // ... nor 16 x N
  EXPECT_NE(auto_variant(32, 1000003, 1, 1, 4800), "reg_tile");     // ... nor N not whole blocks
  EXPECT_EQ(auto_variant(4000000, 24, 1, 1, 4800), "reg_permute");  // k = 24: not measured
  EXPECT_EQ(auto_variant(4000001, 32, 2, 1, 4800), "smem_flat");    // N not whole blocks
  EXPECT_EQ(auto_variant(4000000, 16, 1), "reg_permute");  // the H100 too (the 2026-11-25 hint)
  EXPECT_EQ(auto_variant(4000000, 32, 1), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 16, 2), "smem_flat");          // ... at 1 B only
  EXPECT_EQ(auto_variant(4000001, 32, 1), "smem_flat");          // N not whole blocks
  EXPECT_EQ(auto_variant(12345, 6789, 16), "tma_wide");          // 16 B: TMA at any shape
  EXPECT_EQ(auto_variant(97, 75, 16, 3000), "smem_padded");      // tiles 69% larger than the matrix
  EXPECT_EQ(auto_variant(2048, 2048, 16), "smem_padded");        // 4096 tiles: too few on the H100
  EXPECT_EQ(auto_variant(2048, 2048, 16, 1, 4800), "tma_wide");  // ... enough on the H200
  EXPECT_EQ(auto_variant(2048, 1024, 16, 1, 4800), "smem_padded");  // 2048 tiles: not there
  EXPECT_EQ(auto_variant(32, 32, 16, 16384), "tma_wide");           // a batch counts its tiles
  EXPECT_EQ(auto_variant(16, 4000000, 16), "tma_wide");             // 16 x N on the H100: TMA
  EXPECT_EQ(auto_variant(16, 4000000, 16, 1, 4800), "smem_strip");  // ... the H200: the strip
  EXPECT_EQ(auto_variant(4000000, 16, 16), "smem_strip");           // N x 16: the strip
  EXPECT_EQ(auto_variant(4000000, 2, 16, 1, 4800), "smem_flat");    // N x 2 on the H200: flat
  EXPECT_EQ(auto_variant(4000000, 2, 16), "smem_strip");            // ... the H100: the strip
  EXPECT_EQ(auto_variant(4000000, 4, 16, 1, 4800), "smem_strip");   // N x 4: the strip
  EXPECT_EQ(auto_variant(2, 4000000, 16, 1, 4800), "smem_strip");   // 2 x N: the strip
  EXPECT_EQ(auto_variant(1000, 2, 16, 1, 4800), "smem_strip");      // N < 65536: the strip
  EXPECT_EQ(auto_variant(16, 1000, 16), "smem_strip");              // short rows: the strip
  EXPECT_EQ(auto_variant(8, 8, 16, 100000), "smem_flat");           // tiny 16-byte matrices
  EXPECT_EQ(auto_variant(16, 48, 16, 20000), "smem_strip");         // a side of 16: the strip
  // The H200's table (peak DRAM > 4000 GB/s): 1 B keeps tma_load_store, 2-8 B as the H100;
  // one 1 B matrix above 192 MB runs reg_realign (2026-11-26), a batch of them does not.
  EXPECT_EQ(auto_variant(16384, 16384, 1, 1, 4800), "reg_realign");  // 268 MB
  EXPECT_EQ(auto_variant(32768, 32768, 1, 1, 4800), "reg_realign");
  EXPECT_EQ(auto_variant(12288, 16384, 1, 1, 4800), "tma_pipeline");    // 192 MiB: the window's
  EXPECT_EQ(auto_variant(12304, 16384, 1, 1, 4800), "reg_realign");     // ... 16 rows above it
  EXPECT_EQ(auto_variant(12304, 16384, 1, 1, 3350), "tma_wide");        // H100: tma_wide
  EXPECT_EQ(auto_variant(1024, 262144, 1, 1, 4800), "reg_realign");     // 256 MB, side 1024
  EXPECT_EQ(auto_variant(128, 2097152, 1, 1, 4800), "tma_load_store");  // 256 MB, side 128
  EXPECT_EQ(auto_variant(512, 512, 1, 1000, 4800), "tma_load_store");
  EXPECT_EQ(auto_variant(256, 256, 1, 1024, 4800), "tma_load_store");  // H200 1 B batches >= 256
  EXPECT_EQ(auto_variant(128, 128, 1, 2048, 4800), "tma_pipeline");    // ... below: the window
  EXPECT_EQ(auto_variant(16384, 16384, 2, 1, 4800), "tma_wide");
  EXPECT_EQ(auto_variant(16384, 16384, 1, 1, 3350), "tma_wide");
  EXPECT_EQ(auto_variant(3001, 511, 2, 1, 4800), "smem_wide");   // H200: odd 2 B, short <= 512
  EXPECT_EQ(auto_variant(3001, 999, 2, 1, 4800), "smem_wide");   // ... above: 2 B never sector
  EXPECT_EQ(auto_variant(600, 601, 2, 250, 4800), "smem_wide");  // 2 B: never smem_sector
  EXPECT_EQ(auto_variant(600, 601, 2, 250), "smem_wide");
  EXPECT_EQ(auto_variant(97, 75, 8, 3000, 4800), "smem_wide");  // H200: small odd 8 B (hinted)
  EXPECT_EQ(auto_variant(32, 32, 1, 16384), "reg_tile");        // batches of 32 x 32, 1-2 B
  EXPECT_EQ(auto_variant(32, 32, 2, 16384), "reg_tile");
  EXPECT_EQ(auto_variant(32, 32, 1, 16384, 4800), "reg_tile");   // both GPUs
  EXPECT_EQ(auto_variant(48, 64, 1, 1000), "reg_tile");          // 1 B: sides 32..64
  EXPECT_EQ(auto_variant(64, 64, 2, 4096), "tma_load_store");    // 2 B: 32 only
  EXPECT_EQ(auto_variant(36, 36, 1, 1000), "bulk_flat");         // not whole 8 x 8 blocks
  EXPECT_EQ(auto_variant(32, 32, 1, 1), "reg_permute");          // one matrix: not a batch
  EXPECT_EQ(auto_variant(16, 4000000, 2, 1, 4800), "reg_tile");  // H200: 16 x N at 2 B
  EXPECT_EQ(auto_variant(16, 4000000, 2), "reg_permute");        // ... the H100 keeps it
  EXPECT_EQ(auto_variant(32, 32, 4, 16384), "smem_padded");      // ... 4 B: not registers
  // reg_permute where its blocks paid (host/transpose/auto_table.cpp): k x N at 1-2 B up to 32
  // bytes of k, 4 B up to k = 4; N x k at 2-4 B for k < 16 (2026-11-27; up to 16 bytes of k
  // before), at 1 B any k.
  EXPECT_EQ(auto_variant(16, 4000000, 1), "reg_permute");
  EXPECT_EQ(auto_variant(16, 4000000, 2), "reg_permute");
  EXPECT_EQ(auto_variant(4, 4000000, 4), "reg_permute");
  EXPECT_EQ(auto_variant(7, 4000000, 8), "smem_strip");
  EXPECT_EQ(auto_variant(4000000, 7, 1), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 7, 2), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 4, 4), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 7, 4), "reg_permute");
  EXPECT_EQ(auto_variant(2097152, 9, 2), "reg_permute");  // 18-byte rows (2026-11-27)
  EXPECT_EQ(auto_variant(2097152, 9, 4, 1, 4800), "reg_permute");
  // The H200 also takes N x k at 4 B for k < 8 (k = 16 stays on smem_flat).
  EXPECT_EQ(auto_variant(4000000, 7, 4, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 5, 4, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 16, 4, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(7, 4000000, 4, 1, 4800), "smem_flat");  // k x N: as the H100
  EXPECT_EQ(auto_variant(8, 8, 2, 100000), "reg_permute");
  EXPECT_EQ(auto_variant(32, 32, 8, 16384), "tma_wide");  // 8 B: a tile per matrix
  EXPECT_EQ(auto_variant(32, 32, 8, 1024), "smem_xor");   // 1024 tiles: too few
  // 8 B: N x k with k <= 4 and 2 x N in registers; 4 x N and k = 7 keep the strip.
  EXPECT_EQ(auto_variant(4000000, 2, 8), "reg_permute");
  EXPECT_EQ(auto_variant(4000000, 4, 8), "reg_permute");
  EXPECT_EQ(auto_variant(2, 4000000, 8), "reg_permute");
  EXPECT_EQ(auto_variant(4, 4000000, 8), "smem_strip");
  // The 2026-11-27 class sweep and its check (docs/perf-guide.md), with the
  // neighbours that keep their picks. Batches of 16-byte rows, short side 32..63:
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(48, 40, 2, 3000, gbps), "reg_tile");  // 2 B, rows a multiple of 16
    EXPECT_EQ(auto_variant(48, 200, 2, 1500, gbps), "reg_tile");
    EXPECT_EQ(auto_variant(32, 48, 2, 8000, gbps), "reg_tile");
    EXPECT_EQ(auto_variant(56, 120, 2, 2000, gbps), "tma_load_store");  // ... not, > 12 KB
    EXPECT_EQ(auto_variant(64, 64, 2, 4096, gbps), "tma_load_store");   // side 64: as before
    EXPECT_EQ(auto_variant(16, 48, 2, 20000, gbps), "smem_flat");       // side 16: flat
  }
  EXPECT_EQ(auto_variant(40, 72, 2, 4000), "smem_flat");             // H100, <= 12 KB: flat
  EXPECT_EQ(auto_variant(40, 72, 2, 4000, 4800), "tma_load_store");  // the H200: TMA
  EXPECT_EQ(auto_variant(40, 72, 4, 4000), "tma_wide");              // 4 B, <= 4096 elements
  EXPECT_EQ(auto_variant(64, 48, 4, 2000), "tma_wide");
  EXPECT_EQ(auto_variant(32, 48, 4, 8000), "smem_flat");             // H100, short side 32
  EXPECT_EQ(auto_variant(32, 48, 4, 8000, 4800), "tma_load_store");  // ... the H200
  EXPECT_EQ(auto_variant(32, 32, 4, 16384), "smem_padded");          // 32 x 32: as before
  EXPECT_EQ(auto_variant(40, 72, 4, 4000, 4800), "tma_load_store");  // H200, <= 4096 elements
  // ... but where a side splits 32-byte sectors (= 4 mod 8, 2026-11-27): smem_wide where the
  // matrix fills at least half of one 64 x 64 tile, smem_flat where both sides split.
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(36, 100, 4, 5000, gbps), "smem_flat");
    EXPECT_EQ(auto_variant(36, 36, 4, 6000, gbps), "smem_flat");  // 1296 elements
    EXPECT_EQ(auto_variant(44, 44, 4, 5000, gbps), "smem_flat");  // 1936: under half a tile
    EXPECT_EQ(auto_variant(44, 52, 4, 4000, gbps), "smem_wide");  // 2288
    EXPECT_EQ(auto_variant(44, 64, 4, 4500, gbps), "smem_wide");  // one side splits
    EXPECT_EQ(auto_variant(60, 68, 4, 2500, gbps), "smem_flat");  // a side above 64
    EXPECT_EQ(auto_variant(44, 88, 4, 3000, gbps), "tma_wide");   // one side, above 64
    EXPECT_EQ(auto_variant(40, 56, 4, 4000, gbps), "tma_wide");   // neither side splits
    EXPECT_EQ(auto_variant(48, 56, 4, 3500, gbps), "tma_wide");
    // ... and above 64: tma_load_store on the H200
    EXPECT_EQ(auto_variant(40, 88, 4, 3000, gbps), gbps > 4000 ? "tma_load_store" : "tma_wide");
  }
  EXPECT_EQ(auto_variant(60, 100, 4, 2500, 4800), "smem_wide");      // ... > 4096 elements
  EXPECT_EQ(auto_variant(40, 72, 8, 4000, 4800), "tma_load_store");  // 8 B: the H200
  EXPECT_EQ(auto_variant(40, 72, 8, 4000), "smem_wide");             // ... not the H100
  EXPECT_EQ(auto_variant(100, 60, 4, 2000), "smem_wide");            // 64 and up: as before
  // Small odd batches at 4 B: smem_flat on the H100, bulk_flat kept on the H200.
  EXPECT_EQ(auto_variant(37, 37, 4, 8000), "smem_flat");
  EXPECT_EQ(auto_variant(37, 37, 4, 8000, 4800), "bulk_flat");
  EXPECT_EQ(auto_variant(37, 37, 2, 8000), "bulk_flat");  // ... 1-2 B keep bulk_flat
  // smem_sector at 4 B: a short side above 160, at least 10 MiB a call; never at 2 B.
  EXPECT_EQ(auto_variant(511, 509, 4, 250), "smem_sector");
  EXPECT_EQ(auto_variant(350, 333, 4, 400, 4800), "smem_sector");
  EXPECT_EQ(auto_variant(190, 250, 4, 1000, 4800), "smem_sector");
  EXPECT_EQ(auto_variant(170, 520, 4, 400, 4800), "smem_wide");  // H200: short side 170
  EXPECT_EQ(auto_variant(170, 520, 4, 400), "smem_sector");      // H100: from 141
  EXPECT_EQ(auto_variant(150, 300, 4, 800), "smem_sector");
  EXPECT_EQ(auto_variant(250, 130, 4, 500), "smem_wide");          // short side 130
  EXPECT_EQ(auto_variant(400, 401, 4, 300), "smem_wide");          // output rows on sectors
  EXPECT_EQ(auto_variant(511, 509, 2, 250), "smem_wide");          // 2 B
  EXPECT_EQ(auto_variant(1499, 1501, 4, 1), "smem_wide");          // 9.0 MB
  EXPECT_EQ(auto_variant(1771, 1773, 4, 1, 4800), "smem_sector");  // 12.6 MB
  EXPECT_EQ(auto_variant(1601, 1650, 4, 1, 4800), "smem_wide");    // 10.6 MB
  // Batches of odd 2 B matrices of 32-64 KB: bulk_flat up to 56 KB (H100) / 64 KB (H200).
  EXPECT_EQ(auto_variant(81, 240, 2, 2938), "bulk_flat");             // 38880 B
  EXPECT_EQ(auto_variant(150, 170, 2, 1200, 4800), "bulk_flat");      // 51000 B
  EXPECT_EQ(auto_variant(250, 130, 2, 600), "smem_wide");             // 65000 B on the H100
  EXPECT_EQ(auto_variant(250, 130, 2, 600, 4800), "bulk_flat");       // ... the H200
  EXPECT_EQ(auto_variant(190, 250, 2, 1000, 4800), "smem_wide");      // 95000 B: above 64 KB
  EXPECT_EQ(auto_variant(190, 250, 1, 1000), "smem_wide");            // 1 B keeps 32 KB
  EXPECT_EQ(fallback_variant("bulk_flat", 81, 240, 2), "smem_flat");  // 2 B flat up to 64 KB
  EXPECT_NE(fallback_variant("bulk_flat", 81, 240, 4), "smem_flat");  // 4 B: up to 32 KB
  // k x N: 2 B with k = 17..31 reg_permute; 16 B on the H200 with k = 17..30 tma_wide.
  EXPECT_EQ(auto_variant(20, 1048576, 2), "reg_permute");
  EXPECT_EQ(auto_variant(28, 1048576, 2, 1, 4800), "reg_permute");
  EXPECT_EQ(auto_variant(32, 4000000, 2), "tma_load_store");  // k = 32 keeps TMA
  EXPECT_EQ(auto_variant(20, 1048576, 16, 1, 4800), "tma_wide");
  EXPECT_EQ(auto_variant(31, 1500007, 16, 1, 4800), "smem_strip");  // k = 31: the strip
  EXPECT_EQ(auto_variant(16, 4000000, 16, 1, 4800), "smem_strip");  // k = 16: the strip
  EXPECT_EQ(auto_variant(20, 1048576, 16), "smem_strip");           // the H100: the strip
  // 8 B calls whose output rows split 32-byte sectors (rows = 2 mod 4) where tma_wide's rule
  // took them (2026-11-27): batches smem_sector on the H100 and smem_wide on the H200; one
  // matrix on the H200 classic_best.
  for (double gbps : {3350.0, 4800.0}) {
    EXPECT_EQ(auto_variant(66, 200, 8, 2000, gbps), gbps > 4000 ? "smem_wide" : "smem_sector");
    EXPECT_EQ(auto_variant(110, 190, 8, 818, gbps), gbps > 4000 ? "smem_wide" : "smem_sector");
    EXPECT_EQ(auto_variant(5002, 6000, 8, 1, gbps), "smem_sector");
    EXPECT_EQ(auto_variant(256, 256, 8, 1024, gbps), "tma_wide");  // rows on sectors: kept
  }
  // k x N at 8 B (2026-11-27): smem_flat on the H200 but at k = 4, 8, 16; the H100 the strip.
  EXPECT_EQ(auto_variant(11, 1500007, 8, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(27, 1500000, 8, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(7, 4000000, 8, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(8, 2000000, 8, 1, 4800), "smem_strip");
  EXPECT_EQ(auto_variant(16, 4000000, 8, 1, 4800), "smem_strip");
  EXPECT_NE(auto_variant(4, 3000001, 8, 1, 4800), "smem_flat");
  EXPECT_EQ(auto_variant(11, 1500007, 8), "smem_strip");
  EXPECT_EQ(auto_variant(1500007, 11, 8, 1, 4800), "smem_strip");  // N x k keeps the strip
  EXPECT_EQ(auto_variant(198, 106, 8, 2465), "smem_sector");
  EXPECT_EQ(auto_variant(198, 106, 8, 2465, 4800), "smem_wide");
  EXPECT_EQ(auto_variant(2000002, 32, 8, 1, 4800), "smem_strip");
  EXPECT_EQ(auto_variant(2000002, 32, 8), "smem_sector");        // the H100: as before
  EXPECT_EQ(auto_variant(4000000, 32, 8, 1, 4800), "tma_wide");  // rows on sectors: kept
  EXPECT_EQ(auto_variant(3000004, 32, 4, 1, 4800), "tma_wide");  // 4 B: kept
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

// Every pick of the table, over a grid of shapes neither preset names (sides 1 to 4000000,
// batches, both GPUs' tables), is a registered technique of the right kind that takes the
// element size, and every technique's fallback is a classic one that does: a rule that names a
// token the registry does not have, or one without that element size, fails here, not on a
// user's call.
TEST(AutoTable, EveryPickIsARegisteredTechniqueForItsElementSize) {
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

// auto_accumulate_variant's classes (host/transpose/auto_table.cpp): 16-byte rows on
// tma_accumulate (a side <= 32 only at 8 B), other skinny and small matrices on flat_accumulate
// whatever the type and beta, odd rows on smem_accumulate (the H100).
TEST(AccumulateAuto, PicksTheMeasuredFastest) {
  EXPECT_EQ(auto_accumulate_variant(4096, 4096, DataType::kF32, 1), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4096, 4096, DataType::kBF16, 1), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4096, 4096, DataType::kF32, 0), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4096, 4096, DataType::kF64, 2), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4096, 4097, DataType::kF32, 1), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4100, 4096, DataType::kBF16, 1), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(12345, 6789, DataType::kF64, 1), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(12344, 6789, DataType::kF64, 1), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4000000, 16, DataType::kF32, 1), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(16, 4000000, DataType::kBF16, 1), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4000000, 16, DataType::kF32, 0), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4000000, 16, DataType::kF64, 1), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4000001, 7, DataType::kF64, 1), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(32, 32, DataType::kF32, 1), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(32, 33, DataType::kF16, 2), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(33, 33, DataType::kF16, 2), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(40, 48, DataType::kF16, 2), "tma_accumulate");
  // The H200 (peak DRAM > 4000 GB/s): odd 8-byte rows on sector_accumulate, the rest as above.
  EXPECT_EQ(auto_accumulate_variant(12345, 6789, DataType::kF64, 1, 4800), "sector_accumulate");
  EXPECT_EQ(auto_accumulate_variant(16384, 16384, DataType::kF64, 1, 4800), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(4000000, 16, DataType::kF32, 1, 4800), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(16, 4000000, DataType::kF32, 1, 4800), "flat_accumulate");
  EXPECT_EQ(auto_accumulate_variant(16384, 16384, DataType::kBF16, 1, 4800), "tma_accumulate");
  EXPECT_EQ(auto_accumulate_variant(12345, 6789, DataType::kBF16, 1, 4800), "smem_accumulate");
  EXPECT_EQ(auto_accumulate_variant(16384, 6788, DataType::kBF16, 1, 4800), "smem_accumulate");
  EXPECT_EQ(fallback_variant("tma_reduce", 4096, 4096, 4), "smem_accumulate");
  EXPECT_EQ(fallback_variant("tma_accumulate", 4096, 4096, 4), "smem_accumulate");
  EXPECT_EQ(data_type_bytes(DataType::kBF16), 2);
  EXPECT_EQ(data_type_bytes(DataType::kF64), 8);
  EXPECT_STREQ(to_string(DataType::kI32), "i32");
}

}  // namespace
}  // namespace tmakit
