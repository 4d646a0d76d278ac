// In-context calibration: profiler rows of a whole-graph run attributed to kernel groups by name, and
// the per-op scales fitted from them.
#include "search/cost/in_context.h"

#include <algorithm>
#include <chrono>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "core/structural_hash.h"
#include "search/cost/cost_model.h"

namespace pet::cost {
namespace {

// The suffixes runtimes append to the name of the node or value a row stands for (ONNX Runtime's
// MatMul and bias Add run as one Gemm, named after the MatMul: pet's group of the two).
constexpr const char* kRowSuffixes[] = {"_nchwc", "/WithoutBiases", "/MatMulAddFusion", "_kernel_time"};

bool strip_suffix(std::string& name, const std::string& suffix) {
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  name.resize(name.size() - suffix.size());
  return true;
}

// Node names, then value names, to the group that runs them (nodes computed from constants only
// belong to none).
std::unordered_map<std::string, int> names_to_groups(const Graph& graph, const KernelGrouping& grouping) {
  std::unordered_map<std::string, int> by_name;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    int group = grouping.group_of_node[static_cast<size_t>(id)];
    if (group >= 0 && !graph.node(id).name.empty()) by_name.emplace(graph.node(id).name, group);
  }
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    int group = grouping.group_of_node[static_cast<size_t>(id)];
    if (group < 0) continue;
    for (ValueId output : graph.node(id).outputs) by_name.emplace(graph.value(output).name, group);
  }
  return by_name;
}

int group_named(const std::unordered_map<std::string, int>& by_name, std::string name) {
  while (true) {
    if (auto found = by_name.find(name); found != by_name.end()) return found->second;
    bool stripped = false;
    for (const char* suffix : kRowSuffixes) stripped = stripped || strip_suffix(name, suffix);
    if (!stripped) return -1;
  }
}

double clamped(double scale) { return std::clamp(scale, kMinScale, kMaxScale); }

}  // namespace

std::string in_context_base(const Graph& graph) {
  return fmt::format("{}{:016x}", kInContextKeyPrefix, timing_hash(graph));
}

GroupAttribution attribute_rows(const Graph& graph, const KernelGrouping& grouping,
                                const std::vector<runtime::NodeTime>& rows) {
  GroupAttribution result;
  result.group_us.assign(grouping.groups.size(), 0);
  std::unordered_map<std::string, int> by_name = names_to_groups(graph, grouping);
  for (const runtime::NodeTime& row : rows) {
    ++result.rows;
    result.profiled_us += row.microseconds;
    int group = group_named(by_name, row.name);
    if (group < 0) {
      result.unattributed_us += row.microseconds;
      continue;
    }
    ++result.rows_matched;
    result.group_us[static_cast<size_t>(group)] += row.microseconds;
  }
  return result;
}

double ContextScales::factor(const std::string& op) const {
  if (!fitted) return 1;
  auto found = by_op.find(op);
  return (found != by_op.end() ? found->second : overall) * end_to_end;
}

ContextScales fit_scales(const Graph& graph, const KernelGrouping& grouping, const GroupAttribution& in_context,
                         const std::vector<double>& standalone_us, double standalone_reorders_us,
                         double end_to_end_us) {
  PET_CHECK(standalone_us.size() == grouping.groups.size() && in_context.group_us.size() == grouping.groups.size(),
            "one stand-alone and one in-context time per kernel group");
  ContextScales scales;
  scales.groups = static_cast<int>(grouping.groups.size());
  std::map<std::string, std::pair<double, double>> sums;  // context class -> (in context, stand-alone)
  double context_total = 0, standalone_total = 0;
  for (size_t g = 0; g < grouping.groups.size(); ++g) {
    std::string op = context_class(graph, grouping.groups[g]);
    sums[op].first += in_context.group_us[g];
    sums[op].second += standalone_us[g];
    context_total += in_context.group_us[g];
    standalone_total += standalone_us[g];
    scales.groups_matched += in_context.group_us[g] > 0;
  }
  if (context_total <= 0 || standalone_total <= 0 || in_context.profiled_us <= 0 || end_to_end_us <= 0) return scales;
  scales.coverage = (in_context.profiled_us - in_context.unattributed_us) / in_context.profiled_us;
  if (scales.coverage < kMinCoverage) return scales;
  scales.fitted = true;
  scales.overall = clamped(context_total / standalone_total);
  for (const auto& [op, sum] : sums)
    if (sum.first > 0 && sum.second > 0) scales.by_op[op] = clamped(sum.first / sum.second);
  scales.end_to_end = clamped(end_to_end_us / in_context.profiled_us);
  if (standalone_reorders_us > 0) scales.reorder = clamped(in_context.unattributed_us / standalone_reorders_us);
  return scales;
}

// -- The cost model's side: the run measured or replayed, the scales fitted and kept.

namespace {

constexpr const char* kEndToEnd = " end-to-end";
constexpr const char* kProfiled = " profiled";
constexpr const char* kUnattributed = " unattributed";

std::string group_entry(const std::string& base, const std::string& group_key) { return base + " | " + group_key; }

// Rounds of the whole-graph runs: a few, since a large model at batch 16 takes seconds a run; ONNX
// Runtime's first runs of a new session are slower (its memory plan settles), hence three warm-ups.
constexpr int kContextWarmup = 3;
constexpr int kContextRuns = 7;

}  // namespace

std::optional<CostModel::ContextRun> CostModel::stored_context_run(const std::string& base,
                                                                   const KernelGrouping& grouping) const {
  const std::string device = measurement_->target.db_device();
  std::optional<double> end_to_end = profile_.lookup(device, base + kEndToEnd);
  std::optional<double> profiled = profile_.lookup(device, base + kProfiled);
  if (!end_to_end || !profiled) return std::nullopt;
  ContextRun run;
  run.end_to_end_us = *end_to_end;
  run.attribution.profiled_us = *profiled;
  run.attribution.unattributed_us = profile_.lookup(device, base + kUnattributed).value_or(0);
  // The DB keeps one sum per group key; groups with the same key share it evenly (only sums by op are used).
  std::map<std::string, int> count;
  for (const KernelGroup& group : grouping.groups) ++count[group.key];
  for (const KernelGroup& group : grouping.groups)
    run.attribution.group_us.push_back(profile_.lookup(device, group_entry(base, group.key)).value_or(0) /
                                       count[group.key]);
  return run;
}

std::vector<ProfileEntry> context_run_entries(const Target& target, const Graph& graph, const KernelGrouping& grouping,
                                             const std::string& base, const runtime::Timing& profiled,
                                             const runtime::Timing& plain) {
  if (!profiled.measured() || !plain.measured()) return {};
  GroupAttribution attribution = attribute_rows(graph, grouping, profiled.nodes);
  // The profiled runs' wall clock bounds the unprofiled time from above: a plain median above it
  // was disturbed, and the profiled runs' own is the better figure then.
  double end_to_end_us = std::min(median_of(plain.runs_us), median_of(profiled.runs_us));
  if (end_to_end_us <= 0 || attribution.profiled_us <= 0) return {};  // nothing to fit or keep
  std::vector<ProfileEntry> entries;
  auto record = [&](const std::string& key, double microseconds, const std::string& method) {
    entries.push_back({key, target.db_device(), microseconds, method, target.runtime, today(), 0,
                       static_cast<int>(plain.runs_us.size())});
  };
  record(base + kEndToEnd, end_to_end_us, "in context: end to end, profiler off");
  record(base + kProfiled, attribution.profiled_us, "in context: sum of the profiler's rows");
  if (attribution.unattributed_us > 0)  // a DB entry is a positive time; absent reads as 0
    record(base + kUnattributed, attribution.unattributed_us, "in context: rows naming no node of the graph");
  std::map<std::string, double> by_key;
  for (size_t g = 0; g < grouping.groups.size(); ++g) by_key[grouping.groups[g].key] += attribution.group_us[g];
  for (const auto& [key, microseconds] : by_key)
    if (microseconds > 0) record(group_entry(base, key), microseconds, "in context: the profiler's rows of these groups");
  return entries;
}

bool CostModel::measure_context_run(const Graph& graph, const KernelGrouping& grouping, const std::string& base) {
  runtime::Runtime& runtime = *measurement_->runtime;
  // Held as bytes for its two timings (serialized once): this runs before the search, far from
  // pet-opt's peak.
  runtime::ModelBytes model = serialize_onnx(graph, runtime.export_options());
  runtime::TimingOptions options = measurement_->timing;
  options.warmup = kContextWarmup;
  options.runs = kContextRuns;
  options.purpose = {kInContext, {base}, runtime::FirstModel::like_the_others};
  auto start = std::chrono::steady_clock::now();
  // A graph the runtime refuses gets no calibration: the stand-alone times stand.
  std::vector<std::string> refused;
  options.per_node = true;
  runtime::Timing profiled =
      runtime::time_accepted(runtime, {model}, options, refused, runtime::FirstModel::like_the_others).at(0);
  if (!refused[0].empty()) return false;
  options.per_node = false;
  runtime::Timing plain =
      runtime::time_accepted(runtime, {model}, options, refused, runtime::FirstModel::like_the_others).at(0);
  if (!refused[0].empty()) return false;
  std::vector<ProfileEntry> entries =
      context_run_entries(measurement_->target, graph, grouping, base, profiled, plain);
  std::lock_guard lock(mutex_);
  add_runtime_seconds(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  for (ProfileEntry& entry : entries) profile_.add(std::move(entry));
  return !entries.empty();
}

// The input is the program every other is weighed against: a group of it the runtime refused
// stand-alone is priced by the fallback, for every program, rather than past them all.
void CostModel::estimate_refused_input_groups(const Graph& graph, const KernelGrouping& grouping,
                                              std::vector<GroupTime>& times) const {
  std::lock_guard lock(mutex_);
  for (size_t g = 0; g < times.size(); ++g) {
    if (times[g].source != CostSource::refused) continue;
    const KernelGroup& group = grouping.groups[g];
    times[g] = GroupTime{estimated_group_cost(graph, grouping, group), 0, 0, CostSource::estimated};
    group_memo_[group.key] = times[g];
  }
}

ContextScales CostModel::calibrate_in_context(const Graph& graph) {
  PET_CHECK(measurement_, "in-context calibration is for a measured target");
  KernelGrouping grouping = kernel_groups(graph, measurement_->grouping_rule());
  std::vector<GroupTime> times = group_times(graph, grouping);
  estimate_refused_input_groups(graph, grouping, times);
  std::vector<double> standalone;
  for (const GroupTime& time : times) standalone.push_back(time.kernel_us);
  double standalone_reorders = reorders_at_edges(graph, grouping, times);
  std::string base = in_context_base(graph);
  std::optional<ContextRun> run;
  {
    std::lock_guard lock(mutex_);
    run = stored_context_run(base, grouping);
  }
  // A measured run is fitted as the DB keeps it (per group key), so its replay fits the same scales to the bit.
  if (!run && measurement_->runtime && measure_context_run(graph, grouping, base)) {
    std::lock_guard lock(mutex_);
    run = stored_context_run(base, grouping);
  }
  ContextScales scales;
  if (run) scales = fit_scales(graph, grouping, run->attribution, standalone, standalone_reorders, run->end_to_end_us);
  std::lock_guard lock(mutex_);
  scales_ = scales;
  return scales;
}

ContextScales CostModel::context_scales() const {
  std::lock_guard lock(mutex_);
  return scales_;
}

}  // namespace pet::cost
