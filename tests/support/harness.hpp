// The correctness harness of every GPU test: index-encoded input, output pre-filled with the
// poison byte plus guard bands before and after, result compared bit for bit with the CPU
// reference; every element written, nothing outside written.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime_api.h>
#include <host/testdata.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit::test {

inline constexpr std::size_t kGuardBytes = 4096;

// Runs `run(src, dst)` on device copies of an index-encoded rows x cols matrix. src and dst
// are offset by `offset_bytes` from 256-byte aligned allocations (0 = aligned; an element size
// makes them unaligned for 16-byte accesses). Returns "" on success, else what went wrong.
inline std::string check_transpose(std::int64_t rows, std::int64_t cols, int elem_bytes,
                                   bool expect_copy, std::size_t offset_bytes,
                                   const std::function<Status(const void*, void*)>& run) {
  const std::int64_t n = rows * cols;
  const std::size_t bytes = static_cast<std::size_t>(n) * elem_bytes;
  std::vector<unsigned char> src, ref;
  fill_index_pattern(src, n, elem_bytes);
  if (expect_copy) {
    ref = src;
  } else {
    ref.resize(bytes);
    if (Status s = reference_transpose(src.data(), ref.data(), rows, cols, elem_bytes); !s)
      return s.message;
  }
  const std::size_t dst_alloc = bytes + 2 * kGuardBytes + offset_bytes;
  unsigned char *d_src = nullptr, *d_dst = nullptr;
  std::string err;
  auto cuda = [&](cudaError_t e, const char* what) {
    if (e != cudaSuccess && err.empty()) err = std::string(what) + ": " + cudaGetErrorName(e);
    return e == cudaSuccess;
  };
  if (cuda(cudaMalloc(reinterpret_cast<void**>(&d_src), bytes + offset_bytes), "cudaMalloc src") &&
      cuda(cudaMalloc(reinterpret_cast<void**>(&d_dst), dst_alloc), "cudaMalloc dst") &&
      cuda(cudaMemcpy(d_src + offset_bytes, src.data(), bytes, cudaMemcpyHostToDevice), "H2D") &&
      cuda(cudaMemset(d_dst, kPoisonByte, dst_alloc), "poison")) {
    const Status s = run(d_src + offset_bytes, d_dst + kGuardBytes + offset_bytes);
    if (!s) err = "call failed: " + s.message;
    if (err.empty() && cuda(cudaDeviceSynchronize(), "kernel")) {
      std::vector<unsigned char> out(dst_alloc);
      if (cuda(cudaMemcpy(out.data(), d_dst, dst_alloc, cudaMemcpyDeviceToHost), "D2H")) {
        const unsigned char* body = out.data() + kGuardBytes + offset_bytes;
        for (std::size_t i = 0; i < kGuardBytes + offset_bytes && err.empty(); ++i)
          if (out[i] != kPoisonByte)
            err = "wrote " + std::to_string(kGuardBytes + offset_bytes - i) + " bytes before dst";
        for (std::size_t i = 0; i < kGuardBytes && err.empty(); ++i)
          if (body[bytes + i] != kPoisonByte)
            err = "wrote byte " + std::to_string(i) + " past the end of dst";
        if (err.empty()) {
          const std::int64_t bad = first_mismatch(body, ref.data(), n, elem_bytes);
          if (bad >= 0) {
            const std::int64_t orow = expect_copy ? bad / cols : bad / rows;
            const std::int64_t ocol = expect_copy ? bad % cols : bad % rows;
            bool poison = true;
            for (int b = 0; b < elem_bytes; ++b)
              poison = poison && body[bad * elem_bytes + b] == kPoisonByte;
            err = "output element (" + std::to_string(orow) + ", " + std::to_string(ocol) + ") " +
                  (poison ? "was never written" : "has the wrong value");
          }
        }
      }
    }
  }
  cudaFree(d_src);
  cudaFree(d_dst);
  return err;
}

struct Shape {
  std::int64_t rows, cols;
};

// The foundation's shape list: degenerate, prime-ish, non-multiples of every tile, large.
inline const std::vector<Shape>& standard_shapes() {
  static const std::vector<Shape> shapes = {{1, 1},       {1, 257},     {257, 1},
                                            {31, 33},     {33, 31},     {1000, 999},
                                            {4099, 2053}, {2048, 2048}, {8192, 2048}};
  return shapes;
}

}  // namespace tmakit::test
