// fuse_corrections() before -> after on PET's N2H conv mutant: the inverse Layout and the two
// Overwrites (and a Relu after them) become one LayoutOverwrite that computes, verifies and
// exports like them.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "tests/corrector/correction_cases.h"
#include "tests/test_temp_dir.h"
#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/ops/layout.h"
#include "core/text_ir.h"
#include "corrector/correct.h"
#include "corrector/fuse_corrections.h"
#include "verifier/differential.h"

namespace pet::corrector {
namespace {


struct Programs {
  Graph original, unfused, fused;
};

Programs corrected_programs() {
  Graph original = correction_cases::seam_example_original();
  Graph mutant = correction_cases::seam_example_mutant();
  Graph unfused = correct(original, mutant, examine(original, mutant)).program;
  Graph fused = unfused;
  EXPECT_EQ(fuse_corrections(fused), 1);
  return {std::move(original), std::move(unfused), std::move(fused)};
}

TEST(FuseCorrections, LayoutAndTwoOverwritesBecomeOneNode) {
  Programs p = corrected_programs();
  EXPECT_EQ(print_graph(p.fused), R"(graph "graph" opset 13 {
  input %x : f32[2,4,16,8]
  input %w : f32[4,4,3,3]
  %stack = Layout[expanded=[2,1,4,16,8], groups=[1,1,2,1], perm=[1,2,0,3,4]](%x) : f32[1,4,32,8]
  %conv = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%stack, %w) : f32[1,4,32,8]
  %correction0/slice_x_0 = Slice[ends=[1,4,16,8], starts=[0,0,14,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %correction0/y_1 = Conv[dilations=[1,1], group=1, pads=[0,1,1,1], strides=[1,1]](%correction0/slice_x_0, %w) : f32[1,4,1,8]
  %correction1/slice_x_0 = Slice[ends=[2,4,2,8], starts=[1,0,0,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %correction1/y_1 = Conv[dilations=[1,1], group=1, pads=[1,1,0,1], strides=[1,1]](%correction1/slice_x_0, %w) : f32[1,4,1,8]
  %y = LayoutOverwrite[expanded=[1,4,2,16,8], groups=[2,1,1,1], offsets=[0,0,15,0,1,0,0,0], perm=[2,0,1,3,4]](%conv, %correction0/y_1, %correction1/y_1) : f32[2,4,16,8]
  output %y
}
)");
}

TEST(FuseCorrections, FusedComputesExactlyWhatUnfusedComputes) {
  Programs p = corrected_programs();
  std::vector<Tensor> inputs = random_inputs(p.unfused, 11);
  std::vector<Tensor> unfused = execute(p.unfused, inputs);
  std::vector<Tensor> fused = execute(p.fused, inputs);
  ASSERT_EQ(fused.size(), 1u);
  ASSERT_EQ(fused[0].nbytes(), unfused[0].nbytes());
  EXPECT_EQ(std::memcmp(fused[0].raw(), unfused[0].raw(), fused[0].nbytes()), 0);
}

TEST(FuseCorrections, FusedIsFullyEquivalentToTheOriginal) {
  Programs p = corrected_programs();
  Verdict verdict = examine(p.original, p.fused);
  EXPECT_EQ(verdict.kind, VerdictKind::Full) << verdict.summary();
}

TEST(FuseCorrections, OnnxExportReimportsAndMatches) {
  Programs p = corrected_programs();
  std::filesystem::path path = pet::testing::private_temp_dir() / "pet_fused_correction.onnx";
  export_onnx(p.fused, path.string());
  Graph imported = import_onnx(path.string());
  std::filesystem::remove(path);
  for (const Node& node : imported.nodes()) EXPECT_NE(node.op(), "LayoutOverwrite");
  DifferentialReport report = differential(p.original, imported, 5, {1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << report.max_abs_error();
}

TEST(FuseCorrections, NoChainLeavesTheGraphAlone) {
  Graph mutant = correction_cases::seam_example_mutant();
  std::string before = print_graph(mutant);
  EXPECT_EQ(fuse_corrections(mutant), 0);
  EXPECT_EQ(print_graph(mutant), before);
}

// The corrected program followed by a Relu, unfused and fused.
struct ActivatedPrograms {
  Graph original, unfused, fused;
};

ActivatedPrograms activated_programs() {
  Programs p = corrected_programs();
  ActivatedPrograms a;
  for (auto [from, to] : {std::pair{&p.original, &a.original}, std::pair{&p.unfused, &a.unfused}}) {
    *to = *from;
    to->set_outputs({to->add_node1("Relu", {}, {to->outputs()[0]}, "act")});
  }
  a.fused = a.unfused;
  EXPECT_EQ(fuse_corrections(a.fused), 1);
  return a;
}

TEST(FuseCorrections, ReluAfterTheChainJoinsTheFusedNode) {
  ActivatedPrograms a = activated_programs();
  std::string after = print_graph(a.fused);
  EXPECT_NE(after.find("  %act = LayoutOverwrite[activation=\"relu\", expanded=[1,4,2,16,8], groups=[2,1,1,1], "
                       "offsets=[0,0,15,0,1,0,0,0], perm=[2,0,1,3,4]](%conv, %correction0/y_1, %correction1/y_1) : "
                       "f32[2,4,16,8]\n  output %act\n}\n"),
            std::string::npos)
      << after;
  for (const Node& node : a.fused.nodes()) EXPECT_NE(node.op(), "Relu") << node.name;
}

TEST(FuseCorrections, FusedReluComputesExactlyWhatTheSeparateReluComputes) {
  ActivatedPrograms a = activated_programs();
  std::vector<Tensor> inputs = random_inputs(a.unfused, 13);
  Tensor unfused = execute(a.unfused, inputs)[0], fused = execute(a.fused, inputs)[0];
  ASSERT_EQ(fused.type(), unfused.type());
  EXPECT_EQ(std::memcmp(fused.raw(), unfused.raw(), fused.nbytes()), 0);
  DifferentialReport report = differential(a.original, a.fused, 13, {1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << report.max_abs_error();
}

TEST(FuseCorrections, FusedReluExportsAsStandardOpsAndReimports) {
  ActivatedPrograms a = activated_programs();
  std::filesystem::path path = pet::testing::private_temp_dir() / "pet_fused_correction_relu.onnx";
  export_onnx(a.fused, path.string());
  Graph imported = import_onnx(path.string());
  std::filesystem::remove(path);
  int relus = 0;
  for (const Node& node : imported.nodes()) {
    EXPECT_NE(node.op(), "LayoutOverwrite");
    relus += node.op() == "Relu";
  }
  EXPECT_EQ(relus, 1);
  DifferentialReport report = differential(a.original, imported, 5, {1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << report.max_abs_error();
}

TEST(FuseCorrections, FusedReluIsNotExaminedAsLinear) {
  ActivatedPrograms a = activated_programs();
  Verdict verdict = examine(a.original, a.fused);
  EXPECT_EQ(verdict.kind, VerdictKind::Rejected) << verdict.summary();
}

TEST(FuseCorrections, ReluWithAnotherReaderStaysItsOwnNode) {
  Programs p = corrected_programs();
  Graph graph = p.unfused;
  ValueId y = graph.outputs()[0];
  graph.set_outputs({y, graph.add_node1("Relu", {}, {y}, "act")});
  EXPECT_EQ(fuse_corrections(graph), 1);
  int relus = 0;
  for (const Node& node : graph.nodes()) relus += node.op() == "Relu";
  EXPECT_EQ(relus, 1);
}

TEST(FuseCorrectionsError, PatchThatDoesNotFitNamesTheNode) {
  Graph graph;
  ValueId m = graph.add_input("m", {DType::f32, {1, 4, 32, 8}});
  ValueId patch = graph.add_input("p", {DType::f32, {1, 4, 2, 8}});
  Attributes attrs = ops::layout_height_to_batch(Shape{1, 4, 32, 8}, 2);
  attrs.set("offsets", std::vector<int64_t>{0, 0, 15, 0});
  try {
    graph.add_node1("LayoutOverwrite", attrs, {m, patch}, "fused");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "node 'fused' (LayoutOverwrite): patch f32[1,4,2,8] at offsets [0, 0, 15, 0] does not fit base "
              "f32[2,4,16,8] on axis 2");
  }
}

TEST(FuseCorrectionsError, OffsetsMustCoverEveryPatch) {
  Graph graph;
  ValueId m = graph.add_input("m", {DType::f32, {1, 4, 32, 8}});
  ValueId patch = graph.add_input("p", {DType::f32, {1, 4, 1, 8}});
  Attributes attrs = ops::layout_height_to_batch(Shape{1, 4, 32, 8}, 2);
  attrs.set("offsets", std::vector<int64_t>{0, 0, 15});
  try {
    graph.add_node1("LayoutOverwrite", attrs, {m, patch}, "fused");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "node 'fused' (LayoutOverwrite): offsets [0, 0, 15] need 4 entries: 4 per patch for each of the 1 patches");
  }
}

}  // namespace
}  // namespace pet::corrector
