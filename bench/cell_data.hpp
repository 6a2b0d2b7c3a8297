// The host side of one benchmark cell (bench_transpose.cpp's cells, plan_rows.cpp's survey): the
// input filled and its CPU reference computed on up to 16 host threads, in bands.
#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>
#include <host/tools/reference.hpp>

namespace tmakit::bench {

inline unsigned hw_threads() {
  return std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
}

template <class F>
void parallel_for(std::int64_t n, F&& f) {  // f(begin, end) over [0, n) in bands
  const unsigned t = hw_threads();
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < t; ++k) pool.emplace_back([&, k] { f(n * k / t, n * (k + 1) / t); });
  for (auto& th : pool) th.join();
}

// src: batch x rows x cols elements of elem_bytes, filled by `fill` (host/tools/testdata.hpp's
// fill_*_range); ref: their transpose, matrix by matrix, each by bands of input rows (a band
// writes its own output columns), a batch of small matrices split by matrices instead.
using FillRange = void (*)(unsigned char* out, std::int64_t first, std::int64_t n, int elem_bytes);
inline void fill_input_and_reference(std::int64_t batch, std::int64_t rows, std::int64_t cols,
                                     int e, FillRange fill, unsigned char* src,
                                     unsigned char* ref) {
  parallel_for(batch * rows * cols,
               [&](std::int64_t b, std::int64_t en) { fill(src + b * e, b, en - b, e); });
  const std::size_t mat_bytes = static_cast<std::size_t>(rows * cols) * e;
  if (batch > 1) {
    parallel_for(batch, [&](std::int64_t b0, std::int64_t b1) {
      for (std::int64_t b = b0; b < b1; ++b)
        reference_transpose_rows(src + b * mat_bytes, ref + b * mat_bytes, rows, cols, e, 0, rows);
    });
  } else {
    parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
      reference_transpose_rows(src, ref, rows, cols, e, r0, r1);
    });
  }
}

}  // namespace tmakit::bench
