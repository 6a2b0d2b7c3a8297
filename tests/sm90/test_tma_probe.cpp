// A TMA load of one box into shared memory, read back raw: the bytes sit where the host swizzle
// function says (kernels/common/swizzle.hpp), out-of-bounds elements come back zero (or NaN
// with that fill mode), and the mbarrier completes with the FULL box bytes every time.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/tools/testdata.hpp>
#include <kernels/common/swizzle.hpp>
#include <tests/sm90/tma_probe.hpp>
#include <tests/support/gpu.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

struct ProbeCase {
  int elem_bytes;
  TmaSwizzle swizzle;
};
void PrintTo(const ProbeCase& c, std::ostream* os) {
  *os << c.elem_bytes << "B/" << to_string(c.swizzle);
}

TmaType type_of(int e, bool nan_fill) {
  if (nan_fill) return e == 2 ? TmaType::kF16 : e == 8 ? TmaType::kF64 : TmaType::kF32;
  return e == 1 ? TmaType::kU8 : e == 2 ? TmaType::kU16 : e == 4 ? TmaType::kU32 : TmaType::kU64;
}

class TmaProbe : public ::testing::TestWithParam<ProbeCase> {};

// rows x cols matrix with a padded pitch; boxes at the origin, in the middle, hanging over
// the right/bottom edges, at negative coordinates, and entirely outside.
TEST_P(TmaProbe, SwizzleAndOutOfBoundsMatchTheHostModel) {
  TMAKIT_NEED_GPU(90);
  const ProbeCase pc = GetParam();
  const int e = pc.elem_bytes, mode = static_cast<int>(pc.swizzle);
  const std::uint32_t span = mode ? tma_swizzle_span_bytes(mode) : 64;
  const std::uint32_t box_cols = span / e, box_rows = 16;
  const std::int64_t rows = 40, cols = 3 * box_cols + 5;
  const std::uint64_t pitch = (cols * e + 15) / 16 * 16 + 32;
  std::vector<unsigned char> host;
  fill_index_pattern(host, rows * (pitch / e), e);
  unsigned char *d_mat = nullptr, *d_out = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_mat), host.size()), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d_out), 32768), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d_mat, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);

  for (bool nan_fill : {false, true}) {
    if (nan_fill && e == 1) continue;  // no 1-byte float type
    TensorMapSpec spec =
        matrix_spec(type_of(e, nan_fill), d_mat, rows, cols, pitch, box_rows, box_cols, pc.swizzle);
    spec.oob_fill = nan_fill ? TmaOobFill::kNanRequestZeroFma : TmaOobFill::kZero;
    alignas(128) CUtensorMap map;
    const Status es = encode(spec, &map);
    ASSERT_TRUE(es.ok()) << es.message;
    const std::uint32_t bytes = static_cast<std::uint32_t>(box_bytes(spec));
    ASSERT_EQ(bytes, box_rows * box_cols * e);
    // The innermost coordinate x must be a multiple of 16 bytes (x * e % 16 == 0): on the H100
    // a load at x = 98 of 4-byte elements faulted with cudaErrorIllegalInstruction (715).
    const int w = 16 / e;  // elements per 16 bytes
    auto down = [w](int x) { return (x >= 0 ? x / w : (x - w + 1) / w) * w; };
    const std::pair<int, int> corners[] = {{0, 0},
                                           {int(box_cols), 8},
                                           {down(int(cols) - 3), int(rows) - 5},
                                           {-w, -3},
                                           {down(int(cols) + 100), int(rows) + 100}};
    for (auto [x, y] : corners) {
      SCOPED_TRACE("box at x=" + std::to_string(x) + " y=" + std::to_string(y) +
                   (nan_fill ? " NaN fill" : ""));
      test::ProbeResult pr;
      ASSERT_EQ(cudaMemset(d_out, 0, 32768), cudaSuccess);
      ASSERT_EQ(test::tma_probe_load(map, x, y, bytes, bytes, d_out, &pr), cudaSuccess);
      ASSERT_EQ(pr.completed, 1) << "the mbarrier did not complete with the full box bytes";
      std::vector<unsigned char> raw(bytes);
      ASSERT_EQ(cudaMemcpy(raw.data(), d_out, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      int mismatches = 0;
      for (std::uint32_t r = 0; r < box_rows; ++r)
        for (std::uint32_t c = 0; c < box_cols; ++c) {
          const std::uint32_t logical = (r * box_cols + c) * e;
          const unsigned char* got = &raw[tma_swizzle(logical, mode)];
          const std::int64_t gy = y + std::int64_t(r), gx = x + std::int64_t(c);
          const bool in = gy >= 0 && gy < rows && gx >= 0 && gx < cols;
          bool ok;
          if (in) {
            ok = std::memcmp(got, &host[gy * pitch + gx * e], e) == 0;
          } else if (!nan_fill) {
            ok = true;
            for (int b = 0; b < e; ++b) ok = ok && got[b] == 0;
          } else if (e == 4) {
            float f;
            std::memcpy(&f, got, 4);
            ok = std::isnan(f);
          } else if (e == 8) {
            double d;
            std::memcpy(&d, got, 8);
            ok = std::isnan(d);
          } else {  // fp16 NaN: exponent all ones, mantissa non-zero
            std::uint16_t h;
            std::memcpy(&h, got, 2);
            ok = (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
          }
          if (!ok && ++mismatches <= 3)
            ADD_FAILURE() << "box element (" << r << ", " << c << ") at shared byte "
                          << tma_swizzle(logical, mode)
                          << (in ? " has the wrong value" : " is not the OOB fill");
        }
      EXPECT_EQ(mismatches, 0);
    }
  }
  cudaFree(d_mat);
  cudaFree(d_out);
}

std::vector<ProbeCase> probe_cases() {
  std::vector<ProbeCase> v;
  for (int e : {1, 2, 4, 8})
    for (TmaSwizzle s : {TmaSwizzle::kNone, TmaSwizzle::k32B, TmaSwizzle::k64B, TmaSwizzle::k128B})
      v.push_back({e, s});
  return v;
}

INSTANTIATE_TEST_SUITE_P(ElemAndSwizzle, TmaProbe, ::testing::ValuesIn(probe_cases()),
                         [](const ::testing::TestParamInfo<ProbeCase>& p) {
                           return std::to_string(p.param.elem_bytes) + "B_" +
                                  (p.param.swizzle == TmaSwizzle::kNone
                                       ? std::string("none")
                                       : std::string("sw") + to_string(p.param.swizzle));
                         });

}  // namespace
}  // namespace tmakit
