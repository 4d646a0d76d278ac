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

TEST(OnnxRoundTrip, ConstantOutputIsExportedThroughIdentity) {
  Graph graph = parse_graph(R"(graph "c" opset 13 {
    input %x : f32[2]
    const %k : f32[2] = [4,5]
    %y = Relu(%x)
    output %y
    output %k
  })");
  std::string path = temp_path("constant_output.onnx");
  export_onnx(graph, path);
  Graph back = import_onnx(path);
  auto outputs = execute(back, {Tensor::f32({2}, {-1, 1})});
  EXPECT_EQ(std::vector<float>(outputs[1].f32().begin(), outputs[1].f32().end()), (std::vector<float>{4, 5}));
}

}  // namespace
}  // namespace pet
