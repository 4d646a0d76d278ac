// The helpers shared by the op tests.
#include "tests/test_temp_dir.h"
#include "tests/core/op_test_util.h"

#include <cmath>
#include <filesystem>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/registry.h"

namespace pet::test {

std::vector<Tensor> run_op(const std::string& op, Attributes attrs, const std::vector<Tensor>& inputs,
                           const std::string& name) {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < inputs.size(); ++i) ids.push_back(graph.add_input(fmt::format("in{}", i), inputs[i].type()));
  graph.set_outputs(graph.add_node(op, std::move(attrs), ids, name));
  graph.validate();
  return execute(graph, inputs);
}

Tensor run1(const std::string& op, Attributes attrs, const std::vector<Tensor>& inputs, const std::string& name) {
  return run_op(op, std::move(attrs), inputs, name).at(0);
}

void add_node_on(const std::string& op, Attributes attrs, const std::vector<TensorType>& types) {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < types.size(); ++i) ids.push_back(graph.add_input(fmt::format("in{}", i), types[i]));
  graph.add_node(op, std::move(attrs), ids, "n");
}

void expect_user_error(const std::function<void()>& action, const std::string& message) {
  try {
    action();
    ADD_FAILURE() << "expected a UserError: " << message;
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), message);
  }
}

void expect_f32(const Tensor& got, const Shape& shape, const std::vector<float>& want) {
  ASSERT_EQ(got.dtype(), DType::f32);
  ASSERT_EQ(got.shape(), shape);
  EXPECT_EQ(std::vector<float>(got.f32().begin(), got.f32().end()), want);
}

void expect_f32_near(const Tensor& got, const Shape& shape, const std::vector<float>& want, float tolerance) {
  ASSERT_EQ(got.dtype(), DType::f32);
  ASSERT_EQ(got.shape(), shape);
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got.f32()[i])) << "element " << i;
    else EXPECT_NEAR(got.f32()[i], want[i], tolerance) << "element " << i;
  }
}

void expect_i64(const Tensor& got, const Shape& shape, const std::vector<int64_t>& want) {
  ASSERT_EQ(got.dtype(), DType::i64);
  ASSERT_EQ(got.shape(), shape);
  EXPECT_EQ(std::vector<int64_t>(got.i64().begin(), got.i64().end()), want);
}

void expect_bool(const Tensor& got, const Shape& shape, const std::vector<uint8_t>& want) {
  ASSERT_EQ(got.dtype(), DType::boolean);
  ASSERT_EQ(got.shape(), shape);
  EXPECT_EQ(std::vector<uint8_t>(got.b8().begin(), got.b8().end()), want);
}

Tensor iota(const Shape& shape, float start) {
  std::vector<float> values(static_cast<size_t>(shape.numel()));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<float>(i);
  return Tensor::f32(shape, values);
}

FakeExportNode export_node(const std::string& op, Attributes attrs, const std::vector<TensorType>& types, int opset) {
  Graph graph;
  std::vector<ValueId> ids;
  for (size_t i = 0; i < types.size(); ++i) ids.push_back(graph.add_input(fmt::format("x{}", i), types[i]));
  graph.add_node(op, std::move(attrs), ids, "n");
  FakeExportNode out(opset, types);
  graph.nodes()[0].def->to_onnx(graph.nodes()[0], out);
  return out;
}

std::vector<std::string> exported_ops(const FakeExportNode& out) {
  std::vector<std::string> ops;
  for (const ExportedNode& node : out.nodes) ops.push_back(node.op_type);
  return ops;
}

Graph through_onnx_file(const Graph& graph, const std::string& file_name) {
  std::string path = (pet::testing::private_temp_dir() / file_name).string();
  export_onnx(graph, path);
  return import_onnx(path);
}

}  // namespace pet::test
