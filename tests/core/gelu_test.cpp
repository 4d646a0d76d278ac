// Gelu (opset 20): exact and tanh-approximated values, the approximate attribute's error, and its
// ONNX form per opset (a Gelu node from 20, the Erf / Tanh formula before) through a file.
#include <gtest/gtest.h>

#include "core/executor.h"
#include "core/graph.h"
#include "tests/core/op_test_util.h"

namespace pet::test {
namespace {

const Tensor kPoints = Tensor::f32({5}, {-2, -1, 0, 1, 2});

TEST(Gelu, ExactUsesTheNormalCdf) {
  std::vector<float> want{-0.0455002639f, -0.1586552539f, 0, 0.8413447461f, 1.9544997361f};
  expect_f32_near(run1("Gelu", {}, {kPoints}), {5}, want);
  expect_f32_near(run1("Gelu", {{"approximate", "none"}}, {kPoints}), {5}, want);
}

TEST(Gelu, TanhApproximationDiffersFromExact) {
  expect_f32_near(run1("Gelu", {{"approximate", "tanh"}}, {kPoints}), {5},
                  {-0.0454023059f, -0.1588080094f, 0, 0.8411919906f, 1.9545976941f});
}

TEST(Gelu, UnknownApproximationIsNamed) {
  expect_user_error([] { add_node_on("Gelu", {{"approximate", "fast"}}, {{DType::f32, {2}}}); },
                    "node 'n' (Gelu): approximate must be \"none\" or \"tanh\", got \"fast\"");
  expect_user_error([] { add_node_on("Gelu", {}, {{DType::i64, {2}}}); },
                    "node 'n' (Gelu): expects a float input (f32, f64 or bf16), got i64[2]");
}

TEST(Gelu, ExportIsTheOpFromOpset20AndItsFormulaBefore) {
  TensorType type{DType::f32, {2, 3}};
  EXPECT_EQ(exported_ops(export_node("Gelu", {}, {type}, 20)), std::vector<std::string>{"Gelu"});
  EXPECT_EQ(exported_ops(export_node("Gelu", {}, {type}, 17)),
            (std::vector<std::string>{"Mul", "Erf", "Mul", "Add", "Mul"}));
  EXPECT_EQ(exported_ops(export_node("Gelu", {{"approximate", "tanh"}}, {type}, 17)),
            (std::vector<std::string>{"Mul", "Mul", "Mul", "Add", "Mul", "Tanh", "Mul", "Add", "Mul"}));
}

TEST(Gelu, SurvivesAnOnnxFileAtEachOpset) {
  for (int opset : {13, 17, 20})
    for (const char* approximate : {"none", "tanh"}) {
      Graph graph;
      graph.opset = opset;
      ValueId x = graph.add_input("x", {DType::f32, {5}});
      graph.set_outputs({graph.add_node1("Gelu", {{"approximate", std::string(approximate)}}, {x})});
      Graph back = through_onnx_file(graph, "pet_gelu.onnx");
      Tensor want = execute(graph, {kPoints})[0];
      SCOPED_TRACE(std::string(approximate) + " at opset " + std::to_string(opset));
      expect_f32_near(execute(back, {kPoints})[0], {5}, std::vector<float>(want.f32().begin(), want.f32().end()));
    }
}

}  // namespace
}  // namespace pet::test
