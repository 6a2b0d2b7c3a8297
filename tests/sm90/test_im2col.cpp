// Im2col tensor maps on the device: validate() against cuTensorMapEncodeIm2col (the
// differential), the worked example (TMA im2col loads of an NHWC tensor with asymmetric
// padding, compared with a CPU im2col bit for bit) and cuTensorMapReplaceAddress (the same map
// pointed at a second tensor gathers that tensor's patches).
#include <cstdio>
#include <cstring>
#include <vector>
#include <gtest/gtest.h>
#include <host/tensor_map/fuzz.hpp>
#include <tests/sm90/im2col_example.hpp>
#include <tests/support/gpu.hpp>
#include <tests/support/rule_cases.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

TEST(TensorMapDriver, Im2colDifferentialAgainstCuTensorMapEncodeIm2col) {
  TMAKIT_NEED_GPU(90);
  DeviceInfo dev;
  ASSERT_TRUE(query_device(&dev).ok());
  alignas(1024) static unsigned char base[4096];
  const DifferentialResult r = run_im2col_differential(20000, 20261123, dev.cc, base);
  test::expect_clean_differential("im2col differential", r, 20000, 500);
}

// The CPU im2col: row (n, oh, ow), column (i * s + j) * c + ch = x[n][oh - pad_h + i][ow - pad_w +
// j][ch] or 0 outside the image.
std::vector<float> cpu_im2col(const std::vector<float>& x, const test::Im2colExample& ex) {
  const int oh_n = ex.h + 2 * ex.pad_h - ex.r + 1, ow_n = ex.w + 2 * ex.pad_w - ex.s + 1;
  const int cols = ex.r * ex.s * ex.c;
  std::vector<float> out(static_cast<size_t>(ex.n) * oh_n * ow_n * cols, 0.f);
  for (int n = 0; n < ex.n; ++n)
    for (int oh = 0; oh < oh_n; ++oh)
      for (int ow = 0; ow < ow_n; ++ow)
        for (int i = 0; i < ex.r; ++i)
          for (int j = 0; j < ex.s; ++j)
            for (int ch = 0; ch < ex.c; ++ch) {
              const int y = oh - ex.pad_h + i, z = ow - ex.pad_w + j;
              const size_t row = (static_cast<size_t>(n) * oh_n + oh) * ow_n + ow;
              out[row * cols + (i * ex.s + j) * ex.c + ch] =
                  (y < 0 || y >= ex.h || z < 0 || z >= ex.w)
                      ? 0.f
                      : x[((static_cast<size_t>(n) * ex.h + y) * ex.w + z) * ex.c + ch];
            }
  return out;
}

struct Device {
  float* p = nullptr;
  explicit Device(size_t n) { cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)); }
  ~Device() { cudaFree(p); }
};

// Odd sizes, padding 1 on H and 2 on W (negative lower corners), a 3 x 5 filter, 32 pixels a
// copy (the last copy of the walk runs past the last image: TMA fills zeros, the kernel drops
// those rows).
const test::Im2colExample kExample{3, 7, 9, 8, 3, 5, 1, 2, 32};

Im2colSpec example_spec(const void* address) {
  const auto& e = kExample;
  return conv2d_im2col_spec(TmaType::kF32, address, e.n, e.h, e.w, e.c, e.r, e.s, e.pad_h, e.pad_w,
                            e.c, e.pixels_per_copy);
}

std::vector<float> gather(const CUtensorMap& map, size_t out_elems) {
  Device out(out_elems);
  cudaMemset(out.p, 0xFF, out_elems * sizeof(float));
  int timeouts = -1;
  EXPECT_EQ(test::run_im2col_example(map, kExample, out.p, &timeouts), cudaSuccess);
  EXPECT_EQ(timeouts, 0)
      << "an mbarrier did not complete: expect-tx differs from what TMA delivered";
  std::vector<float> h(out_elems);
  cudaMemcpy(h.data(), out.p, out_elems * sizeof(float), cudaMemcpyDeviceToHost);
  return h;
}

TEST(Im2colExample, TmaGathersTheConvolutionPatchesOfAnNhwcTensor) {
  TMAKIT_NEED_GPU(90);
  const auto& e = kExample;
  const size_t in_elems = static_cast<size_t>(e.n) * e.h * e.w * e.c;
  std::vector<float> x(in_elems);
  for (size_t k = 0; k < in_elems; ++k) x[k] = static_cast<float>(k + 1);  // never 0: padding shows
  Device dx(in_elems);
  cudaMemcpy(dx.p, x.data(), in_elems * sizeof(float), cudaMemcpyHostToDevice);
  const Im2colSpec spec = example_spec(dx.p);
  EXPECT_EQ(box_bytes(spec), 32u * 8 * 4);
  alignas(64) CUtensorMap map;
  const Status st = encode(spec, &map);
  ASSERT_TRUE(st.ok()) << st.message;
  const std::vector<float> ref = cpu_im2col(x, e);
  const std::vector<float> got = gather(map, ref.size());
  size_t bad = 0, first = ref.size();
  for (size_t k = 0; k < ref.size(); ++k)
    if (std::memcmp(&ref[k], &got[k], 4) != 0 && bad++ == 0) first = k;
  EXPECT_EQ(bad, 0u) << "first mismatch at column-matrix element " << first << ": got "
                     << (first < ref.size() ? got[first] : 0) << ", want "
                     << (first < ref.size() ? ref[first] : 0) << "\n"
                     << describe(spec);
}

TEST(Im2colExample, ReplaceAddressPointsTheSameMapAtAnotherTensor) {
  TMAKIT_NEED_GPU(90);
  const auto& e = kExample;
  const size_t in_elems = static_cast<size_t>(e.n) * e.h * e.w * e.c;
  std::vector<float> a(in_elems), b(in_elems);
  for (size_t k = 0; k < in_elems; ++k) {
    a[k] = static_cast<float>(k + 1);
    b[k] = -static_cast<float>(3 * k + 7);
  }
  Device da(in_elems), db(in_elems);
  cudaMemcpy(da.p, a.data(), in_elems * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(db.p, b.data(), in_elems * sizeof(float), cudaMemcpyHostToDevice);
  const Im2colSpec spec = example_spec(da.p);
  alignas(64) CUtensorMap map;
  ASSERT_TRUE(encode(spec, &map).ok());
  const Status st = replace_address(&map, spec, db.p);
  ASSERT_TRUE(st.ok()) << st.message;
  const std::vector<float> ref = cpu_im2col(b, e);
  EXPECT_EQ(gather(map, ref.size()), ref);
  // A tiled map too: replace, then the driver's own copy of the address is the new one (the
  // same bytes as encoding for the new address directly).
  TensorMapSpec t = matrix_spec(TmaType::kF32, da.p, 16, 64, 256, 8, 32);
  alignas(64) CUtensorMap m1, m2;
  ASSERT_TRUE(encode(t, &m1).ok());
  ASSERT_TRUE(replace_address(&m1, t, db.p).ok());
  t.address = db.p;
  ASSERT_TRUE(encode(t, &m2).ok());
  EXPECT_EQ(std::memcmp(&m1, &m2, sizeof(CUtensorMap)), 0);
  // And the driver agrees with the alignment rule tmakit checks first.
  const Status bad = replace_address(&m1, t, reinterpret_cast<const unsigned char*>(db.p) + 8);
  EXPECT_EQ(bad.code, StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message.find("address_align_16"), std::string::npos) << bad.message;
}

}  // namespace
}  // namespace tmakit
