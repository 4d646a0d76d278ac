// Target setup: the profile DB resolved, the runtime opened (or its times replayed), the cost model
// made for the target.
#include "search/measure/target_setup.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/data_path.h"
#include "core/error.h"
#include "core/user_cache.h"
#include "kernels/runtime/gpu_kernels_version.h"
#include "kernels/runtime/gpu_worker_runtime.h"

namespace pet {
namespace {

// The target recorded in a replayed DB for this target name and thread count: the one taken on
// this CPU when there are several.
cost::Target replayed_target(const cost::ProfileDb& db, const std::string& path, const std::string& name, int threads) {
  std::vector<cost::Target> recorded = db.measured_targets(name, threads);
  if (recorded.empty())
    throw UserError(fmt::format("--replay: the profile DB '{}' holds no {} times at {} thread{}; run once without "
                                "--replay to measure them, or pass --threads with a recorded count",
                                path, name, threads, threads == 1 ? "" : "s"));
  std::string here = runtime::cpu_model();
  for (const cost::Target& target : recorded)
    if (target.cpu == here) return target;
  return recorded.front();
}

// A measured target's DB: the file given, else the per-user cache; a missing file starts empty
// unless the DB is only replayed.
cost::ProfileDb load_measured_db(const std::string& path, bool replay) {
  if (std::filesystem::exists(path) || replay) return cost::ProfileDb::load(path);
  return cost::ProfileDb{};
}

}  // namespace

std::string default_measured_profile_db() {
  if (const char* given = std::getenv("PET_PROFILE_DB"); given && *given) return given;
  return (user_cache_folder() / "profile-db.json").string();
}

void TargetSetup::save_measurements() const {
  if (runtime && runtime->times() && cost) cost->profile().save_merged(profile_db, loaded);
}

size_t TargetSetup::write_misses() const {
  if (!recording) return 0;
  recording->write(export_misses);
  return recording->requests().size();
}

std::string profile_db_path(const TargetOptions& options) {
  if (!options.profile_db.empty()) return options.profile_db;
  if (options.spec.timed_elsewhere() && !options.live)
    return data_path("bench/profiles/" + options.spec.name() + ".json");
  return options.spec.timed_here() || options.live ? default_measured_profile_db() : "";
}

namespace {

// What a GPU target's measurement is, however its times come: one stream, corrections fused into
// its kernels, the run's seed; `target` says whose times they are.
cost::Measurement gpu_measurement(const cost::Target& target, const TargetOptions& options) {
  cost::Measurement measurement;
  measurement.target = target;
  measurement.pet_gpu_kernels = true;
  measurement.timing.threads = 1;
  measurement.timing.seed = options.seed;
  return measurement;
}

// A GPU target timed on this machine's card (--live): pet-gpu's worker, which must time on the card
// the target names; the DB read and saved as a CPU target's, the card's spec for what it lacks.
void open_live_gpu_target(const TargetOptions& options, TargetSetup& setup) {
  const TargetSpec& target = options.spec;
  if (options.replay)
    throw UserError("--live times on this machine's GPU and --replay times nothing: pass one of them");
  if (!options.export_misses.empty())
    throw UserError("--live times on this machine's GPU, so nothing is left to export: drop --export-misses");
  std::unique_ptr<runtime::GpuWorkerRuntime> worker = runtime::open_gpu_worker_runtime();
  if (!runtime::card_is_target(worker->card(), target.name()))
    throw UserError(fmt::format("--live --target {} times on that card, and this machine's GPU is an {}; choose the "
                                "target this card is ({}), or drop --live to replay bench/profiles/{}.json",
                                target.name(), worker->card(), fmt::join(TargetSpec::gpu_names(), " or "),
                                target.name()));
  cost::ProfileDb db = load_measured_db(setup.profile_db, false);
  if (options.remeasure) db = cost::ProfileDb{};
  setup.loaded = db;
  cost::Measurement measurement = gpu_measurement({target.name(), true, 1, worker->version(), worker->card()}, options);
  measurement.runtime = worker.get();
  setup.runtime = std::move(worker);
  setup.cost.emplace(cost::load_device(target.name()), std::move(db), std::move(measurement));
}

// A GPU target: its DB's times recorded with this build's GPU kernels (on the first card the DB
// names, when several), else nothing recorded and every cost estimated; a recording runtime when
// the misses are exported; the card itself with --live.
void open_gpu_target(const TargetOptions& options, TargetSetup& setup) {
  if (options.live) return open_live_gpu_target(options, setup);
  const TargetSpec& target = options.spec;
  if (options.remeasure)
    throw UserError(fmt::format("--remeasure: target {} is timed on a GPU machine, not here; on a machine with that "
                                "card add --live, elsewhere export what its profile DB lacks with --export-misses FILE, "
                                "time it there with pet-gpu measure FILE and import the results with pet-profile --import",
                                target.name()));
  cost::ProfileDb db = cost::ProfileDb::load(setup.profile_db);
  cost::Target recorded_with_these_kernels = {target.name(), true, 1, "", ""};
  for (const cost::Target& recorded : db.measured_targets(target.name(), 1))
    if (recorded.runtime.ends_with(runtime::gpu_kernels_tag())) {
      recorded_with_these_kernels = recorded;
      break;
    }
  cost::Measurement measurement = gpu_measurement(recorded_with_these_kernels, options);
  if (!options.export_misses.empty()) {
    setup.recording = std::make_unique<runtime::RecordingRuntime>(target.name());
    setup.export_misses = options.export_misses;
    measurement.runtime = setup.recording.get();
  }
  setup.loaded = db;
  setup.cost.emplace(cost::load_device(target.name()), std::move(db), std::move(measurement));
}

}  // namespace

std::string times_of_other_kernels(const cost::ProfileDb& db, const std::string& target_name) {
  struct Recording {
    cost::Target target;
    size_t times = 0;
    std::string last_date;
  };
  std::map<std::string, Recording> other_kernels;  // by db_device()
  for (const cost::Target& recorded : db.measured_targets(target_name, 1))
    if (!recorded.runtime.ends_with(runtime::gpu_kernels_tag())) other_kernels[recorded.db_device()].target = recorded;
  const Recording* latest = nullptr;
  for (const cost::ProfileEntry& entry : db.entries()) {
    auto recording = other_kernels.find(entry.device);
    if (recording == other_kernels.end()) continue;
    Recording& counted = recording->second;
    ++counted.times;
    counted.last_date = std::max(counted.last_date, entry.date);
    if (!latest || counted.last_date > latest->last_date) latest = &counted;
  }
  if (!latest) return "";
  const std::string& runtime = latest->target.runtime;  // "pet-gpu ... (...), kernels <hash>"
  size_t comma = runtime.rfind(", ");
  return fmt::format("{} times of {} on {}, the last of {}", latest->times,
                     comma == std::string::npos ? runtime : runtime.substr(comma + 2), latest->target.cpu,
                     latest->last_date);
}

void open_target(const TargetOptions& options, TargetSetup& setup) {
  const TargetSpec& target = options.spec;
  setup.profile_db = profile_db_path(options);
  if (!options.export_misses.empty() && !target.timed_elsewhere())
    throw UserError(fmt::format("--export-misses writes the timings a GPU target's profile DB lacks; target {} {}, so "
                                "drop --export-misses or choose --target {}",
                                target.name(), target.timed_here() ? "is timed here" : "is estimated, never timed",
                                fmt::join(TargetSpec::gpu_names(), " or ")));
  if (options.live && !target.timed_elsewhere())
    throw UserError(fmt::format("--live times a GPU target on this machine's card; target {} {}, so drop --live or "
                                "choose --target {}",
                                target.name(), target.timed_here() ? "is timed here already" : "is estimated, never timed",
                                fmt::join(TargetSpec::gpu_names(), " or ")));
  if (target.timed_elsewhere()) return open_gpu_target(options, setup);
  if (!target.measured()) {
    if (options.remeasure)
      throw UserError(fmt::format("--remeasure: target {} is estimated, so nothing is timed; it applies to the "
                                  "measured targets {}",
                                  target.name(), fmt::join(TargetSpec::measured_names(), " and ")));
    if (!options.profile_db.empty())
      throw UserError(fmt::format("--profile-db: target {} is an analytic spec and reads no profile DB; measured GPU "
                                  "times are for --target {}",
                                  target.name(), fmt::join(TargetSpec::gpu_names(), " or ")));
    setup.cost.emplace(cost::load_device(target.name()));
    return;
  }
  cost::ProfileDb db = load_measured_db(setup.profile_db, options.replay);  // read even to remeasure: fail early
  if (options.remeasure) {
    if (options.replay)
      throw UserError("--remeasure times everything again and --replay times nothing: pass one of them");
    db = cost::ProfileDb{};  // nothing stored to price with; saved over the file's entries at the end
  }
  setup.loaded = db;
  cost::Measurement measurement;
  int threads = target.resolved_threads();
  measurement.picks_correction_lowering = target.picks_correction_lowering_by_measurement();
  measurement.fuses_onnx_runtime_ops = target.runs_onnx_runtime_ops() && !options.portable;
  if (options.replay) {
    measurement.target = replayed_target(db, setup.profile_db, target.name(), threads);
  } else {
    setup.runtime = target.open_runtime();
    measurement.target = {target.name(), true, threads, setup.runtime->version(), runtime::cpu_model()};
    measurement.runtime = setup.runtime.get();
  }
  measurement.timing.threads = threads;
  measurement.timing.seed = options.seed;
  setup.cost.emplace(cost::load_cpu_fallback(), std::move(db), std::move(measurement));
}

}  // namespace pet
