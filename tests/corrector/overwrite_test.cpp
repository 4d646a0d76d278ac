// The Overwrite op: reference kernel for any dtype, its shape-rule message, and its ONNX
// lowering (Slice + Concat), imported back and run.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/test_temp_dir.h"
#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"

namespace pet {
namespace {

Graph overwrite_graph(DType dtype, const Shape& base, const Shape& patch, std::vector<int64_t> offsets) {
  Graph graph;
  ValueId b = graph.add_input("base", {dtype, base});
  ValueId p = graph.add_input("patch", {dtype, patch});
  graph.add_output(graph.add_node("Overwrite", {{"offsets", offsets}}, {b, p}, "o", {"out"}).at(0));
  return graph;
}

TEST(Overwrite, WritesThePatchAtItsOffsets) {
  Graph graph = overwrite_graph(DType::f32, {3, 4}, {2, 2}, {1, 1});
  Tensor out = execute(graph, {Tensor::f32({3, 4}, std::vector<float>(12, 0)), Tensor::f32({2, 2}, {1, 2, 3, 4})})[0];
  EXPECT_EQ(std::vector<float>(out.f32().begin(), out.f32().end()),
            (std::vector<float>{0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0}));
}

TEST(Overwrite, IsDtypeGeneric) {
  Graph graph = overwrite_graph(DType::i64, {2, 3}, {1, 3}, {1, 0});
  Tensor out = execute(graph, {Tensor::i64({2, 3}, {1, 1, 1, 1, 1, 1}), Tensor::i64({1, 3}, {7, 8, 9})})[0];
  EXPECT_EQ(out.to_int_vector(), (std::vector<int64_t>{1, 1, 1, 7, 8, 9}));
}

TEST(Overwrite, PatchThatDoesNotFitNamesTheNode) {
  try {
    overwrite_graph(DType::f32, {3, 4}, {2, 2}, {2, 1});
    FAIL() << "no error";
  } catch (const UserError& error) {
    EXPECT_STREQ(error.what(), "node 'o' (Overwrite): patch f32[2,2] at offsets [2, 1] does not fit base f32[3,4] on axis 0");
  }
}

// Every placement: touching no edge, each edge, and the whole base.
TEST(Overwrite, OnnxLoweringRunsAfterImport) {
  std::filesystem::path path = pet::testing::private_temp_dir() / "pet_overwrite_test.onnx";
  for (auto [patch, offsets] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
           {{1, 2, 2, 3}, {1, 1, 1, 2}}, {{2, 3, 1, 6}, {0, 0, 0, 0}}, {{1, 1, 4, 1}, {1, 2, 0, 5}}, {{2, 3, 4, 6}, {0, 0, 0, 0}}}) {
    Graph graph = overwrite_graph(DType::f32, {2, 3, 4, 6}, patch, offsets);
    export_onnx(graph, path.string());
    Graph imported = import_onnx(path.string());
    for (const Node& node : imported.nodes()) EXPECT_NE(node.op(), "Overwrite");
    std::vector<Tensor> inputs = random_inputs(graph, 11);
    EXPECT_TRUE(execute(imported, inputs)[0].same_content(execute(graph, inputs)[0])) << print_graph(imported);
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace pet
