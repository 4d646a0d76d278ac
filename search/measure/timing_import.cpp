// Importing a GPU machine's timings: each result converted by its kind's entry function; an
// in-context run waits for both of its timings (profiled, then plain) before it converts.
#include "search/measure/timing_import.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/text_ir.h"
#include "search/cost/kernel_groups.h"
#include "search/measure/measured_ranking.h"
#include "search/measure/measured_selection.h"

namespace pet {
namespace {

struct ContextPair {
  const runtime::TimingResult* profiled = nullptr;
  const runtime::TimingResult* plain = nullptr;
};

std::string context_key(const runtime::TimingResult& result) {
  return result.request.options.purpose.keys.empty() ? "" : result.request.options.purpose.keys[0];
}

std::vector<cost::ProfileEntry> context_entries(const cost::Target& target, const ContextPair& pair,
                                                const std::string& models_folder) {
  const runtime::TimingRequest& request = pair.plain->request;
  std::string path = (std::filesystem::path(models_folder) / request.models.at(0)).string();
  Graph graph = parse_graph(read_whole_file(path, "the in-context run's weight-free model"));
  return cost::context_run_entries(target, graph, cost::kernel_groups(graph, cost::GroupingRule::pet_gpu_steps),
                                   context_key(*pair.plain),
                                   pair.profiled->timings.at(0), pair.plain->timings.at(0));
}

std::vector<cost::ProfileEntry> entries_of(const runtime::TimingResult& result, const cost::Target& target,
                                           const cost::ProfileDb& db) {
  const runtime::TimingPurpose& purpose = result.request.options.purpose;
  if (purpose.keys.size() != result.timings.size())
    throw UserError(fmt::format("request {} ({}) has {} keys for {} models; export the misses again",
                                result.request.id, purpose.kind, purpose.keys.size(), result.timings.size()));
  std::vector<cost::ProfileEntry> entries;
  if (purpose.kind == cost::kKernelGroups) {  // timed by pet-gpu, whose refusals are kept (kernel_group_refusal)
    for (size_t i = 0; i < result.timings.size(); ++i) {
      if (!result.refused[i].empty()) {
        entries.push_back(cost::kernel_group_refusal(target, purpose.keys[i], result.refused[i]));
        continue;
      }
      for (cost::ProfileEntry& entry : cost::kernel_group_entries(target, purpose.keys[i], result.timings[i]))
        entries.push_back(std::move(entry));
    }
  } else if (purpose.kind == search::kRanked) {
    const cost::ProfileEntry* reference = db.find(target.db_device(), purpose.keys.at(0));
    entries = search::ranked_entries(target, purpose.keys, result.timings, result.refused,
                                     reference ? std::optional(reference->microseconds) : std::nullopt);
  } else if (purpose.kind == kSelection) {
    entries = selection_entries(target, purpose.keys, result.timings, result.refused,
                                recorded_in(db, target.db_device()));
  } else {
    throw UserError(fmt::format("request {} is of an unknown kind '{}'; the kinds are {}, {}, {} and {}",
                                result.request.id, purpose.kind, cost::kKernelGroups, cost::kInContext,
                                search::kRanked, kSelection));
  }
  return entries;
}

}  // namespace

std::string entry_kind(const std::string& key) {
  if (key.starts_with(cost::kInContextKeyPrefix)) return cost::kInContext;
  if (key.starts_with(search::kRankedKeyPrefix)) return search::kRanked;
  if (key.starts_with(kModelKeyPrefix)) return kSelection;
  return cost::kKernelGroups;
}

cost::Target measured_on(const runtime::MeasuringDevice& device, const runtime::TimingRequest& request) {
  return {request.target, true, request.options.threads, device.runtime, device.card};
}

ImportReport import_timings(const runtime::TimingResults& results, const std::string& models_folder, cost::ProfileDb& db) {
  ImportReport report;
  std::map<std::string, ContextPair> contexts;  // by base key, in key order
  auto add = [&](std::vector<cost::ProfileEntry> entries) {
    for (cost::ProfileEntry& entry : entries) db.add(std::move(entry));
    report.entries += static_cast<int>(entries.size());
  };
  for (const runtime::TimingResult& result : results.results) {
    report.target = measured_on(results.device, result.request);
    ++report.results;
    if (result.request.options.purpose.kind == cost::kInContext) {
      ContextPair& pair = contexts[context_key(result)];
      (result.request.options.per_node ? pair.profiled : pair.plain) = &result;
      continue;
    }
    add(entries_of(result, report.target, db));
  }
  for (const auto& [base, pair] : contexts) {
    if (!pair.profiled || !pair.plain) {
      report.notes.push_back(fmt::format("{}: only one of its two timings came back; measure its misses again", base));
      continue;
    }
    if (!pair.profiled->refused[0].empty() || !pair.plain->refused[0].empty()) {
      report.notes.push_back(fmt::format("{}: the runtime refused the model: {}", base,
                                         pair.profiled->refused[0] + pair.plain->refused[0]));
      continue;
    }
    add(context_entries(measured_on(results.device, pair.plain->request), pair, models_folder));
  }
  return report;
}

}  // namespace pet
