// The TMA-store row question: does a TMA store write past the end of a row whose
// length is not a multiple of 16 bytes, into the padding that a larger pitch leaves?
//
// A standalone reproducer, independent of every tmakit kernel: one 2-D map of 16 rows whose
// inner extent is 40 bytes with a 48-byte pitch (the shape the sanitizer harness reported), a
// shared-memory box stored with one raw cuda::ptx cp.async.bulk.tensor, the whole allocation
// poisoned (0xCD) first. Varied: the map's element type (U8, U16, U32, U64: the same 40 bytes
// as 40, 20, 10 or 5 elements), the row length (40, 36, 24, 8 bytes) and pitch (up to 96
// bytes, so a write to the 16-byte boundary and one further can be told apart), the box width
// (16 to 128 bytes, narrower and wider than the row), the swizzle (none, 128B), and its place
// (the origin; hanging over the last row).
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>
#include <gtest/gtest.h>
#include <host/tools/testdata.hpp>
#include <tests/sm90/tma_probe.hpp>
#include <tests/support/gpu.hpp>
#include <tmakit/tensor_map.hpp>

namespace tmakit {
namespace {

struct StoreCase {
  TmaType type;
  int type_bytes;
  int row_bytes;    // the map's inner extent, in bytes
  int pitch_bytes;  // its row pitch (a 16-byte multiple, larger than the row)
  int box_bytes;    // inner box extent in bytes
  int box_rows;
  TmaSwizzle swizzle;
  int y;  // box row coordinate
};

std::string name_of(const StoreCase& c) {
  return std::string(to_string(c.type)) + "_row" + std::to_string(c.row_bytes) + "_pitch" +
         std::to_string(c.pitch_bytes) + "_box" + std::to_string(c.box_bytes) + "Bx" +
         std::to_string(c.box_rows) + "_" + to_string(c.swizzle) + "_y" + std::to_string(c.y);
}
void PrintTo(const StoreCase& c, std::ostream* os) {
  *os << name_of(c);
}

constexpr int kRows = 16, kTailBytes = 256;

int round_up16(int bytes) {
  return (bytes + 15) / 16 * 16;
}

std::vector<StoreCase> cases() {
  std::vector<StoreCase> v;
  const std::pair<TmaType, int> types[] = {
      {TmaType::kU8, 1}, {TmaType::kU16, 2}, {TmaType::kU32, 4}, {TmaType::kU64, 8}};
  const std::pair<int, int> rows_pitches[] = {{40, 48}, {40, 64}, {40, 96}, {36, 48},
                                              {36, 64}, {24, 32}, {24, 64}, {8, 48}};
  for (auto [t, b] : types)
    for (auto [row, pitch] : rows_pitches) {
      if (row % b != 0) continue;  // the row is a whole number of the map's elements
      for (int box : {16, 32, 64, 128})
        for (TmaSwizzle sw : {TmaSwizzle::kNone, TmaSwizzle::k128B})
          for (int y : {0, kRows - 4}) {
            if (sw == TmaSwizzle::k128B && box != 128) continue;  // 128B: a 128-byte inner box
            v.push_back({t, b, row, pitch, box, 8, sw, y});
          }
    }
  return v;
}

class TmaStoreRows : public ::testing::TestWithParam<StoreCase> {};

// Measured on the H100 (2026-11-22, driver 580.159.04; docs/tensor-maps.md), for every element
// type, row length, pitch, box and swizzle here: a box that crosses a row's end also writes the
// rest of that row's last 16-byte granule (bytes row..round_up16(row) - 1, inside the pitch's
// padding) and nothing further, even where the pitch leaves more padding; a box that ends
// inside the row writes only its own bytes. This test holds the hardware to exactly that.
TEST_P(TmaStoreRows, WritesTheRowsAndOnlyThe16ByteGranulePastThem) {
  TMAKIT_NEED_GPU(90);
  const StoreCase c = GetParam();
  const std::size_t bytes = std::size_t(kRows) * c.pitch_bytes + kTailBytes;
  unsigned char* d = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), bytes), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, kPoisonByte, bytes), cudaSuccess);
  TensorMapSpec spec = matrix_spec(c.type, d, kRows, c.row_bytes / c.type_bytes, c.pitch_bytes,
                                   c.box_rows, c.box_bytes / c.type_bytes, c.swizzle);
  alignas(128) CUtensorMap map;
  const Status es = encode(spec, &map);
  ASSERT_TRUE(es.ok()) << es.message;
  ASSERT_EQ(test::tma_probe_store(map, 0, c.y, c.box_bytes * c.box_rows), cudaSuccess);
  std::vector<unsigned char> h(bytes);
  ASSERT_EQ(cudaMemcpy(h.data(), d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);

  // Per row: the box's bytes inside the row must be written; past the row's end, the furthest
  // byte written (0: none); rows the box does not cover must stay untouched.
  int unwritten = 0, max_past_row = 0, outside_box_rows = 0, tail_written = 0;
  for (int r = 0; r < kRows; ++r) {
    const bool covered = r >= c.y && r < c.y + c.box_rows;
    for (int b = 0; b < c.pitch_bytes; ++b) {
      const bool poison = h[std::size_t(r) * c.pitch_bytes + b] == kPoisonByte;
      if (!covered) {
        outside_box_rows += !poison;
      } else if (b < c.row_bytes) {
        unwritten += poison && b < c.box_bytes;
      } else if (!poison) {
        max_past_row = std::max(max_past_row, b - c.row_bytes + 1);
      }
    }
  }
  for (int b = 0; b < kTailBytes; ++b)
    tail_written += h[std::size_t(kRows) * c.pitch_bytes + b] != kPoisonByte;
  const bool crosses = c.box_bytes > c.row_bytes;
  std::printf("[ store   ] %-40s box crosses the row end: %-3s  bytes written past the row: %2d\n",
              name_of(c).c_str(), crosses ? "yes" : "no", max_past_row);
  EXPECT_EQ(unwritten, 0);
  EXPECT_EQ(outside_box_rows, 0);
  EXPECT_EQ(tail_written, 0);
  const int expected_past = crosses ? round_up16(c.row_bytes) - c.row_bytes : 0;
  EXPECT_EQ(max_past_row, expected_past);
}

INSTANTIATE_TEST_SUITE_P(Reproducer, TmaStoreRows, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<StoreCase>& p) {
                           return name_of(p.param);
                         });

}  // namespace
}  // namespace tmakit
