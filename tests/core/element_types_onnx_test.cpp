// ONNX import and export keep every element type: inputs, initializers and outputs of each type
// (also beside float16 values) come back as the model wrote them, and export is byte-stable.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <onnx/onnx_pb.h>

#include "tests/test_temp_dir.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"

namespace pet {
namespace {

using ElemTypes = std::vector<std::pair<std::string, int>>;  // (value name, ONNX element type)

void add_value_info(onnx::ValueInfoProto& info, const std::string& name, int elem_type, std::vector<int64_t> dims) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  for (int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
}

void add_node(onnx::GraphProto& graph, const std::string& op, std::vector<std::string> inputs, std::string output,
              int to = -1) {
  auto* node = graph.add_node();
  node->set_op_type(op);
  node->set_name(output + "_node");
  for (const std::string& input : inputs) node->add_input(input);
  node->add_output(output);
  if (to < 0) return;
  auto* attr = node->add_attribute();
  attr->set_name("to");
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(to);
}

// Input x and initializer w of `type`; x cast to float, x and w as outputs of their own, w cast
// like x (a CastLike to the new type). With `float16`, a float16 input h too: x cast like h (to
// float16) and h cast like x (to the new type: no float16 value although h is one).
std::string typed_model(DType type, bool float16) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("typed");
  const int elem = onnx_elem_type(type);
  add_value_info(*graph.add_input(), "x", elem, {2, 3});
  tensor_to_proto(Tensor::full(type, Shape{2, 3}, 7), "w", *graph.add_initializer());
  add_node(graph, "Cast", {"x"}, "x_float", onnx::TensorProto::FLOAT);
  add_node(graph, "CastLike", {"w", "x"}, "w_like_x");
  for (const char* name : {"x_float"}) add_value_info(*graph.add_output(), name, onnx::TensorProto::FLOAT, {2, 3});
  for (const char* name : {"x", "w", "w_like_x"}) add_value_info(*graph.add_output(), name, elem, {2, 3});
  if (float16) {
    add_value_info(*graph.add_input(), "h", onnx::TensorProto::FLOAT16, {2, 3});
    add_node(graph, "CastLike", {"x", "h"}, "x_like_h");
    add_node(graph, "CastLike", {"h", "x"}, "h_like_x");
    add_value_info(*graph.add_output(), "x_like_h", onnx::TensorProto::FLOAT16, {2, 3});
    add_value_info(*graph.add_output(), "h_like_x", elem, {2, 3});
  }
  std::string path = (pet::testing::private_temp_dir() / fmt::format("typed_{}_{}.onnx", dtype_name(type), float16))
                         .string();
  write_file_atomically(path, model.SerializeAsString(), "model");
  return path;
}

// The inputs, outputs and the initializer w (import folds the CastLike of w into one more).
ElemTypes interface_types(const std::string& bytes) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(bytes));
  ElemTypes types;
  for (const auto& input : model.graph().input()) types.emplace_back(input.name(), input.type().tensor_type().elem_type());
  for (const auto& init : model.graph().initializer())
    if (init.name() == "w") types.emplace_back(init.name(), init.data_type());
  for (const auto& output : model.graph().output())
    types.emplace_back(output.name(), output.type().tensor_type().elem_type());
  return types;
}

void expect_types_kept_and_export_stable(DType type, bool float16) {
  SCOPED_TRACE(fmt::format("{}{}", dtype_name(type), float16 ? " beside float16" : ""));
  std::string original = typed_model(type, float16);
  std::string first = serialize_onnx(import_onnx(original));
  std::string again_path = (pet::testing::private_temp_dir() / "typed_again.onnx").string();
  write_file_atomically(again_path, first, "model");
  std::string second = serialize_onnx(import_onnx(again_path));
  EXPECT_EQ(first, second) << "export -> import -> export gives other bytes";
  EXPECT_EQ(interface_types(first), interface_types(read_whole_file(original, "model")));
}

TEST(ElementTypesOnnx, EveryTypeKeepsItsInputsInitializersAndOutputs) {
  for (DType type : kAllDTypes) expect_types_kept_and_export_stable(type, false);
}

// Before: a value computed from a float16 one was taken for float16 whatever its type. After: a
// CastLike of a float16 value to another type writes that type, and one to float16 float16.
TEST(ElementTypesOnnx, EveryTypeBesideFloat16KeepsItsType) {
  for (DType type : kAllDTypes) expect_types_kept_and_export_stable(type, true);
}

}  // namespace
}  // namespace pet
