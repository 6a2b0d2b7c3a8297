// The launch gate of tmakit_bench (bench/launch_gate.cu): keeps the host's enqueue time out of
// the events around a timed launch.
//
// Without it, the stream is idle once the flush's memset ends; when the host takes longer to
// record the start event and make its call than the memset takes to run (a preempted thread, a
// slow driver call), the GPU waits inside the timed window. On 2026-11-24, measured rounds of the
// same kernel at 1517 / 1266 / 340 GB/s that way (docs/perf-guide.md). With the gate, a one-
// thread kernel holds the stream after the flush until the host has enqueued the start event,
// the launch and the stop event, so the window holds only the GPU's work.
#pragma once
#include <cuda_runtime_api.h>

namespace tmakit::bench {

class LaunchGate {
 public:
  LaunchGate() = default;
  ~LaunchGate();
  LaunchGate(const LaunchGate&) = delete;
  LaunchGate& operator=(const LaunchGate&) = delete;
  cudaError_t init();                      // mapped host memory for the flag; false when this fails
  cudaError_t close(cudaStream_t stream);  // enqueues the kernel that waits for open()
  void open();                             // lets the stream go on
  // Whether the last closed gate gave up waiting (1 s) instead of being opened: the call
  // between close() and open() waited on the stream itself. Reads after a synchronise only.
  bool timed_out() const;
  bool ready() const { return flag_ != nullptr; }

 private:
  volatile int* flag_ = nullptr;  // [0]: open, [1]: the kernel timed out
};

}  // namespace tmakit::bench
