#include <host/cli/args.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <tmakit/tmakit.hpp>

namespace tmakit::cli {

int arg_error(const std::string& cmd, const std::string& what) {
  std::fprintf(stderr, "tmakit%s%s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(), what.c_str());
  return 2;
}

int status_error(const std::string& cmd, const Status& s) {
  std::fprintf(stderr, "tmakit%s%s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(), s.message.c_str());
  return s.code == StatusCode::kNoDevice ? 3 : 1;
}

bool parse_integer(const std::string& text, long long lo, long long hi, long long* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool take_value(const std::vector<std::string>& args, std::size_t* i, std::string* out) {
  if (*i + 1 >= args.size()) return false;
  *out = args[++*i];
  return true;
}

bool take_integer(const std::string& cmd, const std::vector<std::string>& args, std::size_t* i,
                  long long lo, long long hi, long long* out) {
  const std::string opt = args[*i];
  std::string text;
  if (!take_value(args, i, &text)) {
    arg_error(cmd, opt + " needs an integer value from " + std::to_string(lo) + " to " +
                       std::to_string(hi));
    return false;
  }
  if (!parse_integer(text, lo, hi, out)) {
    arg_error(cmd, opt + ": '" + text + "' is not an integer from " + std::to_string(lo) + " to " +
                       std::to_string(hi));
    return false;
  }
  return true;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::string check_technique(const std::string& token, bool allow_auto) {
  if ((allow_auto && token == "auto") || find_variant(token) != nullptr) return {};
  std::string known = allow_auto ? "auto" : "";
  for (const VariantInfo& v : variants()) known += (known.empty() ? "" : ", ") + v.token;
  return "'" + token + "' is not a technique (known: " + known + ")";
}

}  // namespace tmakit::cli
