// The pet-only `activation` attribute of Conv, MatMul, Gemm and LayoutOverwrite: the fused node
// computes exactly what the op followed by Relu computes, exports as that pair, and leaves the
// printed IR and structural hash of every graph without it unchanged.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "core/executor.h"
#include "core/ops/fused_activation.h"
#include "core/ops/layout.h"
#include "core/registry.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "tests/core/op_test_util.h"

namespace pet {
namespace {

// One op on random inputs, with and without a fused Relu, next to the op followed by Relu.
struct FusedPair {
  Graph fused, unfused;
};

FusedPair fused_pair(const std::string& op, const Attributes& attrs, const std::vector<TensorType>& types) {
  FusedPair pair;
  for (Graph* graph : {&pair.fused, &pair.unfused}) {
    std::vector<ValueId> inputs;
    for (size_t i = 0; i < types.size(); ++i) inputs.push_back(graph->add_input("in" + std::to_string(i), types[i]));
    Attributes node_attrs = attrs;
    if (graph == &pair.fused) node_attrs.set("activation", std::string("relu"));
    ValueId y = graph->add_node1(op, node_attrs, inputs, "op");
    if (graph == &pair.unfused) y = graph->add_node1("Relu", {}, {y}, "relu");
    graph->add_output(y);
  }
  return pair;
}

void expect_bit_identical(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.type(), b.type());
  EXPECT_EQ(std::memcmp(a.raw(), b.raw(), a.nbytes()), 0);
}

Attributes conv_attrs() {
  return {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
          {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
}

struct Case {
  std::string op;
  Attributes attrs;
  std::vector<TensorType> types;
};

std::vector<Case> cases() {
  Attributes overwrite = ops::layout_height_to_batch(Shape{1, 3, 8, 5}, 2);
  overwrite.set("offsets", std::vector<int64_t>{1, 0, 2, 0});
  return {{"Conv", conv_attrs(), {{DType::f32, {2, 3, 6, 5}}, {DType::f32, {4, 3, 3, 3}}, {DType::f32, {4}}}},
          {"MatMul", {}, {{DType::f32, {2, 5, 7}}, {DType::f32, {7, 3}}}},
          {"Gemm", {{"alpha", 0.5}, {"transB", int64_t{1}}}, {{DType::f32, {4, 6}}, {DType::f32, {5, 6}}, {DType::f32, {5}}}},
          {"LayoutOverwrite", overwrite, {{DType::f32, {1, 3, 8, 5}}, {DType::f32, {1, 3, 2, 5}}}}};
}

TEST(FusedActivation, KernelIsTheOpThenReluBitForBit) {
  for (const Case& c : cases()) {
    FusedPair pair = fused_pair(c.op, c.attrs, c.types);
    std::vector<Tensor> inputs = random_inputs(pair.unfused, 5);
    Tensor fused = execute(pair.fused, inputs)[0], unfused = execute(pair.unfused, inputs)[0];
    SCOPED_TRACE(c.op);
    expect_bit_identical(fused, unfused);
    bool some_clamped = false;
    for (float v : fused.f32()) some_clamped = some_clamped || v == 0.0f;
    EXPECT_TRUE(some_clamped) << "random inputs should give some negative pre-activations";
  }
}

TEST(FusedActivation, NoneIsLeftOutOfPrintingAndHashing) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.op);
    Graph plain, explicit_none;
    for (Graph* graph : {&plain, &explicit_none}) {
      std::vector<ValueId> inputs;
      for (size_t i = 0; i < c.types.size(); ++i) inputs.push_back(graph->add_input("in" + std::to_string(i), c.types[i]));
      Attributes attrs = c.attrs;
      if (graph == &explicit_none) attrs.set("activation", std::string("none"));
      graph->add_output(graph->add_node1(c.op, attrs, inputs, "op"));
    }
    EXPECT_FALSE(explicit_none.node(0).attrs.has("activation"));
    EXPECT_EQ(print_graph(explicit_none), print_graph(plain));
    EXPECT_EQ(print_graph(plain).find("activation"), std::string::npos);
    EXPECT_EQ(structural_hash(explicit_none), structural_hash(plain));
    EXPECT_NE(structural_hash(fused_pair(c.op, c.attrs, c.types).fused), structural_hash(plain));
  }
}

TEST(FusedActivation, PrintsAndParsesBeforeAfter) {
  const char* text = R"(graph "g" opset 13 {
  input %a : f32[2,3]
  input %b : f32[3,4]
  %none = MatMul[activation="none"](%a, %b) : f32[2,4]
  %y = MatMul[activation="relu"](%a, %b) : f32[2,4]
  output %none
  output %y
}
)";
  EXPECT_EQ(print_graph(parse_graph(text)), R"(graph "g" opset 13 {
  input %a : f32[2,3]
  input %b : f32[3,4]
  %none = MatMul(%a, %b) : f32[2,4]
  %y = MatMul[activation="relu"](%a, %b) : f32[2,4]
  output %none
  output %y
}
)");
}

TEST(FusedActivation, UnknownActivationIsAUserError) {
  test::expect_user_error(
      [] { test::add_node_on("MatMul", {{"activation", std::string("tanh")}}, {{DType::f32, {2, 3}}, {DType::f32, {3, 4}}}); },
      "node 'n' (MatMul): activation \"tanh\" is not one of \"none\", \"relu\"");
}

TEST(FusedActivation, LinearOnlyWithoutActivation) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.op);
    const OpDef& def = OpRegistry::global().get(c.op);
    Attributes none = complete_attributes(def, c.attrs);
    Attributes relu = none;
    relu.set("activation", std::string("relu"));
    EXPECT_TRUE(def.traits.is_linear(none));
    EXPECT_FALSE(def.traits.is_linear(relu));
  }
}

TEST(FusedActivation, CostAddsOneFlopPerOutputElementAndNoBytes) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.op);
    FusedPair pair = fused_pair(c.op, c.attrs, c.types);
    const Node& fused = pair.fused.node(0);
    const Node& plain = pair.unfused.node(0);
    std::vector<const TensorType*> inputs;
    for (const TensorType& type : c.types) inputs.push_back(&type);
    std::vector<TensorType> outputs = {pair.fused.value(fused.outputs[0]).type};
    Cost with = fused.def->cost(CostContext{fused.attrs, inputs, outputs});
    Cost without = plain.def->cost(CostContext{plain.attrs, inputs, outputs});
    EXPECT_EQ(with.flops, without.flops + static_cast<double>(outputs[0].shape.numel()));
    EXPECT_EQ(with.bytes, without.bytes);
  }
}

TEST(FusedActivation, ExportsAsTheOpThenAStandardRelu) {
  test::FakeExportNode out = test::export_node(
      "Conv", [] { Attributes a = conv_attrs(); a.set("activation", std::string("relu")); return a; }(),
      {{DType::f32, {1, 3, 6, 5}}, {DType::f32, {4, 3, 3, 3}}}, 13);
  ASSERT_EQ(test::exported_ops(out), (std::vector<std::string>{"Conv", "Relu"}));
  EXPECT_FALSE(out.nodes[0].attrs.has("activation"));
  EXPECT_EQ(out.nodes[0].outputs, out.nodes[1].inputs);
  EXPECT_EQ(out.nodes[1].outputs, std::vector<std::string>{"out0"});
  EXPECT_EQ(test::exported_ops(test::export_node("Conv", conv_attrs(),
                                                 {{DType::f32, {1, 3, 6, 5}}, {DType::f32, {4, 3, 3, 3}}}, 13)),
            std::vector<std::string>{"Conv"});
}

TEST(FusedActivation, OnnxRoundTripGivesTheOpAndReluWithEqualValues) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.op);
    FusedPair pair = fused_pair(c.op, c.attrs, c.types);
    Graph imported = test::through_onnx_file(pair.fused, "fused_activation_" + c.op + ".onnx");
    int relus = 0;
    for (const Node& node : imported.nodes()) {
      relus += node.op() == "Relu";
      EXPECT_FALSE(node.attrs.has("activation")) << node.name;
    }
    EXPECT_EQ(relus, 1);
    std::vector<Tensor> inputs = random_inputs(pair.fused, 9);
    expect_bit_identical(execute(imported, inputs)[0], execute(pair.fused, inputs)[0]);
  }
}

TEST(FusedActivation, OnnxImportRejectsTheAttribute) {
  test::FakeImportNode node("MatMul", 13, {{"activation", std::string("relu")}},
                            {TensorType{DType::f32, {2, 3}}, TensorType{DType::f32, {3, 4}}});
  test::expect_user_error([&] { test::import_node(node); },
                          "node 'n' (MatMul, opset 13): attribute 'activation' is not supported; re-export the model "
                          "without it, or open an issue with this model");
}

}  // namespace
}  // namespace pet
