// Faults that must surface as errors, not hangs or misleading messages. Each runs in
// a child process (tests/tools/fault_probe.cu), because a fault leaves that process's CUDA
// context unusable; this process then runs a transpose to show the next work still runs.
#include <array>
#include <cstdio>
#include <string>
#include <gtest/gtest.h>
#include <tests/support/gpu.hpp>
#include <tests/support/harness.hpp>

namespace tmakit {
namespace {

struct ChildResult {
  int exit_code = -1;
  std::string output;
};

// Runs the probe under `timeout` (a real hang is killed and fails the test), stdout and
// stderr together.
ChildResult run_probe(const std::string& args) {
  const std::string cmd = std::string("timeout 30 ") + TMAKIT_FAULT_PROBE + " " + args + " 2>&1";
  ChildResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 512> buf{};
  while (std::fgets(buf.data(), buf.size(), p) != nullptr) r.output += buf.data();
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void next_work_still_runs() {
  const std::string err = test::check_transpose(300, 200, 4, false, 0, [](const void* s, void* d) {
    TransposeOptions o;
    o.variant = "tma_load_store";
    return transpose(s, d, 300, 200, 4, o);
  });
  EXPECT_EQ(err, "") << "a transpose after the faulting child";
}

class Watchdog : public ::testing::TestWithParam<std::string> {};

// The test-only kernel expects twice the bytes it loads: without the watchdog it would hang.
TEST_P(Watchdog, ShortLoadIsALaunchErrorWithinTwoSeconds) {
  TMAKIT_NEED_GPU(90);
  const ChildResult r = run_probe("watchdog " + GetParam());
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("launch error: cudaErrorAssert"), std::string::npos) << r.output;
  // The report names block, stage, phase and expected bytes.
  EXPECT_NE(r.output.find("tmakit mbarrier watchdog: block (0, 0, 0)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("stage 0, phase 0 (parity 0), which expects 8192 bytes"),
            std::string::npos)
      << r.output;
  next_work_still_runs();
}

INSTANTIATE_TEST_SUITE_P(BarrierStyles, Watchdog, ::testing::Values("ptx", "cuda_barrier"));

TEST(ErrorDecoding, EarlierIllegalAddressIsReportedAsThat) {
  TMAKIT_NEED_GPU(90);
  const ChildResult r = run_probe("sticky");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("earlier fault: cudaErrorIllegalAddress"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("transpose: CUDA error: "), std::string::npos) << r.output;
  next_work_still_runs();
}

// A destroyed stream is the one bad call tmakit cannot refuse: a cudaStream_t is a pointer
// into the runtime, and on the H100 (driver 580.159.04, CUDA 13.0) cudaStreamQuery,
// cudaStreamGetFlags and cudaStreamGetId each crashed the process (SIGSEGV) on a handle passed
// to cudaStreamDestroy, before tmakit is involved. This test keeps that fact checked: if a
// CUDA release starts answering with an error instead, it fails, and tmakit's stream check
// (check_context_and_stream, which already turns any error from cudaStreamQuery into a clear
// message) covers destroyed streams too.
TEST(DeadStream, CudaItselfCrashesOnADestroyedStreamHandle) {
  TMAKIT_NEED_GPU(90);
  for (const char* call : {"query", "flags", "id"}) {
    const ChildResult r = run_probe(std::string("dead_stream ") + call);
    EXPECT_EQ(r.exit_code, 128 + 11) << call << ": " << r.output;  // SIGSEGV, via timeout
    EXPECT_EQ(r.output.find("dead stream"), std::string::npos) << r.output;
  }
  next_work_still_runs();
}

}  // namespace
}  // namespace tmakit
