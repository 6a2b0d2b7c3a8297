// The bad-call corpus: every way a caller can get a transpose wrong, each refused
// with a status code and a message naming the problem, before anything is launched, so a
// poisoned destination stays untouched. Device memory is real here, so every check past the
// argument checks (pointer kinds, alignment, TMA refusals) is exercised. Streams whose
// context is gone are in tests/sm90/test_faults.cpp (a child process: it resets the device).
#include <cstdlib>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <tests/support/ranking.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/scoped_env.hpp>
#include <host/tools/testdata.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

struct BadCall {
  const char* what;
  Status status;
  StatusCode code;
  const char* names;  // a phrase the message must contain
};

TransposeOptions variant(const char* token, bool allow_fallback = true) {
  TransposeOptions o;
  o.variant = token;
  o.allow_fallback = allow_fallback;
  return o;
}

TEST(BadCalls, EachIsAClearErrorAndTheDestinationStaysUntouched) {
  TMAKIT_NEED_GPU(75);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  const std::int64_t rows = 64, cols = 64;
  const std::size_t bytes = rows * cols * 8, dst_bytes = 4 * bytes;
  unsigned char *src = nullptr, *dst = nullptr, *freed = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&src), 4 * bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&dst), dst_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&freed), bytes), cudaSuccess);
  ASSERT_EQ(cudaFree(freed), cudaSuccess);
  ASSERT_EQ(cudaMemset(src, 0x11, 4 * bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, kPoisonByte, dst_bytes), cudaSuccess);
  std::vector<unsigned char> host_buf(bytes);
  TransposeOptions no_tma = variant("tma_load_store", false);
  no_tma.allow_tma = false;
  TransposeOptions swizzled_classic = variant("smem");
  swizzled_classic.swizzle_bytes = 128;
  using SC = StatusCode;
  const SC kInv = SC::kInvalidArgument, kUns = SC::kUnsupported;
  auto layout = [](std::int64_t batch, std::int64_t sld, std::int64_t dld, std::int64_t sbs,
                   std::int64_t dbs) {
    return MatrixLayout{batch, sld, dld, sbs, dbs};
  };

  std::vector<BadCall> calls = {
      {"null src", transpose(nullptr, dst, rows, cols, 4), kInv, "src is a null pointer"},
      {"null dst", transpose(src, nullptr, rows, cols, 4), kInv, "dst is a null pointer"},
      {"zero rows", transpose(src, dst, 0, cols, 4), kInv, "rows must be >= 1 (got 0)"},
      {"zero cols", transpose(src, dst, rows, 0, 4), kInv, "cols must be >= 1 (got 0)"},
      {"negative cols", transpose(src, dst, rows, -5, 4), kInv, "cols must be >= 1 (got -5)"},
      {"absurd dims", transpose(src, dst, std::int64_t(1) << 40, std::int64_t(1) << 40, 4), kInv,
       "too large to address"},
      {"3-byte elements", transpose(src, dst, rows, cols, 3), kInv, "element size 3 bytes"},
      {"element size the technique lacks", transpose(src, dst, rows, cols, 16, variant("smem")),
       kUns, "'smem' does not support 16-byte elements"},
      {"unknown variant", transpose(src, dst, rows, cols, 4, variant("fastest")), kInv,
       "unknown variant 'fastest'"},
      {"swizzle on a classic technique", transpose(src, dst, rows, cols, 4, swizzled_classic), kInv,
       "'smem' does not take swizzle_bytes = 128"},
      {"dst inside src", transpose(src, src + 64, rows, cols, 4), kInv, "overlap"},
      {"dst inside src's row padding",
       transpose(src, src + 64 * 4, rows, cols, 4, layout(1, 100, 0, 0, 0)), kInv, "overlap"},
      {"batch 0", transpose(src, dst, rows, cols, 4, layout(0, 0, 0, 0, 0)), kInv,
       "batch must be >= 1 (got 0)"},
      {"src pitch smaller than a row", transpose(src, dst, rows, cols, 4, layout(1, 60, 0, 0, 0)),
       kInv, "src_ld_elems = 60 is smaller than a src row (cols = 64"},
      {"dst pitch smaller than rows", transpose(src, dst, 80, cols, 4, layout(1, 0, 70, 0, 0)),
       kInv, "dst_ld_elems = 70 is smaller than a dst row (rows = 80"},
      {"negative pitch", transpose(src, dst, rows, cols, 4, layout(1, -64, 0, 0, 0)), kInv,
       "src_ld_elems must be >= 0"},
      {"dst matrices overlapping",
       transpose(src, dst, rows, cols, 4, layout(2, 0, 0, 0, rows * cols - 1)), kInv,
       "matrices of the batch would overlap"},
      {"src misaligned for its elements", transpose(src + 1, dst, rows, cols, 4), kInv,
       "is not aligned to the 4-byte element size"},
      {"dst misaligned for its elements", transpose(src, dst + 2, rows, cols, 8), kInv,
       "is not aligned to the 8-byte element size"},
      {"TMA with a src not 16-byte aligned, no fallback",
       transpose(src + 4, dst, rows, cols, 4, variant("tma_load_store", false)), kUns,
       "16-byte aligned"},
      {"TMA with a pitch TMA cannot take, no fallback",
       transpose(src, dst, rows, cols, 4, layout(1, 65, 0, 0, 0), variant("tma_pipeline", false)),
       kUns, "multiple of 16"},
      {"TMA disabled, no fallback", transpose(src, dst, rows, cols, 4, no_tma), kUns,
       "TMA disabled by TransposeOptions::allow_tma = false"},
      {"pageable host memory", transpose(host_buf.data(), dst, rows, cols, 4), kInv,
       "not device-accessible memory"},
      {"freed device memory", transpose(freed, dst, rows, cols, 4), kInv, "src ("},
  };
  // A pre-sm_90 device, simulated: the TMA technique refuses (no fallback allowed) and says
  // the capability was simulated.
  {
    test::ScopedEnv sim("TMAKIT_SIMULATE_CC", "80");
    calls.push_back({"TMA on a (simulated) sm_80, no fallback",
                     transpose(src, dst, rows, cols, 4, variant("tma_load_store", false)), kUns,
                     "compute capability 8.0 (simulated by TMAKIT_SIMULATE_CC=80); TMA needs 9.0"});
  }
  if (dev.cc < 90) {  // a real pre-sm_90 device refuses the same way, without the note
    calls.back().names = "TMA needs 9.0";
  }

  ASSERT_GE(calls.size(), 20u);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (const BadCall& c : calls) {
    EXPECT_FALSE(c.status.ok()) << c.what;
    EXPECT_EQ(c.status.code, c.code)
        << c.what << ": " << to_string(c.status.code) << ": " << c.status.message;
    EXPECT_NE(c.status.message.find(c.names), std::string::npos)
        << c.what << ": message '" << c.status.message << "' should name '" << c.names << "'";
  }
  std::vector<unsigned char> out(dst_bytes);
  ASSERT_EQ(cudaMemcpy(out.data(), dst, dst_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (std::size_t i = 0; i < dst_bytes; ++i)
    ASSERT_EQ(out[i], kPoisonByte) << "dst byte " << i << " was written by a refused call";
  cudaFree(src);
  cudaFree(dst);
}

// The same simulated sm_80 with the fallback allowed: the classic technique runs, says why,
// and the result is right.
TEST(BadCalls, SimulatedPreSm90FallsBackAndSaysWhy) {
  TMAKIT_NEED_GPU(75);
  const std::int64_t rows = 100, cols = 70;
  std::vector<unsigned char> in;
  fill_index_pattern(in, rows * cols, 4);
  std::vector<unsigned char> ref(in.size()), out(in.size());
  ASSERT_TRUE(reference_transpose(in.data(), ref.data(), rows, cols, 4).ok());
  void *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(&src, in.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dst, in.size()), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(src, in.data(), in.size(), cudaMemcpyHostToDevice), cudaSuccess);
  TransposeOptions o = variant("tma_load_store");
  o.synchronize = true;
  Status s;
  std::string next;
  {
    test::ScopedEnv sim("TMAKIT_SIMULATE_CC", "80");
    s = transpose(src, dst, rows, cols, 4, o);
    next = test::next_runnable(rows, cols, 4, o);
  }
  ASSERT_TRUE(s.ok()) << s.message;
  EXPECT_EQ(s.variant, next) << "not the ranking's next runnable technique";
  EXPECT_NE(s.fallback_reason.find("TMA needs 9.0"), std::string::npos) << s.fallback_reason;
  ASSERT_EQ(cudaMemcpy(out.data(), dst, out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(first_mismatch(out.data(), ref.data(), rows * cols, 4), -1);
  cudaFree(src);
  cudaFree(dst);
}

}  // namespace
}  // namespace tmakit
