// Host emulation of a batched transpose call over byte arrays standing for global memory, for
// the tests that replay a kernel's index math on the host (test_reg_block, test_reg_tile): the
// call's shape and strides, its operands (src filled with a position-dependent pattern, dst
// with 0xEE and a count of writes per byte), and the final check.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tmakit::test {

// A batch of rows x cols matrices of e-byte elements; leading dimensions and batch strides in
// elements, 0 meaning dense.
struct EmuCall {
  std::int64_t rows, cols;
  int e;
  std::int64_t batch = 1, src_ld = 0, dst_ld = 0, src_bs = 0, dst_bs = 0;
  void fill_dense() {
    if (src_ld == 0) src_ld = cols;
    if (dst_ld == 0) dst_ld = rows;
    if (src_bs == 0) src_bs = rows * src_ld;
    if (dst_bs == 0) dst_bs = cols * dst_ld;
  }
};

// The operands of a (dense-filled) call: src_bytes and dst_bytes span exactly the elements;
// dst has 64 bytes more, so a store past the end is seen.
struct EmuMemory {
  std::int64_t src_bytes, dst_bytes;
  std::vector<unsigned char> src, dst;
  std::vector<int> written;  // writes per dst byte
  explicit EmuMemory(const EmuCall& c)
      : src_bytes(((c.batch - 1) * c.src_bs + (c.rows - 1) * c.src_ld + c.cols) * c.e),
        dst_bytes(((c.batch - 1) * c.dst_bs + (c.cols - 1) * c.dst_ld + c.rows) * c.e),
        src(src_bytes),
        dst(dst_bytes + 64, 0xEE),
        written(dst.size(), 0) {
    for (std::int64_t i = 0; i < src_bytes; ++i)
      src[i] = static_cast<unsigned char>(i * 7 + i / 251);
  }
  void store(std::int64_t a, unsigned char v) {
    dst[a] = v;
    ++written[a];
  }
  // "" when every dst element equals its src element transposed, written once, and nothing
  // else was written.
  std::string check_transpose(const EmuCall& c) {
    for (std::int64_t m = 0; m < c.batch; ++m)
      for (std::int64_t r = 0; r < c.rows; ++r)
        for (std::int64_t col = 0; col < c.cols; ++col)
          for (int x = 0; x < c.e; ++x) {
            const std::int64_t s = (m * c.src_bs + r * c.src_ld + col) * c.e + x;
            const std::int64_t d = (m * c.dst_bs + col * c.dst_ld + r) * c.e + x;
            if (dst[d] != src[s] || written[d] != 1)
              return "dst (" + std::to_string(m) + ", " + std::to_string(col) + ", " +
                     std::to_string(r) + ") wrong or written " + std::to_string(written[d]) +
                     " times";
            written[d] = -1;
          }
    for (std::size_t i = 0; i < written.size(); ++i)
      if (written[i] > 0) return "byte " + std::to_string(i) + " outside the destination written";
    return "";
  }
};

}  // namespace tmakit::test
