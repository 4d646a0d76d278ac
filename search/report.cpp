// The optimization report: every applied transformation with its evidence and cost, the search's
// statistics and stop reason, and the differential check, as JSON and as a terminal table.
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/heap.h"
#include "search/pipeline.h"

namespace pet {
namespace {

nlohmann::ordered_json transformation_json(const Transformation& step) {
  nlohmann::ordered_json json;
  json["kind"] = to_string(step.kind);
  json["name"] = step.name;
  json["location"] = step.location;
  json["evidence_kind"] = to_string(step.evidence_kind);
  json["evidence"] = step.evidence;
  json["cost_before_us"] = step.cost_before_us;
  json["cost_after_us"] = step.cost_after_us;
  if (step.evidence_kind == EvidenceKind::partial_correction) json["correction_overhead"] = step.correction_overhead;
  return json;
}

// The search's figures, with the generation's under the keys the reports have always had.
nlohmann::ordered_json search_json(const SearchStats& stats, const GenerationStats& generation, bool with_times) {
  nlohmann::ordered_json json;
  json["algorithm"] = to_string(stats.algorithm);
  json["stop_reason"] = to_string(stats.stop_reason);
  json["rounds"] = stats.rounds;
  json["expansions"] = stats.expansions;
  json["candidates"] = stats.candidates;
  json["duplicates"] = stats.duplicates;
  json["search_work"] = stats.work;
  json["queued_peak"] = stats.queued_peak;
  json["subprograms"] = generation.subprograms();
  json["subprograms_capped"] = generation.capped;
  json["mutant_work"] = generation.work;
  json["mutants_full"] = generation.mutants_full;
  json["mutants_partial"] = generation.mutants_partial;
  json["rule_applications"] = stats.rule_applications;
  json["rule_applications_by_rule"] = stats.rule_applications_by_rule;
  json["rule_proofs"] = stats.rule_proofs;
  json["rule_proofs_failed"] = stats.rule_proofs_failed;
  json["rule_proofs_failed_detail"] = stats.rule_proofs_failed_detail;
  const RankingStats& ranking = stats.ranking;
  json["measured_ranking"] = {{"on", ranking.on},        {"why", ranking.why},           {"timed", ranking.timed},
                              {"replayed", ranking.replayed}, {"rejected", ranking.rejected}, {"requests", ranking.requests}};
  if (with_times) json["measured_ranking"]["seconds"] = ranking.seconds;
  if (with_times) {
    json["seconds"] = stats.seconds;
    json["generation_seconds"] = generation.seconds;
  }
  return json;
}

nlohmann::ordered_json generation_json(const GenerationStats& generation, bool with_times) {
  nlohmann::ordered_json json;
  json["subprograms"] = {{to_string(SubprogramKind::linear), generation.linear},
                         {to_string(SubprogramKind::group), generation.groups}};
  json["mutants"] = {{"full", generation.mutants_full}, {"partial", generation.mutants_partial}};
  json["work"] = generation.work;
  json["capped"] = generation.capped;
  if (with_times) json["seconds"] = generation.seconds;
  return json;
}

nlohmann::ordered_json totals_json(const OptimizeResult& result) {
  std::map<std::string, int> by_evidence;
  double overhead = 0;
  for (const Transformation& step : result.transformations) {
    ++by_evidence[to_string(step.evidence_kind)];
    overhead += step.correction_overhead;
  }
  nlohmann::ordered_json json;
  json["transformations"] = result.transformations.size();
  json["by_evidence"] = nlohmann::ordered_json::object();
  for (const auto& [kind, count] : by_evidence) json["by_evidence"][kind] = count;
  json["cost_original_us"] = result.cost_original_us;
  json["cost_optimized_us"] = result.cost_optimized_us;
  json["speedup"] = result.cost_optimized_us > 0 ? result.cost_original_us / result.cost_optimized_us : 0;
  json["correction_overhead_sum"] = overhead;
  return json;
}

// The report's first lines: the written model's speedup over the input, measured (or replayed) end
// to end where the selection timed both, else the cost model's estimate; where it comes from; and
// which program was written.
void headline(const OptimizeResult& result, nlohmann::ordered_json& json) {
  const Selection& selection = result.target.selection;
  bool timed = selection.source == SelectionSource::measured || selection.source == SelectionSource::replayed;
  double input_us = timed ? selection.candidates[0].median_us : 0;
  double written_us = timed ? selection.candidates[selection.chosen].median_us : 0;
  if (input_us > 0 && written_us > 0) {
    json["speedup"] = input_us / written_us;
    json["speedup_source"] = to_string(selection.source);
  } else {
    json["speedup"] = result.cost_optimized_us > 0 ? result.cost_original_us / result.cost_optimized_us : 0;
    json["speedup_source"] = to_string(SelectionSource::estimated);
  }
  json["chosen"] = result.chosen;
}

nlohmann::ordered_json check_json(const DifferentialReport& check) {
  nlohmann::ordered_json json;
  json["seed"] = check.seed;
  json["passed"] = check.passed;
  json["max_abs_error"] = check.max_abs_error();
  if (!check.passed) json["failure_reason"] = check.failure_reason();
  json["input_range"] = check.input_range;
  json["inconclusive"] = check.inconclusive;
  json["same_graph"] = check.same_graph;
  json["warnings"] = check.warnings;
  for (const OutputDifference& output : check.outputs)
    json["outputs"].push_back({{"name", output.name},
                               {"max_abs_error", output.max_abs_error},
                               {"max_rel_error", output.max_rel_error},
                               {"elements_outside_tolerance", output.elements_outside},
                               {"nonfinite_elements", output.nonfinite_expected},
                               {"nonfinite_mismatches", output.nonfinite_mismatches}});
  return json;
}

nlohmann::ordered_json selection_json(const Selection& selection) {
  nlohmann::ordered_json json;
  json["source"] = to_string(selection.source);
  json["chosen"] = selection.candidates[selection.chosen].label;
  json["reason"] = selection.reason;
  for (const TimedCandidate& candidate : selection.candidates) {
    nlohmann::ordered_json item = {{"label", candidate.label},
                                   {"predicted_us", candidate.predicted_us},
                                   {"median_us", candidate.median_us},
                                   {"spread_us", candidate.spread_us},
                                   {"runs", candidate.runs}};
    if (!candidate.rejected.empty()) item["rejected"] = candidate.rejected;
    if (!candidate.changes.empty()) item["changes"] = candidate.changes;
    json["candidates"].push_back(std::move(item));
  }
  return json;
}

// The in-context scales the search priced with (absent: not fitted).
nlohmann::ordered_json context_json(const cost::ContextScales& scales) {
  nlohmann::ordered_json json = {{"fitted", scales.fitted}, {"coverage", scales.coverage}};
  if (!scales.fitted) return json;
  json["end_to_end"] = scales.end_to_end;
  json["overall"] = scales.overall;
  json["reorder"] = scales.reorder;
  json["by_op"] = nlohmann::ordered_json::object();
  for (const auto& [op, scale] : scales.by_op) json["by_op"][op] = scale;
  json["groups_matched"] = scales.groups_matched;
  json["groups"] = scales.groups;
  return json;
}

// The target and, for a measured one, where its costs came from and what was measured end to end.
// Counts and times of this run's measurements vary from run to run: only with `with_times`.
nlohmann::ordered_json target_json(const OptimizeResult& result, bool with_times) {
  nlohmann::ordered_json json;
  json["description"] = result.device;
  const TargetReport& report = result.target;
  if (!report.target.measured) return json;
  json["name"] = report.target.name;
  json["runtime"] = report.target.runtime;
  json["cpu"] = report.target.cpu;
  json["threads"] = report.target.threads;
  json["kernel_costs"] = {{"measured", report.sources.measured},
                          {"replayed", report.sources.replayed},
                          {"estimated", report.sources.estimated},
                          {"refused", report.sources.refused}};
  if (with_times) {
    json["profile_db"] = report.profile_db;
    json["kernel_costs"]["measuring_seconds"] = report.sources.measuring_seconds;
    json["kernel_costs"]["recording_seconds"] = report.sources.recording_seconds;
  }
  if (!report.misses_file.empty()) json["misses_exported"] = report.misses;
  if (!report.other_kernels.empty()) json["times_set_aside"] = report.other_kernels;
  json["selection"] = selection_json(report.selection);
  if (report.calibrated) {
    json["calibration_error"] = report.calibration_error;
    json["calibration_error_standalone"] = report.standalone_calibration_error;
    if (!stale_profile_note(report).empty()) json["stale_profile_db"] = true;  // the summary says what to do
  }
  json["standalone_predicted_us"] = report.standalone_predicted_us;
  json["in_context"] = context_json(report.context);
  if (report.floor.known)
    json["physical_floor"] = {{"peak", report.floor.peak},          {"peak_gflops", report.floor.peak_gflops},
                              {"peak_replayed", report.floor.replayed}, {"dense_flops", report.floor.flops},
                              {"floor_us", report.floor.floor_us},    {"input_fraction", report.floor.input_fraction},
                              {"written_fraction", report.floor.written_fraction}};
  return json;
}

std::string shorten(const std::string& text, size_t width) {
  return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

}  // namespace

nlohmann::ordered_json report_object(const OptimizeResult& result, bool with_times) {
  nlohmann::ordered_json json;
  headline(result, json);
  json["target"] = target_json(result, with_times);
  json["totals"] = totals_json(result);
  json["transformations"] = nlohmann::ordered_json::array();
  for (const Transformation& step : result.transformations) json["transformations"].push_back(transformation_json(step));
  json["search"] = search_json(result.search, result.generation, with_times);
  json["generation"] = generation_json(result.generation, with_times);
  for (const PassResult& pass : result.passes) json["passes"].push_back({{"pass", pass.pass}, {"changes", pass.changes}});
  json["differential_check"] = check_json(result.check);
  if (with_times) {
    for (const StageTime& time : result.times) json["seconds"][time.stage] = time.seconds;
    json["allocator"] = heap_allocator();  // what the times depend on beside the machine
  }
  return json;
}

std::string report_json(const OptimizeResult& result, bool with_times) {
  return report_object(result, with_times).dump(2) + "\n";
}

std::string report_table(const OptimizeResult& result) {
  std::string text = fmt::format("  {:>3}  {:<34} {:<26} {:<19} {:>10} {:>10} {:>9}\n", "#", "transformation",
                                 "location", "evidence", "before us", "after us", "overhead");
  int index = 0;
  for (const Transformation& step : result.transformations)
    text += fmt::format("  {:>3}  {:<34} {:<26} {:<19} {:>10.1f} {:>10.1f} {:>9}\n", ++index, shorten(step.name, 34),
                        shorten(step.location, 26), to_string(step.evidence_kind), step.cost_before_us, step.cost_after_us,
                        step.evidence_kind == EvidenceKind::partial_correction ? fmt::format("{:.3f}%", 100 * step.correction_overhead)
                                                                   : "");
  if (result.transformations.empty()) text += "       (no transformation lowered the estimated cost)\n";
  double speedup = result.cost_optimized_us > 0 ? result.cost_original_us / result.cost_optimized_us : 0;
  text += fmt::format("  predicted cost on {}: {:.1f} us -> {:.1f} us ({:.3f}x)\n", result.device,
                      result.cost_original_us, result.cost_optimized_us, speedup);
  text += fmt::format(
      "  search: {}, stopped: {}, {} rounds, {} expansions, {} candidates ({} duplicates, {} nodes), {:.2f} s\n",
      to_string(result.search.algorithm), to_string(result.search.stop_reason), result.search.rounds, result.search.expansions,
      result.search.candidates, result.search.duplicates, result.search.work, result.search.seconds);
  const RankingStats& ranking = result.search.ranking;
  if (ranking.on)
    text += fmt::format("  measured ranking: {}; {} programs timed end to end in {} requests, {} replayed, {} refused; "
                        "{:.1f} s finalizing, serializing and timing them\n",
                        ranking.why, ranking.timed, ranking.requests, ranking.replayed, ranking.rejected, ranking.seconds);
  else if (!ranking.why.empty())
    text += fmt::format("  measured ranking: {}\n", ranking.why);
  text += fmt::format("  mutants: {} subprograms{}, {} full, {} partial in {:.2f} s; rules: {} applications, {} proofs ({} failed)\n",
                      result.generation.subprograms(),
                      result.generation.capped
                          ? fmt::format(" ({} stopped by the work budget)", result.generation.capped)
                          : "",
                      result.generation.mutants_full, result.generation.mutants_partial, result.generation.seconds,
                      result.search.rule_applications, result.search.rule_proofs, result.search.rule_proofs_failed);
  for (const std::string& failed : result.search.rule_proofs_failed_detail) text += "  rule not proved: " + failed + "\n";
  for (const std::string& warning : result.check.warnings) text += "  check warning: " + warning + "\n";
  return text;
}

}  // namespace pet
