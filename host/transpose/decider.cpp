// The tuning tables and the ranking over them (host/transpose/decider.hpp).
#include <host/transpose/decider.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

namespace tmakit {
namespace {

#include <host/transpose/tuning/h100.inc>
#include <host/transpose/tuning/h200.inc>

// The ranking's parameters, fitted per GPU by scripts/tuning_table.py (its `model` line, the
// same names): the neighbours taken, the weights of the log2 features' differences, the
// distance added per flag that differs, the score of a technique that did not run in a
// neighbour.
struct ModelParams {
  int k = 7;
  double power = 3;  // neighbour weight 1 / (distance + 0.05)^power
  double w_bytes = 0.5, w_src = 0.5, w_dst = 1, w_mat = 0;
  double a_src16 = 4, a_dst16 = 2, a_dst32 = 1, a_batch = 0, a_short = 8;
  double missing = 0.3;  // log of the time over the fastest charged where it did not run
};

// What explains the kernels' speed: the bytes moved, the bytes of a source row (cols * e) and
// of a destination row (rows * e), of one matrix; whether each side's rows are whole 16-byte
// chunks (the vector and TMA forms) and the destination's whole 32-byte sectors, a batch, and a
// side of at most 32 elements (the strip and flat forms, which span it whole).
struct Features {
  double log_bytes, log_src_row, log_dst_row, log_matrix;
  bool src16, dst16, dst32, batched, short32;
};

Features features_of(int e, std::int64_t batch, std::int64_t rows, std::int64_t cols) {
  const double b = static_cast<double>(std::max<std::int64_t>(batch, 1));
  return {std::log2(b * rows * cols * e), std::log2(double(cols) * e),
          std::log2(double(rows) * e),    std::log2(double(rows) * cols * e),
          (cols * e) % 16 == 0,           (rows * e) % 16 == 0,
          (rows * e) % 32 == 0,           batch > 1,
          std::min(rows, cols) <= 32};
}

struct Cell {
  int elem_bytes = 0;
  std::int64_t batch = 1, rows = 0, cols = 0;
  Features f{};
  std::vector<float> log_ratio;  // per token; NAN: did not run
};

struct Section {
  std::vector<std::string> tokens;
  std::vector<Cell> cells;
};

struct Table {
  std::string name;  // the file's: h100, h200
  std::string gpu;
  double dram_gbps = 0;
  int sm_count = 0;
  ModelParams model;
  std::map<ProblemKind, Section> kinds;
  std::size_t cell_count() const {
    std::size_t n = 0;
    for (const auto& [k, s] : kinds) n += s.cells.size();
    return n;
  }
};

void parse_model(const std::string& line, ModelParams* m) {
  std::istringstream in(line.substr(6));
  std::string item;
  while (in >> item) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string k = item.substr(0, eq);
    const double v = std::atof(item.c_str() + eq + 1);
    if (k == "k") m->k = std::max(1, static_cast<int>(v));
    if (k == "p") m->power = v;
    if (k == "w_bytes") m->w_bytes = v;
    if (k == "w_src") m->w_src = v;
    if (k == "w_dst") m->w_dst = v;
    if (k == "w_mat") m->w_mat = v;
    if (k == "a_short") m->a_short = v;
    if (k == "a_src16") m->a_src16 = v;
    if (k == "a_dst16") m->a_dst16 = v;
    if (k == "a_dst32") m->a_dst32 = v;
    if (k == "a_batch") m->a_batch = v;
    if (k == "missing") m->missing = v;
  }
}

Table parse(const char* name, const char* text) {
  Table t;
  t.name = name;
  std::istringstream in(text);
  std::string line;
  Section* s = nullptr;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("tmakit-tuning", 0) == 0) continue;
    if (line.rfind("gpu ", 0) == 0) {
      t.gpu = line.substr(4);
    } else if (line.rfind("dram_gbps ", 0) == 0) {
      t.dram_gbps = std::atof(line.c_str() + 10);
    } else if (line.rfind("sm_count ", 0) == 0) {
      t.sm_count = std::atoi(line.c_str() + 9);
    } else if (line.rfind("model ", 0) == 0) {
      parse_model(line, &t.model);
    } else if (line.rfind("kind ", 0) == 0) {
      const std::string k = line.substr(5);
      const ProblemKind kind = k == "accumulate"    ? ProblemKind::kAccumulate
                               : k == "accumulate0" ? ProblemKind::kAccumulateBeta0
                                                    : ProblemKind::kTranspose;
      s = &t.kinds[kind];
    } else if (line.rfind("tokens ", 0) == 0 && s != nullptr) {
      std::istringstream ls(line.substr(7));
      std::string word;
      while (ls >> word) s->tokens.push_back(word);
    } else if (s != nullptr) {
      std::istringstream ls(line);
      Cell c;
      ls >> c.elem_bytes >> c.batch >> c.rows >> c.cols;
      c.log_ratio.resize(s->tokens.size());
      for (float& r : c.log_ratio) {
        float ratio = 0;
        ls >> ratio;
        r = ratio >= 1 ? std::log(ratio) : NAN;
      }
      if (!ls || c.rows < 1 || c.cols < 1 || c.batch < 1 || c.elem_bytes < 1) continue;
      c.f = features_of(c.elem_bytes, c.batch, c.rows, c.cols);
      s->cells.push_back(std::move(c));
    }
  }
  return t;
}

const std::vector<Table>& tables() {
  static const std::vector<Table> all = {parse("h100", kTuning_h100), parse("h200", kTuning_h200)};
  return all;
}

double distance(const ModelParams& m, const Features& a, const Features& b) {
  const double db = a.log_bytes - b.log_bytes, ds = a.log_src_row - b.log_src_row,
               dd = a.log_dst_row - b.log_dst_row, dm = a.log_matrix - b.log_matrix;
  return std::sqrt(m.w_bytes * db * db + m.w_src * ds * ds + m.w_dst * dd * dd +
                   m.w_mat * dm * dm) +
         m.a_src16 * (a.src16 != b.src16) + m.a_dst16 * (a.dst16 != b.dst16) +
         m.a_dst32 * (a.dst32 != b.dst32) + m.a_batch * (a.batched != b.batched) +
         m.a_short * (a.short32 != b.short32);
}

const Table& table_for(const std::string& gpu_name, double dram_gbps) {
  const std::vector<Table>& all = tables();
  for (const Table& t : all)
    if (t.gpu == gpu_name) return t;
  const Table* best = &all[0];
  for (const Table& t : all)
    if (dram_gbps > 0 && std::abs(t.dram_gbps - dram_gbps) < std::abs(best->dram_gbps - dram_gbps))
      best = &t;
  return *best;
}

}  // namespace

Ranking rank_techniques(const std::string& gpu_name, double dram_gbps, const Problem& p) {
  Ranking out;
  const Table& table = table_for(gpu_name, dram_gbps);
  const auto kind = table.kinds.find(p.kind);
  if (kind == table.kinds.end()) return out;
  const Section& s = kind->second;
  const ModelParams& m = table.model;
  const Features f = features_of(p.elem_bytes, p.batch, p.rows, p.cols);
  std::vector<std::pair<double, const Cell*>> near;
  for (const Cell& c : s.cells)
    if (c.elem_bytes == p.elem_bytes) near.push_back({distance(m, c.f, f), &c});
  if (near.empty()) return out;
  const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(m.k), near.size());
  // Ties in distance go to the table's order (scripts/tuning_table.py's, which fits the model).
  std::partial_sort(near.begin(), near.begin() + k, near.end(), [](const auto& a, const auto& b) {
    return a.first < b.first || (a.first == b.first && a.second < b.second);
  });
  // Each technique's score: the neighbours' log time over their fastest, weighted by nearness,
  // `missing` where it did not run; a technique that ran in none of the neighbours is not ranked.
  const std::size_t n = s.tokens.size();
  std::vector<double> sum(n, 0);
  std::vector<bool> ran(n, false);
  double total = 0;
  for (std::size_t i = 0; i < k; ++i) {
    const double w = 1 / std::pow(near[i].first + 0.05, m.power);
    total += w;
    for (std::size_t j = 0; j < n; ++j) {
      const float lr = near[i].second->log_ratio[j];
      ran[j] = ran[j] || !std::isnan(lr);
      sum[j] += w * (std::isnan(lr) ? m.missing : lr);
    }
  }
  for (std::size_t j = 0; j < n; ++j)
    if (ran[j]) out.ranked.push_back({s.tokens[j], std::exp(sum[j] / total)});
  std::stable_sort(out.ranked.begin(), out.ranked.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  out.table = table.gpu;
  out.cells = static_cast<int>(k);
  out.distance = near[k - 1].first;
  return out;
}

std::string last_resort_technique(const Problem& p) {
  // Techniques that run every call of their kind at any alignment, by shape class: the strip for
  // a short side (it spans it whole), the padded tile at 16 B (the widest classic element), the
  // 64 x 64 XOR tile otherwise.
  if (p.kind != ProblemKind::kTranspose) return "smem_accumulate";
  if (std::min(p.rows, p.cols) <= 32) return "smem_strip";
  return p.elem_bytes == 16 ? "smem_padded" : "smem_wide";
}

std::string explain_ranking(const std::string& gpu_name, double dram_gbps, const Problem& p) {
  const char* kind = p.kind == ProblemKind::kTranspose    ? "transpose"
                     : p.kind == ProblemKind::kAccumulate ? "accumulate"
                                                          : "accumulate beta 0";
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %d B %lldx%lldx%lld: ", kind, p.elem_bytes,
                static_cast<long long>(p.batch), static_cast<long long>(p.rows),
                static_cast<long long>(p.cols));
  std::string out = buf;
  const Ranking r = rank_techniques(gpu_name, dram_gbps, p);
  if (r.ranked.empty())
    return out + "no cells of its class: the last resort " + last_resort_technique(p);
  std::snprintf(buf, sizeof buf, "%s, %d cells (distance %.2f):", r.table.c_str(), r.cells,
                r.distance);
  out += buf;
  for (std::size_t i = 0; i < r.ranked.size() && i < 5; ++i) {
    std::snprintf(buf, sizeof buf, "%s %s %.3f", i ? "," : "", r.ranked[i].first.c_str(),
                  r.ranked[i].second);
    out += buf;
  }
  return out;
}

bool tuning_table_gpu(const std::string& name, TableGpu* out) {
  for (const Table& t : tables())
    if (name == t.name || name == t.gpu) {
      *out = {t.gpu, t.dram_gbps, t.sm_count};
      return true;
    }
  return false;
}

std::vector<std::string> tuning_tables() {
  std::vector<std::string> out;
  for (const Table& t : tables())
    out.push_back(t.gpu + " (" + std::to_string(t.cell_count()) + " cells)");
  return out;
}

}  // namespace tmakit
