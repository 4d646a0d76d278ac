// Flag parsing with user errors that name the flag and the fix.
#include "tools/cli_args.h"

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

int64_t CliArgs::integer(const std::string& flag, int64_t fallback, int64_t low, int64_t high) const {
  auto text = last(flag);
  if (!text) return fallback;
  size_t used = 0;
  int64_t value = 0;
  try {
    value = std::stoll(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || value < low || value > high)
    throw UserError(fmt::format("{} '{}' must be an integer from {} to {}", flag, *text, low, high));
  return value;
}

double CliArgs::number(const std::string& flag, double fallback) const {
  auto text = last(flag);
  if (!text) return fallback;
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(*text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text->size() || !std::isfinite(value))
    throw UserError(fmt::format("{} '{}' must be a number", flag, *text));
  return value;
}

}  // namespace pet
