// The measured selection's choice, from end-to-end times replayed from a profile DB: a program
// only when it beats the input beyond both spreads, else the cleaned input when it is faster,
// else the input; by prediction, and saying so, when the DB has no end-to-end times.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/measured_selection.h"

namespace pet::testing {
namespace {

Graph unary(const std::string& op) {
  return parse_graph("graph \"g\" opset 13 {\n  input %x : f32[1,4]\n  %y = " + op + "(%x) : f32[1,4]\n  output %y\n}\n");
}

struct Timed {
  double median_us;
  double spread_us;
};

class Selecting : public ::testing::Test {
 protected:
  Graph input = unary("Relu"), cleaned = unary("Neg"), program = unary("Abs");
  cost::Measurement measurement{.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"}};

  Selection select(Timed in, Timed clean, Timed prog) {
    cost::ProfileDb db;
    auto add = [&](const Graph& graph, Timed time) {
      db.add({model_key(graph), measurement.target.db_device(), time.median_us, "end to end", "onnxruntime 0.0.0",
              "2026-11-24", time.spread_us, 10});
    };
    add(input, in);
    add(cleaned, clean);
    add(program, prog);
    cost::CostModel replayed(cost::load_cpu_fallback(), db, measurement);
    return select_fastest({{"input", &input, 100}, {"cleaned", &cleaned, 100}, {"program 1", &program, 90}}, replayed,
                          {});
  }
};

TEST_F(Selecting, AProgramFasterBeyondBothSpreadsIsWritten) {
  Selection selection = select({100, 2}, {99, 2}, {90, 3});
  EXPECT_EQ(selection.source, "replayed");
  EXPECT_EQ(selection.candidates[selection.chosen].label, "program 1");
  EXPECT_EQ(selection.reason, "program 1 is 1.111x faster than the input, beyond the spread");
}

TEST_F(Selecting, AProgramFasterWithinTheSpreadLeavesTheCleanedInputWhenThatIsFaster) {
  Selection selection = select({100, 4}, {99, 2}, {97, 3});
  EXPECT_EQ(selection.candidates[selection.chosen].label, "cleaned");
  EXPECT_EQ(selection.reason,
            "no program beat the input beyond the spread (best: program 1, 1.031x); the cleaned input is not slower, "
            "so it is written");
}

TEST_F(Selecting, WhenNothingIsFasterTheInputIsWrittenUnchanged) {
  Selection selection = select({100, 1}, {101, 1}, {105, 1});
  EXPECT_EQ(selection.chosen, 0u);
  EXPECT_EQ(selection.reason,
            "no program beat the input beyond the spread (best: cleaned, 0.990x); cleanup does not pay either, so "
            "the input is written unchanged");
}

TEST_F(Selecting, WithoutEndToEndTimesTheLowestPredictionIsChosenAndSaidSo) {
  cost::CostModel replayed(cost::load_cpu_fallback(), {}, measurement);
  Selection selection = select_fastest(
      {{"input", &input, 100}, {"cleaned", &cleaned, 100}, {"program 1", &program, 90}}, replayed, {});
  EXPECT_EQ(selection.source, "estimated");
  EXPECT_EQ(selection.candidates[selection.chosen].label, "program 1");
  EXPECT_EQ(selection.reason, "no end-to-end times to compare: program 1 has the lowest predicted cost");
}

}  // namespace
}  // namespace pet::testing
