// Markdown and CSV renderings of the harness's runs; speedups are ratios of estimated costs.
#include "bench/harness_report.h"

#include <algorithm>
#include <cctype>

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

int evidence_count(const HarnessRow& row, const std::string& kind) {
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
  std::string head = fmt::format("| {} | {} | {} |", markdown_cell(row.model), row.batch, markdown_cell(row.mode));
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
                            evidence_count(row, "z3-proof"), evidence_count(row, "random-test"),
                            evidence_count(row, "partial+correction"), markdown_cell(top_families(row)), check,
                            measured);
}

std::string optional_number(const std::optional<double>& value, const char* format) {
  return value ? fmt::format(fmt::runtime(format), *value) : "";
}

std::string csv_row(const HarnessTable& table, const HarnessRow& row) {
  std::vector<std::string> fields = {csv_field(row.model), std::to_string(row.batch), csv_field(row.mode),
                                     csv_field(row.error.empty() ? "ok" : "error: " + row.error)};
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
        std::to_string(evidence_count(row, "z3-proof")), std::to_string(evidence_count(row, "random-test")),
        std::to_string(evidence_count(row, "partial+correction")), csv_field(families),
        row.check_passed ? "true" : "false", fmt::format("{:.3e}", row.check_max_abs_error),
        optional_number(row.measured_ms, "{:.3f}")};
    fields.insert(fields.end(), rest.begin(), rest.end());
  }
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) line += (i ? "," : "") + fields[i];
  return line + "\n";
}

bool all_digits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

const std::vector<std::string>& evidence_kinds() {
  static const std::vector<std::string> kinds = {"z3-proof", "random-test", "partial+correction"};
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

const HarnessRow* find_run(const HarnessTable& table, const HarnessRow& row, const std::string& mode) {
  for (const HarnessRow& other : table.rows)
    if (other.model == row.model && other.batch == row.batch && other.mode == mode && other.error.empty())
      return &other;
  return nullptr;
}

std::optional<double> speedup_vs_none(const HarnessTable& table, const HarnessRow& row) {
  if (!row.error.empty()) return std::nullopt;
  const HarnessRow* none = find_run(table, row, "none");
  return speedup(none ? none->cost_us : row.cost_original_us, row.cost_us);
}

std::optional<double> speedup_vs_taso(const HarnessTable& table, const HarnessRow& row) {
  if (!row.error.empty()) return std::nullopt;
  const HarnessRow* taso = find_run(table, row, "taso");
  return taso ? speedup(taso->cost_us, row.cost_us) : std::nullopt;
}

std::string harness_markdown(const HarnessTable& table) {
  std::string text = fmt::format("# pet harness: estimated cost on {}\n\n", table.device);
  text += fmt::format(
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
  if (!table.skipped.empty()) {
    text += "\n## Skipped\n\n";
    for (const SkippedModel& skipped : table.skipped)
      text += fmt::format("- {} batch {}: {}\n", skipped.model, skipped.batch, skipped.reason);
  }
  return text;
}

std::string harness_csv(const HarnessTable& table) {
  std::string text =
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
