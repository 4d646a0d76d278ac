// Measured selection: time the finalists end to end, interleaved, and keep the fastest that is
// faster than the input by more than the noise.
#include "search/measure/measured_selection.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/structural_hash.h"
#include "kernels/runtime/runtime.h"

namespace pet {
namespace {

// Times the input and the candidates the DB holds no time for, interleaved (what it holds keeps
// its time, so timing it again would change nothing); their entries are recorded, and each candidate
// takes its recorded time (nothing when the runtime only records requests: the caller then replays
// or estimates).
std::vector<TimedCandidate> measure(const std::vector<SelectionCandidate>& candidates, const cost::CostModel& cost,
                                    const SelectionOptions& options) {
  const cost::Measurement& how = *cost.measurement();
  std::vector<runtime::ModelBytes> models;  // each serialized as the runtime reads it
  std::vector<std::string> keys;
  std::vector<size_t> timed;  // indices into candidates, the input first
  ExportOptions form = how.runtime->export_options();  // as the written model will be
  runtime::TimingOptions timing{.threads = how.target.threads, .warmup = options.warmup, .runs = options.runs,
                                .per_node = false, .seed = options.seed,
                                .purpose = {kSelection, {}, runtime::FirstModel::reference}};
  for (size_t i = 0; i < candidates.size(); ++i) {
    keys.push_back(model_key(*candidates[i].graph));
    if (i > 0 && cost.find_entry(keys[i])) continue;
    models.push_back(runtime::ModelBytes::written_from(*candidates[i].graph, form));
    timing.purpose.keys.push_back(keys[i]);
    timed.push_back(i);
  }
  std::vector<TimedCandidate> result;
  for (const SelectionCandidate& candidate : candidates) result.push_back({candidate.label, candidate.predicted_us, 0, 0, 0, "", candidate.changes});
  // A program the runtime refuses (OpenVINO's own passes throw on some valid graphs) is a rejected
  // candidate, not the end of pet-opt; the input's refusal stays the user's error.
  std::vector<std::string> refused;
  std::vector<runtime::Timing> timings = runtime::time_accepted(*how.runtime, models, timing, refused);
  RecordedEntry recorded = [&](const std::string& key) { return cost.find_entry(key); };
  for (cost::ProfileEntry& entry : selection_entries(how.target, timing.purpose.keys, timings, refused, recorded))
    cost.add_entry(std::move(entry));
  if (!timings[0].measured()) return result;  // a recording runtime: nothing was timed
  for (size_t t = 0; t < timed.size(); ++t) result[timed[t]].rejected = refused[t];
  // Each candidate takes the time the DB now holds for it, so this choice is the one a replay makes.
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!result[i].rejected.empty()) continue;
    std::optional<cost::ProfileEntry> entry = cost.find_entry(keys[i]);
    if (!entry) continue;  // timed, but not measured
    result[i].median_us = entry->microseconds;
    result[i].spread_us = entry->spread_us;
    result[i].runs = entry->runs;
  }
  return result;
}

// What a replayed selection says of a program the DB holds no end-to-end time for: it cannot be
// compared, so it cannot be chosen (a stale DB must never put an untimed program in the input's place).
constexpr const char* kNoRecordedTime = "no end-to-end time in the replayed profile DB";

// The recorded end-to-end times, or nothing when the input has none; another candidate without
// one is kept as rejected, so the recorded ones still compete with the input.
std::optional<std::vector<TimedCandidate>> replay(const std::vector<SelectionCandidate>& candidates,
                                                  const cost::CostModel& cost) {
  std::vector<TimedCandidate> result;
  for (const SelectionCandidate& candidate : candidates) {
    std::optional<cost::ProfileEntry> entry = cost.find_entry(model_key(*candidate.graph));
    if (!entry && result.empty()) return std::nullopt;
    if (!entry) {
      result.push_back({candidate.label, candidate.predicted_us, 0, 0, 0, kNoRecordedTime, candidate.changes});
      continue;
    }
    result.push_back(
        {candidate.label, candidate.predicted_us, entry->microseconds, entry->spread_us, entry->runs, "", candidate.changes});
  }
  return result;
}

bool timed_ok(const TimedCandidate& candidate) { return candidate.rejected.empty(); }

bool recorded_in_full(const std::vector<SelectionCandidate>& candidates, const cost::CostModel& cost) {
  return std::all_of(candidates.begin(), candidates.end(), [&](const SelectionCandidate& candidate) {
    return cost.find_entry(model_key(*candidate.graph)).has_value();
  });
}

void choose(Selection& selection) {
  const std::vector<TimedCandidate>& all = selection.candidates;
  const TimedCandidate& input = all[0];
  std::optional<size_t> best;  // the cleaned input competes with the programs
  for (size_t i = 1; i < all.size(); ++i)
    if (timed_ok(all[i]) && (!best || all[i].median_us < all[*best].median_us)) best = i;
  if (best && input.median_us - all[*best].median_us > input.spread_us + all[*best].spread_us) {
    selection.chosen = *best;
    selection.reason = fmt::format("{} is {:.3f}x faster than the input, beyond the spread", all[*best].label,
                                   input.median_us / all[*best].median_us);
    return;
  }
  bool untimed = std::any_of(all.begin() + 1, all.end(),
                             [](const TimedCandidate& candidate) { return candidate.rejected == kNoRecordedTime; });
  std::string none = !best ? (untimed ? "no program has an end-to-end time in the replayed profile DB"
                                      : "the runtime rejected every program")
                     : all.size() == 2 ? "no program differs from the cleaned input"
                                       : fmt::format("no program beat the input beyond the spread (best: {}, {:.3f}x)",
                                                     all[*best].label, input.median_us / all[*best].median_us);
  if (timed_ok(all[1]) && all[1].median_us < input.median_us) {
    selection.chosen = 1;
    selection.reason = none + "; the cleaned input is not slower, so it is written";
  } else {
    selection.chosen = 0;
    selection.reason = none + (timed_ok(all[1]) ? "; cleanup does not pay either, so the input is written unchanged"
                                   : all[1].rejected == kNoRecordedTime
                                     ? "; the cleaned input has no recorded time either, so the input is written unchanged"
                                     : "; the runtime rejected the cleaned input too, so the input is written unchanged");
  }
}

// By prediction, a program is written only when it is predicted kEstimateMargin faster than the
// better of the input and its cleaned form (the same computation, cleaned up); else that one.
void choose_by_prediction(Selection& selection) {
  const std::vector<TimedCandidate>& all = selection.candidates;
  size_t best = 0;
  for (size_t i = 1; i < all.size(); ++i)
    if (all[i].predicted_us < all[best].predicted_us) best = i;
  size_t plain = all[1].predicted_us <= all[0].predicted_us ? 1 : 0;
  double gain = all[plain].predicted_us / all[best].predicted_us;
  if (best >= 2 && gain < 1 + kEstimateMargin) {
    selection.chosen = plain;
    selection.reason = fmt::format("no end-to-end times to compare, so the choice rests on estimates: {} is predicted "
                                   "{:.3f}x faster than the {}, within the estimates' {:.0f} % margin, so the {} is "
                                   "written",
                                   all[best].label, gain, plain ? "cleaned input" : "input", kEstimateMargin * 100,
                                   plain ? "cleaned input" : "input");
    return;
  }
  selection.chosen = best;
  selection.reason = fmt::format("no end-to-end times to compare, so the choice rests on estimates: {} has the "
                                 "lowest predicted cost",
                                 all[best].label);
}

}  // namespace

RecordedEntry recorded_in(const cost::ProfileDb& db, const std::string& device) {
  return [&db, device](const std::string& key) {
    const cost::ProfileEntry* entry = db.find(device, key);
    return entry ? std::optional<cost::ProfileEntry>(*entry) : std::nullopt;
  };
}

std::string model_key(const Graph& graph) { return fmt::format("{}{:016x}", kModelKeyPrefix, timing_hash(graph)); }

std::vector<cost::ProfileEntry> selection_entries(const cost::Target& target, const std::vector<std::string>& keys,
                                                  const std::vector<runtime::Timing>& timings,
                                                  const std::vector<std::string>& refused,
                                                  const RecordedEntry& recorded) {
  PET_CHECK(keys.size() == timings.size() && refused.size() == timings.size(), "one key and timing per candidate");
  std::vector<cost::ProfileEntry> entries;
  if (timings.empty() || !refused[0].empty() || !timings[0].measured()) return entries;  // no input time: no scale
  double input_now = cost::median_of(timings[0].runs_us);
  PET_CHECK(input_now > 0, "the runtime timed the input at zero");
  std::optional<cost::ProfileEntry> input_recorded = recorded(keys[0]);
  double scale = input_recorded ? input_recorded->microseconds / input_now : 1.0;
  for (size_t i = 0; i < timings.size(); ++i) {
    if (!refused[i].empty() || !timings[i].measured() || recorded(keys[i])) continue;
    entries.push_back(cost::end_to_end_entry(target, keys[i], timings[i].runs_us, scale,
                                             scale == 1.0 ? "end to end" : "end to end, scaled by the input timed beside it"));
  }
  return entries;
}

Selection select_fastest(const std::vector<SelectionCandidate>& candidates, const cost::CostModel& cost,
                         const SelectionOptions& options) {
  PET_CHECK(candidates.size() >= 2 && cost.measured(), "the input and its cleaned form, on a measured target");
  Selection selection;
  runtime::Runtime* runtime = cost.measurement()->runtime;
  // A runtime that records requests is asked for the finalists the DB lacks, as the live path would
  // time them all together; the DB's times (or the predictions) decide here.
  if (runtime && !runtime->times() && !recorded_in_full(candidates, cost)) measure(candidates, cost, options);
  if (runtime && runtime->times() && !recorded_in_full(candidates, cost)) {  // else the DB's times decide
    selection.source = SelectionSource::measured;
    selection.candidates = measure(candidates, cost, options);
  } else if (std::optional<std::vector<TimedCandidate>> recorded = replay(candidates, cost)) {
    selection.source = SelectionSource::replayed;
    selection.candidates = std::move(*recorded);
  } else {
    selection.source = SelectionSource::estimated;
    for (const SelectionCandidate& candidate : candidates)
      selection.candidates.push_back({candidate.label, candidate.predicted_us, 0, 0, 0, "", candidate.changes});
    choose_by_prediction(selection);
    return selection;
  }
  choose(selection);
  return selection;
}

}  // namespace pet
