// Graph construction and execution on small hand-built graphs.
#include <gtest/gtest.h>

#include <functional>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "tests/user_error_message.h"

namespace pet {
namespace {

TEST(Graph, AddThenReluComputesElementwise) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {2, 3}});
  ValueId b = graph.add_constant("b", Tensor::f32({3}, {1, -5, 0.5f}));
  ValueId sum = graph.add_node1("Add", {}, {x, b});
  graph.add_output(graph.add_node1("Relu", {}, {sum}));
  graph.validate();

  auto outputs = execute(graph, {Tensor::f32({2, 3}, {0, 1, 2, -3, 4, 5})});
  std::vector<float> got(outputs[0].f32().begin(), outputs[0].f32().end());
  EXPECT_EQ(got, (std::vector<float>{1, 0, 2.5f, 0, 0, 5.5f}));
}

TEST(Graph, BroadcastMismatchIsAUserErrorNamingTheNode) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {2, 3}});
  ValueId y = graph.add_input("y", {DType::f32, {4}});
  try {
    graph.add_node1("Add", {}, {x, y}, "sum");
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "node 'sum' (Add): cannot broadcast shapes 2x3 and 4");
  }
}

TEST(Shape, ElementCountsThatOverflowAreDetected) {
  EXPECT_EQ(Shape({4, 5}).checked_numel(), 20);
  EXPECT_EQ(Shape({}).checked_numel(), 1);
  EXPECT_EQ(Shape({3037000500, 3037000500}).checked_numel(), std::nullopt);  // just past 2^63
  EXPECT_EQ(Shape({4000000000, 4000000000, 4000000000}).checked_numel(), std::nullopt);
  EXPECT_EQ(Shape({4000000000, 4000000000, 0}).checked_numel(), 0);  // empty, whatever comes before the 0
  EXPECT_EQ(tensor_bytes({DType::f32, Shape{2305843009213693952}}), std::nullopt);  // 2^61 elements x 4 bytes
  EXPECT_EQ(tensor_bytes({DType::i64, Shape{3, 5}}), 120);
}

// Before: bad_alloc ("internal error") or a wrapped-around element count.
TEST(Graph, TensorsThatCannotFitAreUserErrorsBeforeAnyAllocation) {
  Graph graph;
  EXPECT_EQ(testing::user_error_message([&] { graph.add_input("big", {DType::f32, {1000000, 1000000, 1000}}); })
                .rfind("input 'big' (f32[1000000,1000000,1000]) would need 4000000000000000 bytes, more than this "
                       "machine's ",
                       0),
            0u);
  EXPECT_EQ(testing::user_error_message([&] { graph.add_input("wraps", {DType::f32, {1LL << 40, 1LL << 40}}); })
                .rfind("input 'wraps' (f32[1099511627776,1099511627776]) would need more than 2^63 bytes", 0),
            0u);
  ValueId column = graph.add_input("column", {DType::f32, {1000000, 1}});
  ValueId row = graph.add_input("row", {DType::f32, {1, 1000000}});
  EXPECT_EQ(testing::user_error_message([&] { graph.add_node1("MatMul", {}, {column, row}, "outer"); })
                .rfind("node 'outer' (MatMul): output 0 (f32[1000000,1000000]) would need 4000000000000 bytes", 0),
            0u);
  EXPECT_EQ(testing::user_error_message([] { Tensor(DType::f32, Shape{1LL << 62}); })
                .rfind("a tensor (f32[4611686018427387904]) would need more than 2^63 bytes", 0),
            0u);
}

TEST(Graph, EmptyTensorsComputeEmptyResults) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {0, 3}});
  ValueId w = graph.add_constant("w", Tensor::f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  graph.add_output(graph.add_node1("Relu", {}, {graph.add_node1("MatMul", {}, {x, w})}));
  auto outputs = execute(graph, {Tensor(DType::f32, Shape{0, 3})});
  EXPECT_EQ(outputs[0].type().to_string(), "f32[0,2]");
}

TEST(Graph, RemoveNodesDropsValuesAndRenumbers) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  ValueId dead = graph.add_node1("Relu", {}, {x}, "dead");
  ValueId live = graph.add_node1("Add", {}, {x, x}, "live");
  graph.add_output(live);
  graph.remove_nodes({graph.value(dead).producer});
  ASSERT_EQ(graph.nodes().size(), 1u);
  EXPECT_EQ(graph.nodes()[0].name, "live");
  EXPECT_FALSE(graph.find_value("dead").has_value());
  graph.validate();
}

TEST(Graph, SetNodeInputsRewiresANodeWhereItStands) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {1, 2, 4, 4}});
  ValueId w = graph.add_constant("w", Tensor(DType::f32, Shape{3, 2, 1, 1}));
  ValueId b = graph.add_constant("b", Tensor(DType::f32, Shape{3}));
  Attributes attrs{{"strides", std::vector<int64_t>{1, 1}},
                   {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                   {"dilations", std::vector<int64_t>{1, 1}},
                   {"group", int64_t{1}}};
  ValueId conv = graph.add_node1("Conv", attrs, {x, w}, "conv");
  ValueId later = graph.add_node1("Relu", {}, {conv}, "later");
  ValueId later_x = graph.add_node1("Neg", {}, {x}, "later_x");  // x's type, computed after the conv
  graph.add_output(later);
  graph.add_output(later_x);
  graph.set_node_inputs(0, {x, w, b});  // before: Conv(x, w); after: Conv(x, w, b), still node 0
  EXPECT_EQ(graph.node(0).inputs, (std::vector<ValueId>{x, w, b}));
  EXPECT_EQ(graph.node(0).outputs[0], conv);
  graph.validate();
  ValueId wide = graph.add_constant("wide", Tensor(DType::f32, Shape{4, 2, 1, 1}));
  EXPECT_THROW(graph.set_node_inputs(0, {x, wide}), InternalError) << "four output channels where three were";
  EXPECT_THROW(graph.set_node_inputs(0, {later_x, w, b}), InternalError) << "reads what a later node computes";
  EXPECT_EQ(graph.node(0).inputs, (std::vector<ValueId>{x, w, b})) << "a refused rewiring leaves the node as it was";
}

TEST(Graph, RemoveNodesFreesTheNamesOfDroppedValuesOnly) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  ValueId dead = graph.add_node1("Relu", {}, {x}, "dead");
  graph.add_output(graph.add_node1("Neg", {}, {x}, "live"));
  graph.remove_nodes({graph.value(dead).producer});
  EXPECT_EQ(graph.unique_value_name("dead"), "dead");   // before: taken; after: free again
  EXPECT_NE(graph.unique_value_name("live"), "live");   // still taken
  EXPECT_NE(graph.unique_value_name("x"), "x");
}

TEST(Graph, RemoveLastNodeTakesBackTheLastAddNodeWithItsValuesAndNames) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  ValueId kept = graph.add_node1("Relu", {}, {x}, "kept");
  graph.add_node("Split", {{"axis", int64_t{0}}, {"split", std::vector<int64_t>{1, 3}}}, {kept}, "pieces");
  ASSERT_EQ(graph.values().size(), 4u);  // before: x, kept and the two pieces
  graph.remove_last_node();
  EXPECT_EQ(graph.values().size(), 2u);  // after: as before the Split
  EXPECT_EQ(graph.nodes().size(), 1u);
  EXPECT_EQ(graph.unique_value_name("pieces_out0"), "pieces_out0");
  // The same node added again gets the same ids and names.
  std::vector<ValueId> again = graph.add_node("Split", {{"axis", int64_t{0}}, {"split", std::vector<int64_t>{1, 3}}}, {kept}, "pieces");
  EXPECT_EQ(again, (std::vector<ValueId>{2, 3}));
  EXPECT_EQ(graph.value(again[1]).name, "pieces_out1");
  graph.validate();
}

TEST(Graph, RemoveLastNodeRefusesAGraphOutputOrAnEmptyGraph) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  EXPECT_THROW(graph.remove_last_node(), InternalError);
  graph.add_output(graph.add_node1("Neg", {}, {x}, "y"));
  EXPECT_THROW(graph.remove_last_node(), InternalError);
  EXPECT_EQ(graph.nodes().size(), 1u);
}

TEST(Graph, StructureCheckCatchesAReadBeforeItsProducerButSkipsShapeRules) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  ValueId first = graph.add_node1("Relu", {}, {x}, "first");
  graph.add_output(graph.add_node1("Neg", {}, {first}, "second"));
  graph.mutable_value(first).type = {DType::f32, {5}};  // a type its shape rule would refuse
  EXPECT_NO_THROW(graph.validate_structure());
  EXPECT_THROW(graph.validate(), InternalError);

  Graph swapped;
  ValueId y = swapped.add_input("y", {DType::f32, {4}});
  ValueId a = swapped.add_node1("Relu", {}, {y}, "a");
  swapped.add_output(swapped.add_node1("Neg", {}, {a}, "b"));
  swapped.sort_topologically();
  swapped.replace_uses(y, swapped.nodes()[1].outputs[0]);  // now "a" reads what "b" computes after it
  EXPECT_THROW(swapped.validate_structure(), InternalError);
}


// Readers per value, ascending and each once, as spans into one array: a node reading a value
// twice is one reader, and a value nobody reads has none.
TEST(Graph, ConsumersListEachReaderOnceInNodeOrder) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {4}});
  ValueId doubled = graph.add_node1("Add", {}, {x, x}, "double");
  ValueId negated = graph.add_node1("Neg", {}, {x}, "negate");
  ValueId unused = graph.add_node1("Relu", {}, {doubled}, "unused");
  graph.add_output(graph.add_node1("Mul", {}, {doubled, negated}, "product"));
  Consumers readers = graph.consumers();
  ASSERT_EQ(readers.size(), graph.values().size());
  auto list = [&](ValueId value) {
    std::span<const NodeId> span = readers[static_cast<size_t>(value)];
    return std::vector<NodeId>(span.begin(), span.end());
  };
  EXPECT_EQ(list(x), (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(list(doubled), (std::vector<NodeId>{2, 3}));
  EXPECT_EQ(list(negated), (std::vector<NodeId>{3}));
  EXPECT_TRUE(list(unused).empty());
  EXPECT_EQ(Consumers().size(), 0u);
}

// Before: one pass over the nodes per replaced value. After: one pass for all, the same result.
TEST(Graph, ReplacingManyValuesAtOnceMatchesReplacingThemOneByOne) {
  auto build = [](Graph& graph) {
    ValueId x = graph.add_input("x", {DType::f32, {4}});
    ValueId a = graph.add_node1("Relu", {}, {x}, "a");
    ValueId b = graph.add_node1("Neg", {}, {x}, "b");
    ValueId c = graph.add_node1("Add", {}, {a, b}, "c");
    graph.add_output(c);
    graph.add_output(a);
    ValueId a2 = graph.add_node1("Abs", {}, {x}, "a2");
    ValueId b2 = graph.add_node1("Sigmoid", {}, {x}, "b2");
    return std::vector<std::pair<ValueId, ValueId>>{{a, a2}, {b, b2}};
  };
  Graph one_by_one, at_once;
  for (const auto& [from, to] : build(one_by_one)) one_by_one.replace_uses(from, to);
  at_once.replace_uses(build(at_once));
  ASSERT_EQ(at_once.nodes().size(), one_by_one.nodes().size());
  for (size_t n = 0; n < at_once.nodes().size(); ++n) EXPECT_EQ(at_once.nodes()[n].inputs, one_by_one.nodes()[n].inputs);
  EXPECT_EQ(at_once.outputs(), one_by_one.outputs());
  EXPECT_EQ(at_once.nodes()[2].inputs, (std::vector<ValueId>{4, 5})) << "c reads a2 and b2";

  std::vector<std::pair<ValueId, ValueId>> twice = {{1, 4}, {1, 5}}, chained = {{1, 2}, {2, 4}};
  EXPECT_THROW(at_once.replace_uses(twice), InternalError);
  EXPECT_THROW(at_once.replace_uses(chained), InternalError);
}

}  // namespace
}  // namespace pet
