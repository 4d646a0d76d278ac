// examine() on known pairs with exact expected verdicts, before -> after.
#include <gtest/gtest.h>

#include "core/ops/layout.h"
#include "core/text_ir.h"
#include "verifier/examine.h"

namespace pet {
namespace {

Attributes conv2d(int64_t pad, int64_t dilation = 1) {
  return {{"strides", std::vector<int64_t>{1, 1}},
          {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
          {"dilations", std::vector<int64_t>{dilation, dilation}},
          {"group", int64_t{1}}};
}

std::vector<std::string> box_strings(const Verdict& verdict, int output = 0) {
  std::vector<std::string> result;
  for (const Box& box : verdict.incorrect_boxes.at(static_cast<size_t>(output))) result.push_back(box.to_string());
  return result;
}

TEST(Examine, MergedConvsOnASharedInputAreFull) {
  auto build = [](bool merged) {
    Graph graph;
    ValueId x = graph.add_input("x", {DType::f32, {1, 3, 6, 6}});
    ValueId w1 = graph.add_input("w1", {DType::f32, {4, 3, 3, 3}});
    ValueId w2 = graph.add_input("w2", {DType::f32, {2, 3, 3, 3}});
    if (!merged) {
      graph.add_output(graph.add_node1("Conv", conv2d(1), {x, w1}));
      graph.add_output(graph.add_node1("Conv", conv2d(1), {x, w2}));
      return graph;
    }
    ValueId w = graph.add_node1("Concat", {{"axis", int64_t{0}}}, {w1, w2});
    ValueId y = graph.add_node1("Conv", conv2d(1), {x, w});
    graph.set_outputs(graph.add_node("Split", {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{4, 2}}}, {y}));
    return graph;
  };
  Verdict verdict = examine(build(false), build(true));
  EXPECT_EQ(verdict.kind, VerdictKind::Full) << verdict.summary();
  EXPECT_LT(verdict.bound_log2, -100);

  // A work budget below what the boxes need: no verdict is claimed without testing every box,
  // and the cut comes at the same place on every run.
  EXPECT_GT(verdict.work, 0);
  ExamineOptions thrifty;
  thrifty.max_work = verdict.work / 2;
  Verdict cut = examine(build(false), build(true), thrifty);
  EXPECT_EQ(cut.kind, VerdictKind::Rejected);
  EXPECT_EQ(cut.reason, "not examined to the end: the work budget ran out");
  EXPECT_EQ(cut.work, examine(build(false), build(true), thrifty).work);
  thrifty.max_work = verdict.work;
  EXPECT_EQ(examine(build(false), build(true), thrifty).kind, VerdictKind::Full) << "exactly enough";
}

// N2H: two images stacked along H and convolved as one; each image's row next to the seam
// reads the other image instead of zero padding.
TEST(Examine, BatchToHeightConvIsPartialOnExactlyTheSeamRows) {
  Shape x_shape{2, 3, 5, 4};
  auto build = [&](bool stacked) {
    Graph graph;
    ValueId x = graph.add_input("x", {DType::f32, x_shape});
    ValueId w = graph.add_input("w", {DType::f32, {2, 3, 3, 3}});
    if (!stacked) {
      graph.add_output(graph.add_node1("Conv", conv2d(1), {x, w}));
      return graph;
    }
    ValueId tall = graph.add_node1("Layout", ops::layout_batch_to_height(x_shape, 2), {x});
    ValueId y = graph.add_node1("Conv", conv2d(1), {tall, w});
    graph.add_output(graph.add_node1("Layout", ops::layout_height_to_batch(graph.value(y).type.shape, 2), {y}));
    return graph;
  };
  Verdict verdict = examine(build(false), build(true));
  ASSERT_EQ(verdict.kind, VerdictKind::Partial) << verdict.summary();
  EXPECT_EQ(box_strings(verdict), (std::vector<std::string>{"[0:1, 0:2, 4:5, 0:4]", "[1:2, 0:2, 0:1, 0:4]"}));
}

// A generator examines many candidates against one original: the reference keeps the original's
// values between them. Verdicts are those of a fresh examination; the work is less, since the
// original's values are read once per trial, not once per candidate.
TEST(Examine, AReferenceKeepsTheOriginalsValuesForTheNextCandidate) {
  Shape x_shape{2, 3, 5, 4};
  Graph original;
  ValueId x = original.add_input("x", {DType::f32, x_shape});
  ValueId w = original.add_input("w", {DType::f32, {2, 3, 3, 3}});
  original.add_output(original.add_node1("Conv", conv2d(1), {x, w}));
  Graph stacked = original;  // N2H: partial
  stacked.set_outputs({});
  ValueId tall = stacked.add_node1("Layout", ops::layout_batch_to_height(x_shape, 2), {x});
  ValueId y = stacked.add_node1("Conv", conv2d(1), {tall, w});
  stacked.add_output(stacked.add_node1("Layout", ops::layout_height_to_batch(stacked.value(y).type.shape, 2), {y}));
  stacked.remove_nodes({0});
  Graph scaled = original;  // twice the conv: wrong everywhere
  scaled.set_outputs({scaled.add_node1("Add", {}, {scaled.outputs()[0], scaled.outputs()[0]})});

  ExamineReference reference(original, kDefaultSeed);
  for (const Graph* candidate : {&stacked, &original, &scaled, &stacked}) {
    Verdict fresh = examine(original, *candidate), kept = examine(reference, *candidate);
    EXPECT_EQ(kept.summary(), fresh.summary());
    EXPECT_EQ(box_strings(kept), box_strings(fresh));
  }
  // Before: the original's side read every tap of its conv again; after: only its output points.
  Verdict fresh = examine(original, stacked), kept = examine(reference, stacked);
  EXPECT_LT(kept.work, fresh.work) << fresh.summary();
  ExamineOptions other_seed;
  other_seed.seed = kDefaultSeed + 1;
  EXPECT_THROW(examine(reference, stacked, other_seed), InternalError);
}

// A dilation-2 conv whose input rows are de-interleaved into two stacked halves (even rows,
// then odd rows) and convolved undilated: right except where the halves meet.
TEST(Examine, DilatedConvViaStackedDeinterleaveIsPartialOnTheSeams) {
  Shape x_shape{1, 2, 8, 5};
  auto build = [&](bool deinterleaved) {
    Graph graph;
    ValueId x = graph.add_input("x", {DType::f32, x_shape});
    ValueId w = graph.add_input("w", {DType::f32, {3, 2, 3, 1}});
    Attributes dilated = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{2, 0, 2, 0}},
                          {"dilations", std::vector<int64_t>{2, 1}}, {"group", int64_t{1}}};
    if (!deinterleaved) {
      graph.add_output(graph.add_node1("Conv", dilated, {x, w}));
      return graph;
    }
    // rows h = 2j + r go to stacked row r * 4 + j
    ValueId stacked = graph.add_node1("Layout", ops::layout_attrs({1, 2, 4, 2, 5}, {0, 1, 3, 2, 4}, {1, 1, 2, 1}), {x});
    Attributes plain = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 0, 1, 0}},
                        {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
    ValueId y = graph.add_node1("Conv", plain, {stacked, w});
    graph.add_output(graph.add_node1("Layout", ops::layout_attrs({1, 3, 2, 4, 5}, {0, 1, 3, 2, 4}, {1, 1, 2, 1}), {y}));
    return graph;
  };
  Verdict verdict = examine(build(false), build(true));
  ASSERT_EQ(verdict.kind, VerdictKind::Partial) << verdict.summary();
  // Row 6 (last even row) read odd row 1 through the seam, row 1 (first odd row) read even row 6.
  EXPECT_EQ(box_strings(verdict), (std::vector<std::string>{"[0:1, 0:3, 1:2, 0:5]", "[0:1, 0:3, 6:7, 0:5]"}));
}

// TASO's unsound rule: a conv followed by a multiply is not the conv alone.
TEST(Examine, ConvThenMultiplyIsNotTheConvAlone) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[1,2,5,5]
    input %w : f32[2,2,3,3]
    const %two : f32[1] = [2]
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %y = Mul(%c, %two)
    output %y
  })");
  Graph candidate = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[1,2,5,5]
    input %w : f32[2,2,3,3]
    %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    output %y
  })");
  Verdict verdict = examine(original, candidate);
  EXPECT_EQ(verdict.kind, VerdictKind::Rejected) << verdict.summary();
  EXPECT_EQ(verdict.fraction_correct, 0.0);
  EXPECT_EQ(verdict.reason, "only 0.0% of output elements agree");
}

TEST(Examine, RefusesNonLinearOpsWithAReason) {
  Graph graph = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[4]
    %y = Relu(%x) @relu
    output %y
  })");
  Verdict verdict = examine(graph, graph);
  EXPECT_EQ(verdict.kind, VerdictKind::Rejected);
  EXPECT_EQ(verdict.reason, "node 'relu' (Relu) is not multi-linear: examine compares programs of linear ops only");
}

// A kept reference decides once why its original cannot be examined, and still checks each candidate.
TEST(Examine, AKeptReferenceRefusesAsAFreshExaminationDoes) {
  Graph linear = parse_graph("graph \"l\" opset 13 {\n input %x : f32[4]\n %y = Neg(%x) @neg\n output %y\n}");
  Graph relu = parse_graph("graph \"r\" opset 13 {\n input %x : f32[4]\n %y = Relu(%x) @relu\n output %y\n}");
  ExamineReference of_relu(relu, kDefaultSeed);
  for (const Graph* candidate : {&linear, &relu, &linear}) {
    EXPECT_EQ(examine(of_relu, *candidate).reason, examine(relu, *candidate).reason);
    EXPECT_EQ(examine(of_relu, *candidate).reason,
              "node 'relu' (Relu) is not multi-linear: examine compares programs of linear ops only");
  }
  ExamineReference of_linear(linear, kDefaultSeed);
  EXPECT_EQ(examine(of_linear, linear).kind, VerdictKind::Full);
  EXPECT_EQ(examine(of_linear, relu).reason,
            "node 'relu' (Relu) is not multi-linear: examine compares programs of linear ops only");
  EXPECT_EQ(examine(of_linear, linear).kind, VerdictKind::Full);
}

TEST(Examine, RefusesDifferentInterfaces) {
  Graph a = parse_graph("graph \"a\" opset 13 {\n input %x : f32[4]\n %y = Neg(%x)\n output %y\n}");
  Graph b = parse_graph("graph \"b\" opset 13 {\n input %x : f32[5]\n %y = Neg(%x)\n output %y\n}");
  EXPECT_EQ(examine(a, b).reason, "the programs take different inputs");
}

TEST(Examine, SameSeedSameVerdictAndTheSeedIsReported) {
  Graph a = parse_graph("graph \"a\" opset 13 {\n input %x : f32[4,4]\n %y = Transpose[perm=[1,0]](%x)\n output %y\n}");
  Graph b = parse_graph(
      "graph \"b\" opset 13 {\n input %x : f32[4,4]\n %t = Transpose[perm=[1,0]](%x)\n %u = Transpose[perm=[1,0]](%t)\n"
      " %y = Transpose[perm=[1,0]](%u)\n output %y\n}");
  ExamineOptions options;
  options.seed = 77;
  Verdict first = examine(a, b, options), second = examine(a, b, options);
  EXPECT_EQ(first.kind, VerdictKind::Full);
  EXPECT_EQ(first.summary(), second.summary());
  EXPECT_NE(first.summary().find("seed 77"), std::string::npos) << first.summary();
}

}  // namespace
}  // namespace pet

namespace pet {
namespace {

TEST(Examine, ScreeningRejectsAHopelessCandidateBeforeTheBoxAnalysis) {
  Graph a = parse_graph("graph \"a\" opset 13 {\n input %x : f32[8,8]\n %y = Transpose[perm=[1,0]](%x)\n output %y\n}");
  Graph b = parse_graph("graph \"b\" opset 13 {\n input %x : f32[8,8]\n %y = Neg(%x)\n output %y\n}");
  ExamineOptions options;
  options.screen_first = true;
  Verdict verdict = examine(a, b, options);
  EXPECT_EQ(verdict.kind, VerdictKind::Rejected);
  EXPECT_EQ(verdict.points_tested, 0);
  EXPECT_EQ(verdict.reason, "wrong at every screening point (a quarter, half and three quarters of every axis)");
  options.screen_first = false;
  EXPECT_EQ(examine(a, b, options).reason, "only 0.0% of output elements agree");  // the full analysis agrees
}

}  // namespace
}  // namespace pet
