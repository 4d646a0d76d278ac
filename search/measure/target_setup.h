// Target setup, the pipeline's first stage: the profile DB resolved (here alone), the measured
// target's runtime opened or its times replayed (a GPU's always: it is timed elsewhere), and the
// cost model for the target.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/default_seed.h"
#include "kernels/runtime/recording_runtime.h"
#include "kernels/runtime/runtime.h"
#include "kernels/runtime/target_spec.h"
#include "search/cost/cost_model.h"
#include "search/vocabulary.h"

namespace pet {

// What target setup, and the calibration after it, need of the pipeline's options.
struct TargetOptions {
  TargetSpec spec;
  std::string profile_db;  // empty: the per-user DB for a target timed here, the repository's for a GPU
  bool replay = false;     // read the DB only: nothing is timed (so for a GPU target unless live)
  bool live = false;       // GPU targets: time on this machine's card through `pet-gpu worker`
  bool remeasure = false;  // measured targets: price with nothing stored, save the new times over the DB's
  // Measured targets: fit the cost model's per-op scales on the cleaned input run whole under the
  // runtime's profiler before the search, or price with the stand-alone group times as they are.
  Calibration calibration = Calibration::in_context;
  uint64_t seed = kDefaultSeed;
  // GPU targets: write every timing the live path would ask for and the DB lacks to this file
  // (runtime::TimingRequest lines, their weight-free models beside it); empty: none.
  std::string export_misses;
  // Standard ONNX ops only (--portable): the written model carries no runtime's own op, so none is
  // fused (ONNX Runtime's Attention) and OpenVINO's corrections are written as their lowerings.
  bool portable = false;
};

// The per-user profile DB of measured targets: $PET_PROFILE_DB, else $XDG_CACHE_HOME/pet or
// ~/.cache/pet, profile-db.json.
std::string default_measured_profile_db();

// The profile DB `options` use, resolved here alone: the file given, else the per-user DB for a
// target timed here (a GPU timed live included), the repository's bench/profiles/NAME.json for a GPU
// replayed, none for an analytic spec (empty).
std::string profile_db_path(const TargetOptions& options);

// The target `options` name, opened as optimize() opens it: for a measured target its runtime
// (null when replaying) and a cost model over the profile DB, which the caller saves with
// cost->profile().save(profile_db) after timing; for a GPU spec the analytic model.
struct TargetSetup {
  std::unique_ptr<runtime::Runtime> runtime;
  // A GPU target exporting its misses: the runtime the cost model asks, which only records.
  std::unique_ptr<runtime::RecordingRuntime> recording;
  std::string export_misses;
  std::optional<cost::CostModel> cost;
  std::string profile_db;
  cost::ProfileDb loaded;  // the DB as read: a measuring run saves only what it added or changed
  // Saves the measurements of this run into the DB file (ProfileDb::save_merged); a no-op when
  // nothing was measured (a replay, a GPU, an analytic target).
  void save_measurements() const;
  // Writes the recorded requests to export_misses; returns how many (0 and nothing written
  // when no misses were asked for).
  size_t write_misses() const;
};
void open_target(const TargetOptions& options, TargetSetup& setup);

// For a GPU target whose profile DB holds no times of this build's kernels: the times it holds of
// other kernels, which are set aside ("1841 times of kernels a85f7be39ce4a455 on NVIDIA H200, the
// last of 2026-11-29", the recording with the latest date); "" when it holds none.
std::string times_of_other_kernels(const cost::ProfileDb& db, const std::string& target_name);

}  // namespace pet
