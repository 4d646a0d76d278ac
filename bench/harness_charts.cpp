// Charts from the harness table; a failed or absent run leaves its bar out.
#include "bench/harness_charts.h"

#include <fmt/format.h>

namespace pet::bench {
namespace {

struct Group {
  std::string model;
  int batch;
};

std::vector<Group> model_groups(const HarnessTable& table) {
  std::vector<Group> groups;
  for (const HarnessRow& row : table.rows) {
    bool seen = false;
    for (const Group& group : groups) seen = seen || (group.model == row.model && group.batch == row.batch);
    if (!seen) groups.push_back({row.model, row.batch});
  }
  return groups;
}

const HarnessRow* run_of(const HarnessTable& table, const Group& group, Mode mode) {
  HarnessRow key;
  key.model = group.model;
  key.batch = group.batch;
  return find_run(table, key, mode);
}

std::optional<double> inverse(const std::optional<double>& ratio) {
  return ratio && *ratio > 0 ? std::optional<double>(1 / *ratio) : std::nullopt;
}

// A chart with one bar per mode of each model and batch, valued by `value`.
template <typename Value>
BarChart per_mode_chart(const HarnessTable& table, Value value) {
  BarChart chart;
  for (Mode mode : table.modes) chart.series.push_back(to_string(mode));
  for (const Group& group : model_groups(table)) {
    BarGroup bars{fmt::format("{}\nb{}", group.model, group.batch), {}};
    for (Mode mode : table.modes) {
      const HarnessRow* row = run_of(table, group, mode);
      bars.values.push_back(row ? value(*row) : std::nullopt);
    }
    chart.groups.push_back(std::move(bars));
  }
  return chart;
}

// A measured target: one bar per mode, the written model's measured speedup over its input.
BarChart measured_speedup_chart(const HarnessTable& table) {
  BarChart chart = per_mode_chart(table, [](const HarnessRow& row) { return measured_speedup(row); });
  chart.title = fmt::format("Measured speedup over the input on {} (higher is better)", table.target);
  chart.y_label = "speedup (x)";
  chart.reference_line = 1.0;
  return chart;
}

}  // namespace

BarChart cost_chart(const HarnessTable& table) {
  BarChart chart = per_mode_chart(
      table, [&](const HarnessRow& row) { return inverse(speedup_vs_none(table, row)); });
  chart.title = fmt::format("{} cost on {}, relative to none (lower is better)",
                            table.measured ? "Predicted" : "Estimated", table.target);
  chart.y_label = "cost / cost of none";
  chart.reference_line = 1.0;
  return chart;
}

BarChart speedup_chart(const HarnessTable& table) {
  if (table.measured) return measured_speedup_chart(table);
  BarChart chart;
  chart.title = fmt::format("Speedup of pet, estimated on {} (higher is better)", table.target);
  chart.y_label = "speedup (x)";
  chart.series = {"pet over taso", "pet over none"};
  chart.reference_line = 1.0;
  for (const Group& group : model_groups(table)) {
    const HarnessRow* pet = run_of(table, group, Mode::pet);
    chart.groups.push_back({fmt::format("{}\nb{}", group.model, group.batch),
                            {pet ? speedup_vs_taso(table, *pet) : std::nullopt,
                             pet ? speedup_vs_none(table, *pet) : std::nullopt}});
  }
  return chart;
}

BarChart search_time_chart(const HarnessTable& table) {
  BarChart chart =
      per_mode_chart(table, [](const HarnessRow& row) { return std::optional<double>(row.search_seconds); });
  chart.title = "Search time (wall clock)";
  chart.y_label = "seconds";
  return chart;
}

}  // namespace pet::bench
