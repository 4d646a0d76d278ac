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
  return fmt::format("ranked model {:016x}", structural_hash(finalized));
}

MeasuredRanking::MeasuredRanking(const cost::CostModel& cost, const Graph& reference, RankingOptions options,
                                 pet::RankingStats& stats)
    : cost_(cost), options_(options), stats_(stats), reference_key_(ranked_key(reference)) {
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
  reference_model_ = serialize_onnx(reference, runtime->export_options());
  double per_timing_s = static_cast<double>(reference_model_.size()) / kLoadBytesPerSecond +
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
}

double MeasuredRanking::ranked_or_predicted(const Program& program, const std::string& key) {
  if (std::optional<cost::ProfileEntry> recorded = cost_.find_entry(key)) {
    ++stats_.replayed;
    return recorded->microseconds;
  }
  // A replay whose DB lacks this program: its prediction, on the reference's measured scale.
  return reference_predicted_us_ > 0 ? program.cost * reference_us_ / reference_predicted_us_ : program.cost;
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
    if (!runtime || cost_.find_entry(key)) {
      program.cost = by_program_[program.hash] = ranked_or_predicted(program, key);
      continue;
    }
    pending.push_back({i, key, serialize_onnx(finalized, runtime->export_options())});
  }
  if (!pending.empty()) time_pending(programs, pending);
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void MeasuredRanking::time_pending(std::vector<Program>& programs, std::vector<Pending>& pending) {
  runtime::Runtime& runtime = *cost_.measurement()->runtime;
  const cost::Target& target = cost_.measurement()->target;
  runtime::TimingOptions timing{.threads = target.threads, .warmup = options_.warmup, .runs = options_.runs,
                                .per_node = false, .seed = options_.seed};
  std::vector<std::string> models = {reference_model_};
  for (const Pending& entry : pending) models.push_back(entry.model);
  std::vector<std::string> refused;
  std::vector<runtime::Timing> timings = runtime::time_accepted(runtime, models, timing, refused);
  double reference_now = cost::median_of(timings.at(0).runs_us);
  PET_CHECK(reference_now > 0, "the runtime timed the cleaned input at zero");
  if (reference_us_ <= 0) {
    reference_us_ = reference_now;
    cost_.add_entry({reference_key_, target.db_device(), reference_us_, "end to end, the reference of ranked times",
                     target.runtime, cost::today(), cost::half_iqr(timings[0].runs_us), options_.runs});
  }
  double scale = reference_us_ / reference_now;
  for (size_t p = 0; p < pending.size(); ++p) {
    if (!refused[p + 1].empty()) continue;
    const Pending& entry = pending[p];
    const std::vector<double>& runs = timings.at(p + 1).runs_us;
    double microseconds = cost::median_of(runs) * scale;
    cost_.add_entry({entry.key, target.db_device(), microseconds,
                     "end to end, scaled by the cleaned input timed beside it", target.runtime, cost::today(),
                     cost::half_iqr(runs) * scale, options_.runs});
    programs[entry.index].cost = by_program_[programs[entry.index].hash] = microseconds;
    ++stats_.timed;
  }
  for (size_t p = 0; p < pending.size(); ++p)
    if (!refused[p + 1].empty()) {  // kept too, so a replay ranks it last as well
      cost_.add_entry({pending[p].key, target.db_device(), kRefused, "refused by the runtime", target.runtime,
                       cost::today(), 0, 0});
      programs[pending[p].index].cost = by_program_[programs[pending[p].index].hash] = kRefused;
      ++stats_.rejected;
    }
  ++stats_.requests;
}

}  // namespace pet::search
