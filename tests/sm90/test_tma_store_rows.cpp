// The TMA-store row question (issue 17): does a TMA store write past the end of a row whose
// length is not a multiple of 16 bytes, into the padding that a larger pitch leaves?
//
// A standalone reproducer, independent of every tmakit kernel: one 2-D map of 16 rows whose
// inner extent is 40 bytes with a 48-byte pitch (the shape the sanitizer harness reported), a
// shared-memory box stored with one raw cuda::ptx cp.async.bulk.tensor, the whole allocation
// poisoned (0xCD) first. Varied: the map's element type (U8, U16, U32, U64: the same 40 bytes
// as 40, 20, 10 or 5 elements), the box width (16 to 128 bytes, so wider and narrower than the
// row), its height, the swizzle (none, 128B), and its place (the origin; hanging over the last
// row). Every byte of the rows the box covers must be written, and no byte outside the
// tensor: not bytes 40..47 of any row, not past the last row.
#include <cstdio>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/testdata.hpp>
#include <tests/sm90/tma_probe.hpp>
#include <tests/support/gpu.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

struct StoreCase {
  TmaType type;
  int type_bytes;
  int box_bytes;  // inner box extent in bytes
  int box_rows;
  TmaSwizzle swizzle;
  int y;  // box row coordinate
};

std::string name_of(const StoreCase& c) {
  return std::string(to_string(c.type)) + "_box" + std::to_string(c.box_bytes) + "Bx" +
         std::to_string(c.box_rows) + "_" + to_string(c.swizzle) + "_y" + std::to_string(c.y);
}
void PrintTo(const StoreCase& c, std::ostream* os) { *os << name_of(c); }

constexpr int kRows = 16, kRowBytes = 40, kPitchBytes = 48, kTailBytes = 256;

std::vector<StoreCase> cases() {
  std::vector<StoreCase> v;
  const std::pair<TmaType, int> types[] = {
      {TmaType::kU8, 1}, {TmaType::kU16, 2}, {TmaType::kU32, 4}, {TmaType::kU64, 8}};
  for (auto [t, b] : types)
    for (int box : {16, 32, 48, 64, 128})
      for (int rows : {8, 16})
        for (TmaSwizzle sw : {TmaSwizzle::kNone, TmaSwizzle::k128B})
          for (int y : {0, kRows - rows / 2}) {
            if (sw == TmaSwizzle::k128B && box != 128) continue;  // 128B: a 128-byte inner box
            v.push_back({t, b, box, rows, sw, y});
          }
  return v;
}

class TmaStoreRows : public ::testing::TestWithParam<StoreCase> {};

TEST_P(TmaStoreRows, WritesTheRowsAndNothingPastThem) {
  TMAKIT_NEED_GPU(90);
  const StoreCase c = GetParam();
  const std::size_t bytes = std::size_t(kRows) * kPitchBytes + kTailBytes;
  unsigned char* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, kPoisonByte, bytes), cudaSuccess);
  TensorMapSpec spec =
      matrix_spec(c.type, d, kRows, kRowBytes / c.type_bytes, kPitchBytes, c.box_rows,
                  c.box_bytes / c.type_bytes, c.swizzle);
  alignas(128) CUtensorMap map;
  const Status es = encode(spec, &map);
  ASSERT_TRUE(es.ok()) << es.message;
  ASSERT_EQ(test::tma_probe_store(map, 0, c.y, c.box_bytes * c.box_rows), cudaSuccess);
  std::vector<unsigned char> h(bytes);
  ASSERT_EQ(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);

  // Written inside the rows the box covers (its first min(box, 40) bytes), never outside.
  int unwritten = 0, padding_written = 0, tail_written = 0, first_bad = -1;
  for (int r = 0; r < kRows; ++r) {
    const bool covered = r >= c.y && r < c.y + c.box_rows;
    for (int b = 0; b < kPitchBytes; ++b) {
      const bool poison = h[std::size_t(r) * kPitchBytes + b] == kPoisonByte;
      if (b >= kRowBytes) {
        if (!poison && ++padding_written && first_bad < 0) first_bad = r * kPitchBytes + b;
      } else if (covered && b < c.box_bytes) {
        unwritten += poison;
      } else if (!poison && ++padding_written && first_bad < 0) {
        first_bad = r * kPitchBytes + b;  // a row or column the box does not cover
      }
    }
  }
  for (int b = 0; b < kTailBytes; ++b) tail_written += h[std::size_t(kRows) * kPitchBytes + b] != kPoisonByte;
  std::printf("[ store   ] %-34s unwritten %3d, padding bytes written %3d, past the end %3d\n",
              name_of(c).c_str(), unwritten, padding_written, tail_written);
  EXPECT_EQ(unwritten, 0);
  EXPECT_EQ(padding_written, 0) << "first byte written outside the tensor: row "
                                << first_bad / kPitchBytes << ", byte " << first_bad % kPitchBytes;
  EXPECT_EQ(tail_written, 0);
}

INSTANTIATE_TEST_SUITE_P(Reproducer, TmaStoreRows, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<StoreCase>& p) {
                           return name_of(p.param);
                         });

}  // namespace
}  // namespace tmakit
