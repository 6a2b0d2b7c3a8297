// The shared-memory bank model on patterns with known answers, then on the techniques'
// own index functions (the replay uses kernels/common, as the kernels do).
#include <set>
#include <string>
#include <gtest/gtest.h>
#include <host/tools/bank_model.hpp>

namespace tmakit {
namespace {

WarpAccess strided(std::uint32_t stride_bytes, int active = 32) {
  WarpAccess w{};
  for (int l = 0; l < active; ++l) w[l] = {true, static_cast<std::uint32_t>(l) * stride_bytes};
  return w;
}

TEST(BankModel, KnownPatterns) {
  EXPECT_EQ(shared_wavefronts(strided(4), 4).actual, 1);     // stride-1 words
  EXPECT_EQ(shared_wavefronts(strided(128), 4).actual, 32);  // a 32-word column
  EXPECT_EQ(shared_wavefronts(strided(132), 4).actual, 1);   // the 33-word padded column
  EXPECT_EQ(shared_wavefronts(strided(256), 4).actual, 32);  // 64-word rows: still one bank
  EXPECT_EQ(shared_wavefronts(strided(0), 4).actual, 1);     // one word for all: broadcast
  EXPECT_EQ(shared_wavefronts(strided(8), 4).actual, 2);     // every other word: 2-way
  // 8-byte accesses are served per half-warp, 16-byte per quarter-warp.
  EXPECT_EQ(shared_wavefronts(strided(8), 8).actual, 2);
  EXPECT_EQ(shared_wavefronts(strided(8), 8).ideal, 2);
  EXPECT_EQ(shared_wavefronts(strided(16), 16).actual, 4);
  EXPECT_EQ(shared_wavefronts(strided(16), 16).ideal, 4);
  EXPECT_EQ(shared_wavefronts(strided(128, 8), 16).actual, 8);  // 8 lanes, one bank group
  EXPECT_EQ(shared_wavefronts(strided(1), 1).actual, 1);        // bytes of one word
}

double site(const std::vector<AccessReport>& r, bool store) {
  for (const AccessReport& a : r)
    if (a.is_store == store) return a.per_request();
  ADD_FAILURE() << "no " << (store ? "store" : "load") << " site";
  return -1;
}

std::vector<AccessReport> report(const std::string& token, int e, int sw = 0) {
  std::string why;
  std::vector<AccessReport> r = technique_bank_report(token, e, sw, &why);
  EXPECT_FALSE(r.empty()) << token << ": " << why;
  return r;
}

TEST(BankModel, ClassicLadderFourByte) {
  EXPECT_EQ(site(report("smem", 4), true), 1.0);
  EXPECT_EQ(site(report("smem", 4), false), 32.0);  // the textbook 32-way conflict
  EXPECT_EQ(site(report("smem_padded", 4), false), 1.0);
  EXPECT_EQ(site(report("smem_xor", 4), true), 1.0);  // the seed's XOR swizzle
  EXPECT_EQ(site(report("smem_xor", 4), false), 1.0);
}

TEST(BankModel, ProgrammingGuideInt4Example) {
  EXPECT_EQ(site(report("int4_8x8", 16, 0), true), 8.0);  // 8-way on every column store
  EXPECT_EQ(site(report("int4_8x8", 16, 0), false), 1.0);
  EXPECT_EQ(site(report("int4_8x8", 16, 128), true), 1.0);
  EXPECT_EQ(site(report("int4_8x8", 16, 128), false), 1.0);
}

TEST(BankModel, TmaTileIsIdealWithoutSwizzleAnd128B) {
  for (int e : {1, 2, 4, 8})
    for (int sw : {0, 128}) {
      const auto r = report("tma_load_store", e, sw);
      for (const AccessReport& a : r)
        EXPECT_EQ(a.wavefronts, a.ideal) << e << "B sw" << sw << " " << a.site;
    }
  const auto r32 = report("tma_load_store", 4, 32);
  EXPECT_GT(site(r32, false), 4.0);  // 32B swizzle: conflicts beyond the 4 quarter-warps
}

TEST(BankModel, TechniquesWithoutASharedTransposeSayWhy) {
  std::string why;
  EXPECT_TRUE(technique_bank_report("copy", 4, 0, &why).empty());
  EXPECT_NE(why.find("no shared-memory transpose"), std::string::npos) << why;
}

TileMap tile_map(const std::string& token, int e, int sw = 0) {
  std::string why;
  TileMap m = technique_tile_map(token, e, sw, &why);
  EXPECT_FALSE(m.cells.empty()) << token << ": " << why;
  return m;
}

int bank_of(const TileCell& c) {
  return static_cast<int>(c.addr / 4 % 32);
}

// Cells never overlap: the map is a placement of the whole tile.
void expect_disjoint(const TileMap& m) {
  std::set<std::uint32_t> bytes;
  for (const TileCell& c : m.cells)
    for (int b = 0; b < c.width_bytes; ++b) EXPECT_TRUE(bytes.insert(c.addr + b).second);
  EXPECT_EQ(m.cells.size(), static_cast<std::size_t>(m.rows * m.cols));
}

// Distinct banks (4-byte element maps) or bank groups of 4 (16-byte chunk maps) that the cells
// of logical column `col` among rows [r0, r0 + n) fall in.
std::size_t column_bank_spread(const TileMap& m, int col, int r0, int n) {
  std::set<int> banks;
  for (const TileCell& c : m.cells)
    if (c.col == col && c.row >= r0 && c.row < r0 + n)
      banks.insert(bank_of(c) / (c.width_bytes / 4));
  return banks.size();
}

TEST(BankMap, ClassicLayoutsPlaceColumnsInTheBanksTheTextbookSays) {
  const TileMap smem = tile_map("smem", 4), padded = tile_map("smem_padded", 4),
                xor_ = tile_map("smem_xor", 4);
  for (const TileMap* m : {&smem, &padded, &xor_}) expect_disjoint(*m);
  for (const TileCell& c : smem.cells) EXPECT_EQ(bank_of(c), c.col);
  for (const TileCell& c : padded.cells) EXPECT_EQ(bank_of(c), (c.row + c.col) % 32);
  for (int col = 0; col < 32; ++col) {
    EXPECT_EQ(column_bank_spread(smem, col, 0, 32), 1u);
    EXPECT_EQ(column_bank_spread(padded, col, 0, 32), 32u);
    EXPECT_EQ(column_bank_spread(xor_, col, 0, 32), 32u);
  }
}

TEST(BankMap, SwizzleSpreadsChunkColumnsOverBankGroups) {
  const TileMap plain = tile_map("int4_8x8", 16, 0), swz = tile_map("int4_8x8", 16, 128);
  expect_disjoint(plain);
  expect_disjoint(swz);
  for (int j = 0; j < 8; ++j) {
    EXPECT_EQ(column_bank_spread(plain, j, 0, 8), 1u);  // Figure 27: one column, one bank group
    EXPECT_EQ(column_bank_spread(swz, j, 0, 8), 8u);    // Figure 28: eight groups
  }
  // The TMA tile (4-byte elements, 32 lines of 8 chunks): 128B swizzle spreads a chunk column
  // over 8 consecutive lines; no swizzle keeps it in one group.
  const TileMap none = tile_map("tma_load_store", 4, 0), sw128 = tile_map("tma_load_store", 4, 128);
  expect_disjoint(none);
  expect_disjoint(sw128);
  EXPECT_EQ(column_bank_spread(none, 3, 8, 8), 1u);
  EXPECT_EQ(column_bank_spread(sw128, 3, 8, 8), 8u);
}

TEST(BankMap, SvgOutlinesOneRequest) {
  std::string why;
  const std::vector<AccessReport> r = technique_bank_report("smem", 4, 0, &why);
  ASSERT_FALSE(r.empty());
  const AccessReport& column = r[1];
  ASSERT_FALSE(column.is_store);
  const std::string svg = bank_map_svg("t", "s", tile_map("smem", 4), &column.first, 4);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("<!-- outlined-lanes: 32 -->"), std::string::npos);
  // All 32 outlined lanes sit in one bank column (x of bank 0): the 32-way conflict, drawn.
  std::size_t at = 0, in_bank0 = 0;
  while ((at = svg.find("stroke-width=\"2.5\"", at)) != std::string::npos) {
    const std::string bank0 = "<rect x=\"53\"";  // kLeft + 1: bank 0's outline
    if (svg.compare(svg.rfind("<rect", at), bank0.size(), bank0) == 0) ++in_bank0;
    ++at;
  }
  EXPECT_EQ(in_bank0, 32u);
}

// smem_flat's gather, replayed through flat.hpp's plan and index functions
// (host/tools/bank_model.cpp).
TEST(BankModel, FlatGatherOnShapesWithKnownAnswers) {
  auto per_request = [](std::int64_t rows, std::int64_t cols, std::int64_t batch, int e,
                        const std::string& site) {
    std::string why;
    for (const AccessReport& a : flat_gather_bank_report(rows, cols, batch, e, 16384, &why))
      if (a.site.find(site) != std::string::npos) return a.per_request();
    return -1.0;  // no such site
  };
  // k x N at 1 B, k = 8: a 16-byte dst chunk is two whole columns of 8 rows, so a warp's lanes
  // read 32 consecutive column pairs: bytes of 16 words per source row, one wavefront.
  EXPECT_DOUBLE_EQ(per_request(8, 4096, 1, 1, "element"), 1.0);
  EXPECT_GT(per_request(8, 4096, 1, 1, "table"), 0.0);  // kWide reads the offset table
  // N x k at 1 B, k = 16: a warp holds two chunk positions 16 rows (256 bytes) apart in each
  // of 16 columns: every bank serves two words, two wavefronts.
  EXPECT_DOUBLE_EQ(per_request(4096, 16, 1, 1, "element"), 2.0);
  EXPECT_EQ(per_request(4096, 16, 1, 1, "table"), -1.0);  // kTall steps, no table
  // No flat form (both sides over 32, one matrix over 32 KB): nothing to model, and why.
  std::string why;
  EXPECT_TRUE(flat_gather_bank_report(200, 200, 1, 1, 16384, &why).empty());
  EXPECT_NE(why.find("no flat form"), std::string::npos) << why;
}

}  // namespace
}  // namespace tmakit
