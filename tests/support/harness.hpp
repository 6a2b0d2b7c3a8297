// The correctness harness of every GPU test: index-encoded input, output pre-filled with the
// poison byte plus guard bands before and after, result compared bit for bit with the CPU
// reference; every element written, nothing outside written.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime_api.h>
#include <host/tools/testdata.hpp>
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
      cuda(cudaMemset(d_dst, kPoisonByte, dst_alloc), "poison") &&
      // The poison lands before the call: a call on a non-blocking stream is not ordered after
      // the legacy default stream's memset.
      cuda(cudaDeviceSynchronize(), "poison")) {
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

// Compares a dst span read back (with kGuardBytes of guard on each side) with the reference,
// byte for byte: "" when equal, else where the first difference is (outside dst, padding
// written, an element never written or wrong) in matrix / row / column terms.
inline std::string first_span_difference(const std::vector<unsigned char>& out,
                                         const std::vector<unsigned char>& ref, std::int64_t dst_n,
                                         std::int64_t e, std::int64_t dst_bs, std::int64_t dst_ld) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i] == ref[i]) continue;
    const std::int64_t at = static_cast<std::int64_t>(i) - std::int64_t(kGuardBytes);
    if (at < 0 || at >= dst_n * e)
      return "wrote outside dst (byte " + std::to_string(at) + " of its span)";
    const std::int64_t el = at / e, b = el / dst_bs, in_m = el % dst_bs, line = in_m / dst_ld,
                       pos = in_m % dst_ld;
    return "dst element " + std::to_string(el) + " (matrix " + std::to_string(b) + ", row " +
           std::to_string(line) + ", column " + std::to_string(pos) + ") " +
           (ref[i] == kPoisonByte   ? "is padding but was written"
            : out[i] == kPoisonByte ? "was never written"
                                    : "has the wrong value");
  }
  return {};
}

// Copies src and dst_init (a dst span with kGuardBytes of guard on each side) to the device,
// runs run(src, dst span), reads the span back and compares it with ref
// (first_span_difference). "" when equal, else what failed or differed. src_offset_bytes /
// dst_offset_bytes move both operands that far past their (256-byte aligned) allocations.
inline std::string run_and_compare_span(const std::vector<unsigned char>& src,
                                        const std::vector<unsigned char>& dst_init,
                                        const std::vector<unsigned char>& ref,
                                        const std::function<Status(const void*, void*)>& run,
                                        std::int64_t dst_n, std::int64_t e, std::int64_t dst_bs,
                                        std::int64_t dst_ld, std::size_t src_offset_bytes = 0,
                                        std::size_t dst_offset_bytes = 0) {
  unsigned char *d_src = nullptr, *d_dst = nullptr;
  std::string err;
  auto cuda = [&](cudaError_t c, const char* what) {
    if (c != cudaSuccess && err.empty()) err = std::string(what) + ": " + cudaGetErrorName(c);
    return c == cudaSuccess;
  };
  if (cuda(cudaMalloc(reinterpret_cast<void**>(&d_src), src.size() + src_offset_bytes),
           "cudaMalloc src") &&
      cuda(cudaMalloc(reinterpret_cast<void**>(&d_dst), dst_init.size() + dst_offset_bytes),
           "cudaMalloc dst") &&
      cuda(cudaMemcpy(d_src + src_offset_bytes, src.data(), src.size(), cudaMemcpyHostToDevice),
           "H2D src") &&
      cuda(cudaMemcpy(d_dst + dst_offset_bytes, dst_init.data(), dst_init.size(),
                      cudaMemcpyHostToDevice),
           "H2D dst")) {
    const Status s = run(d_src + src_offset_bytes, d_dst + dst_offset_bytes + kGuardBytes);
    if (!s) err = "call failed: " + s.message;
    if (err.empty() && cuda(cudaDeviceSynchronize(), "kernel")) {
      std::vector<unsigned char> out(dst_init.size());
      if (cuda(cudaMemcpy(out.data(), d_dst + dst_offset_bytes, out.size(), cudaMemcpyDeviceToHost),
               "D2H"))
        err = first_span_difference(out, ref, dst_n, e, dst_bs, dst_ld);
    }
  }
  cudaFree(d_src);
  cudaFree(d_dst);
  return err;
}

// The same for a batch of strided matrices: src spans what `layout` says (padding and gaps
// filled with the pattern too), dst is poisoned over its whole span plus guard bands, and
// after the call every byte of it must equal the reference: the matrices transposed (or
// copied), padding between rows and gaps between matrices still poison. The offsets move src
// and dst off their allocations' alignment (run_and_compare_span).
inline std::string check_transpose_layout(std::int64_t rows, std::int64_t cols, int elem_bytes,
                                          bool expect_copy, const MatrixLayout& layout,
                                          const std::function<Status(const void*, void*)>& run,
                                          std::size_t src_offset_bytes = 0,
                                          std::size_t dst_offset_bytes = 0) {
  // Spans in elements, the dense defaults resolved as transpose() does.
  const std::int64_t src_ld = layout.src_ld_elems ? layout.src_ld_elems : cols;
  const std::int64_t dst_line = expect_copy ? cols : rows, dst_lines = expect_copy ? rows : cols;
  const std::int64_t dst_ld = layout.dst_ld_elems ? layout.dst_ld_elems : dst_line;
  const std::int64_t src_bs =
      layout.src_batch_stride_elems ? layout.src_batch_stride_elems : rows * src_ld;
  const std::int64_t dst_bs =
      layout.dst_batch_stride_elems ? layout.dst_batch_stride_elems : dst_lines * dst_ld;
  const std::int64_t src_n = (layout.batch - 1) * src_bs + (rows - 1) * src_ld + cols;
  const std::int64_t dst_n = (layout.batch - 1) * dst_bs + (dst_lines - 1) * dst_ld + dst_line;
  const std::size_t e = static_cast<std::size_t>(elem_bytes);
  std::vector<unsigned char> src;
  fill_index_pattern(src, src_n, elem_bytes);
  std::vector<unsigned char> ref(dst_n * e + 2 * kGuardBytes, kPoisonByte);
  if (Status s = reference_transpose(src.data(), ref.data() + kGuardBytes, rows, cols, elem_bytes,
                                     layout, expect_copy);
      !s)
    return "reference: " + s.message;
  return run_and_compare_span(src, std::vector<unsigned char>(ref.size(), kPoisonByte), ref, run,
                              dst_n, static_cast<std::int64_t>(e), dst_bs, dst_ld, src_offset_bytes,
                              dst_offset_bytes);
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
