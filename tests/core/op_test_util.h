// Helpers shared by the op tests: run one node on tiny inputs, check the values it computes,
// expect exact UserError messages, and export a single node or a graph through ONNX.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "tests/core/fake_onnx_node.h"

namespace pet::test {

// Runs one node of `op` (named `name`) whose inputs are graph inputs holding `inputs`; returns
// every output.
std::vector<Tensor> run_op(const std::string& op, Attributes attrs, const std::vector<Tensor>& inputs,
                           const std::string& name = "node");
// The first output of run_op.
Tensor run1(const std::string& op, Attributes attrs, const std::vector<Tensor>& inputs,
            const std::string& name = "node");

// Adds one node of `op` named "n" on graph inputs of the given types (for shape-rule errors).
void add_node_on(const std::string& op, Attributes attrs, const std::vector<TensorType>& types);

// Expects `action` to throw a UserError with exactly `message`.
void expect_user_error(const std::function<void()>& action, const std::string& message);

// Expects an f32 tensor of `shape` holding exactly `want`.
void expect_f32(const Tensor& got, const Shape& shape, const std::vector<float>& want);
// Expects an f32 tensor of `shape` within `tolerance` of `want` (a NaN wants a NaN).
void expect_f32_near(const Tensor& got, const Shape& shape, const std::vector<float>& want,
                     float tolerance = 1e-5f);
// Expects an i64 tensor of `shape` holding exactly `want`.
void expect_i64(const Tensor& got, const Shape& shape, const std::vector<int64_t>& want);
// Expects a bool tensor of `shape` holding exactly `want`.
void expect_bool(const Tensor& got, const Shape& shape, const std::vector<uint8_t>& want);

// start, start + 1, ... as f32 of the given shape.
Tensor iota(const Shape& shape, float start = 0.0f);

// Exports the single node of a graph built on inputs of `types`.
FakeExportNode export_node(const std::string& op, Attributes attrs, const std::vector<TensorType>& types, int opset);
// The op types of the ONNX nodes in `out`, in order.
std::vector<std::string> exported_ops(const FakeExportNode& out);

// Exports `graph` to `file_name` in the temporary directory and imports it again.
Graph through_onnx_file(const Graph& graph, const std::string& file_name);

}  // namespace pet::test
