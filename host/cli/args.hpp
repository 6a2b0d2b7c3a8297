// Command-line values, checked whole: every bad argument of every subcommand is one line on
// stderr that names the argument and what is wrong with it, before anything touches a GPU.
#pragma once
#include <cstdint>
#include <string>
#include <vector>
#include <tmakit/tmakit.hpp>

namespace tmakit::cli {

// The exit codes of every subcommand: 0 done, 1 a failure (a wrong result, a refused call), 2 a
// usage error, 3 no usable CUDA device.
// "tmakit <cmd>: <s.message>" on stderr; returns 3 when s is kNoDevice, else 1.
int status_error(const std::string& cmd, const Status& s);

// "tmakit <cmd>: <what>" on stderr (cmd empty: "tmakit: <what>"); returns 2, the usage-error
// exit code of every subcommand.
int arg_error(const std::string& cmd, const std::string& what);

// A whole decimal integer in [lo, hi] (no sign games, no trailing text, no overflow).
bool parse_integer(const std::string& text, long long lo, long long hi, long long* out);

// The comma-separated pieces of text, empty ones kept ("" is one empty piece).
std::vector<std::string> split_commas(const std::string& text);

// The value after option args[i], advancing i; false (nothing printed) when there is none.
bool take_value(const std::vector<std::string>& args, std::size_t* i, std::string* out);

// take_value + parse_integer, printing the one-line error itself; false on any failure.
bool take_integer(const std::string& cmd, const std::vector<std::string>& args, std::size_t* i,
                  long long lo, long long hi, long long* out);

// Empty when token names a registered technique (or "auto" where allowed), else the error.
std::string check_technique(const std::string& token, bool allow_auto);

}  // namespace tmakit::cli
