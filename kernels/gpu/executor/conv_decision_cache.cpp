// The decision cache's file: "<device>\t<key>\t<engine>\t<ms>\t<legacy ms>" per line, appended as
// loads decide, read whole at the next load.
#include "kernels/gpu/executor/conv_decision_cache.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <vector>

#include "core/error.h"

namespace pet::gpu {
namespace {

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t tab = line.find('\t'); tab != std::string::npos; tab = line.find('\t', start)) {
    parts.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
  parts.push_back(line.substr(start));
  return parts;
}

template <typename T>
bool parse(const std::string& text, T& value) {
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && at == end;
}

}  // namespace

ConvDecisionCache::ConvDecisionCache(std::string path, std::string device)
    : path_(std::move(path)), device_(std::move(device)) {
  std::ifstream in(path_);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::vector<std::string> parts = fields(line);
    ConvDecision decision;
    if (parts.size() != 5 || !parse(parts[2], decision.engine) || !parse(parts[3], decision.ms) ||
        !parse(parts[4], decision.legacy_ms))
      throw UserError(fmt::format("{}:{}: not a convolution decision ('<device>\\t<key>\\t<engine>\\t<ms>\\t<legacy "
                                  "ms>'); delete the file and the next load times the plans again",
                                  path_, number));
    if (parts[0] == device_) decisions_[parts[1]] = decision;
  }
}

std::optional<ConvDecision> ConvDecisionCache::find(const std::string& key) const {
  auto found = decisions_.find(key);
  if (found == decisions_.end()) return std::nullopt;
  return found->second;
}

void ConvDecisionCache::record(const std::string& key, const ConvDecision& decision) {
  PET_CHECK(key.find_first_of("\t\n") == std::string::npos, "a convolution's cache key holds a tab or newline");
  decisions_[key] = decision;
  std::ofstream out(path_, std::ios::app);
  out << fmt::format("{}\t{}\t{}\t{}\t{}\n", device_, key, decision.engine, decision.ms, decision.legacy_ms);
  if (!out) throw UserError(fmt::format("cannot append to the convolution cache {}", path_));
}

}  // namespace pet::gpu
