// A small command-line parser shared by the tools: flags with values, repeats and positionals.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pet {

// `text` as a plain decimal integer in [low, high]: no blanks, '+', hex, "inf" or "nan" (std::stoll
// takes some of those, none of which a user means as a count); nullopt otherwise.
std::optional<int64_t> decimal_integer(const std::string& text, int64_t low, int64_t high);

class CliArgs {
 public:
  // `value_flags` take a value (`--beam 8` or `--beam=8`); `switches` take none. Unknown flags
  // are UserErrors that point at `tool --help`.
  CliArgs(const std::string& tool, const std::vector<std::string>& args, const std::vector<std::string>& value_flags,
          const std::vector<std::string>& switches);

  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  std::optional<std::string> last(const std::string& flag) const;
  std::vector<std::string> all(const std::string& flag) const;
  const std::vector<std::string>& positionals() const { return positionals_; }
  // The flag's value as an integer in [low, high], or `fallback` when absent.
  int64_t integer(const std::string& flag, int64_t fallback, int64_t low, int64_t high) const;
  // The flag's value as a finite number, or `fallback` when absent.
  double number(const std::string& flag, double fallback) const;

 private:
  std::string tool_;
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positionals_;
};

}  // namespace pet
