// The report's first keys: the written model's speedup over the input (measured, replayed or
// estimated, and which) and the program chosen, the same for pet-opt's --report and pet.Result.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "search/pipeline.h"

namespace pet {
namespace {

// A result as the pipeline leaves it: the cost model predicted 200 us -> 100 us; on a measured
// target the selection timed the input at 300 us and the chosen program 2 at 120 us.
OptimizeResult result_with(SelectionSource source, const std::string& chosen) {
  OptimizeResult result{Graph{}, {}, {}, {}, {}, 200, 100, "", {}, {}, {}, chosen};
  result.target.selection.source = source;
  if (source == SelectionSource::none) return result;
  result.target.selection.candidates = {{"input", 310, 300, 1, 10, "", {}},
                                        {"cleaned", 290, 280, 1, 10, "", {}},
                                        {"program 1", 150, 160, 1, 10, "", {}},
                                        {"program 2", 140, 120, 1, 10, "", {}}};
  result.target.selection.chosen = 3;
  return result;
}

// "speedup 2.5, speedup_source ..., chosen ...": the report's first three keys and their values.
std::string headline(const OptimizeResult& result) {
  nlohmann::ordered_json json = report_object(result, false);
  std::string text;
  int shown = 0;
  for (auto& [key, value] : json.items()) {
    if (shown++ == 3) break;
    text += (text.empty() ? "" : ", ") + key + " " + value.dump();
  }
  return text;
}

TEST(ReportHeadline, AMeasuredSelectionGivesTheMeasuredSpeedupOfTheWrittenProgram) {
  EXPECT_EQ(headline(result_with(SelectionSource::measured, "program 2")),
            R"(speedup 2.5, speedup_source "measured", chosen "program 2")");
}

TEST(ReportHeadline, AReplayedSelectionSaysSo) {
  EXPECT_EQ(headline(result_with(SelectionSource::replayed, "program 2")),
            R"(speedup 2.5, speedup_source "replayed", chosen "program 2")");
}

TEST(ReportHeadline, AnAnalyticTargetGivesTheCostModelsEstimate) {
  EXPECT_EQ(headline(result_with(SelectionSource::none, "program 1")),
            R"(speedup 2.0, speedup_source "estimated", chosen "program 1")");
}

TEST(ReportHeadline, ASelectionByPredictionGivesTheEstimateToo) {
  EXPECT_EQ(headline(result_with(SelectionSource::estimated, "program 2")),
            R"(speedup 2.0, speedup_source "estimated", chosen "program 2")");
}

TEST(ReportHeadline, TheTransformationsAreTopLevelBesideTheTotals) {
  nlohmann::ordered_json json = report_object(result_with(SelectionSource::none, "cleaned"), false);
  EXPECT_TRUE(json.contains("transformations") && json["transformations"].is_array());
  EXPECT_EQ(json["totals"]["speedup"], 2.0);
}

}  // namespace
}  // namespace pet
