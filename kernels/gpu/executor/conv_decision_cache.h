// Which convolutions earlier loads gave to a graph-API engine and which kept the legacy API, and
// (keys starting "columns ", engine 1 or 0, ms the column path's and legacy_ms cuDNN's) which took
// the column path of conv_columns.h, in a file that later loads (the next process timing the same model, the measure stage's many small
// models) read instead of timing every plan again. One tab-separated line per decision, keyed by
// the card and libraries as loaded and the step's configuration; pure host code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace pet::gpu {

struct ConvDecision {
  int64_t engine = -1;  // the graph API's global engine index; -1: the legacy API stays
  float ms = 0;         // the engine's time at load (the best engine's, when the legacy API stayed)
  float legacy_ms = 0;  // the legacy choice's
};

class ConvDecisionCache {
 public:
  // Reads `path` when it exists (UserError naming the file and line of a malformed one); `device`
  // keys this load's lines, so another card's or library's decisions are never taken.
  ConvDecisionCache(std::string path, std::string device);

  std::optional<ConvDecision> find(const std::string& key) const;
  // Remembers the decision and appends its line to the file.
  void record(const std::string& key, const ConvDecision& decision);

 private:
  std::string path_, device_;
  std::map<std::string, ConvDecision> decisions_;  // this device's
};

}  // namespace pet::gpu
