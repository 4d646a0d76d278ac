// Point evaluation over Z_p agrees with the float executor on integer-valued constants, for
// every op that has the facet (the examiner's answers are only as good as these).
#include <gtest/gtest.h>

#include <random>

#include "core/executor.h"
#include "core/ops/layout.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "verifier/field_evaluator.h"

namespace pet {
namespace {

// Integer-valued floats in [-3, 3]: every sum of products stays exact in float32.
Tensor small_integers(const Shape& shape, uint64_t seed) {
  std::mt19937_64 engine(seed);
  Tensor tensor(DType::f32, shape);
  for (float& v : tensor.mutable_f32()) v = static_cast<float>(static_cast<int>(engine() % 7) - 3);
  return tensor;
}

// Every output element of `graph` (all of whose leaves are constants) over Z_p equals the
// field image of the executor's float result.
void expect_point_eval_matches_executor(const Graph& graph) {
  std::vector<Tensor> expected = execute(graph, {});
  FieldEvaluator evaluator(graph, 1, 0);
  for (size_t k = 0; k < expected.size(); ++k) {
    const Shape& shape = expected[k].shape();
    std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
    for (int64_t flat = 0; flat < shape.numel(); ++flat) {
      ops::unravel_index(flat, shape, index.data());
      ASSERT_EQ(evaluator.output(static_cast<int>(k), index.data()), field::from_float(expected[k].f32()[static_cast<size_t>(flat)]))
          << "output " << k << " element " << flat << " of\n" << print_graph(graph);
    }
  }
}

class PointEval : public ::testing::Test {
 protected:
  ValueId constant(const Shape& shape) { return graph.add_constant("c", small_integers(shape, ++seed)); }
  void check(ValueId out) {
    graph.add_output(out);
    expect_point_eval_matches_executor(graph);
  }
  Graph graph;
  uint64_t seed = 100;
};

Attributes conv_attrs(std::vector<int64_t> strides, std::vector<int64_t> pads, std::vector<int64_t> dilations, int64_t group) {
  return {{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"group", group}};
}

TEST_F(PointEval, Conv2dWithPadsStridesDilationsGroupsAndBias) {
  ValueId x = constant({2, 4, 7, 6}), w = constant({6, 2, 3, 2}), b = constant({6});
  check(graph.add_node1("Conv", conv_attrs({2, 1}, {1, 0, 2, 1}, {1, 2}, 2), {x, w, b}));
}

TEST_F(PointEval, Conv1dAnd3d) {
  ValueId x1 = constant({1, 2, 9}), w1 = constant({3, 2, 3});
  graph.add_output(graph.add_node1("Conv", conv_attrs({2}, {1, 1}, {1}, 1), {x1, w1}));
  ValueId x3 = constant({1, 2, 4, 5, 3}), w3 = constant({2, 2, 2, 3, 1});
  check(graph.add_node1("Conv", conv_attrs({1, 2, 1}, {1, 0, 0, 0, 1, 0}, {2, 1, 1}, 1), {x3, w3}));
}

// More input channels and a deeper product than one run of pulls holds (128): the runs are chunked.
TEST_F(PointEval, ConvAndMatMulReadLongRunsInChunks) {
  ValueId x = constant({1, 300, 3, 2}), w = constant({4, 150, 3, 1});
  graph.add_output(graph.add_node1("Conv", conv_attrs({1, 1}, {1, 0, 1, 0}, {1, 1}, 2), {x, w}));
  ValueId a = constant({2, 3, 257}), b = constant({257, 2});
  check(graph.add_node1("MatMul", {}, {a, b}));
}

TEST_F(PointEval, MatMulBatchedBroadcastAndVectors) {
  ValueId a = constant({2, 1, 3, 4}), b = constant({3, 4, 5});
  graph.add_output(graph.add_node1("MatMul", {}, {a, b}));
  ValueId v = constant({4}), m = constant({4, 2});
  graph.add_output(graph.add_node1("MatMul", {}, {v, m}));
  check(graph.add_node1("MatMul", {}, {m, constant({2})}));
}

TEST_F(PointEval, GemmWithTransposesAndBroadcastBias) {
  ValueId a = constant({4, 3}), b = constant({5, 4}), c = constant({5});
  check(graph.add_node1("Gemm", {{"alpha", 0.5}, {"beta", 2.0}, {"transA", int64_t{1}}, {"transB", int64_t{1}}}, {a, b, c}));
}

TEST_F(PointEval, LayoutBuilders) {
  Shape shape{4, 3, 4, 6};
  ValueId x = constant(shape);
  for (const Attributes& attrs : {ops::layout_batch_to_height(shape, 2), ops::layout_height_to_batch(shape, 2),
                                  ops::layout_dilation_deinterleave(shape, 3, 2), ops::layout_transpose(shape, {0, 2, 3, 1}),
                                  ops::layout_space_to_depth(shape, 2)})
    graph.add_output(graph.add_node1("Layout", attrs, {x}));
  check(graph.add_node1("Transpose", {{"perm", std::vector<int64_t>{3, 1, 0, 2}}}, {x}));
}

TEST_F(PointEval, ReshapeFamily) {
  ValueId x = constant({2, 3, 4});
  graph.add_output(graph.add_node1("Reshape", {{"shape", std::vector<int64_t>{4, 6}}}, {x}));
  graph.add_output(graph.add_node1("Flatten", {{"axis", int64_t{2}}}, {x}));
  graph.add_output(graph.add_node1("Unsqueeze", {{"axes", std::vector<int64_t>{0, 3}}}, {x}));
  check(graph.add_node1("Expand", {{"shape", std::vector<int64_t>{2, 2, 3, 4}}}, {x}));
}

TEST_F(PointEval, PadModesSliceConcatSplit) {
  ValueId x = constant({2, 5, 4});
  for (const char* mode : {"constant", "edge", "reflect"})
    graph.add_output(graph.add_node1(
        "Pad", {{"mode", std::string(mode)}, {"pads", std::vector<int64_t>{0, 2, 1, 1, 1, -1}}, {"value", 0.0}}, {x}));
  graph.add_output(graph.add_node1("Slice", {{"starts", std::vector<int64_t>{1, 4, 0}}, {"ends", std::vector<int64_t>{2, 0, 4}},
                                             {"steps", std::vector<int64_t>{1, -2, 3}}},
                                   {x}));
  ValueId y = constant({2, 2, 4});
  ValueId cat = graph.add_node1("Concat", {{"axis", int64_t{1}}}, {x, y, x});
  for (ValueId part : graph.add_node("Split", {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{3, 6, 3}}}, {cat}))
    graph.add_output(part);
  check(cat);
}

TEST_F(PointEval, ElementwiseArithmeticWithBroadcast) {
  ValueId a = constant({2, 3, 4}), b = constant({3, 1}), c = constant({4});
  graph.add_output(graph.add_node1("Add", {}, {a, b}));
  graph.add_output(graph.add_node1("Sub", {}, {b, a}));
  graph.add_output(graph.add_node1("Mul", {}, {a, c}));
  graph.add_output(graph.add_node1("Neg", {}, {a}));
  graph.add_output(graph.add_node1("Identity", {}, {a}));
  check(graph.add_node1("Sum", {}, {a, b, c}));
}

TEST_F(PointEval, PoolingAndReductionWithPowerOfTwoDivisors) {
  ValueId x = constant({1, 2, 4, 4});
  for (int64_t include : {0, 1})
    graph.add_output(graph.add_node1("AveragePool", {{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 1}},
                                                     {"pads", std::vector<int64_t>{1, 0, 1, 1}}, {"ceil_mode", int64_t{0}},
                                                     {"count_include_pad", include}},
                                     {x}));
  graph.add_output(graph.add_node1("GlobalAveragePool", {}, {x}));
  graph.add_output(graph.add_node1("ReduceSum", {{"axes", std::vector<int64_t>{1, 3}}, {"keepdims", int64_t{0}}}, {x}));
  check(graph.add_node1("ReduceSum", {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{1}}}, {x}));
}

TEST(PointEvalFacets, EveryOpWithOneFacetHasTheOtherAndALinearity) {
  for (const OpDef* def : OpRegistry::global().all()) {
    EXPECT_EQ(static_cast<bool>(def->eval_point), static_cast<bool>(def->propagate_boxes)) << def->name;
    if (def->eval_point) {
      EXPECT_NE(def->traits.linearity, Linearity::None) << def->name;
    }
  }
}

TEST(FieldEvaluatorCut, AValueReadAsAnInputIsNeverComputed) {
  Graph graph = parse_graph(R"(graph "cut" opset 13 {
  input %x : f32[1,64,4,4]
  input %w : f32[8,64,3,3]
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
  %t = Transpose[perm=[0,1,3,2]](%y)
  output %t
})");
  std::vector<int64_t> index = {0, 3, 2, 1}, swapped = {0, 3, 1, 2};
  FieldEvaluator whole(graph, 5, 0, /*memoize=*/false), cut(graph, 5, 0, /*memoize=*/false);
  ValueId y = *graph.find_value("y");
  cut.read_as_input(y);
  uint64_t through_conv = whole.value(graph.outputs()[0], index.data());
  uint64_t through_cut = cut.value(graph.outputs()[0], index.data());
  EXPECT_GT(whole.reads(), 64 * 9) << "before: one output element reads the conv's receptive field";
  EXPECT_EQ(cut.reads(), 2) << "after: the transpose's element and the cut value's";
  EXPECT_NE(through_cut, through_conv);
  EXPECT_EQ(through_cut, cut.value(y, swapped.data())) << "the transpose still moves elements";
  FieldEvaluator again(graph, 5, 0, /*memoize=*/false);
  again.read_as_input(y);
  EXPECT_EQ(again.value(graph.outputs()[0], index.data()), through_cut) << "the cut's values are seeded";
}

// Before: one value() per element; after: one values_along() per run. The same values and reads
// for a graph input, a constant, and node outputs remembered in a hash map, densely, or not at all.
TEST(FieldEvaluatorRuns, ARunGivesTheValuesAndReadsOfItsElementsOneByOne) {
  Graph graph = parse_graph(R"(graph "runs" opset 13 {
  input %x : f32[2,3,300,120]
  input %u : f32[4,50]
  const %c : f32[2,3] = [1, 2, 3, 4, 5, 6]
  %y = Transpose[perm=[0,1,3,2]](%x)
  %z = Transpose[perm=[0,1,3,2]](%y)
  %v = Transpose[perm=[1,0]](%u)
  output %z
  output %v
})");
  ValueId x = graph.inputs()[0], c = *graph.find_value("c"), y = *graph.find_value("y"), z = graph.outputs()[0];
  ValueId v = graph.outputs()[1];
  for (bool memoize : {true, false}) {
    FieldEvaluator by_run(graph, 3, 1, memoize), by_element(graph, 3, 1, memoize);
    auto expect_run = [&](ValueId id, std::vector<int64_t> start, int axis, int64_t count) {
      std::vector<uint64_t> run(static_cast<size_t>(count));
      by_run.values_along(id, start.data(), axis, count, run.data());
      for (int64_t k = 0; k < count; ++k) {
        std::vector<int64_t> index = start;
        index[static_cast<size_t>(axis)] += k;
        ASSERT_EQ(run[static_cast<size_t>(k)], by_element.value(id, index.data()))
            << "value " << id << " axis " << axis << " element " << k << (memoize ? " (memoized)" : "");
      }
      EXPECT_EQ(by_run.reads(), by_element.reads()) << "value " << id << " axis " << axis;
    };
    expect_run(x, {1, 0, 7, 2}, 2, 250);
    expect_run(c, {0, 1}, 1, 2);
    expect_run(c, {0, 2}, 0, 2);
    expect_run(z, {0, 2, 0, 4}, 2, 300);  // %y's 216000 elements are remembered in the hash map
    expect_run(y, {0, 2, 4, 0}, 3, 300);  // ... all of them already
    expect_run(z, {0, 2, 0, 5}, 2, 300);
    expect_run(v, {7, 0}, 1, 4);  // %v's 200 are remembered densely
    expect_run(v, {0, 2}, 0, 50);  // ... one of them already
  }
}

// A puller that has no faster way pulls a run element by element (FieldPuller's default).
TEST(FieldEvaluatorRuns, ThePullersDefaultRunPullsEachElement) {
  class Coordinates final : public FieldPuller {
   public:
    uint64_t pull(int input, const int64_t* index) const override {
      return static_cast<uint64_t>(input * 1000 + index[0] * 100 + index[1] * 10 + index[2]);
    }
  };
  Coordinates puller;
  int64_t start[3] = {4, 2, 1};
  uint64_t run[4];
  puller.pull_run(1, start, 3, 2, 4, run);
  EXPECT_EQ(std::vector<uint64_t>(run, run + 4), (std::vector<uint64_t>{1421, 1422, 1423, 1424}));
  puller.pull_run(0, start, 3, 0, 3, run);
  EXPECT_EQ(std::vector<uint64_t>(run, run + 3), (std::vector<uint64_t>{421, 521, 621}));
  EXPECT_EQ(start[2], 1) << "the start index is left as it was";
}

TEST(FieldEvaluatorMemo, RemembersAcrossTrialsExactlyWhatRecomputingGives) {
  // %y has 131072 elements: it starts in the hash map (trial 0), becomes dense once a trial has
  // computed a sixteenth of it (trial 1, which sets too many slots to track: the next trial clears
  // the whole array), and trial 3 forgets only the few slots trial 2 set. Every trial must see
  // nothing of the one before.
  Graph graph = parse_graph(R"(graph "memo" opset 13 {
  input %x : f32[1,8,128,128]
  %y = Transpose[perm=[0,1,3,2]](%x)
  %t = Transpose[perm=[0,1,3,2]](%y)
  output %t
})");
  ValueId y = *graph.find_value("y");
  FieldEvaluator memoized(graph, 9, 0);
  std::vector<int64_t> index(4);
  for (int trial = 0; trial < 4; ++trial) {
    if (trial > 0) memoized.start_trial(trial);
    FieldEvaluator fresh(graph, 9, trial, /*memoize=*/false);
    int64_t step = trial == 1 ? 3 : 997;  // trial 1 computes a third of %y: it turns dense
    for (int64_t flat = 0; flat < 131072; flat += step) {
      ops::unravel_index(flat, Shape{1, 8, 128, 128}, index.data());
      ASSERT_EQ(memoized.value(graph.outputs()[0], index.data()), fresh.value(graph.outputs()[0], index.data()))
          << "trial " << trial << " element " << flat;
      ASSERT_EQ(memoized.value(y, index.data()), fresh.value(y, index.data())) << "trial " << trial << " element " << flat;
    }
  }
}

}  // namespace
}  // namespace pet
