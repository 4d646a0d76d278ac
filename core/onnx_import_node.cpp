// Attribute and input access on one ONNX NodeProto, with user errors that name the node.
#include "core/onnx_import_node.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/onnx_tensor.h"

namespace pet {

ProtoImportNode::ProtoImportNode(const onnx::NodeProto& proto, std::string name, int opset,
                                 std::vector<const TensorType*> types, std::vector<const Tensor*> constants,
                                 std::string base_dir, std::vector<bool> float16_inputs)
    : proto_(proto),
      name_(std::move(name)),
      opset_(opset),
      types_(std::move(types)),
      constants_(std::move(constants)),
      base_dir_(std::move(base_dir)),
      float16_inputs_(std::move(float16_inputs)) {}

void ProtoImportNode::fail(const std::string& what, const std::string& fix) const {
  throw UserError(fmt::format("node '{}' ({}, opset {}): {}; {}", name_, proto_.op_type(), opset_, what, fix));
}

const onnx::AttributeProto* ProtoImportNode::find(const std::string& name) const {
  for (const auto& attr : proto_.attribute())
    if (attr.name() == name) return &attr;
  return nullptr;
}

std::vector<std::string> ProtoImportNode::attr_names() const {
  std::vector<std::string> names;
  for (const auto& attr : proto_.attribute()) names.push_back(attr.name());
  return names;
}

const onnx::AttributeProto& ProtoImportNode::expect(const std::string& name, onnx::AttributeProto::AttributeType type,
                                                    const char* kind) const {
  const onnx::AttributeProto* attr = find(name);
  PET_CHECK(attr != nullptr, "expect() on a missing attribute");
  if (attr->type() != type && attr->type() != onnx::AttributeProto::UNDEFINED)
    fail(fmt::format("attribute '{}' must be {}", name, kind), "fix the model");
  return *attr;
}

int64_t ProtoImportNode::attr_int(const std::string& name, std::optional<int64_t> fallback) const {
  if (!find(name)) {
    if (!fallback) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
    return *fallback;
  }
  return expect(name, onnx::AttributeProto::INT, "an int").i();
}

double ProtoImportNode::attr_float(const std::string& name, std::optional<double> fallback) const {
  if (!find(name)) {
    if (!fallback) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
    return *fallback;
  }
  return expect(name, onnx::AttributeProto::FLOAT, "a float").f();
}

std::string ProtoImportNode::attr_string(const std::string& name, std::optional<std::string> fallback) const {
  if (!find(name)) {
    if (!fallback) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
    return *fallback;
  }
  return expect(name, onnx::AttributeProto::STRING, "a string").s();
}

std::vector<int64_t> ProtoImportNode::attr_ints(const std::string& name,
                                                std::optional<std::vector<int64_t>> fallback) const {
  if (!find(name)) {
    if (!fallback) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
    return *fallback;
  }
  const auto& attr = expect(name, onnx::AttributeProto::INTS, "a list of ints");
  return {attr.ints().begin(), attr.ints().end()};
}

std::vector<double> ProtoImportNode::attr_floats(const std::string& name,
                                                 std::optional<std::vector<double>> fallback) const {
  if (!find(name)) {
    if (!fallback) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
    return *fallback;
  }
  const auto& attr = expect(name, onnx::AttributeProto::FLOATS, "a list of floats");
  return {attr.floats().begin(), attr.floats().end()};
}

Tensor ProtoImportNode::attr_tensor(const std::string& name) const {
  if (!find(name)) fail(fmt::format("required attribute '{}' is missing", name), "fix the model");
  const auto& attr = expect(name, onnx::AttributeProto::TENSOR, "a tensor");
  return tensor_from_proto(attr.t(), base_dir_, fmt::format("attribute '{}' of node '{}'", name, name_));
}

bool ProtoImportNode::has_input(int index) const {
  return index >= 0 && index < num_inputs() && types_[static_cast<size_t>(index)] != nullptr;
}

const TensorType& ProtoImportNode::input_type(int index) const {
  if (!has_input(index)) fail(fmt::format("input {} is missing", index), "fix the model");
  return *types_[static_cast<size_t>(index)];
}

const Tensor* ProtoImportNode::constant_input(int index) const {
  return has_input(index) ? constants_[static_cast<size_t>(index)] : nullptr;
}

const Tensor& ProtoImportNode::require_constant_input(int index, const std::string& what) const {
  const Tensor* value = constant_input(index);
  if (!value)
    fail(fmt::format("input {} ({}) must be a constant, but the model computes it at run time", index, what),
         "pet needs static shapes: export the model with constant " + what +
             " (e.g. without dynamic axes) or fix the input shapes with --input-shape");
  return *value;
}

}  // namespace pet
