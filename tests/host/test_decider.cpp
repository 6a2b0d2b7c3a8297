// The one decider (host/transpose/decider.hpp) without a GPU: every table parses whole and names
// only registered techniques of each kind; rankings are sorted, start near 1 on a measured cell
// and name only techniques that take the element size; a GPU without a table of its own takes the
// table of the nearest DRAM bandwidth; every class has a ranking or a last resort that runs it;
// and the ranking's words for a handful of problems match tests/golden/decider_rank.txt
// (regenerate with TMAKIT_UPDATE_GOLDEN=1 after scripts/tuning_table.py changes a table).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <gtest/gtest.h>
#include <host/transpose/decider.hpp>
#include <tmakit/tmakit.hpp>

namespace tmakit {
namespace {

const char* const kGpus[] = {"NVIDIA H100 80GB HBM3", "NVIDIA H200"};

Problem problem(ProblemKind kind, int e, std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  return {kind, e, batch, rows, cols};
}

TEST(Decider, TablesParseWholeWithRegisteredTechniques) {
  const std::vector<std::string> tables = tuning_tables();
  ASSERT_EQ(tables.size(), 2u);
  EXPECT_EQ(tables[0].rfind("NVIDIA H100", 0), 0u) << tables[0];
  EXPECT_EQ(tables[1].rfind("NVIDIA H200", 0), 0u) << tables[1];
  for (const std::string& t : tables) {
    const std::size_t open = t.rfind('(');
    ASSERT_NE(open, std::string::npos);
    EXPECT_GE(std::stoi(t.substr(open + 1)), 1500) << t;  // the surveys' cells at least
  }
  for (const char* gpu : kGpus)
    for (const auto& [kind, want] :
         {std::pair<ProblemKind, VariantKind>{ProblemKind::kTranspose, VariantKind::kTranspose},
          {ProblemKind::kAccumulate, VariantKind::kAccumulate},
          {ProblemKind::kAccumulateBeta0, VariantKind::kAccumulate}})
      for (int e : {2, 4, 8}) {
        const Ranking r = rank_techniques(gpu, 0, problem(kind, e, 1, 3000, 2000));
        ASSERT_FALSE(r.ranked.empty()) << gpu << " " << e;
        EXPECT_EQ(r.table, gpu);
        for (std::size_t i = 0; i < r.ranked.size(); ++i) {
          const auto& [token, ratio] = r.ranked[i];
          const VariantInfo* v = find_variant(token);
          ASSERT_NE(v, nullptr) << token;
          EXPECT_EQ(v->kind, want) << token;
          EXPECT_TRUE(v->supports_elem_bytes(e)) << token << " at " << e << " B";
          EXPECT_GE(ratio, 1.0) << token;
          if (i > 0) {
            EXPECT_LE(r.ranked[i - 1].second, ratio) << gpu << ": sorted";
          }
        }
      }
}

TEST(Decider, AMeasuredCellRanksItsFastestFirst) {
  // The full benchmark preset's 4096 x 4096 at 2 B is in both tables: it is its own nearest
  // cell, at distance 0, and its weight dwarfs the others'.
  for (const char* gpu : kGpus) {
    const Ranking exact =
        rank_techniques(gpu, 0, problem(ProblemKind::kTranspose, 2, 1, 4096, 4096));
    ASSERT_FALSE(exact.ranked.empty());
    EXPECT_LE(exact.ranked[0].second, 1.01) << gpu << ": " << exact.ranked[0].first;
    const Ranking near =
        rank_techniques(gpu, 0, problem(ProblemKind::kTranspose, 2, 1, 4099, 4093));
    EXPECT_GT(near.distance, 0) << gpu;
    EXPECT_GT(near.cells, 1) << gpu;
  }
}

TEST(Decider, OtherGpusTakeTheTableOfTheNearestBandwidth) {
  const Problem p = problem(ProblemKind::kTranspose, 2, 1, 4096, 4096);
  EXPECT_EQ(rank_techniques("NVIDIA H800", 3350, p).table, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rank_techniques("NVIDIA GH200 144G HBM3e", 4900, p).table, "NVIDIA H200");
  EXPECT_EQ(rank_techniques("", 0, p).table, "NVIDIA H100 80GB HBM3");
}

TEST(Decider, EveryClassHasARankingOrALastResort) {
  for (int e : {1, 2, 4, 8, 16})
    for (const auto& [rows, cols, batch] : {std::tuple<long, long, long>{5000, 3000, 1},
                                            {4097, 3001, 1},
                                            {1, 4000000, 1},
                                            {4000000, 1, 1},
                                            {9, 1000000, 1},
                                            {1000000, 77, 1},
                                            {100, 60, 2000},
                                            {8, 8, 100000}}) {
      const Problem p = problem(ProblemKind::kTranspose, e, batch, rows, cols);
      EXPECT_FALSE(rank_techniques(kGpus[0], 0, p).ranked.empty())
          << e << " B " << batch << "x" << rows << "x" << cols;
      const VariantInfo* last = find_variant(last_resort_technique(p));
      ASSERT_NE(last, nullptr);
      EXPECT_TRUE(last->supports_elem_bytes(e)) << last->token;
      EXPECT_FALSE(last->may_fall_back) << last->token << ": runs every call";
    }
  // No accumulate type is 1 or 16 bytes: no data, the last resort.
  const Problem acc16 = problem(ProblemKind::kAccumulate, 16, 1, 64, 64);
  EXPECT_TRUE(rank_techniques(kGpus[0], 0, acc16).ranked.empty());
  EXPECT_EQ(last_resort_technique(acc16), "smem_accumulate");
}

TEST(Decider, RankingWordsMatchTheGolden) {
  std::ostringstream out;
  for (const char* gpu : kGpus)
    for (const Problem& p : {problem(ProblemKind::kTranspose, 1, 1, 64, 3000000),
                             problem(ProblemKind::kTranspose, 2, 512, 197, 64),
                             problem(ProblemKind::kTranspose, 4, 1, 1000000, 33),
                             problem(ProblemKind::kTranspose, 4, 1, 33, 169150),
                             problem(ProblemKind::kAccumulate, 4, 1, 4000000, 16),
                             problem(ProblemKind::kAccumulateBeta0, 8, 1, 12345, 6789)})
      out << explain_ranking(gpu, 0, p) << "\n";
  const std::string path = std::string(TMAKIT_SOURCE_DIR) + "/tests/golden/decider_rank.txt";
  if (const char* u = std::getenv("TMAKIT_UPDATE_GOLDEN"); u != nullptr && u[0] == '1') {
    std::ofstream(path) << out.str();
    GTEST_SKIP() << "wrote " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " is missing (TMAKIT_UPDATE_GOLDEN=1 writes it)";
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(out.str(), golden.str()) << "the tables or the ranking changed: check the new words, "
                                        "then TMAKIT_UPDATE_GOLDEN=1 rewrites "
                                     << path;
}

}  // namespace
}  // namespace tmakit
