// A one-CTA TMA load whose shared-memory destination is copied back raw, to compare TMA's
// swizzle and out-of-bounds fill with the host model (tests/sm90/test_tma_probe.cpp).
#pragma once
#include <cstdint>
#include <cuda.h>
#include <cuda_runtime_api.h>

namespace tmakit::test {

struct ProbeResult {
  int completed = 0;  // 1: the barrier completed with the expected bytes; 0: timed out
};

// Loads the box at (x, y) (x innermost) of `map` into a 1024-aligned shared buffer prefilled
// with 0xEE, waits (bounded, ~1 s) for `expect_bytes` on an mbarrier, copies `copy_bytes` of
// the raw buffer to `out` (device memory).
cudaError_t tma_probe_load(const CUtensorMap& map, int x, int y, std::uint32_t expect_bytes,
                           std::uint32_t copy_bytes, unsigned char* out, ProbeResult* result);

// The TMA-store reproducer: fills a 1024-aligned shared buffer of `box_bytes` with
// bytes 1, 2, 3, ... (never 0xCD), stores it with one raw cuda::ptx cp.async.bulk.tensor.2d
// (global <- shared) at box coordinates (x, y) of the 2-D `map`, and waits for the bulk group
// to complete (cp.async.bulk.wait_group 0) before the kernel exits.
cudaError_t tma_probe_store(const CUtensorMap& map, int x, int y, std::uint32_t box_bytes);

}  // namespace tmakit::test
