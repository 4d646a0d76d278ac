// The generation stage, before -> after: a program's textual IR in, its distinct subprograms and
// their kept mutants' families out, with the stage's statistics.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/text_ir.h"
#include "search/generate/generate_stage.h"
#include "search/pipeline.h"
#include "tests/scoped_env.h"

namespace pet::search {
namespace {

// A batch-2 3x3 conv: stacking the two images along H or W is exact but at the seam rows.
const char* kBatchedConv = R"(graph "batched" opset 13 {
  input %x : f32[2,8,16,16]
  const %w : f32[8,8,3,3] = random(1)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[2,8,16,16]
  %r = Relu(%c) : f32[2,8,16,16]
  output %r
}
)";

// Two 1x1 convs reading x: a parallel group, and one region at two sites (a subprogram reads its
// weights as inputs, so the two convs are the same subprogram).
const char* kTwoBranches = R"(graph "branches" opset 13 {
  input %x : f32[1,8,8,8]
  const %w1 : f32[8,8,1,1] = random(1)
  const %w2 : f32[8,8,1,1] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w1) : f32[1,8,8,8]
  %b = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w2) : f32[1,8,8,8]
  %ra = Relu(%a) : f32[1,8,8,8]
  %rb = Relu(%b) : f32[1,8,8,8]
  %s = Add(%ra, %rb) : f32[1,8,8,8]
  output %s
}
)";

GenerateOptions one_round() {
  GenerateOptions options;
  options.mutation_rounds = 1;
  options.top_k = 2;
  options.threads = 1;
  return options;
}

// One line per subprogram: its kind and location, then each kept mutant's family and evidence.
std::string listing(const GeneratedMutants& mutants) {
  std::string text;
  for (const GeneratedSubprogram& sub : mutants.subprograms) {
    text += fmt::format("{} [{}]\n", to_string(sub.kind), sub.location);
    for (const MutantOption& option : *sub.options)
      text += fmt::format("  {} ({})\n", option.info.name, to_string(option.info.evidence_kind));
  }
  return text;
}

const cost::CostModel& h100() {
  static const cost::CostModel model(cost::load_device("h100"));
  return model;
}

TEST(GenerateStage, ABatchedConvGetsItsStackingMutantsFullAndCorrected) {
  GeneratedMutants mutants = generate_mutants_stage(parse_graph(kBatchedConv), h100(), one_round());
  EXPECT_EQ(listing(mutants),
            "linear [c]\n"
            "  channels-to-rows+channels-to-rows+conv (random-test)\n"
            "  swap-height-width+swap-height-width+conv+swap-height-width-back (random-test)\n"
            "  batch-to-axis+conv+axis-to-batch-back (partial+correction)\n"
            "  batch-to-axis+conv+axis-to-batch-back (partial+correction)\n");
  EXPECT_EQ(mutants.stats.linear, 1);
  EXPECT_EQ(mutants.stats.groups, 0);
  EXPECT_GT(mutants.stats.work, 0);
  EXPECT_EQ(mutants.stats.capped, 0);
}

TEST(GenerateStage, ParallelBranchesAreOneGroupFirstThenTheirRegions) {
  GeneratedMutants mutants = generate_mutants_stage(parse_graph(kTwoBranches), h100(), one_round());
  EXPECT_EQ(listing(mutants),
            "group [a, b]\n"
            "  concat-operands+conv+split-to-outputs (random-test)\n"
            "  concat-operands+conv+slice-to-output+slice-to-output (random-test)\n"
            "linear [a]\n"
            "  channels-to-rows+channels-to-rows+conv (random-test)\n"
            "  flatten-spatial+flatten-spatial+matmul+reshape-to-output (random-test)\n"
            // beyond the top 2: the cheapest of each family and entry layout that moves the
            // activation's layout (the spatial split by 2 or 4, along H or W), for stage moves
            // (their layouts cancel between neighbours that match)
            "  axis-to-batch+conv+batch-to-axis-back (random-test)\n"
            "  axis-to-batch+conv+batch-to-axis-back (random-test)\n"
            "  axis-to-batch+conv+batch-to-axis-back (random-test)\n"
            "  swap-height-width+conv+swap-height-width-back (random-test)\n"
            "  axis-to-batch+conv+batch-to-axis-back (random-test)\n");
  EXPECT_EQ(mutants.stats.groups, 1);
  EXPECT_EQ(mutants.stats.linear, 1) << "b is the same subprogram as a at another site";
}

TEST(GenerateStage, AWorkBudgetCapsEverySubprogramAtTheSameMutant) {
  GenerateOptions tight = one_round();
  tight.work = 1000;
  GeneratedMutants first = generate_mutants_stage(parse_graph(kTwoBranches), h100(), tight);
  EXPECT_EQ(first.stats.capped, first.stats.subprograms());
  tight.threads = 3;
  GeneratedMutants again = generate_mutants_stage(parse_graph(kTwoBranches), h100(), tight);
  EXPECT_EQ(listing(again), listing(first));
  EXPECT_EQ(again.stats.work, first.stats.work);
}

TEST(GenerateStage, ThePipelineReportsItAndDumpsItsMutantsUnderPetDebug) {
  OptimizeOptions options;
  options.target.spec = TargetSpec::parse("h100");
  options.search.beam = 2;
  options.generate.mutation_rounds = 1;
  options.generate.top_k = 2;
  pet::testing::ScopedEnv debug("PET_DEBUG", "1");
  ::testing::internal::CaptureStderr();
  OptimizeResult result = optimize(parse_graph(kBatchedConv), options);
  std::string dump = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(dump.find("// after cleanup\n"), std::string::npos);
  size_t after = dump.find("// after generate\n");
  ASSERT_NE(after, std::string::npos) << dump;
  EXPECT_LT(after, dump.find("// after search\n"));
  size_t line = dump.find("}\n// linear [c]: channels-to-rows+channels-to-rows+conv (random-test, saves ", after);
  ASSERT_NE(line, std::string::npos) << dump.substr(after);
  EXPECT_NE(dump.substr(line, dump.find('\n', line + 2) - line).find("(partial+correction, saves -"), std::string::npos)
      << "each mutant says what it saved where it was generated; the seam corrections cost more on h100";
  std::vector<std::string> stages;
  for (const StageTime& time : result.times) stages.push_back(time.stage);
  EXPECT_EQ(stages, (std::vector<std::string>{"target", "cleanup", "calibrate", "generate", "search", "finalize",
                                              "select", "differential", "save"}));
  nlohmann::ordered_json report = report_object(result, false);
  EXPECT_EQ(report["generation"].dump(),
            R"({"subprograms":{"linear":1,"group":0},"mutants":{"full":4,"partial":2},"work":457293,"capped":0})");
  EXPECT_EQ(report["search"]["subprograms"], 1);
}

TEST(GenerateStage, ModeNoneGeneratesNothing) {
  OptimizeOptions options;
  options.target.spec = TargetSpec::parse("h100");
  options.mode = Mode::none;
  OptimizeResult result = optimize(parse_graph(kBatchedConv), options);
  EXPECT_EQ(report_object(result, false)["generation"].dump(),
            R"({"subprograms":{"linear":0,"group":0},"mutants":{"full":0,"partial":0},"work":0,"capped":0})");
}

}  // namespace
}  // namespace pet::search
