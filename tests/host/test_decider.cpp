// The one decider (host/transpose/decider.hpp) without a GPU: every table parses whole and names
// only registered techniques of each kind; rankings are sorted, start near 1 on a measured cell
// and name only techniques that take the element size; a GPU without a table of its own takes the
// table of the nearest DRAM bandwidth; every class has a ranking or a last resort that runs it;
// and the ranking's words for a handful of problems match tests/golden/decider_rank.txt
// (regenerate with TMAKIT_UPDATE_GOLDEN=1 after scripts/tuning_table.py changes a table); a plan
// described for a table's GPU (TuneOptions::gpu) follows that table's ranking and never runs.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>
#include <gtest/gtest.h>
#include <host/transpose/decider.hpp>
#include <tmakit/plan.hpp>
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

// TuneOptions::gpu: a plan described for a table's GPU with no device used (this test runs
// where there may be none). It runs the first technique of its ranking that passes the rules,
// says whose table it is, and refuses to run or to measure.
TEST(DescribedPlan, RanksWithTheNamedTableAndNeverRuns) {
  for (const char* gpu : {"h100", "h200"}) {
    TableGpu t;
    ASSERT_TRUE(tuning_table_gpu(gpu, &t)) << gpu;
    EXPECT_GT(t.sm_count, 0) << gpu;
    EXPECT_GT(t.dram_gbps, 0) << gpu;
    TuneOptions tune;
    tune.gpu = gpu;
    tune.mode = Tuning::kHeuristic;
    for (const auto& [e, batch, rows, cols] :
         std::vector<std::tuple<int, long long, long long, long long>>{
             {1, 1, 64, 3000000}, {2, 512, 197, 64}, {4, 1, 1000000, 33}, {16, 1, 1, 1000}}) {
      MatrixLayout lay;
      lay.batch = batch;
      Plan plan;
      const Status s = make_plan(&plan, rows, cols, e, lay, {}, tune);
      ASSERT_TRUE(s.ok()) << gpu << " " << s.message;
      const Ranking r = rank_techniques(t.name, 0, {ProblemKind::kTranspose, e, batch, rows, cols});
      ASSERT_FALSE(r.ranked.empty());
      // The plan's order is the table's ranking (less techniques that cannot take the call,
      // then the rest), and it runs an entry of it.
      std::vector<std::string> ranked, planned;
      for (const auto& [token, ratio] : r.ranked) ranked.push_back(token);
      for (const std::string& token : plan.ranking())
        if (std::find(ranked.begin(), ranked.end(), token) != ranked.end())
          planned.push_back(token);
      std::vector<std::string> kept;
      for (const std::string& token : ranked)
        if (std::find(plan.ranking().begin(), plan.ranking().end(), token) != plan.ranking().end())
          kept.push_back(token);
      EXPECT_EQ(planned, kept) << gpu << " " << rows << "x" << cols;
      ASSERT_FALSE(planned.empty());
      EXPECT_EQ(plan.ranking()[0], planned[0]);
      EXPECT_NE(std::find(plan.ranking().begin(), plan.ranking().end(), plan.variant()),
                plan.ranking().end());
      EXPECT_NE(plan.explain().find(t.name + " as described"), std::string::npos) << plan.explain();
      const Status ran =
          plan.run(reinterpret_cast<const void*>(256), reinterpret_cast<void*>(4096));
      EXPECT_EQ(ran.code, StatusCode::kInvalidArgument);
      EXPECT_NE(ran.message.find("cannot run"), std::string::npos) << ran.message;
    }
  }
  TuneOptions measure;
  measure.gpu = "h100";
  measure.mode = Tuning::kMeasure;
  Plan plan;
  Status s = make_plan(&plan, 64, 64, 4, {}, {}, measure);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("cannot measure"), std::string::npos) << s.message;
  TuneOptions unknown;
  unknown.gpu = "a100";
  s = make_plan(&plan, 64, 64, 4, {}, {}, unknown);
  EXPECT_EQ(s.code, StatusCode::kInvalidArgument);
  EXPECT_NE(s.message.find("'a100'"), std::string::npos) << s.message;
  EXPECT_NE(s.message.find("H100"), std::string::npos) << s.message;
}

}  // namespace
}  // namespace tmakit
