// Markdown and CSV renderings of the harness's runs: estimated costs, or a measured target's end-to-end times.
#include "bench/harness_report.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace pet::bench {
namespace {

constexpr size_t kTopFamilies = 3;
constexpr const char* kNoGpuRuntime = "n/a (no GPU runtime yet)";

std::string markdown_cell(const std::string& text) {
  std::string cell;
  for (char c : text) {
    if (c == '|') cell += "\\|";
    else if (c == '\n' || c == '\r') cell += ' ';
    else cell += c;
  }
  return cell;
}

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? fmt::format("{:.3f}x", *ratio) : "n/a";
}

int evidence_count(const HarnessRow& row, EvidenceKind kind) {
  auto found = row.by_evidence.find(kind);
  return found == row.by_evidence.end() ? 0 : found->second;
}

std::string top_families(const HarnessRow& row) {
  if (row.by_family.empty()) return "-";
  std::string text;
  for (size_t i = 0; i < std::min(kTopFamilies, row.by_family.size()); ++i)
    text += fmt::format("{}{} ({})", i ? ", " : "", row.by_family[i].first, row.by_family[i].second);
  if (row.by_family.size() > kTopFamilies) text += fmt::format(", +{} more", row.by_family.size() - kTopFamilies);
  return text;
}

std::string markdown_row(const HarnessTable& table, const HarnessRow& row) {
  std::string head = fmt::format("| {} | {} | {} |", markdown_cell(row.model), row.batch, markdown_cell(to_string(row.mode)));
  if (!row.error.empty()) {
    std::string empty_cells;
    for (int i = 0; i < 11; ++i) empty_cells += " |";
    return head + fmt::format(" error: {} |{}\n", markdown_cell(row.error), empty_cells);
  }
  std::string check = fmt::format("{:.2e}{}", row.check_max_abs_error, row.check_passed ? "" : " (FAILED)");
  std::string measured = row.measured_ms ? fmt::format("{:.3f}", *row.measured_ms) : kNoGpuRuntime;
  return head + fmt::format(" {:.1f} | {} | {} | {:.2f} | {} | {} | {} | {} | {} | {} | {} | {} |\n", row.cost_us,
                            ratio_text(speedup_vs_none(table, row)), ratio_text(speedup_vs_taso(table, row)),
                            row.search_seconds, markdown_cell(row.stop_reason), row.transformations,
                            evidence_count(row, EvidenceKind::z3_proof), evidence_count(row, EvidenceKind::random_test),
                            evidence_count(row, EvidenceKind::partial_correction), markdown_cell(top_families(row)), check,
                            measured);
}

std::string optional_number(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + fields[i];
  return line + "\n";
}

std::vector<std::string> csv_head(const HarnessRow& row) {
  return {csv_field(row.model), std::to_string(row.batch), csv_field(to_string(row.mode)),
          csv_field(row.error.empty() ? "ok" : "error: " + row.error)};
}

std::string csv_row(const HarnessTable& table, const HarnessRow& row) {
  std::vector<std::string> fields = csv_head(row);
  if (!row.error.empty()) {
    fields.resize(18);
  } else {
    std::string families;
    for (const auto& [family, count] : row.by_family)
      families += fmt::format("{}{}={}", families.empty() ? "" : ";", family, count);
    std::vector<std::string> rest = {
        fmt::format("{:.3f}", row.cost_original_us), fmt::format("{:.3f}", row.cost_us),
        optional_number(speedup_vs_none(table, row), "{:.4f}"), optional_number(speedup_vs_taso(table, row), "{:.4f}"),
        fmt::format("{:.3f}", row.search_seconds), csv_field(row.stop_reason), std::to_string(row.transformations),
        std::to_string(evidence_count(row, EvidenceKind::z3_proof)),
        std::to_string(evidence_count(row, EvidenceKind::random_test)),
        std::to_string(evidence_count(row, EvidenceKind::partial_correction)), csv_field(families),
        row.check_passed ? "true" : "false", fmt::format("{:.3e}", row.check_max_abs_error),
        optional_number(row.measured_ms, "{:.3f}")};
    fields.insert(fields.end(), rest.begin(), rest.end());
  }
  return csv_line(fields);
}

// Measured targets: end-to-end times of the input and the written model, then the estimates.

std::string latency_text(const Latency& latency) {
  return latency.median_us > 0 ? fmt::format("{:.1f} ± {:.1f}", latency.median_us, latency.spread_us) : "n/a";
}

std::string calibration_text(const std::optional<double>& error) {
  return error ? fmt::format("{:+.1f}%", *error * 100) : "n/a";
}

// The chosen label, with how it was chosen when the times were not measured in this run.
std::string chosen_text(const MeasuredRun& run) {
  if (run.source == "replayed") return run.chosen + " (replayed)";
  if (run.source == "estimated") return run.chosen + " (by prediction)";
  return run.chosen;
}

std::string measured_markdown_row(const HarnessRow& row) {
  std::string head = fmt::format("| {} | {} | {} |", markdown_cell(row.model), row.batch, markdown_cell(to_string(row.mode)));
  if (!row.error.empty()) return head + fmt::format(" error: {} | | | | | | | | |\n", markdown_cell(row.error));
  MeasuredRun run = row.measured_run.value_or(MeasuredRun{});
  std::string check = fmt::format("{:.2e}{}", row.check_max_abs_error, row.check_passed ? "" : " (FAILED)");
  return head + fmt::format(" {} | {} | {} | {} | {} | {} | {} | {:.2f} | {} |\n", latency_text(run.input),
                            latency_text(run.written), ratio_text(measured_speedup(row)),
                            markdown_cell(chosen_text(run)), ratio_text(predicted_speedup(row)),
                            calibration_text(run.calibration_error), row.transformations, row.search_seconds, check);
}

std::string measured_csv_row(const HarnessRow& row) {
  std::vector<std::string> fields = csv_head(row);
  if (!row.error.empty()) {
    fields.resize(24);
    return csv_line(fields);
  }
  MeasuredRun run = row.measured_run.value_or(MeasuredRun{});
  fields.push_back(csv_field(run.source));
  for (const Latency* latency : {&run.input, &run.written}) {
    bool timed = latency->median_us > 0;
    fields.push_back(timed ? fmt::format("{:.3f}", latency->median_us) : "");
    fields.push_back(timed ? fmt::format("{:.3f}", latency->spread_us) : "");
  }
  std::vector<std::string> rest = {
      optional_number(measured_speedup(row), "{:.4f}"), csv_field(run.chosen),
      fmt::format("{:.3f}", run.input.predicted_us), fmt::format("{:.3f}", run.written.predicted_us),
      optional_number(predicted_speedup(row), "{:.4f}"), optional_number(run.calibration_error, "{:.4f}"),
      std::to_string(row.transformations), fmt::format("{:.3f}", row.search_seconds), csv_field(row.stop_reason),
      row.check_passed ? "true" : "false", fmt::format("{:.3e}", row.check_max_abs_error),
      std::to_string(run.kernels_measured), std::to_string(run.kernels_replayed),
      std::to_string(run.kernels_estimated), fmt::format("{:.3f}", run.measuring_seconds)};
  fields.insert(fields.end(), rest.begin(), rest.end());
  return csv_line(fields);
}

std::string estimated_markdown_table(const HarnessTable& table) {
  std::string text = fmt::format(
      "Beam {}, search time limit {:g} s, seed {}. Costs are the cost model's estimates in microseconds; "
      "speedups divide the costs of the same model and batch. The search time column is wall clock; the "
      "rest is deterministic for searches that stop before their time limit.\n\n",
      table.beam, table.time_limit_s, table.seed);
  text +=
      "| model | batch | mode | est. cost (us) | vs none | vs taso | search (s) | stop reason | transformations | "
      "z3-proof | random-test | partial+correction | top families | check max abs error | measured GPU (ms) |\n"
      "|---|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---|\n";
  for (const HarnessRow& row : table.rows) text += markdown_row(table, row);
  if (table.rows.empty()) text += "\n(no runs)\n";
  return text;
}

// Under a measured table: each mode's geometric mean speedup, and where the kernel costs came from.
std::string measured_summary(const HarnessTable& table) {
  std::string text;
  for (Mode mode : table.modes) {
    auto [mean, count] = geometric_mean_measured_speedup(table, mode);
    if (mean)
      text += fmt::format("- geometric mean of measured speedups, mode {}: {} over {} run{}\n", to_string(mode),
                          ratio_text(mean), count, count == 1 ? "" : "s");
  }
  MeasuredRun total;
  for (const HarnessRow& row : table.rows) {
    if (!row.measured_run) continue;
    total.kernels_measured += row.measured_run->kernels_measured;
    total.kernels_replayed += row.measured_run->kernels_replayed;
    total.kernels_estimated += row.measured_run->kernels_estimated;
    total.measuring_seconds += row.measured_run->measuring_seconds;
  }
  text += fmt::format(
      "- kernel-group costs over all runs: {} measured, {} replayed from the profile DB, {} estimated; "
      "{:.1f} s measuring\n",
      total.kernels_measured, total.kernels_replayed, total.kernels_estimated, total.measuring_seconds);
  return "\n" + text;
}

std::string measured_markdown_table(const HarnessTable& table) {
  std::string text = fmt::format(
      "Beam {}, search time limit {:g} s, seed {}, {} timed rounds per selection. Times are end-to-end medians "
      "± half the interquartile range in microseconds, of the input model and of the model written, timed "
      "interleaved in the runtime; the measured speedup divides the two, the predicted speedup divides the cost "
      "model's estimates of the same two, and the calibration error is the estimate of the cleaned input over its "
      "measured time, minus one. Times vary from run to run; compare ratios within one run.\n\n",
      table.beam, table.time_limit_s, table.seed, table.select_runs);
  text +=
      "| model | batch | mode | input (us) | written (us) | measured speedup | chosen | predicted speedup | "
      "calibration error | transformations | search (s) | check max abs error |\n"
      "|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|\n";
  for (const HarnessRow& row : table.rows) text += measured_markdown_row(row);
  text += table.rows.empty() ? "\n(no runs)\n" : measured_summary(table);
  return text;
}

bool all_digits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

const std::vector<EvidenceKind>& evidence_kinds() {
  static const std::vector<EvidenceKind> kinds = {EvidenceKind::z3_proof, EvidenceKind::random_test,
                                                  EvidenceKind::partial_correction};
  return kinds;
}

std::string transformation_family(const std::string& kind, const std::string& name) {
  if (kind != "rule") return kind + ":" + name;
  size_t arrow = name.find("-to-");
  std::string left = arrow == std::string::npos ? name : name.substr(0, arrow);
  std::string family;
  size_t start = 0;
  while (start <= left.size()) {
    size_t end = std::min(left.find('-', start), left.size());
    std::string token = left.substr(start, end - start);
    if (!token.empty() && !all_digits(token)) family += (family.empty() ? "" : "-") + token;
    start = end + 1;
  }
  return "rule:" + (family.empty() ? name : family);
}

std::vector<std::pair<std::string, int>> count_families(const std::vector<std::string>& families) {
  std::map<std::string, int> counts;
  for (const std::string& family : families) ++counts[family];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

std::optional<double> speedup(double baseline_us, double cost_us) {
  if (!(baseline_us > 0) || !(cost_us > 0)) return std::nullopt;
  return baseline_us / cost_us;
}

const HarnessRow* find_run(const HarnessTable& table, const HarnessRow& row, Mode mode) {
  for (const HarnessRow& other : table.rows)
    if (other.model == row.model && other.batch == row.batch && other.mode == mode && other.error.empty())
      return &other;
  return nullptr;
}

std::optional<double> speedup_vs_none(const HarnessTable& table, const HarnessRow& row) {
  if (!row.error.empty()) return std::nullopt;
  const HarnessRow* none = find_run(table, row, Mode::none);
  return speedup(none ? none->cost_us : row.cost_original_us, row.cost_us);
}

std::optional<double> speedup_vs_taso(const HarnessTable& table, const HarnessRow& row) {
  if (!row.error.empty()) return std::nullopt;
  const HarnessRow* taso = find_run(table, row, Mode::taso);
  return taso ? speedup(taso->cost_us, row.cost_us) : std::nullopt;
}

std::optional<double> measured_speedup(const HarnessRow& row) {
  if (!row.error.empty() || !row.measured_run) return std::nullopt;
  return speedup(row.measured_run->input.median_us, row.measured_run->written.median_us);
}

std::optional<double> predicted_speedup(const HarnessRow& row) {
  if (!row.error.empty() || !row.measured_run) return std::nullopt;
  return speedup(row.measured_run->input.predicted_us, row.measured_run->written.predicted_us);
}

std::pair<std::optional<double>, int> geometric_mean_measured_speedup(const HarnessTable& table, Mode mode) {
  double log_sum = 0;
  int count = 0;
  for (const HarnessRow& row : table.rows) {
    std::optional<double> gain = row.mode == mode ? measured_speedup(row) : std::nullopt;
    if (!gain) continue;
    log_sum += std::log(*gain);
    ++count;
  }
  if (count == 0) return {std::nullopt, 0};
  return {std::exp(log_sum / count), count};
}

std::string target_title(const HarnessTable& table) {
  if (!table.device.empty()) return table.device;
  return table.measured ? table.target : table.target + " (estimated)";
}

std::string harness_markdown(const HarnessTable& table) {
  std::string text = fmt::format("# pet harness: {}\n\n", target_title(table));
  text += table.measured ? measured_markdown_table(table) : estimated_markdown_table(table);
  if (!table.skipped.empty()) {
    text += "\n## Skipped\n\n";
    for (const SkippedModel& skipped : table.skipped)
      text += fmt::format("- {} batch {}: {}\n", skipped.model, skipped.batch, skipped.reason);
  }
  return text;
}

std::string harness_csv(const HarnessTable& table) {
  std::string text;
  if (table.measured) {
    text =
        "model,batch,mode,status,selection,input_us,input_spread_us,written_us,written_spread_us,measured_speedup,"
        "chosen,input_predicted_us,written_predicted_us,predicted_speedup,calibration_error,transformations,search_s,"
        "stop_reason,check_passed,check_max_abs_error,kernels_measured,kernels_replayed,kernels_estimated,"
        "measuring_s\n";
    for (const HarnessRow& row : table.rows) text += measured_csv_row(row);
    return text;
  }
  text =
      "model,batch,mode,status,cost_original_us,cost_us,speedup_vs_none,speedup_vs_taso,search_s,stop_reason,"
      "transformations,z3_proof,random_test,partial_correction,families,check_passed,check_max_abs_error,"
      "measured_gpu_ms\n";
  for (const HarnessRow& row : table.rows) text += csv_row(table, row);
  return text;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace pet::bench
