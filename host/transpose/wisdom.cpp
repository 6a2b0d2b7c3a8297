// Wisdom: the store, its text format and the file functions of tmakit/plan.hpp (format in
// host/transpose/wisdom.hpp). A file is parsed whole before anything of it is merged, so a
// corrupt or truncated one changes nothing; every error names the file and the line.
#include <host/transpose/wisdom.hpp>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>
#include <host/error.hpp>
#include <host/transpose/plan_state.hpp>
#include <host/transpose/registry.hpp>

namespace tmakit {
namespace {

constexpr int kWisdomVersion = 1;
constexpr const char* kMagic = "tmakit-wisdom";
// The fields of a record, in the order they are written.
constexpr const char* kFields[] = {"gpu",     "sms",     "mem_khz", "driver",
                                   "problem", "variant", "us",      "candidates"};
constexpr int kFieldCount = 8;

Status bad(const std::string& origin, int line, const std::string& what) {
  return make_status(StatusCode::kInvalidArgument,
                     "wisdom " + origin + ", line " + std::to_string(line) + ": " + what);
}

bool parse_int(const std::string& s, long long lo, long long hi, long long* v) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || x < lo || x > hi) return false;
  *v = x;
  return true;
}

bool parse_us(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double x = std::strtod(s.c_str(), &end);
  if (*end != '\0' || !std::isfinite(x) || x < 0) return false;
  *v = x;
  return true;
}

}  // namespace

bool GpuKey::operator<(const GpuKey& o) const {
  return std::tie(name, sm_count, mem_clock_khz, driver_version) <
         std::tie(o.name, o.sm_count, o.mem_clock_khz, o.driver_version);
}
bool GpuKey::operator==(const GpuKey& o) const {
  return name == o.name && sm_count == o.sm_count && mem_clock_khz == o.mem_clock_khz &&
         driver_version == o.driver_version;
}
std::string GpuKey::describe() const {
  return name + " (" + std::to_string(sm_count) + " SMs, memory " +
         std::to_string(mem_clock_khz / 1000) + " MHz, driver " +
         std::to_string(driver_version / 1000) + "." + std::to_string(driver_version % 1000 / 10) +
         ")";
}

bool WisdomStore::find(const GpuKey& gpu, const std::string& problem, WisdomEntry* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = entries_.find({gpu, problem});
  if (it == entries_.end()) return false;
  *out = it->second;
  return true;
}

void WisdomStore::record(const GpuKey& gpu, const std::string& problem, const WisdomEntry& e) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_[{gpu, problem}] = e;
}

void WisdomStore::clear() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    entries_.clear();
  }
  detail::bump_wisdom_generation();
}

int WisdomStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(entries_.size());
}

std::string WisdomStore::export_text() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out = std::string(kMagic) + " " + std::to_string(kWisdomVersion) + "\n";
  out +=
      "# tmakit plans' measured decisions: per GPU model (name, SMs, memory clock in kHz) and "
      "driver,\n# the technique timed fastest for a problem (docs/plans.md). One record per "
      "line, tab-separated.\n";
  char us[32];
  for (const auto& [key, e] : entries_) {
    const GpuKey& g = key.first;
    std::snprintf(us, sizeof us, "%.3f", e.us);
    out += "gpu=" + g.name + "\tsms=" + std::to_string(g.sm_count) +
           "\tmem_khz=" + std::to_string(g.mem_clock_khz) +
           "\tdriver=" + std::to_string(g.driver_version) + "\tproblem=" + key.second +
           "\tvariant=" + e.variant + "\tus=" + us +
           "\tcandidates=" + std::to_string(e.candidates) + "\n";
  }
  out += "end " + std::to_string(entries_.size()) + "\n";
  return out;
}

Status WisdomStore::import_text(const std::string& text, const std::string& origin,
                                const GpuKey* current, WisdomLoad* loaded) {
  std::vector<std::pair<std::pair<GpuKey, std::string>, WisdomEntry>> parsed;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool header = false, ended = false;
  long long end_count = -1;
  while (std::getline(in, line)) {
    ++n;
    const bool complete = !in.eof();  // getline hit a newline (the last line of a file ends in one)
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!header) {
      if (line.rfind(kMagic, 0) != 0)
        return bad(origin, n,
                   "not a tmakit wisdom file (it starts with '" + line.substr(0, 40) +
                       "', not 'tmakit-wisdom <version>')");
      long long v = 0;
      const std::string ver = line.size() > std::strlen(kMagic) + 1
                                  ? line.substr(std::strlen(kMagic) + 1)
                                  : std::string();
      if (line.size() <= std::strlen(kMagic) || line[std::strlen(kMagic)] != ' ' ||
          !parse_int(ver, 1, 1000000, &v))
        return bad(origin, n,
                   "the first line must be 'tmakit-wisdom <version>' (got '" + line + "')");
      if (v != kWisdomVersion)
        return bad(origin, n,
                   "format version " + std::to_string(v) + "; this tmakit reads version " +
                       std::to_string(kWisdomVersion));
      header = true;
      continue;
    }
    if (ended) {
      if (line.empty() || line[0] == '#') continue;
      return bad(origin, n, "text after the 'end' line");
    }
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("end", 0) == 0) {
      if (line.size() < 5 || line[3] != ' ' || !parse_int(line.substr(4), 0, 1 << 30, &end_count))
        return bad(origin, n, "'end' must be followed by the record count (got '" + line + "')");
      if (end_count != static_cast<long long>(parsed.size()))
        return bad(origin, n,
                   "'end' counts " + std::to_string(end_count) + " records but the file holds " +
                       std::to_string(parsed.size()) + " (records lost?)");
      ended = true;
      continue;
    }
    // A record: exactly the fields of kFields, in order.
    std::vector<std::string> parts;
    std::size_t at = 0;
    while (true) {
      const std::size_t tab = line.find('\t', at);
      parts.push_back(line.substr(at, tab == std::string::npos ? std::string::npos : tab - at));
      if (tab == std::string::npos) break;
      at = tab + 1;
    }
    if (!complete) return bad(origin, n, "the last record has no line end: the file was cut short");
    if (static_cast<int>(parts.size()) != kFieldCount)
      return bad(
          origin, n,
          "a record has " + std::to_string(kFieldCount) + " tab-separated fields (" +
              "gpu, sms, mem_khz, driver, problem, variant, us, candidates); this line has " +
              std::to_string(parts.size()));
    std::string value[kFieldCount];
    for (int i = 0; i < kFieldCount; ++i) {
      const std::string want = std::string(kFields[i]) + "=";
      if (parts[i].rfind(want, 0) != 0)
        return bad(origin, n,
                   "field " + std::to_string(i + 1) + " must be " + want + "... (got '" +
                       parts[i].substr(0, 40) + "')");
      value[i] = parts[i].substr(want.size());
    }
    GpuKey g;
    g.name = value[0];
    long long sms = 0, mem = 0, drv = 0, cand = 0;
    if (g.name.empty()) return bad(origin, n, "gpu is empty");
    if (!parse_int(value[1], 1, 1 << 20, &sms))
      return bad(origin, n, "sms='" + value[1] + "' is not a positive integer");
    if (!parse_int(value[2], 1, 1ll << 31, &mem))
      return bad(origin, n, "mem_khz='" + value[2] + "' is not a positive integer");
    if (!parse_int(value[3], 1, 1ll << 31, &drv))
      return bad(origin, n, "driver='" + value[3] + "' is not a positive integer");
    g.sm_count = static_cast<int>(sms);
    g.mem_clock_khz = static_cast<int>(mem);
    g.driver_version = static_cast<int>(drv);
    if (value[4].empty()) return bad(origin, n, "problem is empty");
    WisdomEntry e;
    e.variant = value[5];
    // A transpose() technique, or a permutation's (permute()'s records, host/permute/tune.cpp).
    if (find_variant_def(e.variant) == nullptr && find_permute_def(e.variant) == nullptr)
      return bad(origin, n, "variant '" + e.variant + "' is not a technique of this tmakit");
    if (!parse_us(value[6], &e.us)) return bad(origin, n, "us='" + value[6] + "' is not a time");
    if (!parse_int(value[7], 1, 1 << 20, &cand))
      return bad(origin, n, "candidates='" + value[7] + "' is not a positive integer");
    e.candidates = static_cast<int>(cand);
    parsed.push_back({{g, value[4]}, e});
  }
  if (!header) return bad(origin, 1, "empty: no 'tmakit-wisdom <version>' line");
  if (!ended)
    return bad(origin, n,
               "no 'end <count>' line: the file was cut short (" + std::to_string(parsed.size()) +
                   " records read, none kept)");
  WisdomLoad count;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, e] : parsed) {
      entries_[key] = e;
      ++count.entries;
      if (current != nullptr && key.first == *current)
        ++count.for_this_gpu;
      else
        ++count.for_other_gpus;
    }
  }
  if (loaded != nullptr) *loaded = count;
  detail::bump_wisdom_generation();
  return {};
}

Status current_gpu_key(GpuKey* key) {
  // Cached per device: query_device (cudaGetDeviceProperties) takes most of a millisecond, and
  // every plan (every transpose() of a new problem) asks.
  static std::mutex mu;
  static std::map<int, GpuKey> cache;
  int dev = -1;
  if (cudaGetDevice(&dev) == cudaSuccess) {
    std::lock_guard<std::mutex> lock(mu);
    if (const auto it = cache.find(dev); it != cache.end()) {
      *key = it->second;
      return {};
    }
  }
  cudaGetLastError();
  DeviceInfo d;
  if (Status s = query_device(&d); !s) return s;
  key->name = d.name;
  key->sm_count = d.sm_count;
  key->mem_clock_khz = d.mem_clock_khz;
  key->driver_version = d.driver_version;
  std::lock_guard<std::mutex> lock(mu);
  cache[d.device] = *key;
  return {};
}

namespace {

Status read_file(const std::string& path, std::string* text) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    return make_status(StatusCode::kInvalidArgument,
                       "wisdom " + path + ": cannot open it (" + std::strerror(errno) + ")");
  std::ostringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  if (text->find('\0') != std::string::npos)
    return make_status(StatusCode::kInvalidArgument,
                       "wisdom " + path + ": holds NUL bytes (not a text file)");
  return {};
}

Status load_into(WisdomStore& store, const std::string& path, WisdomLoad* loaded) {
  std::string text;
  if (Status s = read_file(path, &text); !s) return s;
  GpuKey gpu;
  const bool have_gpu = current_gpu_key(&gpu).ok();
  cudaGetLastError();
  return store.import_text(text, path, have_gpu ? &gpu : nullptr, loaded);
}

}  // namespace

WisdomStore& wisdom_store() {
  static WisdomStore store;
  static std::once_flag env_once;
  std::call_once(env_once, [] {
    const char* path = std::getenv("TMAKIT_WISDOM");
    if (path == nullptr || *path == '\0') return;
    if (Status s = load_into(store, path, nullptr); !s)
      std::fprintf(stderr, "tmakit: TMAKIT_WISDOM: %s; the file is ignored\n", s.message.c_str());
  });
  return store;
}

const char* to_string(Tuning mode) {
  return mode == Tuning::kMeasure ? "measure" : mode == Tuning::kDefault ? "default" : "heuristic";
}

namespace {

std::atomic<int>& default_tuning_value() {
  static std::atomic<int> mode{[] {
    const char* e = std::getenv("TMAKIT_TUNING");
    if (e == nullptr || *e == '\0' || std::strcmp(e, "heuristic") == 0)
      return static_cast<int>(Tuning::kHeuristic);
    if (std::strcmp(e, "measure") == 0) return static_cast<int>(Tuning::kMeasure);
    std::fprintf(stderr,
                 "tmakit: TMAKIT_TUNING='%s' is neither measure nor heuristic; it is ignored\n", e);
    return static_cast<int>(Tuning::kHeuristic);
  }()};
  return mode;
}

}  // namespace

Status set_default_tuning(Tuning mode) {
  if (mode != Tuning::kHeuristic && mode != Tuning::kMeasure)
    return make_status(StatusCode::kInvalidArgument,
                       "set_default_tuning: the default is kHeuristic or kMeasure");
  default_tuning_value().store(static_cast<int>(mode));
  return {};
}

Tuning default_tuning() {
  return static_cast<Tuning>(default_tuning_value().load());
}

void save_measured_wisdom() {
  const char* path = std::getenv("TMAKIT_WISDOM");
  if (path == nullptr || *path == '\0') return;
  if (Status s = save_wisdom(path); !s)
    std::fprintf(stderr, "tmakit: TMAKIT_WISDOM: %s\n", s.message.c_str());
}

Status load_wisdom(const std::string& path, WisdomLoad* loaded) {
  return load_into(wisdom_store(), path, loaded);
}

Status import_wisdom(const std::string& text, const std::string& origin, WisdomLoad* loaded) {
  GpuKey gpu;
  const bool have_gpu = current_gpu_key(&gpu).ok();
  cudaGetLastError();
  return wisdom_store().import_text(text, origin, have_gpu ? &gpu : nullptr, loaded);
}

Status save_wisdom(const std::string& path) {
  const std::string text = wisdom_store().export_text();
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f)
      return make_status(StatusCode::kInvalidArgument, "wisdom " + path + ": cannot write " + tmp +
                                                           " (" + std::strerror(errno) + ")");
    f << text;
    f.flush();
    if (!f)
      return make_status(StatusCode::kInvalidArgument,
                         "wisdom " + path + ": writing " + tmp + " failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return make_status(StatusCode::kInvalidArgument,
                       "wisdom " + path + ": cannot replace it (" + why + ")");
  }
  return {};
}

std::string export_wisdom() {
  return wisdom_store().export_text();
}

void clear_wisdom() {
  wisdom_store().clear();
}

int wisdom_size() {
  return wisdom_store().size();
}

}  // namespace tmakit
