// The permutation harness: index-encoded src (its padding too), dst poisoned with guard bands
// on both sides, permute() run on the device, the whole dst span read back and compared byte
// for byte with reference_permute applied to the same poisoned bytes, so an element never
// written, a wrong value, a write into padding or outside dst each show.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>
#include <cuda_runtime_api.h>
#include <host/tools/testdata.hpp>
#include <tests/support/harness.hpp>
#include <tmakit/permute.hpp>

namespace tmakit::test {

// Elements from an operand's first to one past its last (strides per its own dimensions).
inline std::int64_t span_elems(const std::vector<std::int64_t>& ext,
                               const std::vector<std::int64_t>& strides) {
  std::int64_t last = 0;
  for (std::size_t k = 0; k < ext.size(); ++k) last += (ext[k] - 1) * strides[k];
  return last + 1;
}

inline std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& ext) {
  std::vector<std::int64_t> s(ext.size(), 1);
  for (std::size_t k = ext.size(); k-- > 1;) s[k - 1] = s[k] * ext[k];
  return s;
}

inline std::string text(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return "(" + s + ")";
}
inline std::string text(const std::vector<int>& v) {
  return text(std::vector<std::int64_t>(v.begin(), v.end()));
}

struct PermuteRun {
  std::string error;  // empty: correct
  Status status;      // what permute() returned
};

// `call` runs the permutation on the device operands (permute(), or tune_permute); its Status
// is kept. offset_bytes: both operands this far from 256-byte aligned allocations.
inline PermuteRun check_permute_call(const std::vector<std::int64_t>& ext,
                                     const std::vector<int>& perm, int e, const PermuteLayout& lay,
                                     const std::function<Status(const void*, void*)>& call,
                                     std::size_t offset_bytes = 0) {
  PermuteRun run;
  std::vector<std::int64_t> dext(ext.size());
  for (std::size_t d = 0; d < ext.size(); ++d) dext[d] = ext[perm[d]];
  const auto ss = lay.src_strides_elems.empty() ? dense_strides(ext) : lay.src_strides_elems;
  const auto ds = lay.dst_strides_elems.empty() ? dense_strides(dext) : lay.dst_strides_elems;
  const std::size_t src_bytes = static_cast<std::size_t>(span_elems(ext, ss)) * e;
  const std::size_t dst_bytes = static_cast<std::size_t>(span_elems(dext, ds)) * e;
  std::vector<unsigned char> src;
  fill_index_pattern(src, span_elems(ext, ss), e);
  std::vector<unsigned char> want(dst_bytes + 2 * kGuardBytes, kPoisonByte);
  if (Status s = reference_permute(src.data(), want.data() + kGuardBytes, ext, perm, e, lay); !s) {
    run.error = "reference: " + s.message;
    return run;
  }
  unsigned char *d_src = nullptr, *d_dst = nullptr;
  auto cuda = [&](cudaError_t err, const char* what) {
    if (err != cudaSuccess && run.error.empty())
      run.error = std::string(what) + ": " + cudaGetErrorName(err);
    return err == cudaSuccess;
  };
  const std::size_t dst_alloc = dst_bytes + 2 * kGuardBytes + offset_bytes;
  if (cuda(cudaMalloc(reinterpret_cast<void**>(&d_src), src_bytes + offset_bytes), "cudaMalloc") &&
      cuda(cudaMalloc(reinterpret_cast<void**>(&d_dst), dst_alloc), "cudaMalloc") &&
      cuda(cudaMemcpy(d_src + offset_bytes, src.data(), src_bytes, cudaMemcpyHostToDevice),
           "H2D") &&
      cuda(cudaMemset(d_dst, kPoisonByte, dst_alloc), "poison") &&
      cuda(cudaDeviceSynchronize(), "poison")) {  // before a call on any stream
    unsigned char* dst = d_dst + offset_bytes + kGuardBytes;
    run.status = call(d_src + offset_bytes, dst);
    if (!run.status) run.error = "call failed: " + run.status.message;
    if (run.error.empty() && cuda(cudaDeviceSynchronize(), "kernel")) {
      std::vector<unsigned char> out(dst_bytes + 2 * kGuardBytes);
      if (cuda(cudaMemcpy(out.data(), dst - kGuardBytes, out.size(), cudaMemcpyDeviceToHost),
               "D2H")) {
        for (std::size_t i = 0; i < out.size() && run.error.empty(); ++i)
          if (out[i] != want[i]) {
            const std::int64_t at =
                static_cast<std::int64_t>(i) - static_cast<std::int64_t>(kGuardBytes);
            run.error = at < 0 ? "wrote before dst"
                        : at >= static_cast<std::int64_t>(dst_bytes)
                            ? "wrote past the end of dst"
                            : "dst element " + std::to_string(at / e) +
                                  (want[i] == kPoisonByte  ? " (padding) was written"
                                   : out[i] == kPoisonByte ? " was never written"
                                                           : " has the wrong value");
          }
      }
    }
  }
  cudaFree(d_src);
  cudaFree(d_dst);
  if (!run.error.empty())
    run.error += " [extents " + text(ext) + " perm " + text(perm) + " " + std::to_string(e) +
                 " B, ran " + run.status.variant + "]";
  return run;
}

inline PermuteRun check_permute(const std::vector<std::int64_t>& ext, const std::vector<int>& perm,
                                int e, const PermuteLayout& lay, const TransposeOptions& opt,
                                std::size_t offset_bytes = 0) {
  return check_permute_call(
      ext, perm, e, lay,
      [&](const void* src, void* dst) { return permute(src, dst, ext, perm, e, lay, opt); },
      offset_bytes);
}

// Every permutation of 0..rank-1, in lexicographic order.
inline std::vector<std::vector<int>> all_perms(int rank) {
  std::vector<int> p(rank);
  for (int i = 0; i < rank; ++i) p[i] = i;
  std::vector<std::vector<int>> out;
  do out.push_back(p);
  while (std::next_permutation(p.begin(), p.end()));
  return out;
}

}  // namespace tmakit::test
