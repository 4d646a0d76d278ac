// Measured ranking: the beam's programs finalized, timed end to end beside the cleaned input, and
// re-costed by those times (kept in the profile DB, so a replay ranks them the same way).
#include "search/measure/measured_ranking.h"

#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/structural_hash.h"
#include "kernels/runtime/runtime.h"
#include "search/passes/finalize.h"

namespace pet::search {
namespace {

// A program the runtime refuses is ranked after every program it runs.
constexpr double kRefused = std::numeric_limits<double>::max() / 4;

}  // namespace

std::string ranked_key(const Graph& finalized) {
  return fmt::format("{}{:016x}", kRankedKeyPrefix, timing_hash(finalized));
}

MeasuredRanking::MeasuredRanking(const cost::CostModel& cost, const Graph& reference, RankingOptions options,
                                 pet::RankingStats& stats)
    : cost_(cost), options_(options), stats_(stats), reference_key_(ranked_key(reference)), reference_(reference) {
  stats_ = {};
  if (!cost.measured()) {
    stats_.why = "off: the target is estimated, not measured";
    return;
  }
  reference_predicted_us_ = cost.graph_cost(reference);
  if (std::optional<cost::ProfileEntry> recorded = cost.find_entry(reference_key_)) reference_us_ = recorded->microseconds;
  runtime::Runtime* runtime = cost.measurement()->runtime;
  if (!runtime) {
    stats_.on = reference_us_ > 0;
    stats_.why = stats_.on ? "replayed: the profile DB holds the ranked times of a measured search of this input"
                           : "off: the replayed profile DB holds no ranked times for this input";
    return;
  }
  uint64_t reference_bytes = written_constant_bytes(reference, runtime->export_options());  // not serialized here
  double per_timing_s = static_cast<double>(reference_bytes) / kLoadBytesPerSecond +
                        reference_predicted_us_ * 1e-6 * (options.warmup + options.runs);
  double expected_s = per_timing_s * kExpectedTimings * options.beam / 8.0;
  if (options.budget_s <= 0) {
    stats_.why = "off (--measured-search 0): the beam follows the cost model";
  } else if (reference_us_ > 0 || expected_s <= options.budget_s) {
    stats_.on = true;
    stats_.why = fmt::format("on: the beam follows end-to-end times (about {:.0f} s of timing expected, budget {:.0f} s)",
                             expected_s, options.budget_s);
  } else {
    stats_.why = fmt::format("off: timing the beam end to end would take about {:.0f} s, over the budget of {:.0f} s "
                             "(--measured-search); the beam follows the cost model",
                             expected_s, options.budget_s);
  }
  // A GPU target exporting its misses asks for what the live path would time, and follows the
  // predictions (or the DB's times) meanwhile.
  if (stats_.on && !runtime->times())
    stats_.why = fmt::format("exported: the programs each round keeps are asked for timing on the card (about {:.0f} s "
                             "there, budget {:.0f} s); the beam follows the profile DB's times or the predictions",
                             expected_s, options.budget_s);
}

double MeasuredRanking::ranked_or_predicted(const Program& program, const std::string& key) {
  if (std::optional<cost::ProfileEntry> recorded = cost_.find_entry(key)) {
    ++stats_.replayed;
    return recorded->microseconds;
  }
  // A replay whose DB lacks this program: its prediction, on the reference's measured scale (none
  // yet when the reference was not measured either).
  bool scaled = reference_predicted_us_ > 0 && reference_us_ > 0;
  return scaled ? program.cost * reference_us_ / reference_predicted_us_ : program.cost;
}

void MeasuredRanking::rank(std::vector<Program>& programs) {
  if (!stats_.on) return;
  // Finalizing and serializing the programs is the ranking's work too, charged to it (not to the
  // search's clock) so that a replay, which finalizes without timing, searches as far.
  auto start = std::chrono::steady_clock::now();
  std::vector<Pending> pending;
  runtime::Runtime* runtime = cost_.measurement()->runtime;
  for (size_t i = 0; i < programs.size(); ++i) {
    Program& program = programs[i];
    if (auto known = by_program_.find(program.hash); known != by_program_.end()) {
      program.cost = known->second;
      continue;
    }
    Graph finalized = program.graph;
    finalize(finalized, FinalizeOptions{.lowerings_for = &cost_});
    std::string key = ranked_key(finalized);
    if (!runtime || cost_.find_entry(key) || recorded_.count(key)) {
      program.cost = by_program_[program.hash] = ranked_or_predicted(program, key);
      continue;
    }
    pending.push_back({i, std::move(key), std::move(finalized)});
  }
  if (!pending.empty()) time_pending(programs, pending);
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<cost::ProfileEntry> ranked_entries(const cost::Target& target, const std::vector<std::string>& keys,
                                               const std::vector<runtime::Timing>& timings,
                                               const std::vector<std::string>& refused,
                                               std::optional<double> reference_us) {
  PET_CHECK(keys.size() == timings.size() && refused.size() == timings.size(), "one key and timing per model");
  std::vector<cost::ProfileEntry> entries;
  if (timings.empty() || !timings[0].measured()) return entries;  // not measured: the predictions stand
  double reference_now = cost::median_of(timings[0].runs_us);
  PET_CHECK(reference_now > 0, "the runtime timed the cleaned input at zero");
  if (!reference_us) {
    reference_us = reference_now;
    entries.push_back(
        cost::end_to_end_entry(target, keys[0], timings[0].runs_us, 1.0, "end to end, the reference of ranked times"));
  }
  double scale = *reference_us / reference_now;
  for (size_t p = 1; p < timings.size(); ++p) {
    if (!refused[p].empty()) {  // kept too, so a replay ranks it last as well
      entries.push_back({keys[p], target.db_device(), kRefused, "refused by the runtime", target.runtime,
                         cost::today(), 0, 0});
      continue;
    }
    entries.push_back(cost::end_to_end_entry(target, keys[p], timings[p].runs_us, scale,
                                             "end to end, scaled by the cleaned input timed beside it"));
  }
  return entries;
}

void MeasuredRanking::time_pending(std::vector<Program>& programs, std::vector<Pending>& pending) {
  runtime::Runtime& runtime = *cost_.measurement()->runtime;
  const cost::Target& target = cost_.measurement()->target;
  runtime::TimingOptions timing{.threads = target.threads, .warmup = options_.warmup, .runs = options_.runs,
                                .per_node = false, .seed = options_.seed,
                                .purpose = {kRanked, {reference_key_}, runtime::FirstModel::reference}};
  ExportOptions form = runtime.export_options();
  std::vector<runtime::ModelBytes> models = {runtime::ModelBytes::written_from(reference_, form)};
  for (const Pending& entry : pending) {
    models.push_back(runtime::ModelBytes::written_from(entry.finalized, form));
    timing.purpose.keys.push_back(entry.key);
  }
  std::vector<std::string> refused;
  std::vector<runtime::Timing> timings = runtime::time_accepted(runtime, models, timing, refused);
  std::vector<cost::ProfileEntry> entries = ranked_entries(
      target, timing.purpose.keys, timings, refused, reference_us_ > 0 ? std::optional(reference_us_) : std::nullopt);
  ++stats_.requests;
  if (entries.empty()) {  // not measured (a recording runtime): each program keeps its prediction
    for (const Pending& entry : pending) {
      recorded_.insert(entry.key);
      programs[entry.index].cost = by_program_[programs[entry.index].hash] =
          ranked_or_predicted(programs[entry.index], entry.key);
    }
    return;
  }
  for (cost::ProfileEntry& entry : entries) {
    if (entry.key == reference_key_) reference_us_ = entry.microseconds;
    cost_.add_entry(entry);
  }
  for (size_t p = 0; p < pending.size(); ++p) {
    const Pending& entry = pending[p];
    std::optional<cost::ProfileEntry> recorded = cost_.find_entry(entry.key);
    PET_CHECK(recorded.has_value(), "every timed program is recorded");
    programs[entry.index].cost = by_program_[programs[entry.index].hash] = recorded->microseconds;
    ++(refused[p + 1].empty() ? stats_.timed : stats_.rejected);
  }
}

}  // namespace pet::search
