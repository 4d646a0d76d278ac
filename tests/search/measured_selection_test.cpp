// The measured selection's choice, from end-to-end times replayed from a profile DB: a program
// only when it beats the input beyond both spreads, else the cleaned input when it is faster,
// else the input; a candidate without a recorded time is never chosen; by prediction, and saying
// so, when the DB has no end-to-end time for the input.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "kernels/runtime/runtime.h"
#include "search/measure/measured_selection.h"

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
  cost::Measurement measurement{.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"},
                                .picks_correction_lowering = true};

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
    return select_fastest({{"input", &input, 100, {}}, {"cleaned", &cleaned, 100, {}}, {"program 1", &program, 90, {}}}, replayed,
                          {});
  }
};

TEST_F(Selecting, AProgramFasterBeyondBothSpreadsIsWritten) {
  Selection selection = select({100, 2}, {99, 2}, {90, 3});
  EXPECT_EQ(selection.source, SelectionSource::replayed);
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
      {{"input", &input, 100, {}}, {"cleaned", &cleaned, 100, {}}, {"program 1", &program, 90, {}}}, replayed, {});
  EXPECT_EQ(selection.source, SelectionSource::estimated);
  EXPECT_EQ(selection.candidates[selection.chosen].label, "program 1");
  EXPECT_EQ(selection.reason,
            "no end-to-end times to compare, so the choice rests on estimates: program 1 has the lowest predicted cost");
}

// Before: a program predicted 0.1 % faster was written on estimates alone (BERT-s512 TASO-only,
// 0.951x on the H200). After: within kEstimateMargin the cleaned input is written, or the input
// where cleanup is not predicted to pay.
TEST_F(Selecting, OnEstimatesAProgramWithinTheMarginIsNotWritten) {
  cost::CostModel replayed(cost::load_cpu_fallback(), {}, measurement);
  Selection selection = select_fastest(
      {{"input", &input, 100, {}}, {"cleaned", &cleaned, 99.9, {}}, {"program 1", &program, 96, {}}}, replayed, {});
  EXPECT_EQ(selection.source, SelectionSource::estimated);
  EXPECT_EQ(selection.candidates[selection.chosen].label, "cleaned");
  EXPECT_EQ(selection.reason,
            "no end-to-end times to compare, so the choice rests on estimates: program 1 is predicted 1.041x faster "
            "than the cleaned input, within the estimates' 5 % margin, so the cleaned input is written");
  Selection unclean = select_fastest(
      {{"input", &input, 100, {}}, {"cleaned", &cleaned, 100.5, {}}, {"program 1", &program, 99, {}}}, replayed, {});
  EXPECT_EQ(unclean.candidates[unclean.chosen].label, "input");
  EXPECT_EQ(unclean.reason,
            "no end-to-end times to compare, so the choice rests on estimates: program 1 is predicted 1.010x faster "
            "than the input, within the estimates' 5 % margin, so the input is written");
}

// Before: a replayed DB holding the input's time but not the program's (a stale DB: the search
// went elsewhere) chose by prediction alone and wrote the untimed program, which may be slower.
// After: only timed candidates compete; the untimed program is listed as not timed.
TEST_F(Selecting, AReplayedProgramWithoutATimeIsNotChosen) {
  cost::ProfileDb db;
  db.add({model_key(input), measurement.target.db_device(), 100, "end to end", "onnxruntime 0.0.0", "2026-11-24", 1, 10});
  db.add({model_key(cleaned), measurement.target.db_device(), 98, "end to end", "onnxruntime 0.0.0", "2026-11-24", 1, 10});
  cost::CostModel replayed(cost::load_cpu_fallback(), db, measurement);
  Selection selection = select_fastest(
      {{"input", &input, 100, {}}, {"cleaned", &cleaned, 100, {}}, {"program 1", &program, 10, {}}}, replayed, {});
  EXPECT_EQ(selection.source, SelectionSource::replayed);
  EXPECT_EQ(selection.candidates[selection.chosen].label, "cleaned");
  EXPECT_EQ(selection.candidates[2].rejected, "no end-to-end time in the replayed profile DB");
  EXPECT_EQ(selection.reason,
            "no program beat the input beyond the spread (best: cleaned, 1.020x); the cleaned input is not slower, so "
            "it is written");
}

TEST_F(Selecting, AReplayedDbWithOnlyTheInputsTimeWritesTheInput) {
  cost::ProfileDb db;
  db.add({model_key(input), measurement.target.db_device(), 100, "end to end", "onnxruntime 0.0.0", "2026-11-24", 1, 10});
  cost::CostModel replayed(cost::load_cpu_fallback(), db, measurement);
  Selection selection = select_fastest(
      {{"input", &input, 100, {}}, {"cleaned", &cleaned, 90, {}}, {"program 1", &program, 10, {}}}, replayed, {});
  EXPECT_EQ(selection.chosen, 0u);
  EXPECT_EQ(selection.reason,
            "no program has an end-to-end time in the replayed profile DB; the cleaned input has no recorded time "
            "either, so the input is written unchanged");
}

// Models given as their bytes (here text standing in for ONNX), and where a model's bytes are
// (none for a model written from its graph: its bytes exist only while a runtime reads them).
std::vector<runtime::ModelBytes> held(std::initializer_list<const char*> texts) {
  return {texts.begin(), texts.end()};
}
const char* data_of(const runtime::ModelBytes& model) {
  if (!model.holds_bytes()) return nullptr;
  return model.with_bytes([](const std::string& bytes) { return bytes.data(); });
}

// A runtime that refuses every model holding a given op (as OpenVINO's own passes throw on some
// valid graphs) and times the others by their size, so the order of the times is known.
class RefusingRuntime : public runtime::Runtime {
 public:
  // `all_at_once`: every refused model named in one ModelRejected (as pet-gpu's runtime does), else
  // the first only.
  explicit RefusingRuntime(std::vector<std::string> refused_ops, bool all_at_once = false)
      : refused_ops_(std::move(refused_ops)), all_at_once_(all_at_once) {}
  std::string target() const override { return "ort-cpu"; }
  std::string version() const override { return "onnxruntime 0.0.0"; }
  std::vector<runtime::Timing> time_models(const std::vector<runtime::ModelBytes>& models,
                                           const runtime::TimingOptions& options) override {
    ++calls;
    offered.emplace_back();
    for (const runtime::ModelBytes& model : models) {
      offered.back().push_back(data_of(model));
      holding_bytes += model.holds_bytes() ? 1 : 0;
    }
    std::vector<runtime::Timing> timings;
    std::vector<runtime::ModelRejected::Refusal> refusals;
    for (size_t i = 0; i < models.size(); ++i) {
      for (const std::string& op : refused_ops_)
        if (models[i].with_bytes([&](const std::string& bytes) { return bytes.find(op) != std::string::npos; }))
          refusals.push_back({i, fmt::format("model {} was rejected by the test runtime: {}", i, op)});
      if (!refusals.empty() && !all_at_once_) break;
      timings.push_back({std::vector<double>(static_cast<size_t>(options.runs), 100.0 - 5.0 * static_cast<double>(i)),
                         {}});
    }
    if (!refusals.empty()) throw runtime::ModelRejected::of(std::move(refusals));
    return timings;
  }
  std::vector<Tensor> run_model(const std::string&, const std::vector<Tensor>&, int) override { return {}; }
  int calls = 0;
  std::vector<std::vector<const char*>> offered;  // each call's models: where their bytes are
  int holding_bytes = 0;                          // models given as bytes (not written from a graph)

 private:
  std::vector<std::string> refused_ops_;
  bool all_at_once_;
};

class SelectingWithARefusingRuntime : public Selecting {
 protected:
  Graph faster = unary("Sigmoid");
  Selection select_with(RefusingRuntime& runtime) {
    cost::Measurement measured = measurement;
    measured.runtime = &runtime;
    cost::CostModel cost(cost::load_cpu_fallback(), {}, measured);
    return select_fastest({{"input", &input, 100, {}}, {"cleaned", &cleaned, 100, {}}, {"program 1", &program, 90, {}},
                           {"program 2", &faster, 80, {}}},
                          cost, {3, 1, 1});
  }
};

// Before: OpenVINO refusing one program (its ConvolutionToGroupConvolutionFusion threw on
// Inception-v3) ended pet-opt with exit 2. After: that program is a rejected candidate, the
// others are timed, and the report says why it was not.
TEST_F(SelectingWithARefusingRuntime, ARefusedProgramIsDroppedAndTheOthersAreTimed) {
  RefusingRuntime runtime({"Sigmoid"});
  Selection selection = select_with(runtime);
  EXPECT_EQ(runtime.calls, 2);
  ASSERT_EQ(selection.candidates.size(), 4u);
  EXPECT_EQ(selection.candidates[3].rejected, "model 3 was rejected by the test runtime: Sigmoid");
  EXPECT_EQ(selection.candidates[3].runs, 0);
  EXPECT_EQ(selection.candidates[2].median_us, 90);
  EXPECT_EQ(selection.candidates[selection.chosen].label, "program 1");
  // Before: every finalist serialized and held at once (BERT-s128: 436 MB each). After: each written
  // from its graph as the runtime reads it.
  EXPECT_EQ(runtime.holding_bytes, 0);
}

TEST_F(SelectingWithARefusingRuntime, WhenEveryProgramAndTheCleanedInputAreRefusedTheInputIsWritten) {
  RefusingRuntime runtime({"Neg", "Abs", "Sigmoid"});
  Selection selection = select_with(runtime);
  EXPECT_EQ(selection.chosen, 0u);
  EXPECT_EQ(selection.reason,
            "the runtime rejected every program; the runtime rejected the cleaned input too, so the input is "
            "written unchanged");
}

TEST_F(SelectingWithARefusingRuntime, ARefusedInputStaysTheUsersError) {
  RefusingRuntime runtime({"Relu"});
  EXPECT_THROW(select_with(runtime), runtime::ModelRejected);
}

// Before: a live selection timed every finalist again, though the DB keeps the times it holds.
// After: it times the input beside the finalists the DB lacks, and none at all when it holds every one.
TEST_F(SelectingWithARefusingRuntime, AFinalistTheDbHoldsIsNotTimedAgain) {
  RefusingRuntime runtime({});
  cost::Measurement measured = measurement;
  measured.runtime = &runtime;
  cost::CostModel cost(cost::load_cpu_fallback(), {}, measured);
  auto add = [&](const Graph& graph, double us) {
    cost.add_entry({model_key(graph), measured.target.db_device(), us, "end to end", "onnxruntime 0.0.0",
                    "2026-11-29", 1, 10});
  };
  add(input, 200);
  add(cleaned, 199);
  add(program, 150);
  std::vector<SelectionCandidate> candidates = {
      {"input", &input, 100, {}}, {"cleaned", &cleaned, 100, {}}, {"program 1", &program, 90, {}}, {"program 2", &faster, 80, {}}};
  Selection selection = select_fastest(candidates, cost, {3, 1, 1});
  // The input (timed at 100 us, recorded at 200) and program 2 (95 us) were timed: program 2 is
  // recorded at 190 us, on the input's recorded scale; the others keep their times.
  EXPECT_EQ(runtime.calls, 1);
  EXPECT_EQ(selection.source, SelectionSource::measured);
  EXPECT_EQ(selection.candidates[3].median_us, 190);
  EXPECT_EQ(selection.candidates[2].median_us, 150);
  EXPECT_EQ(selection.candidates[selection.chosen].label, "program 1");
  Selection again = select_fastest(candidates, cost, {3, 1, 1});
  EXPECT_EQ(runtime.calls, 1) << "every finalist recorded: nothing is timed";
  EXPECT_EQ(again.source, SelectionSource::replayed);
  EXPECT_EQ(again.chosen, selection.chosen);
}

// Before: a later run that timed the same input (the other mode of pet-opt on one model) replaced
// the input's and the cleaned input's times with its own, so a replay of the earlier run compared its
// programs with another run's input and could choose otherwise than it did. After: the input's first
// recorded time sets the scale; a later run's times are scaled by it over the input's time beside
// them, and what is recorded already keeps its time.
TEST(SelectionEntries, ALaterRunIsScaledToTheInputsRecordedTimeAndKeepsWhatIsRecorded) {
  const cost::Target target{"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  const std::vector<std::string> keys = {"model input", "model cleaned", "model program"};
  std::vector<runtime::Timing> timings(3);
  timings[0].runs_us = {108, 110, 112, 110};
  timings[1].runs_us = {109, 109, 109, 109};
  timings[2].runs_us = {88, 88, 92, 92};
  const std::vector<std::string> ran = {"", "", ""};
  auto describe = [](const std::vector<cost::ProfileEntry>& entries) {
    std::vector<std::string> out;
    for (const cost::ProfileEntry& entry : entries)
      out.push_back(fmt::format("{} = {:.3f} +- {:.3f} x{} [{}]", entry.key, entry.microseconds, entry.spread_us,
                                entry.runs, entry.method));
    return out;
  };
  // The first run of this input: its own times.
  EXPECT_EQ(describe(selection_entries(target, keys, timings, ran, [](const std::string&) {
              return std::optional<cost::ProfileEntry>();
            })),
            (std::vector<std::string>{"model input = 110.000 +- 0.500 x4 [end to end]",
                                      "model cleaned = 109.000 +- 0.000 x4 [end to end]",
                                      "model program = 90.000 +- 2.000 x4 [end to end]"}));
  // A later run: the input was recorded at 100 us and the cleaned input at 99 us.
  cost::ProfileDb db;
  db.add({keys[0], target.db_device(), 100, "end to end", "onnxruntime 0.0.0", "2026-11-29", 1, 4});
  db.add({keys[1], target.db_device(), 99, "end to end", "onnxruntime 0.0.0", "2026-11-29", 0.5, 4});
  EXPECT_EQ(describe(selection_entries(target, keys, timings, ran, recorded_in(db, target.db_device()))),
            (std::vector<std::string>{
                "model program = 81.818 +- 1.818 x4 [end to end, scaled by the input timed beside it]"}));
}

// The one refusal policy, for timings without a reference (kernel groups, a calibration run):
// before, those paths caught every UserError around the runtime; after, time_accepted records the
// runtime's refusal of any model, the first included, and times the rest (none: no call at all).
TEST(TimeAccepted, WithoutAReferenceTheFirstModelIsRefusedLikeTheOthers) {
  RefusingRuntime runtime({"Relu"});
  std::vector<std::string> refused;
  std::vector<runtime::Timing> timings = runtime::time_accepted(
      runtime, held({"Relu model", "Neg model", "Relu again"}), {.runs = 2, .purpose = {}}, refused,
      runtime::FirstModel::like_the_others);
  EXPECT_EQ(refused[0], "model 0 was rejected by the test runtime: Relu");
  EXPECT_EQ(refused[1], "");
  EXPECT_EQ(refused[2], "model 1 was rejected by the test runtime: Relu");  // the index among those offered
  EXPECT_EQ(timings[1].runs_us, std::vector<double>(2, 100.0));
  EXPECT_TRUE(timings[0].runs_us.empty());
  EXPECT_EQ(runtime.calls, 3);
}

// Before: time_accepted copied every model (whole serialized models, hundreds of MB each for BERT)
// before each call, then (session 53) before a retry after a refusal. After: the runtime gets the
// caller's bytes themselves, the retry too.
TEST(TimeAccepted, TheRuntimeReadsTheCallersBytesARetryAfterARefusalToo) {
  RefusingRuntime runtime({"Relu"});
  std::vector<std::string> refused;
  const std::vector<runtime::ModelBytes> accepted{std::string("Neg model"), std::string("Exp model")};
  runtime::time_accepted(runtime, accepted, {.runs = 2, .purpose = {}}, refused, runtime::FirstModel::reference);
  ASSERT_EQ(runtime.offered.size(), 1u);
  EXPECT_EQ(runtime.offered[0], (std::vector<const char*>{data_of(accepted[0]), data_of(accepted[1])}));

  const std::vector<runtime::ModelBytes> one_refused{std::string("Neg model"), std::string("Relu model"),
                                                     std::string("Exp model")};
  runtime::time_accepted(runtime, one_refused, {.runs = 2, .purpose = {}}, refused, runtime::FirstModel::reference);
  ASSERT_EQ(runtime.offered.size(), 3u);
  EXPECT_EQ(runtime.offered[2], (std::vector<const char*>{data_of(one_refused[0]), data_of(one_refused[2])}))
      << "the retry: the two left, their bytes not copied";
}

// A runtime that names every refusal of a pass at once: before, one retry per refused model; after,
// one retry in all. A reference among them is still the caller's error.
TEST(TimeAccepted, RefusalsNamedTogetherAreDroppedTogether) {
  RefusingRuntime runtime({"Relu"}, /*all_at_once=*/true);
  std::vector<std::string> refused;
  std::vector<runtime::ModelBytes> models = held({"Relu model", "Neg model", "Relu again", "Exp model"});
  std::vector<runtime::Timing> timings = runtime::time_accepted(runtime, models, {.runs = 2, .purpose = {}}, refused,
                                                                runtime::FirstModel::like_the_others);
  EXPECT_EQ(runtime.calls, 2);
  EXPECT_EQ(refused[0], "model 0 was rejected by the test runtime: Relu");
  EXPECT_EQ(refused[2], "model 2 was rejected by the test runtime: Relu");
  EXPECT_EQ(refused[1], "");
  EXPECT_EQ(timings[3].runs_us, std::vector<double>(2, 95.0));  // the second of those offered again
  RefusingRuntime referencing({"Exp"}, /*all_at_once=*/true);
  EXPECT_THROW(runtime::time_accepted(referencing, held({"Exp input", "Exp program"}), {.runs = 2, .purpose = {}},
                                      refused,
                                      runtime::FirstModel::reference),
               runtime::ModelRejected);
}

// A runtime whose one refusal names the reference among its others: the reference's refusal is
// still the caller's error, with the reference's message.
TEST(TimeAccepted, AReferenceNamedAmongTheOthersIsTheCallersError) {
  class ReferenceLast : public RefusingRuntime {
   public:
    ReferenceLast() : RefusingRuntime({}) {}
    std::vector<runtime::Timing> time_models(const std::vector<runtime::ModelBytes>&,
                                             const runtime::TimingOptions&) override {
      throw runtime::ModelRejected(1, "model 1 refused", {{0, "the input refused"}});
    }
  };
  ReferenceLast runtime;
  std::vector<std::string> refused;
  try {
    runtime::time_accepted(runtime, held({"input", "program"}), {.runs = 2, .purpose = {}}, refused,
                           runtime::FirstModel::reference);
    FAIL() << "the reference's refusal was dropped like a program's";
  } catch (const runtime::ModelRejected& rejected) {
    EXPECT_EQ(rejected.index(), 0u);
    EXPECT_STREQ(rejected.what(), "the input refused");
  }
}

TEST(TimeAccepted, WhenEveryModelIsRefusedNothingMoreIsTimed) {
  RefusingRuntime runtime({"Relu"});
  std::vector<std::string> refused;
  std::vector<runtime::Timing> timings =
      runtime::time_accepted(runtime, held({"Relu"}), {.runs = 2, .purpose = {}}, refused,
                             runtime::FirstModel::like_the_others);
  EXPECT_EQ(runtime.calls, 1);
  EXPECT_FALSE(refused[0].empty());
  EXPECT_TRUE(timings[0].runs_us.empty());
}

}  // namespace
}  // namespace pet::testing
