// What the CLI's timing commands (the table, `tmakit permute`) set up before timing anything:
// src and dst on the device, src holding the input, the L2 flusher, and cudaMemcpyAsync of the
// same bytes timed as the copy roofline.
#pragma once
#include <cstddef>
#include <vector>
#include <host/tools/timing.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::cli {

// A device buffer freed on every path out.
struct DeviceBuffer {
  void* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
};

struct TimedOperands {
  DeviceBuffer src, dst;  // host_src.size() bytes each
  L2Flusher flusher;
  TimingStats memcpy;  // cudaMemcpyAsync D2D of those bytes, L2 flushed before each
};

// warmup and iters as time_launches() takes them; l2_bytes: the device's L2 (the flush size).
Status prepare_operands(const std::vector<unsigned char>& host_src, int l2_bytes, int warmup,
                        int iters, TimedOperands* out);

}  // namespace tmakit::cli
