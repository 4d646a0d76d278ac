// Targets: how a measured target is named in the profile DB and in reports.
#include "search/cost/target.h"

#include <cstdio>
#include <vector>

#include <fmt/format.h>

namespace pet::cost {
namespace {

constexpr const char* kSeparator = " | ";

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t at = text.find(kSeparator); at != std::string::npos; at = text.find(kSeparator, start)) {
    fields.push_back(text.substr(start, at - start));
    start = at + 3;
  }
  fields.push_back(text.substr(start));
  return fields;
}

std::string thread_count(int threads) { return fmt::format("{} thread{}", threads, threads == 1 ? "" : "s"); }

}  // namespace

std::string Target::db_device() const {
  if (!measured) return name;
  return fmt::format("{}{}{}{}{}{}{}", name, kSeparator, runtime, kSeparator, cpu, kSeparator, thread_count(threads));
}

std::string Target::describe() const {
  if (!measured) return name + " (estimated)";
  if (runtime.empty()) return name + " (no times recorded for this build: estimated)";
  return fmt::format("{} ({}, {}, {})", name, runtime, thread_count(threads), cpu);
}

Target parse_db_device(const std::string& device) {
  std::vector<std::string> fields = split_fields(device);
  Target target;
  if (fields.size() != 4) return target;
  int threads = 0;
  if (std::sscanf(fields[3].c_str(), "%d thread", &threads) != 1 || threads < 1) return target;
  target.name = fields[0];
  target.runtime = fields[1];
  target.cpu = fields[2];
  target.threads = threads;
  target.measured = true;
  return target;
}

}  // namespace pet::cost
