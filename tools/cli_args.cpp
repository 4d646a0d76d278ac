// Flag parsing with user errors that name the flag and the fix.
#include "tools/cli_args.h"

#include <charconv>
#include <cmath>

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

CliArgs::CliArgs(const std::string& tool, const std::vector<std::string>& args,
                 const std::vector<std::string>& value_flags, const std::vector<std::string>& switches)
    : tool_(tool) {
  auto contains = [](const std::vector<std::string>& list, const std::string& flag) {
    return std::find(list.begin(), list.end(), flag) != list.end();
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.size() < 2 || arg[0] != '-') {
      positionals_.push_back(arg);
      continue;
    }
    size_t equals = arg.find('=');
    std::string flag = arg.substr(0, equals);
    if (contains(switches, flag) && equals == std::string::npos) {
      values_[flag].push_back("");
    } else if (contains(value_flags, flag)) {
      if (equals != std::string::npos) {
        values_[flag].push_back(arg.substr(equals + 1));
      } else if (i + 1 < args.size()) {
        values_[flag].push_back(args[++i]);
      } else {
        throw UserError(fmt::format("{} needs a value; see {} --help", flag, tool));
      }
    } else {
      throw UserError(fmt::format("unknown flag '{}'; see {} --help", flag, tool));
    }
  }
}

std::optional<std::string> CliArgs::last(const std::string& flag) const {
  auto found = values_.find(flag);
  if (found == values_.end()) return std::nullopt;
  return found->second.back();
}

std::vector<std::string> CliArgs::all(const std::string& flag) const {
  auto found = values_.find(flag);
  return found == values_.end() ? std::vector<std::string>{} : found->second;
}

std::optional<int64_t> decimal_integer(const std::string& text, int64_t low, int64_t high) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc{} || stop != end || value < low || value > high) return std::nullopt;
  return value;
}

// Plain decimal text only (decimal_integer); std::stod would also take "inf" or "nan".
int64_t CliArgs::integer(const std::string& flag, int64_t fallback, int64_t low, int64_t high) const {
  auto text = last(flag);
  if (!text) return fallback;
  std::optional<int64_t> value = decimal_integer(*text, low, high);
  if (!value) throw UserError(fmt::format("{} '{}' must be an integer from {} to {}", flag, *text, low, high));
  return *value;
}

double CliArgs::number(const std::string& flag, double fallback) const {
  auto text = last(flag);
  if (!text) return fallback;
  double value = 0;
  const char* end = text->data() + text->size();
  auto [stop, error] = std::from_chars(text->data(), end, value, std::chars_format::general);
  if (error == std::errc::result_out_of_range)
    throw UserError(fmt::format("{} '{}' is out of the range of a double; give a smaller number", flag, *text));
  if (error != std::errc{} || stop != end) throw UserError(fmt::format("{} '{}' must be a number", flag, *text));
  if (!std::isfinite(value))
    throw UserError(fmt::format("{} '{}' must be a finite number (not inf or nan)", flag, *text));
  return value;
}

}  // namespace pet
