#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <kernels/launchers.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>

namespace tmakit {
namespace {

// The LeetGPU entry point, called exactly as that article's harness calls it.
TEST(Solve, MatchesReferenceOnEveryShape) {
  TMAKIT_NEED_GPU(75);
  for (const test::Shape& s : test::standard_shapes()) {
    const std::string err =
        test::check_transpose(s.rows, s.cols, 4, false, 0, [&](const void* src, void* dst) {
          solve(static_cast<const float*>(src), static_cast<float*>(dst), static_cast<int>(s.rows),
                static_cast<int>(s.cols));
          Status ok;
          ok.variant = "solve";
          return ok;
        });
    EXPECT_EQ(err, "") << "solve " << s.rows << "x" << s.cols;
  }
}

// A rejected call leaves a poisoned destination untouched.
TEST(Rejects, LeaveTheDestinationUntouched) {
  TMAKIT_NEED_GPU(75);
  const std::int64_t rows = 64, cols = 64;
  const std::size_t bytes = rows * cols * 4;
  void *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(&src, 2 * bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(src, 0x11, 2 * bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(dst, kPoisonByte, bytes), cudaSuccess);
  TransposeOptions smem;
  smem.variant = "smem";
  TransposeOptions unknown;
  unknown.variant = "nope";
  std::vector<unsigned char> host_buf(bytes);
  struct Call {
    const char* what;
    Status status;
  };
  const std::vector<Call> calls = {
      {"null src", transpose(nullptr, dst, rows, cols, 4)},
      {"zero rows", transpose(src, dst, 0, cols, 4)},
      {"zero cols", transpose(src, dst, rows, 0, 4)},
      {"3-byte elements", transpose(src, dst, rows, cols, 3)},
      {"16-byte elements on smem", transpose(src, dst, rows, cols, 16, smem)},
      {"unknown variant", transpose(src, dst, rows, cols, 4, unknown)},
      {"overlap", transpose(src, static_cast<char*>(src) + 64, rows, cols, 4)},
      {"pageable host source", transpose(host_buf.data(), dst, rows, cols, 4)},
  };
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> out(bytes);
  ASSERT_EQ(cudaMemcpy(out.data(), dst, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  for (const Call& c : calls) {
    EXPECT_FALSE(c.status.ok()) << c.what;
    EXPECT_FALSE(c.status.message.empty()) << c.what;
  }
  for (std::size_t i = 0; i < bytes; ++i)
    ASSERT_EQ(out[i], kPoisonByte) << "byte " << i << " was written";
  cudaFree(src);
  cudaFree(dst);
}

TEST(Options, SynchronizeAndStreamAreHonoured) {
  TMAKIT_NEED_GPU(75);
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  TransposeOptions opt;
  opt.stream = stream;
  opt.synchronize = true;
  const std::string err = test::check_transpose(
      300, 200, 8, false, 0,
      [&](const void* src, void* dst) { return transpose(src, dst, 300, 200, 8, opt); });
  EXPECT_EQ(err, "");
  cudaStreamDestroy(stream);
}

}  // namespace
}  // namespace tmakit
