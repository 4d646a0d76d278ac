// The hand-built ONNX node views shared by the op import/export tests.
#include "tests/core/fake_onnx_node.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/error.h"
#include "core/registry.h"

namespace pet::test {

FakeImportNode::FakeImportNode(std::string op, int opset, Attributes attrs,
                               std::vector<std::optional<TensorType>> types, std::map<int, Tensor> constants,
                               int outputs)
    : op_(std::move(op)),
      opset_(opset),
      attrs_(std::move(attrs)),
      types_(std::move(types)),
      constants_(std::move(constants)),
      outputs_(outputs) {
  for (const auto& [index, value] : constants_) types_.at(static_cast<size_t>(index)) = value.type();
}

FakeImportNode& FakeImportNode::constant(int index, Tensor value) {
  types_.at(static_cast<size_t>(index)) = value.type();
  constants_[index] = std::move(value);
  return *this;
}

FakeImportNode& FakeImportNode::absent(int index) {
  types_.at(static_cast<size_t>(index)) = std::nullopt;
  return *this;
}

bool FakeImportNode::has_attr(const std::string& name) const { return attrs_.has(name) || tensors.count(name); }

std::vector<std::string> FakeImportNode::attr_names() const {
  std::vector<std::string> names;
  for (const auto& entry : attrs_.entries()) names.push_back(entry.first);
  for (const auto& entry : tensors) names.push_back(entry.first);
  return names;
}

int64_t FakeImportNode::attr_int(const std::string& name, std::optional<int64_t> fallback) const {
  return attrs_.has(name) ? attrs_.get_int(name) : required(fallback, name);
}

double FakeImportNode::attr_float(const std::string& name, std::optional<double> fallback) const {
  return attrs_.has(name) ? attrs_.get_float(name) : required(fallback, name);
}

std::string FakeImportNode::attr_string(const std::string& name, std::optional<std::string> fallback) const {
  return attrs_.has(name) ? attrs_.get_string(name) : required(fallback, name);
}

std::vector<int64_t> FakeImportNode::attr_ints(const std::string& name,
                                               std::optional<std::vector<int64_t>> fallback) const {
  return attrs_.has(name) ? attrs_.get_ints(name) : required(fallback, name);
}

std::vector<double> FakeImportNode::attr_floats(const std::string& name,
                                                std::optional<std::vector<double>> fallback) const {
  return attrs_.has(name) ? attrs_.get_floats(name) : required(fallback, name);
}

Tensor FakeImportNode::attr_tensor(const std::string& name) const {
  auto found = tensors.find(name);
  if (found == tensors.end()) fail("no tensor attribute " + name, "fix the model");
  return found->second;
}

bool FakeImportNode::has_input(int index) const {
  return index >= 0 && index < num_inputs() && types_[static_cast<size_t>(index)].has_value();
}

const Tensor* FakeImportNode::constant_input(int index) const {
  auto found = constants_.find(index);
  return found == constants_.end() ? nullptr : &found->second;
}

const Tensor& FakeImportNode::require_constant_input(int index, const std::string& what) const {
  if (const Tensor* value = constant_input(index)) return *value;
  fail(fmt::format("input {} ({}) must be a constant", index, what), "fold it");
}

void FakeImportNode::fail(const std::string& what, const std::string& fix) const {
  throw UserError(fmt::format("node '{}' ({}, opset {}): {}; {}", name_, op_, opset_, what, fix));
}

OnnxImported import_node(const FakeImportNode& node) {
  const OpDef* def = OpRegistry::global().find_onnx(node.op_type());
  EXPECT_NE(def, nullptr) << node.op_type();
  if (def == nullptr) throw InternalError("no op imports " + node.op_type());
  return def->from_onnx(*def, node);
}

const Tensor* FakeExportNode::find_constant(const std::string& name) const {
  for (size_t i = 0; i < constants.size(); ++i)
    if (name == fmt::format("const{}", i)) return &constants[i];
  return nullptr;
}

const Tensor& FakeExportNode::constant(const std::string& name) const {
  const Tensor* value = find_constant(name);
  if (value == nullptr) throw InternalError("no exported constant " + name);
  return *value;
}

std::string FakeExportNode::input(int index) const { return fmt::format("in{}", index); }

std::string FakeExportNode::output(int index) const { return fmt::format("out{}", index); }

std::optional<TensorType> FakeExportNode::input_type(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= types_.size()) return std::nullopt;
  return types_[static_cast<size_t>(index)];
}

std::string FakeExportNode::add_constant(const Tensor& value) {
  constants.push_back(value);
  return fmt::format("const{}", constants.size() - 1);
}

std::string FakeExportNode::fresh_name(const std::string& hint) { return hint + "_" + std::to_string(nodes.size()); }

void FakeExportNode::add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                              const std::vector<std::string>& outputs, const Attributes& attrs) {
  nodes.push_back({op_type, inputs, outputs, attrs});
}

}  // namespace pet::test
