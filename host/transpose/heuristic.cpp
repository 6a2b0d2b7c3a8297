// The tuning tables and the nearest-cell ranking (host/transpose/heuristic.hpp).
#include <host/transpose/heuristic.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <kernels/launchers.hpp>

namespace tmakit {
namespace {

#include <host/transpose/tuning/h100.inc>
#include <host/transpose/tuning/h200.inc>

struct Cell {
  int elem_bytes = 0;
  std::int64_t batch = 1, rows = 0, cols = 0;
  std::vector<float> ratio;                                         // per token; 0: did not run
  double log_rows = 0, log_cols = 0, log_batch = 0, log_bytes = 0;  // for distance()
};

struct Table {
  std::string gpu;
  std::vector<std::string> tokens;
  std::vector<Cell> cells;
};

Table parse(const char* text) {
  Table t;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("tmakit-tuning", 0) == 0 || line.empty()) continue;
    if (line.rfind("gpu ", 0) == 0) {
      t.gpu = line.substr(4);
      continue;
    }
    std::istringstream ls(line);
    if (line.rfind("tokens ", 0) == 0) {
      std::string word;
      ls >> word;
      while (ls >> word) t.tokens.push_back(word);
      continue;
    }
    Cell c;
    ls >> c.elem_bytes >> c.batch >> c.rows >> c.cols;
    c.ratio.resize(t.tokens.size());
    for (float& r : c.ratio) ls >> r;
    if (!ls || c.rows < 1 || c.cols < 1 || c.batch < 1) continue;
    c.log_rows = std::log2(double(c.rows));
    c.log_cols = std::log2(double(c.cols));
    c.log_batch = std::log2(double(c.batch));
    c.log_bytes = std::log2(double(c.batch) * c.rows * c.cols * c.elem_bytes);
    t.cells.push_back(std::move(c));
  }
  return t;
}

const std::vector<Table>& tables() {
  static const std::vector<Table> all = {parse(kTuning_h100), parse(kTuning_h200)};
  return all;
}

// The class a cell shares with its neighbours.
struct Group {
  int elem_bytes;
  bool small_side, rows16, batched;
  bool operator==(const Group& o) const {
    return elem_bytes == o.elem_bytes && small_side == o.small_side && rows16 == o.rows16 &&
           batched == o.batched;
  }
};

Group group_of(std::int64_t rows, std::int64_t cols, int e, std::int64_t batch) {
  return {e, std::min(rows, cols) <= 32, (rows * e) % 16 == 0 && (cols * e) % 16 == 0, batch > 1};
}

// The problem's logs, as a cell holds them.
struct Point {
  double log_rows, log_cols, log_batch, log_bytes;
};

double distance(const Cell& c, const Point& p) {
  const double dr = c.log_rows - p.log_rows, dc = c.log_cols - p.log_cols,
               db = c.log_batch - p.log_batch, dbytes = c.log_bytes - p.log_bytes;
  return std::sqrt(dr * dr + dc * dc + db * db + 3 * dbytes * dbytes);
}

}  // namespace

HeuristicRanking rank_techniques(const std::string& gpu_name, double dram_gbps, std::int64_t rows,
                                 std::int64_t cols, int elem_bytes, std::int64_t batch) {
  HeuristicRanking out;
  const std::vector<Table>& all = tables();
  const Table* table = nullptr;
  for (const Table& t : all)
    if (t.gpu == gpu_name) table = &t;
  if (table == nullptr) table = &all[kernels::is_hbm3e(dram_gbps) ? 1 : 0];
  batch = std::max<std::int64_t>(batch, 1);
  const Group g = group_of(rows, cols, elem_bytes, batch);
  const Point p{std::log2(double(rows)), std::log2(double(cols)), std::log2(double(batch)),
                std::log2(double(batch) * rows * cols * elem_bytes)};
  std::vector<std::pair<double, const Cell*>> near;
  for (const Cell& c : table->cells)
    if (group_of(c.rows, c.cols, c.elem_bytes, c.batch) == g) near.push_back({distance(c, p), &c});
  if (near.empty())  // no cell of the class: the same element size
    for (const Cell& c : table->cells)
      if (c.elem_bytes == elem_bytes) near.push_back({distance(c, p), &c});
  if (near.empty()) return out;
  std::sort(near.begin(), near.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  const std::size_t k = near[0].first == 0 ? 1 : std::min<std::size_t>(3, near.size());
  std::vector<double> sum(table->tokens.size(), 0);
  std::vector<int> count(table->tokens.size(), 0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = 0; j < table->tokens.size(); ++j)
      if (near[i].second->ratio[j] > 0) {
        sum[j] += near[i].second->ratio[j];
        ++count[j];
      }
  for (std::size_t j = 0; j < table->tokens.size(); ++j)
    if (count[j] == static_cast<int>(k)) out.ranked.push_back({table->tokens[j], sum[j] / k});
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  out.table = table->gpu;
  out.cells = static_cast<int>(k);
  out.distance = near[k - 1].first;
  return out;
}

std::vector<std::string> tuning_tables() {
  std::vector<std::string> out;
  for (const Table& t : tables())
    out.push_back(t.gpu + " (" + std::to_string(t.cells.size()) + " cells)");
  return out;
}

}  // namespace tmakit
