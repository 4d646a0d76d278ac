// The measured half of the cost model: a graph's cost is the sum of its kernel groups' times,
// each read from the profile DB or timed once in the target runtime (its own profiler's per-node
// times of a stand-alone model of the group) and recorded there.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_export.h"
#include "search/cost/cost_model.h"
#include "search/cost/roofline.h"
#include "search/cost/workload.h"

namespace pet::cost {
namespace {

bool is_reorder(const runtime::NodeTime& node) {
  return node.op == "ReorderInput" || node.op == "ReorderOutput" || node.op == "Reorder";
}

// What the runtime's profiler says the group took: its nodes' median times (fused nodes report 0),
// the layout reorders before the first kernel and after the last apart; the end-to-end median
// when it gave no node time.
CostModel::GroupTime group_time(const runtime::Timing& timing) {
  CostModel::GroupTime time;
  bool past_kernel = false;
  for (const runtime::NodeTime& node : timing.nodes) {
    if (!is_reorder(node)) {
      time.kernel_us += node.microseconds;
      past_kernel = past_kernel || node.microseconds > 0;
    } else {
      (past_kernel ? time.reorder_out_us : time.reorder_in_us) += node.microseconds;
    }
  }
  if (time.kernel_us <= 0) time.kernel_us = median_of(timing.runs_us);
  time.kernel_us = std::max(time.kernel_us, 0.001);
  return time;
}

constexpr const char* kReorderIn = " @reorder-in";
constexpr const char* kReorderOut = " @reorder-out";

std::string ran_as(const runtime::Timing& timing) {
  std::vector<std::string> ran;
  for (const runtime::NodeTime& node : timing.nodes)
    if (node.microseconds > 0) ran.push_back(node.op + (node.kernel.empty() ? "" : "/" + node.kernel));
  return ran.empty() ? "end to end" : fmt::format("profiled: {}", fmt::join(ran, " + "));
}

// The models timed together, interleaved; the ones the runtime refuses are left out and the rest
// timed again (runtime::time_accepted). `refused` gets each model's refusal ("" when it ran).
std::vector<std::optional<runtime::Timing>> time_each(runtime::Runtime& runtime,
                                                      const std::vector<runtime::ModelBytes>& models,
                                                      const runtime::TimingOptions& options,
                                                      std::vector<std::string>& refused) {
  std::vector<runtime::Timing> timings =
      runtime::time_accepted(runtime, models, options, refused, runtime::FirstModel::like_the_others);
  std::vector<std::optional<runtime::Timing>> result(models.size());
  for (size_t i = 0; i < models.size(); ++i)
    if (refused[i].empty()) result[i] = std::move(timings[i]);
  return result;
}

}  // namespace

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// Quartiles by linear interpolation between the closest ranks.
double half_iqr(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) {
    double rank = q * static_cast<double>(values.size() - 1);
    size_t low = static_cast<size_t>(rank);
    size_t high = std::min(low + 1, values.size() - 1);
    return values[low] + (rank - static_cast<double>(low)) * (values[high] - values[low]);
  };
  return (at(0.75) - at(0.25)) / 2;
}

std::string today() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[16];
  std::strftime(text, sizeof(text), "%Y-%m-%d", &utc);
  return text;
}

std::optional<ProfileEntry> CostModel::find_entry(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const ProfileEntry* entry = profile_.find(measurement_ ? measurement_->target.db_device() : device_.name, key);
  return entry ? std::optional<ProfileEntry>(*entry) : std::nullopt;
}

void CostModel::add_entry(ProfileEntry entry) const {
  std::lock_guard lock(mutex_);
  profile_.add(std::move(entry));
}

CostSources CostModel::sources() const {
  std::lock_guard lock(mutex_);
  CostSources sources;
  for (const auto& [key, time] : group_memo_) {
    if (time.source == CostSource::measured) ++sources.measured;
    if (time.source == CostSource::replayed) ++sources.replayed;
    if (time.source == CostSource::estimated) ++sources.estimated;
    if (time.source == CostSource::refused) ++sources.refused;
  }
  sources.measuring_seconds = measuring_seconds_;
  sources.recording_seconds = recording_seconds_;
  return sources;
}

double CostModel::runtime_seconds() const {
  std::lock_guard lock(mutex_);
  return measuring_seconds_ + recording_seconds_;
}

void CostModel::add_runtime_seconds(double seconds) const {
  (measurement_->runtime->times() ? measuring_seconds_ : recording_seconds_) += seconds;
}

std::optional<CostModel::GroupTime> CostModel::stored_group_time(const std::string& key) const {
  const std::string device = measurement_->target.db_device();
  const ProfileEntry* entry = profile_.find(device, key);
  if (entry && is_refused_group(*entry)) return GroupTime{kRefusedGroupUs, 0, 0, CostSource::refused};
  std::optional<double> kernel = profile_.lookup(device, key);
  if (!kernel) return std::nullopt;
  return GroupTime{*kernel, profile_.lookup(device, key + kReorderIn).value_or(0),
                   profile_.lookup(device, key + kReorderOut).value_or(0), CostSource::replayed};
}

double CostModel::estimated_group_cost(const Graph& graph, const KernelGrouping& grouping, const KernelGroup& group) const {
  double total = 0;
  if (measurement_->pet_gpu_kernels) {
    for (double us : estimated_group_us(device_, graph, grouping, group)) total += us;
    return total;
  }
  for (NodeId id : group.nodes) total += estimated_node_us(device_, graph, id, false);
  return total;
}

// Each group's kernels, plus its reorders where its blocked layout meets a plain one: a reorder in
// when some input comes from a group that leaves a plain layout (or from the graph's inputs), a
// reorder out when some reader, or the graph's output, expects a plain one. A group the runtime
// ran without reorders is layout-neutral when it is elementwise (it follows its producer) and
// plain otherwise.
double CostModel::measured_graph_cost(const Graph& graph) const {
  KernelGrouping grouping = kernel_groups(graph, measurement_->grouping_rule());
  return with_reorders_at_edges(graph, grouping, group_times(graph, grouping), scales_);
}

std::optional<double> CostModel::graph_cost_without_timing(const Graph& graph) const {
  if (!measurement_ || !measurement_->runtime) return graph_cost(graph);
  KernelGrouping grouping = kernel_groups(graph, measurement_->grouping_rule());
  {
    std::lock_guard lock(mutex_);
    for (const KernelGroup& group : grouping.groups) {
      if (group_memo_.count(group.key) || free_on_gpu(group)) continue;
      std::optional<GroupTime> stored = stored_group_time(group.key);
      if (!stored) return std::nullopt;
      group_memo_.emplace(group.key, *stored);
    }
  }
  return with_reorders_at_edges(graph, grouping, group_times(graph, grouping), scales_);  // all in the memo
}

double CostModel::standalone_graph_cost(const Graph& graph) const {
  PET_CHECK(measurement_, "stand-alone group times exist for a measured target only");
  KernelGrouping grouping = kernel_groups(graph, measurement_->grouping_rule());
  return with_reorders_at_edges(graph, grouping, group_times(graph, grouping), ContextScales{});
}

// A group pet-gpu runs as no kernel (KernelGroup::in_place: a view, a Concat written in place, a
// Split into views). Its stand-alone model would time a copy that the graph never makes, so it is
// neither timed, nor exported, nor counted.
bool CostModel::free_on_gpu(const KernelGroup& group) const { return measurement_->pet_gpu_kernels && group.in_place; }

std::vector<CostModel::GroupTime> CostModel::group_times(const Graph& graph, const KernelGrouping& grouping) const {
  const std::vector<KernelGroup>& groups = grouping.groups;
  std::vector<const KernelGroup*> missing;
  {
    std::lock_guard lock(mutex_);
    for (const KernelGroup& group : groups) {
      if (group_memo_.count(group.key) || free_on_gpu(group)) continue;
      if (std::optional<GroupTime> stored = stored_group_time(group.key)) {
        group_memo_.emplace(group.key, *stored);
      } else if (!measurement_->runtime) {
        group_memo_.emplace(group.key, GroupTime{estimated_group_cost(graph, grouping, group), 0, 0, CostSource::estimated});
      } else {
        missing.push_back(&group);
      }
    }
  }
  if (!missing.empty()) measure_groups(graph, grouping, missing);
  std::vector<GroupTime> times;
  {
    std::lock_guard lock(mutex_);
    for (const KernelGroup& group : groups)
      times.push_back(free_on_gpu(group) ? GroupTime{0, 0, 0, CostSource::estimated} : group_memo_.at(group.key));
  }
  return times;
}

double CostModel::with_reorders_at_edges(const Graph& graph, const KernelGrouping& grouping,
                                         const std::vector<GroupTime>& times, const ContextScales& scales) const {
  double total = 0;
  for (size_t g = 0; g < grouping.groups.size(); ++g)
    total += times[g].kernel_us * scales.factor(context_class(graph, grouping.groups[g]));
  return total + reorders_at_edges(graph, grouping, times) * scales.reorder_factor();
}

// A group's layout: blocked when the runtime reordered around it; an elementwise group without
// reorders takes its first computed input's layout; any other is plain. Then each blocked group
// pays its reorder in when some input comes from a plain group (or the graph's inputs), and its
// reorder out when some reader, or the graph's output, expects a plain layout.
double CostModel::reorders_at_edges(const Graph& graph, const KernelGrouping& grouping,
                                    const std::vector<GroupTime>& times) const {
  const std::vector<KernelGroup>& groups = grouping.groups;
  const std::vector<int>& node_group = grouping.group_of_node;
  // Which group computes each value (-1: a graph input, or computed from constants only).
  auto producer = [&](ValueId value) {
    NodeId node = graph.value(value).producer;
    return node < 0 ? -1 : node_group[static_cast<size_t>(node)];
  };
  std::vector<bool> blocked(groups.size(), false);
  for (size_t g = 0; g < groups.size(); ++g) {
    blocked[g] = times[g].reorder_in_us > 0 || times[g].reorder_out_us > 0;
    const Node& head = graph.node(groups[g].nodes.front());
    if (blocked[g] || !head.def->traits.elementwise) continue;
    for (ValueId input : head.inputs)
      if (input != kNoValue && producer(input) >= 0) {
        blocked[g] = blocked[static_cast<size_t>(producer(input))];
        break;
      }
  }
  const std::vector<bool>& derived = grouping.constant_derived;
  double total = 0;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (!blocked[g]) continue;
    bool plain_in = false, plain_out = false;
    for (NodeId id : groups[g].nodes) {
      for (ValueId input : graph.node(id).inputs) {
        if (input == kNoValue) continue;
        int from = producer(input);
        if (from == static_cast<int>(g)) continue;
        if (derived[static_cast<size_t>(input)]) continue;
        plain_in = plain_in || from < 0 || !blocked[static_cast<size_t>(from)];
      }
      for (ValueId output : graph.node(id).outputs) {
        plain_out = plain_out || graph.is_output(output);
        for (NodeId reader : grouping.readers[static_cast<size_t>(output)]) {
          int to = node_group[static_cast<size_t>(reader)];
          if (to != static_cast<int>(g)) plain_out = plain_out || to < 0 || !blocked[static_cast<size_t>(to)];
        }
      }
    }
    total += (plain_in ? times[g].reorder_in_us : 0) + (plain_out ? times[g].reorder_out_us : 0);
  }
  return total;
}

void CostModel::measure_groups(const Graph& graph, const KernelGrouping& grouping,
                               const std::vector<const KernelGroup*>& groups) const {
  std::lock_guard one_at_a_time(measuring_);
  std::vector<const KernelGroup*> todo;
  {
    std::lock_guard lock(mutex_);
    for (const KernelGroup* group : groups) {
      bool known = group_memo_.count(group->key) ||  // timed by another thread meanwhile
                   std::any_of(todo.begin(), todo.end(), [&](const KernelGroup* g) { return g->key == group->key; });
      if (!known) todo.push_back(group);
    }
  }
  std::vector<runtime::ModelBytes> models;  // kernel groups: small models, held as bytes
  ExportOptions form = measurement_->runtime->export_options();  // pet's correction op as its own kernel
  runtime::TimingOptions options = measurement_->timing;
  options.purpose = {kKernelGroups, {}, runtime::FirstModel::like_the_others};
  for (const KernelGroup* group : todo) {
    models.push_back(serialize_onnx(kernel_group_model(graph, *group), form));
    options.purpose.keys.push_back(group->key);
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<std::string> refused;
  std::vector<std::optional<runtime::Timing>> timings = time_each(*measurement_->runtime, models, options, refused);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard lock(mutex_);
  add_runtime_seconds(seconds);
  for (size_t i = 0; i < todo.size(); ++i) {
    std::vector<ProfileEntry> entries;
    if (timings[i]) entries = kernel_group_entries(measurement_->target, todo[i]->key, *timings[i]);
    // pet-gpu refuses a step alike in any model; another runtime may refuse a group stand-alone that
    // the whole model runs, so there the refused group is estimated.
    if (!refused[i].empty() && measurement_->pet_gpu_kernels)
      entries.push_back(kernel_group_refusal(measurement_->target, todo[i]->key, refused[i]));
    for (ProfileEntry& entry : entries) profile_.add(std::move(entry));
    std::optional<GroupTime> time = stored_group_time(todo[i]->key);
    if (!time) {  // refused by a CPU runtime, or not measured (a recording runtime): estimated
      group_memo_.emplace(todo[i]->key, GroupTime{estimated_group_cost(graph, grouping, *todo[i]), 0, 0, CostSource::estimated});
      continue;
    }
    if (time->source != CostSource::refused) time->source = CostSource::measured;
    group_memo_.emplace(todo[i]->key, *time);
  }
}

ProfileEntry end_to_end_entry(const Target& target, const std::string& key, const std::vector<double>& runs_us,
                              double scale, const std::string& method) {
  return {key, target.db_device(), median_of(runs_us) * scale, method, target.runtime, today(),
          half_iqr(runs_us) * scale, static_cast<int>(runs_us.size())};
}

ProfileEntry kernel_group_refusal(const Target& target, const std::string& key, const std::string& reason) {
  return {key, target.db_device(), kRefusedGroupUs, fmt::format("{}: {}", kRefusedGroupMethod, reason), target.runtime,
          today(), 0, 0};
}

bool is_refused_group(const ProfileEntry& entry) {
  return entry.microseconds >= kRefusedGroupUs && entry.method.starts_with(kRefusedGroupMethod);
}

std::vector<ProfileEntry> kernel_group_entries(const Target& target, const std::string& key,
                                               const runtime::Timing& timing) {
  if (!timing.measured()) return {};
  CostModel::GroupTime time = group_time(timing);
  std::vector<ProfileEntry> entries;
  auto entry = [&](const std::string& entry_key, double microseconds) {
    entries.push_back({entry_key, target.db_device(), microseconds, ran_as(timing), target.runtime, today(),
                       half_iqr(timing.runs_us), static_cast<int>(timing.runs_us.size())});
  };
  entry(key, time.kernel_us);
  if (time.reorder_in_us > 0) entry(key + kReorderIn, time.reorder_in_us);
  if (time.reorder_out_us > 0) entry(key + kReorderOut, time.reorder_out_us);
  return entries;
}

}  // namespace pet::cost
