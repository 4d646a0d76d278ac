// Measured ranking: on a measured target the programs each beam round keeps are timed end to end in
// the runtime, beside the cleaned input, and the beam follows those times: what a rewrite costs among
// its neighbours (the runtime's own fusions, reorders and caches) rather than the sum of its parts.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/default_seed.h"
#include "core/graph.h"
#include "search/cost/cost_model.h"
#include "search/program.h"

namespace pet::search {

struct RankingOptions {
  int warmup = 2;
  int runs = 5;
  uint64_t seed = kDefaultSeed;
  // Seconds of timing the whole search may expect to spend (kExpectedTimings, each loading the model
  // and running it warmup + runs times at the cleaned input's predicted time); above it the beam
  // follows the cost model's predictions.
  double budget_s = 90;
  int beam = 8;
};

// Programs (and references) a ranked search typically times on the evaluation models: 45 to 73 programs
// plus one reference per request, measured at beam 8 (ResNet-18/50, Inception-v3, the CSRNet back end).
inline constexpr int kExpectedTimings = 80;
// Serializing a program, writing it and having the runtime load and compile it, in bytes per second
// of the model (ResNet-50, 100 MB: about 0.5 s a program in ONNX Runtime on this project's Xeon).
inline constexpr double kLoadBytesPerSecond = 200e6;

class MeasuredRanking {
 public:
  // `reference` is the cleaned input as it would be written; every round times it too, and the
  // programs' times are scaled by its first time over its time in that round, so a drift of the
  // machine between rounds does not reorder the beam. The caller keeps `reference` alive as long as
  // the ranking.
  MeasuredRanking(const cost::CostModel& cost, const Graph& reference, RankingOptions options, pet::RankingStats& stats);
  bool on() const { return stats_.on; }
  // Sets each program's cost to its (scaled) end-to-end time: from memory, the profile DB, or timed now.
  void rank(std::vector<Program>& programs);

 private:
  struct Pending {
    size_t index;
    std::string key;
    Graph finalized;  // serialized as the runtime reads it (its weights shared with the program's)
  };
  void time_pending(std::vector<Program>& programs, std::vector<Pending>& pending);
  double ranked_or_predicted(const Program& program, const std::string& key);

  const cost::CostModel& cost_;
  RankingOptions options_;
  pet::RankingStats& stats_;
  std::string reference_key_;
  const Graph& reference_;  // the caller's, serialized whenever it is timed
  double reference_us_ = 0;               // the reference's first time (or the DB's)
  double reference_predicted_us_ = 0;
  std::unordered_map<uint64_t, double> by_program_;  // program hash -> ranked microseconds
  std::set<std::string> recorded_;  // keys a recording runtime was asked for: not asked again
};

// The profile DB key of a program's ranked (reference-scaled) end-to-end time, by timing hash.
std::string ranked_key(const Graph& finalized);
inline constexpr const char* kRankedKeyPrefix = "ranked model ";

// The kind of a ranked request (runtime::TimingPurpose): the reference (the cleaned input) and the
// programs, keyed by ranked_key, timed end to end together.
inline constexpr const char* kRanked = "ranked";

// The DB entries of one ranked request, as the live path records them: each program's median
// scaled by `reference_us` (the reference's recorded time) over the reference's median now, or by
// 1 when none is recorded, and then the reference's own entry as well; a refused program is kept
// as refused so that a replay ranks it last too. None when the reference was not measured.
std::vector<cost::ProfileEntry> ranked_entries(const cost::Target& target, const std::vector<std::string>& keys,
                                               const std::vector<runtime::Timing>& timings,
                                               const std::vector<std::string>& refused,
                                               std::optional<double> reference_us);

}  // namespace pet::search
