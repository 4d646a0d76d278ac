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

enum Source { kMeasured = 0, kReplayed = 1, kEstimated = 2 };

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

double half_iqr(std::vector<double> values) {
  if (values.size() < 2) return 0;
  std::sort(values.begin(), values.end());
  auto at = [&](double q) { return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5)]; };
  return (at(0.75) - at(0.25)) / 2;
}

// What the runtime's profiler says the group took: the sum of its nodes' median times (fused
// nodes report 0, reorders the runtime inserted count); the end-to-end median when it gave none.
double group_time(const runtime::Timing& timing) {
  double sum = 0;
  for (const runtime::NodeTime& node : timing.nodes) sum += node.microseconds;
  return sum > 0 ? sum : median_of(timing.runs_us);
}

std::string ran_as(const runtime::Timing& timing) {
  std::vector<std::string> ran;
  for (const runtime::NodeTime& node : timing.nodes)
    if (node.microseconds > 0) ran.push_back(node.op + (node.kernel.empty() ? "" : "/" + node.kernel));
  return ran.empty() ? "end to end" : fmt::format("profiled: {}", fmt::join(ran, " + "));
}

// The models timed together, interleaved; when the runtime rejects one, each is timed alone and
// the rejected ones are left out (the caller estimates them: the runtime cannot run that group
// stand-alone, which the whole model it belongs to may still do).
std::vector<std::optional<runtime::Timing>> time_each(runtime::Runtime& runtime, const std::vector<std::string>& models,
                                                      const runtime::TimingOptions& options) {
  std::vector<std::optional<runtime::Timing>> result(models.size());
  try {
    std::vector<runtime::Timing> together = runtime.time_models(models, options);
    PET_CHECK(together.size() == models.size(), "one timing per model");
    for (size_t i = 0; i < models.size(); ++i) result[i] = std::move(together[i]);
    return result;
  } catch (const UserError&) {
    if (models.size() == 1) return result;
  }
  for (size_t i = 0; i < models.size(); ++i) {
    try {
      result[i] = runtime.time_models({models[i]}, options).at(0);
    } catch (const UserError&) {
    }
  }
  return result;
}

}  // namespace

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
  for (const auto& [key, entry] : group_memo_) {
    if (entry.second == kMeasured) ++sources.measured;
    if (entry.second == kReplayed) ++sources.replayed;
    if (entry.second == kEstimated) ++sources.estimated;
  }
  sources.measuring_seconds = measuring_seconds_;
  return sources;
}

double CostModel::measuring_seconds() const {
  std::lock_guard lock(mutex_);
  return measuring_seconds_;
}

void CostModel::record(const std::string& key, double microseconds, int source) const {
  group_memo_.emplace(key, std::pair{microseconds, source});
}

double CostModel::estimated_group_cost(const Graph& graph, const KernelGroup& group) const {
  double total = 0;
  for (NodeId id : group.nodes) total += kernel_time(device_, describe_workload(graph, graph.node(id))).total_us;
  return total;
}

double CostModel::measured_graph_cost(const Graph& graph) const {
  std::vector<KernelGroup> groups = kernel_groups(graph);
  std::vector<const KernelGroup*> missing;
  double total = 0;
  {
    std::lock_guard lock(mutex_);
    const std::string device = measurement_->target.db_device();
    for (const KernelGroup& group : groups) {
      if (auto known = group_memo_.find(group.key); known != group_memo_.end()) {
        total += known->second.first;
      } else if (std::optional<double> stored = profile_.lookup(device, group.key)) {
        record(group.key, *stored, kReplayed);
        total += *stored;
      } else if (!measurement_->runtime) {
        double estimate = estimated_group_cost(graph, group);
        record(group.key, estimate, kEstimated);
        total += estimate;
      } else {
        missing.push_back(&group);
      }
    }
  }
  if (!missing.empty()) total += measure_groups(graph, missing);
  return total;
}

double CostModel::measure_groups(const Graph& graph, const std::vector<const KernelGroup*>& groups) const {
  std::lock_guard one_at_a_time(measuring_);
  std::vector<const KernelGroup*> todo;
  std::vector<std::string> models;
  double total = 0;
  {
    std::lock_guard lock(mutex_);
    for (const KernelGroup* group : groups) {
      if (auto known = group_memo_.find(group->key); known != group_memo_.end()) {
        total += known->second.first;  // timed by another thread meanwhile
      } else if (std::find_if(todo.begin(), todo.end(), [&](const KernelGroup* g) { return g->key == group->key; }) ==
                 todo.end()) {
        todo.push_back(group);
      }
    }
  }
  for (const KernelGroup* group : todo) models.push_back(serialize_onnx(kernel_group_model(graph, *group)));
  auto start = std::chrono::steady_clock::now();
  std::vector<std::optional<runtime::Timing>> timings = time_each(*measurement_->runtime, models, measurement_->timing);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::lock_guard lock(mutex_);
  measuring_seconds_ += seconds;
  const Target& target = measurement_->target;
  for (size_t i = 0; i < todo.size(); ++i) {
    if (!timings[i]) {
      record(todo[i]->key, estimated_group_cost(graph, *todo[i]), kEstimated);
      continue;
    }
    double microseconds = std::max(group_time(*timings[i]), 0.001);
    ProfileEntry entry{todo[i]->key, target.db_device(), microseconds, ran_as(*timings[i]), target.runtime, today(),
                       half_iqr(timings[i]->runs_us), static_cast<int>(timings[i]->runs_us.size())};
    profile_.add(std::move(entry));
    record(todo[i]->key, microseconds, kMeasured);
  }
  // Every group asked for is now known (duplicates of one key included).
  for (const KernelGroup* group : groups)
    if (std::find_if(todo.begin(), todo.end(), [&](const KernelGroup* g) { return g->key == group->key; }) != todo.end())
      total += group_memo_.at(group->key).first;
  return total;
}

}  // namespace pet::cost
