// ONNX mapping of the elementwise family: import canonicalization per opset (legacy broadcast,
// axes and bounds from attributes or constant inputs, training forms rejected), export per opset,
// and export -> import of real ONNX files.
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/onnx_mapping.h"
#include "core/registry.h"
#include "tests/core/fake_onnx_node.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---------------------------------------------------------------- ONNX import

const TensorType kF32x2x3{DType::f32, {2, 3}};

TEST(ElementwiseImport, SoftmaxBeforeOpset13PrefersTheSingleAxisForm) {
  OnnxImported last = import_node(FakeImportNode("Softmax", 11, {}, {kF32x2x3}));
  EXPECT_EQ(last.attrs, (Attributes{{"axis", int64_t{1}}, {"include_trailing_axes", int64_t{0}}}));
  OnnxImported flattened = import_node(FakeImportNode("LogSoftmax", 11, {{"axis", int64_t{0}}}, {kF32x2x3}));
  EXPECT_EQ(flattened.attrs, (Attributes{{"axis", int64_t{0}}, {"include_trailing_axes", int64_t{1}}}));
  OnnxImported single = import_node(FakeImportNode("Softmax", 13, {{"axis", int64_t{0}}}, {kF32x2x3}));
  EXPECT_EQ(single.attrs, (Attributes{{"axis", int64_t{0}}, {"include_trailing_axes", int64_t{0}}}));
}

TEST(ElementwiseImport, ClipBoundsFromAttributesOrConstantInputs) {
  OnnxImported old = import_node(FakeImportNode("Clip", 6 + 1, {{"max", 6.0}}, {kF32x2x3}));
  EXPECT_EQ(old.attrs, (Attributes{{"min", -kInf}, {"max", 6.0}}));
  OnnxImported modern =
      import_node(FakeImportNode("Clip", 13, {}, {kF32x2x3, TensorType{DType::f32, {}}}).constant(1, Tensor::scalar_f32(0)));
  EXPECT_EQ(modern.attrs, (Attributes{{"min", 0.0}, {"max", kInf}}));
  EXPECT_EQ(modern.inputs, (std::vector<int>{0}));
  expect_user_error([] { import_node(FakeImportNode("Clip", 13, {}, {kF32x2x3, TensorType{DType::f32, {}}})); },
                    "node 'n' (Clip, opset 13): input 1 (min) must be a constant; fold it");
}

TEST(ElementwiseImport, ReduceAxesFromAttributeOrInputWithNoopFlag) {
  OnnxImported all = import_node(FakeImportNode("ReduceMean", 11, {{"keepdims", int64_t{0}}}, {kF32x2x3}));
  EXPECT_EQ(all.attrs, (Attributes{{"axes", std::vector<int64_t>{0, 1}}, {"keepdims", int64_t{0}}}));
  OnnxImported listed = import_node(FakeImportNode("ReduceSum", 13, {}, {kF32x2x3, TensorType{DType::i64, {1}}})
                                        .constant(1, Tensor::i64({1}, {-1})));
  EXPECT_EQ(listed.attrs, (Attributes{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}}));
  OnnxImported noop = import_node(
      FakeImportNode("ReduceSum", 13, {{"noop_with_empty_axes", int64_t{1}}}, {kF32x2x3}));
  EXPECT_EQ(noop.attrs.get_ints("axes"), std::vector<int64_t>{});
  expect_user_error([] { import_node(FakeImportNode("ReduceMax", 13, {{"noop_with_empty_axes", int64_t{1}}}, {kF32x2x3})); },
                    "node 'n' (ReduceMax, opset 13): attribute 'noop_with_empty_axes' is not supported; re-export "
                    "the model without it, or open an issue with this model");
}

TEST(ElementwiseImport, TrainingFormsAreUnsupported) {
  TensorType x{DType::f32, {1, 2, 2}}, c{DType::f32, {2}};
  expect_user_error(
      [&] { import_node(FakeImportNode("BatchNormalization", 15, {{"training_mode", int64_t{1}}}, {x, c, c, c, c}, {}, 3)); },
      "node 'n' (BatchNormalization, opset 15): training_mode=1 (training) is not supported; re-export the model "
      "without it, or open an issue with this model");
  expect_user_error(
      [&] { import_node(FakeImportNode("BatchNormalization", 9, {}, {x, c, c, c, c}, {}, 5)); },
      "node 'n' (BatchNormalization, opset 9): the running mean/variance outputs (training) is not supported; "
      "re-export the model without it, or open an issue with this model");
  expect_user_error(
      [&] {
        import_node(FakeImportNode("Dropout", 13, {}, {x, TensorType{DType::f32, {}}, TensorType{DType::boolean, {}}})
                        .constant(2, Tensor::boolean({}, {1})));
      },
      "node 'n' (Dropout, opset 13): training_mode=1 (training) is not supported; re-export the model without it, "
      "or open an issue with this model");
}

TEST(ElementwiseImport, Opset6LegacyBroadcastIsAcceptedWhenNumpyAligned) {
  TensorType a{DType::f32, {2, 3}}, b{DType::f32, {3}};
  OnnxImported suffix = import_node(FakeImportNode("Sub", 6, {{"broadcast", int64_t{1}}, {"axis", int64_t{1}}}, {a, b}));
  EXPECT_EQ(suffix.inputs, (std::vector<int>{0, 1}));
  EXPECT_EQ(suffix.attrs, Attributes{});
  expect_user_error([&] { import_node(FakeImportNode("Mul", 6, {{"broadcast", int64_t{1}}, {"axis", int64_t{0}}}, {a, b})); },
                    "node 'n' (Mul, opset 6): legacy broadcast at axis 0 (numpy-style alignment is axis 1) is not "
                    "supported; re-export the model without it, or open an issue with this model");
  expect_user_error([&] { import_node(FakeImportNode("Div", 7, {{"broadcast", int64_t{1}}}, {a, b})); },
                    "node 'n' (Div, opset 7): attribute 'broadcast' is not supported; re-export the model without "
                    "it, or open an issue with this model");
  expect_user_error([&] { import_node(FakeImportNode("BatchNormalization", 6, {}, {a, b, b, b, b})); },
                    "node 'n' (BatchNormalization, opset 6): is_test=0 (training) is not supported; re-export the "
                    "model without it, or open an issue with this model");
}

TEST(ElementwiseImport, DropoutMaskAndCastTargets) {
  TensorType x{DType::f32, {2}};
  OnnxImported dropout = import_node(FakeImportNode("Dropout", 12, {{"seed", int64_t{3}}}, {x}, {}, 2));
  EXPECT_EQ(dropout.attrs, (Attributes{{"with_mask", int64_t{1}}}));
  OnnxImported cast = import_node(FakeImportNode("Cast", 13, {{"to", int64_t{7}}}, {x}));
  EXPECT_EQ(cast.attrs, (Attributes{{"to", "i64"}}));
  OnnxImported to_double = import_node(FakeImportNode("Cast", 13, {{"to", int64_t{11}}}, {x}));
  EXPECT_EQ(to_double.attrs, (Attributes{{"to", "f64"}}));
  expect_user_error([&] { import_node(FakeImportNode("Cast", 19, {{"to", int64_t{17}}}, {x})); },
                    "node 'n' (Cast, opset 19): cast to ONNX element type 17 is not supported; re-export the model "
                    "without it, or open an issue with this model");
}

// ---------------------------------------------------------------- ONNX export

TEST(ElementwiseExport, SoftmaxFormDependsOnOpset) {
  Attributes trailing{{"axis", int64_t{0}}, {"include_trailing_axes", int64_t{1}}};
  Attributes single{{"axis", int64_t{0}}};
  EXPECT_EQ(exported_ops(export_node("Softmax", trailing, {kF32x2x3}, 11)), std::vector<std::string>{"Softmax"});
  EXPECT_EQ(exported_ops(export_node("Softmax", trailing, {kF32x2x3}, 13)),
            (std::vector<std::string>{"Flatten", "Softmax", "Shape", "Reshape"}));
  EXPECT_EQ(exported_ops(export_node("Softmax", single, {kF32x2x3}, 13)), std::vector<std::string>{"Softmax"});
  EXPECT_EQ(exported_ops(export_node("LogSoftmax", single, {kF32x2x3}, 11)),
            (std::vector<std::string>{"ReduceMax", "Sub", "Exp", "ReduceSum", "Log", "Sub"}));
  FakeExportNode last = export_node("Softmax", {}, {kF32x2x3}, 11);
  ASSERT_EQ(exported_ops(last), std::vector<std::string>{"Softmax"});
  EXPECT_EQ(last.nodes[0].attrs, (Attributes{{"axis", int64_t{1}}}));
}

TEST(ElementwiseExport, ClipBoundsBecomeTypedInputsFromOpset11) {
  TensorType ints{DType::i64, {3}};
  FakeExportNode modern = export_node("Clip", {{"max", 6.0}}, {ints}, 13);
  ASSERT_EQ(modern.nodes.size(), 1u);
  EXPECT_EQ(modern.nodes[0].inputs, (std::vector<std::string>{"in0", "", "const0"}));
  EXPECT_TRUE(modern.constants[0].same_content(Tensor::scalar_i64(6)));
  FakeExportNode old = export_node("Clip", {{"max", 6.0}}, {kF32x2x3}, 9);
  EXPECT_EQ(old.nodes[0].inputs, std::vector<std::string>{"in0"});
  EXPECT_EQ(old.nodes[0].attrs, (Attributes{{"max", 6.0}}));
}

TEST(ElementwiseExport, ReduceAxesGoWhereTheOpsetWantsThem) {
  Attributes attrs{{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{0}}};
  FakeExportNode sum13 = export_node("ReduceSum", attrs, {kF32x2x3}, 13);
  EXPECT_EQ(sum13.nodes[0].inputs, (std::vector<std::string>{"in0", "const0"}));
  EXPECT_EQ(sum13.nodes[0].attrs, (Attributes{{"keepdims", int64_t{0}}}));
  FakeExportNode mean13 = export_node("ReduceMean", attrs, {kF32x2x3}, 13);
  EXPECT_EQ(mean13.nodes[0].attrs, attrs);
  Attributes none{{"axes", std::vector<int64_t>{}}};
  EXPECT_EQ(exported_ops(export_node("ReduceMean", none, {kF32x2x3}, 13)), std::vector<std::string>{"Identity"});
  EXPECT_EQ(export_node("ReduceSum", none, {kF32x2x3}, 13).nodes[0].attrs,
            (Attributes{{"keepdims", int64_t{1}}, {"noop_with_empty_axes", int64_t{1}}}));
}

TEST(ElementwiseExport, CastAndDropoutUseOnnxSpellings) {
  EXPECT_EQ(export_node("Cast", {{"to", "bool"}}, {kF32x2x3}, 13).nodes[0].attrs, (Attributes{{"to", int64_t{9}}}));
  FakeExportNode dropout = export_node("Dropout", {{"with_mask", int64_t{1}}}, {kF32x2x3}, 13);
  EXPECT_EQ(dropout.nodes[0].outputs, (std::vector<std::string>{"out0", "out1"}));
}

// The exported node seen by the importer: input 0 of type 2x3, later inputs the constants.
FakeImportNode reimported(const FakeExportNode& out, int opset) {
  const ExportedNode& exported = out.nodes.at(0);
  std::vector<std::optional<TensorType>> types{kF32x2x3};
  std::map<int, Tensor> values;
  for (size_t i = 1; i < exported.inputs.size(); ++i) {
    const std::string& name = exported.inputs[i];
    types.emplace_back();  // absent unless a constant
    if (!name.empty()) values.emplace(static_cast<int>(i), out.constant(name));
  }
  return FakeImportNode(exported.op_type, opset, exported.attrs, types, values);
}

// Import(export(node)) gives back the canonical attributes, at an old and a new opset.
TEST(ElementwiseExport, RoundTripsThroughImport) {
  struct Case {
    std::string op;
    Attributes attrs;
  };
  std::vector<Case> cases{{"Clip", {{"min", 0.0}, {"max", 6.0}}},
                          {"ReduceMean", {{"axes", std::vector<int64_t>{0}}, {"keepdims", int64_t{0}}}},
                          {"ReduceSum", {{"axes", std::vector<int64_t>{1}}, {"keepdims", int64_t{1}}}},
                          {"Softmax", {{"axis", int64_t{1}}}},
                          {"LogSoftmax", {{"axis", int64_t{0}}, {"include_trailing_axes", int64_t{1}}}},
                          {"Cast", {{"to", "i64"}}},
                          {"LeakyRelu", {{"alpha", 0.25}}}};
  for (int opset : {9, 13})
    for (const Case& c : cases) {
      FakeExportNode out = export_node(c.op, c.attrs, {kF32x2x3}, opset);
      if (out.nodes.size() != 1) continue;  // LogSoftmax's flattened form at 13, checked above
      EXPECT_EQ(import_node(reimported(out, opset)).attrs,
                complete_attributes(OpRegistry::global().get(c.op), c.attrs))
          << c.op << " at opset " << opset;
    }
}

// ---------------------------------------------------------------- ONNX files, end to end

// A graph using every op of this family with non-default attributes, valid at `opset` >= 9.
Graph family_graph(int opset) {
  Graph graph;
  graph.opset = opset;
  ValueId x = graph.add_input("x", {DType::f32, {2, 3, 4}});
  ValueId k = graph.add_input("k", {DType::i64, {4}});
  ValueId c = graph.add_constant("c", Tensor::f32({3}, {0.5f, 1, 2}));
  ValueId d = graph.add_constant("d", Tensor::f32({3, 1}, {0.5f, 1, 2}));
  auto node = [&](const std::string& op, Attributes attrs, std::vector<ValueId> inputs) {
    return graph.add_node1(op, std::move(attrs), std::move(inputs));
  };
  ValueId trailing = node("Softmax", {{"axis", int64_t{1}}, {"include_trailing_axes", int64_t{1}}}, {x});
  ValueId single = node("LogSoftmax", {{"axis", int64_t{1}}}, {x});
  ValueId clipped = node("Clip", {{"min", -0.5}}, {node("Sum", {}, {trailing, single, x})});
  ValueId normalized = node("BatchNormalization", {{"epsilon", 0.01}}, {clipped, c, c, c, c});
  ValueId positive = node("Add", {}, {node("Abs", {}, {normalized}), node("Reciprocal", {}, {d})});
  ValueId logs = node("Log", {}, {node("Sqrt", {}, {positive})});
  ValueId waves = node("Sub", {}, {node("Tanh", {}, {logs}), node("Erf", {}, {node("Neg", {}, {logs})})});
  ValueId gated = node("Mul", {}, {node("Sigmoid", {}, {waves}), node("Exp", {}, {waves})});
  ValueId activated = node("Max", {}, {node("LeakyRelu", {{"alpha", 0.2}}, {gated}),
                                       node("HardSigmoid", {{"alpha", 0.3}, {"beta", 0.4}}, {gated}),
                                       node("HardSwish", {}, {gated})});
  ValueId shrunk = node("Min", {}, {node("Div", {}, {activated, d}), node("Pow", {}, {positive, d})});
  ValueId mask = node("Not", {}, {node("Less", {}, {shrunk, node("Cast", {{"to", "f32"}}, {k})})});
  ValueId chosen = node("Where", {}, {node("Greater", {}, {shrunk, activated}), shrunk, activated});
  std::vector<ValueId> dropped = graph.add_node("Dropout", {{"with_mask", int64_t{1}}}, {chosen});
  ValueId both = node("Where", {}, {node("Equal", {}, {mask, dropped[1]}), dropped[0], node("Identity", {}, {x})});
  ValueId mean = node("ReduceMean", {{"axes", std::vector<int64_t>{2}}, {"keepdims", int64_t{0}}}, {both});
  ValueId total = node("ReduceSum", {{"axes", std::vector<int64_t>{0}}}, {both});
  ValueId peak = node("ReduceMax", {{"axes", std::vector<int64_t>{0, 2}}, {"keepdims", int64_t{0}}}, {both});
  ValueId truncated = node("Cast", {{"to", "i64"}}, {node("Mul", {}, {total, node("Cast", {{"to", "f32"}}, {k})})});
  graph.set_outputs({mean, total, peak, truncated});
  if (opset >= 17) {
    ValueId width = graph.add_constant("w", Tensor::f32({4}, {1, 2, 3, 4}));
    graph.add_output(node("LayerNormalization", {{"axis", int64_t{1}}, {"epsilon", 0.001}}, {both, width}));
  }
  graph.validate();
  return graph;
}

TEST(ElementwiseOnnxFile, EveryOpSurvivesExportAndImportAtEachOpset) {
  for (int opset : {9, 11, 13, 17}) {
    Graph graph = family_graph(opset);
    Graph back = through_onnx_file(graph, fmt::format("pet_elementwise_{}.onnx", opset));
    std::vector<Tensor> inputs{Tensor::random_f32({2, 3, 4}, 7, -2, 2), Tensor::i64({4}, {0, 1, 2, -3})};
    std::vector<Tensor> want = execute(graph, inputs), got = execute(back, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got[i].type(), want[i].type()) << "output " << i << " at opset " << opset;
      for (int64_t e = 0; e < want[i].numel(); ++e)
        EXPECT_NEAR(got[i].as_double(e), want[i].as_double(e), 1e-4) << "output " << i << " at opset " << opset;
    }
  }
}

}  // namespace
}  // namespace pet::test
