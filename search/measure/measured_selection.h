// Measured selection: the input, its cleaned form and the search's best programs timed end to
// end in the target runtime, interleaved; the fastest is written, never one slower than the input.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/default_seed.h"
#include "core/graph.h"
#include "search/cost/cost_model.h"
#include "search/vocabulary.h"

namespace pet {

struct SelectionOptions {
  int runs = 10;    // timed rounds (each runs every candidate once, interleaved)
  int warmup = 2;   // untimed runs of each candidate first
  uint64_t seed = kDefaultSeed;
};

// One graph offered to the selection, with what the cost model predicted for it.
struct SelectionCandidate {
  std::string label;  // "input", "cleaned", "program 1", ...
  const Graph* graph = nullptr;
  double predicted_us = 0;
  std::vector<std::string> changes;  // what the search did to the input, one line per step (empty: input, cleaned)
};

struct TimedCandidate {
  std::string label;
  double predicted_us = 0;
  double median_us = 0;  // measured (or replayed) end to end
  double spread_us = 0;  // half the interquartile range of the runs
  int runs = 0;
  std::string rejected;  // the runtime's refusal when it would not load or run this program (then no runs)
  std::vector<std::string> changes;  // SelectionCandidate::changes, so a report says what a losing program tried
};

struct Selection {
  SelectionSource source = SelectionSource::none;  // estimated: no end-to-end time, by prediction
  std::vector<TimedCandidate> candidates;  // in the order offered
  size_t chosen = 0;                       // index into candidates
  std::string reason;                      // why that one, in a sentence
};

// Without end-to-end times a program is written only when predicted this much faster than the
// input or its cleaned form: on the H200 of 2026-11-29, predictions from measured kernel costs
// missed the measured speedup by up to 4.4 % (ResNet-18 b16 PET: 1.052x predicted, 1.006x
// measured), and a program chosen on estimates alone ran at 0.951x (BERT-s512, TASO-only).
inline constexpr double kEstimateMargin = 0.05;

// candidates[0] must be the input and candidates[1] its cleaned form. The fastest of the cleaned
// form and the programs is chosen when it beats the input by more than both spreads; else the
// cleaned form when it is faster at all, else the input. With a replayed DB the recorded end-to-end
// times decide, and a candidate without one is not chosen (it is listed as not timed); a DB without
// the input's time chooses by prediction, a program only beyond kEstimateMargin, and says so. A
// runtime that only records requests (runtime::Runtime::times() false) is asked for the candidates
// when the DB lacks any of them; the DB then decides as in a replay.
Selection select_fastest(const std::vector<SelectionCandidate>& candidates, const cost::CostModel& cost,
                         const SelectionOptions& options);

// The profile DB key of a whole model's end-to-end time: its timing hash, which its weight-free
// form and the same model with other weights share.
std::string model_key(const Graph& graph);
inline constexpr const char* kModelKeyPrefix = "model ";

// The kind of a selection request (runtime::TimingPurpose): every candidate timed end to end
// together, the input first, each keyed by model_key.
inline constexpr const char* kSelection = "selection";

// What a profile DB already holds under a key, if anything.
using RecordedEntry = std::function<std::optional<cost::ProfileEntry>(const std::string& key)>;
// What `db` holds under `device` (read when called: the DB must outlive the function).
RecordedEntry recorded_in(const cost::ProfileDb& db, const std::string& device);

// The DB entries of one selection request, as the live path records them: each candidate's median
// and spread that the runtime measured (none for one it refused or did not measure). Times are kept
// on one scale per input: where `recorded` holds the input's time already, this request's times are
// scaled by it over the input's time now (timed beside them), and a candidate `recorded` holds keeps
// its time (none is returned for it). So a replay compares the times of one interleaved run, or
// of runs brought onto one scale, never a candidate of one run with the input of another.
std::vector<cost::ProfileEntry> selection_entries(const cost::Target& target, const std::vector<std::string>& keys,
                                                  const std::vector<runtime::Timing>& timings,
                                                  const std::vector<std::string>& refused,
                                                  const RecordedEntry& recorded);

}  // namespace pet
