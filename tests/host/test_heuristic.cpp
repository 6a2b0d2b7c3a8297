// The plans' tuning tables (host/transpose/tuning/*.inc) and the nearest-cell ranking
// (host/transpose/heuristic.hpp), without a GPU: every table parses whole and names only
// registered transpose techniques; a measured cell ranks its own fastest first from itself
// alone; other problems rank from their 3 nearest cells of the same class; a GPU without a
// table of its own takes the H100's or the H200's by its DRAM bandwidth.
#include <set>
#include <tuple>
#include <string>
#include <gtest/gtest.h>
#include <host/transpose/heuristic.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

TEST(TuningTables, ParseWholeWithRegisteredTechniques) {
  const std::vector<std::string> tables = tuning_tables();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].rfind("NVIDIA H100", 0), 0u) << tables[0];
  EXPECT_EQ(tables[1].rfind("NVIDIA H200", 0), 0u) << tables[1];
  for (const std::string& t : tables) {
    const std::size_t open = t.rfind('(');
    ASSERT_NE(open, std::string::npos);
    EXPECT_GE(std::stoi(t.substr(open + 1)), 400) << t;  // the survey's cells at least
  }
  for (const char* gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const HeuristicRanking r = rank_techniques(gpu, 0, 3000, 2000, 4, 1);
    ASSERT_FALSE(r.ranked.empty()) << gpu;
    for (const auto& [token, ratio] : r.ranked) {
      const VariantInfo* v = find_variant(token);
      ASSERT_NE(v, nullptr) << token;
      EXPECT_EQ(v->kind, VariantKind::kTranspose) << token;
      EXPECT_GE(ratio, 1.0) << token;
    }
  }
}

TEST(TuningTables, RankingIsSortedAndFromTheNearestCells) {
  // The full benchmark preset's 4096 x 4096 at 2 B was measured on both GPUs: its own cell.
  for (const char* gpu : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    const HeuristicRanking exact = rank_techniques(gpu, 0, 4096, 4096, 2, 1);
    EXPECT_EQ(exact.table, gpu);
    EXPECT_EQ(exact.cells, 1) << gpu;
    EXPECT_DOUBLE_EQ(exact.distance, 0) << gpu;
    ASSERT_FALSE(exact.ranked.empty());
    EXPECT_NEAR(exact.ranked[0].second, 1.0, 1e-9) << gpu << ": its fastest first";
    for (std::size_t i = 1; i < exact.ranked.size(); ++i)
      EXPECT_LE(exact.ranked[i - 1].second, exact.ranked[i].second) << gpu;
    // A shape nobody measured: three cells, a distance above 0.
    const HeuristicRanking near = rank_techniques(gpu, 0, 4099, 4093, 2, 1);
    EXPECT_EQ(near.cells, 3) << gpu;
    EXPECT_GT(near.distance, 0) << gpu;
  }
}

TEST(TuningTables, OtherGpusTakeATableByBandwidth) {
  EXPECT_EQ(rank_techniques("NVIDIA H800", 3350, 4096, 4096, 2, 1).table, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rank_techniques("NVIDIA GH200 144G HBM3e", 4900, 4096, 4096, 2, 1).table,
            "NVIDIA H200");
  EXPECT_EQ(rank_techniques("", 0, 4096, 4096, 2, 1).table, "NVIDIA H100 80GB HBM3");
}

TEST(TuningTables, EveryClassAndElementSizeHasCells) {
  for (int e : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols, batch] : {std::tuple<long, long, long>{5000, 3000, 1},
                                            {4097, 3001, 1},
                                            {9, 1000000, 1},
                                            {1000000, 9, 1},
                                            {100, 60, 2000},
                                            {8, 8, 100000}}) {
      const HeuristicRanking r = rank_techniques("NVIDIA H100 80GB HBM3", 0, rows, cols, e, batch);
      EXPECT_FALSE(r.ranked.empty()) << e << " B " << batch << "x" << rows << "x" << cols;
    }
}

}  // namespace
}  // namespace tmakit
