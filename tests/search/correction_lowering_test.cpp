// The measured choice of a correction's lowering: before, a fused correction without a lowering;
// after, the lowering whose kernel group the profile DB prices lowest (ort-cpu only).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/ops/patch_lowering.h"
#include "core/text_ir.h"
#include "kernels/runtime/target_spec.h"
#include "search/cost/correction_lowering.h"
#include "search/cost/kernel_groups.h"
#include "search/passes/finalize.h"

namespace pet {
namespace {

// A conv's output laid out back from a height stack, two disjoint rows corrected.
const char* kCorrected = R"(graph "corrected" opset 13 {
  input %m : f32[1,4,32,8]
  input %r0 : f32[1,4,1,8]
  input %r1 : f32[1,4,1,8]
  %y = LayoutOverwrite[expanded=[1,4,2,16,8], groups=[2,1,1,1], offsets=[0,0,15,0,1,0,0,0], perm=[2,0,1,3,4]](%m, %r0, %r1) : f32[2,4,16,8]
  output %y
}
)";

cost::Measurement ort_replay() {
  return {.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"},
          .picks_correction_lowering = TargetSpec::parse("ort-cpu").picks_correction_lowering_by_measurement()};
}

// The correction's kernel group key with each lowering.
std::map<ops::PatchLowering, std::string> keys_by_lowering() {
  std::map<ops::PatchLowering, std::string> keys;
  for (ops::PatchLowering lowering : ops::patch_lowerings()) {
    Graph graph = parse_graph(kCorrected);
    graph.set_node_attribute(0, ops::kLoweringAttr, std::string(ops::to_string(lowering)));
    keys[lowering] = cost::kernel_groups(graph).groups.at(0).key;
  }
  return keys;
}

cost::CostModel replayed(const std::map<ops::PatchLowering, double>& microseconds, const cost::Measurement& measurement) {
  cost::ProfileDb db;
  std::map<ops::PatchLowering, std::string> keys = keys_by_lowering();
  for (const auto& [lowering, us] : microseconds)
    db.add({keys.at(lowering), measurement.target.db_device(), us, "test", "onnxruntime 0.0.0", "2026-11-27"});
  return cost::CostModel(cost::load_cpu_fallback(), db, measurement);
}

std::string lowering_after_pick(const cost::CostModel& cost) {
  Graph graph = parse_graph(kCorrected);
  cost::pick_correction_lowerings(graph, cost);
  const Attributes& attrs = graph.node(0).attrs;
  return attrs.has(ops::kLoweringAttr) ? attrs.get_string(ops::kLoweringAttr) : "(none: slices)";
}

TEST(CorrectionLoweringPick, TheDefaultAndEachLoweringHaveTheirOwnKernelGroupKey) {
  std::map<ops::PatchLowering, std::string> keys = keys_by_lowering();
  EXPECT_EQ(keys[ops::PatchLowering::slices].find("lowering"), std::string::npos) << "the default is left out";
  EXPECT_NE(keys[ops::PatchLowering::scatter].find("lowering=\"scatter\""), std::string::npos);
  EXPECT_NE(keys[ops::PatchLowering::where].find("lowering=\"where\""), std::string::npos);
}

TEST(CorrectionLoweringPick, TheCheapestMeasuredLoweringIsPicked) {
  EXPECT_EQ(lowering_after_pick(replayed({{ops::PatchLowering::slices, 30}, {ops::PatchLowering::scatter, 12},
                                           {ops::PatchLowering::where, 20}}, ort_replay())),
            "scatter");
  EXPECT_EQ(lowering_after_pick(replayed({{ops::PatchLowering::slices, 30}, {ops::PatchLowering::scatter, 25},
                                           {ops::PatchLowering::where, 20}}, ort_replay())),
            "where");
}

TEST(CorrectionLoweringPick, ATieOrNoGainKeepsSlices) {
  EXPECT_EQ(lowering_after_pick(replayed({{ops::PatchLowering::slices, 10}, {ops::PatchLowering::scatter, 10},
                                           {ops::PatchLowering::where, 15}}, ort_replay())),
            "(none: slices)");
}

TEST(CorrectionLoweringPick, OnlyOrtCpuPicks) {
  cost::Measurement openvino = ort_replay();
  openvino.target.name = "openvino-cpu";
  openvino.picks_correction_lowering = TargetSpec::parse("openvino-cpu").picks_correction_lowering_by_measurement();
  EXPECT_EQ(lowering_after_pick(replayed({{ops::PatchLowering::slices, 30}, {ops::PatchLowering::scatter, 1}}, openvino)),
            "(none: slices)");
  EXPECT_EQ(lowering_after_pick(cost::CostModel(cost::load_device("h100"))), "(none: slices)");
}

TEST(CorrectionLoweringPick, FinalizeForAMeasuredTargetPicksAndReportsIt) {
  cost::CostModel cost = replayed({{ops::PatchLowering::slices, 30}, {ops::PatchLowering::scatter, 12},
                                   {ops::PatchLowering::where, 20}}, ort_replay());
  Graph graph = parse_graph(kCorrected);
  std::vector<PassResult> passes = finalize(graph, FinalizeOptions{.lowerings_for = &cost});
  ASSERT_FALSE(passes.empty());
  EXPECT_EQ(passes.back().pass, "pick-correction-lowerings");
  EXPECT_EQ(passes.back().changes, 1);
  EXPECT_NE(print_graph(graph).find("lowering=\"scatter\""), std::string::npos) << print_graph(graph);
}

}  // namespace
}  // namespace pet
