// ONNX export -> import keeps the structural hash and the exact weights.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_temp_dir.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"

namespace pet {
namespace {

std::string temp_path(const std::string& name) {
  return (pet::testing::private_temp_dir() / ("pet_" + name)).string();
}

TEST(OnnxRoundTrip, ExportThenImportKeepsHashAndWeights) {
  Graph graph = parse_graph(R"(graph "rt" opset 13 {
    input %x : f32[2,16]
    const %w : f32[16] = random(3)
    %s = Add(%x, %w)
    %y = Relu(%s)
    output %y
  })");
  std::string path = temp_path("roundtrip.onnx");
  export_onnx(graph, path);
  Graph back = import_onnx(path);
  EXPECT_EQ(structural_hash(back), structural_hash(graph));
  EXPECT_EQ(print_graph(back), print_graph(graph));
  auto inputs = random_inputs(graph, 11);
  EXPECT_TRUE(execute(back, inputs)[0].same_content(execute(graph, inputs)[0]));
}

// The names of a graph's outputs, in order, as ONNX lists them after export -> import.
std::vector<std::string> output_names(const Graph& graph) {
  std::vector<std::string> names;
  for (ValueId id : graph.outputs()) names.push_back(graph.value(id).name);
  return names;
}

Graph export_and_import(const Graph& graph, const std::string& file_name) {
  std::string path = temp_path(file_name);
  export_onnx(graph, path);
  return import_onnx(path);
}

TEST(OnnxRoundTrip, ConstantOutputKeepsItsName) {
  Graph graph = parse_graph(R"(graph "c" opset 13 {
    input %x : f32[2]
    const %k : f32[2] = [4,5]
    %y = Relu(%x)
    output %y
    output %k
  })");
  Graph back = export_and_import(graph, "constant_output.onnx");
  EXPECT_EQ(output_names(back), (std::vector<std::string>{"y", "k"}));  // before: y, k_out
  auto outputs = execute(back, {Tensor::f32({2}, {-1, 1})});
  EXPECT_EQ(std::vector<float>(outputs[1].f32().begin(), outputs[1].f32().end()), (std::vector<float>{4, 5}));
}

// Before: the second listing came back as y_out, an input listed as output as x_out.
TEST(OnnxRoundTrip, OutputInterfaceIsKeptExactly) {
  struct Case {
    std::string outputs_ir;
    std::vector<std::string> names;
  };
  for (const Case& c : std::vector<Case>{{"output %y\n output %y", {"y", "y"}},
                                          {"output %x", {"x"}},
                                          {"output %x\n output %y", {"x", "y"}},
                                          {"output %y\n output %x\n output %y\n output %x", {"y", "x", "y", "x"}},
                                          {"output %k\n output %y\n output %k", {"k", "y", "k"}}}) {
    Graph graph = parse_graph(R"(graph "io" opset 13 {
      input %x : f32[2]
      const %k : f32[2] = [4,5]
      %s = Add(%x, %k)
      %y = Relu(%s)
      )" + c.outputs_ir + "\n}");
    Graph back = export_and_import(graph, "interface.onnx");
    EXPECT_EQ(output_names(back), c.names) << c.outputs_ir;
    std::vector<Tensor> inputs = {Tensor::f32({2}, {-7, 1})};
    std::vector<Tensor> expected = execute(graph, inputs), actual = execute(back, inputs);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(actual[i].same_content(expected[i])) << c.outputs_ir << " #" << i;
    EXPECT_EQ(print_graph(export_and_import(back, "interface_again.onnx")), print_graph(back)) << c.outputs_ir;
  }
}

}  // namespace
}  // namespace pet
