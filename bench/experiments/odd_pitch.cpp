// Odd-shape experiment (docs/perf-notes.md, session 6): where does a transpose lose when rows
// are not 16-byte multiples? The same 12288 x 6784 matrix (every tile full, no edge tiles)
// with dense pitches, then with the input pitch, the output pitch or both set to the odd
// matrix's (6789, 12345 elements), so only the alignment of the rows changes. Each run is
// checked against the CPU reference once, then timed (CUDA events, median of 15, L2 flushed).
//   nvcc -O3 -std=c++17 -I. -Ihost/include bench/experiments/odd_pitch.cpp build/libtmakit.a
//   ./a.out [variants,comma,separated] [elem sizes]
#include <tmakit/tmakit.hpp>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace {

#define CK(x)                                                                         \
  do {                                                                                \
    cudaError_t e_ = (x);                                                             \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string t; std::getline(ss, t, ',');) out.push_back(t);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const auto variants = split(argc > 1 ? argv[1] : "smem_wide,smem_sector");
  const auto elems = split(argc > 2 ? argv[2] : "1,2,4,8");
  const long long R = 12288, C = 6784;
  struct Case {
    const char* name;
    long long lds, ldd;
  };
  const Case cases[] = {{"dense", C, R},
                        {"odd-src-pitch", 6789, R},
                        {"odd-dst-pitch", C, 12345},
                        {"odd-both", 6789, 12345}};
  const size_t max_bytes = size_t(R) * 12345 * 8 + 4096;
  void *src = nullptr, *dst = nullptr, *flush = nullptr;
  CK(cudaMalloc(&src, max_bytes));
  CK(cudaMalloc(&dst, max_bytes));
  const size_t flush_bytes = size_t(256) << 20;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::printf("%-12s %2s %-14s %9s %8s\n", "variant", "E", "pitches", "us", "GB/s");
  for (const auto& es : elems) {
    const int E = std::atoi(es.c_str());
    for (const Case& c : cases) {
      const size_t sbytes = size_t(R) * c.lds * E, dbytes = size_t(C) * c.ldd * E;
      std::vector<unsigned char> h(sbytes), out(dbytes), ref(dbytes);
      for (size_t i = 0; i < sbytes; ++i) h[i] = static_cast<unsigned char>(i * 2654435761u >> 13);
      CK(cudaMemcpy(src, h.data(), sbytes, cudaMemcpyHostToDevice));
      // The reference: element (i, j) of the input to (j, i) of the output, with the pitches.
      for (long long i = 0; i < R; ++i)
        for (long long j = 0; j < C; ++j)
          std::memcpy(&ref[(size_t(j) * c.ldd + i) * E], &h[(size_t(i) * c.lds + j) * E], E);
      tmakit::MatrixLayout lay;
      lay.src_ld_elems = c.lds;
      lay.dst_ld_elems = c.ldd;
      for (const auto& v : variants) {
        tmakit::TransposeOptions opt;
        opt.variant = v;
        opt.allow_fallback = false;
        CK(cudaMemset(dst, 0, dbytes));
        tmakit::Status st = tmakit::transpose(src, dst, R, C, E, lay, opt);
        CK(cudaDeviceSynchronize());
        if (!st.ok()) {
          std::printf("%-12s %2d %-14s  %s\n", v.c_str(), E, c.name, st.message.c_str());
          continue;
        }
        CK(cudaMemcpy(out.data(), dst, dbytes, cudaMemcpyDeviceToHost));
        bool good = true;
        for (long long j = 0; j < C && good; ++j)
          good = std::memcmp(&out[size_t(j) * c.ldd * E], &ref[size_t(j) * c.ldd * E],
                             size_t(R) * E) == 0;
        std::vector<float> ms;
        for (int it = 0; it < 15; ++it) {
          CK(cudaMemsetAsync(flush, it, flush_bytes));
          CK(cudaEventRecord(a));
          tmakit::transpose(src, dst, R, C, E, lay, opt);
          CK(cudaEventRecord(b));
          CK(cudaEventSynchronize(b));
          float t = 0;
          CK(cudaEventElapsedTime(&t, a, b));
          ms.push_back(t);
        }
        std::sort(ms.begin(), ms.end());
        const double us = ms[ms.size() / 2] * 1e3;
        std::printf("%-12s %2d %-14s %9.1f %8.0f%s\n", v.c_str(), E, c.name, us,
                    2.0 * R * C * E / us / 1e3, good ? "" : "  WRONG");
      }
    }
  }
  return 0;
}
