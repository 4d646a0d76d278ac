// Hand-built ONNX node views for op import/export tests: a FakeImportNode shows an op file the
// attributes, input types and constants of a node; a FakeExportNode records what an op exports.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/onnx_mapping.h"
#include "core/op_def.h"
#include "core/tensor.h"

namespace pet::test {

// An in-memory ONNX node named 'n'. Absent optional inputs are std::nullopt types; a constant
// input's type is its value's type. Missing required attributes are UserErrors.
class FakeImportNode final : public OnnxImportNode {
 public:
  FakeImportNode(std::string op, int opset, Attributes attrs, std::vector<std::optional<TensorType>> types,
                 std::map<int, Tensor> constants = {}, int outputs = 1);
  // Builder-style additions for nodes passed as temporaries.
  FakeImportNode& constant(int index, Tensor value);
  FakeImportNode& absent(int index);
  // Tensor-valued attributes (ConstantOfShape's value...).
  std::map<std::string, Tensor> tensors;

  const std::string& op_type() const override { return op_; }
  const std::string& node_name() const override { return name_; }
  int opset() const override { return opset_; }
  bool has_attr(const std::string& name) const override;
  std::vector<std::string> attr_names() const override;
  int64_t attr_int(const std::string& name, std::optional<int64_t> fallback) const override;
  double attr_float(const std::string& name, std::optional<double> fallback) const override;
  std::string attr_string(const std::string& name, std::optional<std::string> fallback) const override;
  std::vector<int64_t> attr_ints(const std::string& name, std::optional<std::vector<int64_t>> fallback) const override;
  std::vector<double> attr_floats(const std::string& name, std::optional<std::vector<double>> fallback) const override;
  Tensor attr_tensor(const std::string& name) const override;
  int num_inputs() const override { return static_cast<int>(types_.size()); }
  bool has_input(int index) const override;
  const TensorType& input_type(int index) const override { return *types_.at(static_cast<size_t>(index)); }
  const Tensor* constant_input(int index) const override;
  const Tensor& require_constant_input(int index, const std::string& what) const override;
  int num_outputs() const override { return outputs_; }
  [[noreturn]] void fail(const std::string& what, const std::string& fix) const override;

 private:
  template <typename T>
  T required(const std::optional<T>& fallback, const std::string& name) const {
    if (!fallback) fail("required attribute '" + name + "' is missing", "fix the model");
    return *fallback;
  }
  std::string op_, name_ = "n";
  int opset_;
  Attributes attrs_;
  std::vector<std::optional<TensorType>> types_;
  std::map<int, Tensor> constants_;
  int outputs_;
};

// Imports `node` through the op registered for its ONNX op type.
OnnxImported import_node(const FakeImportNode& node);

struct ExportedNode {
  std::string op_type;
  std::vector<std::string> inputs, outputs;
  Attributes attrs;
};

// Records the ONNX nodes and initializers an op exports. Inputs are named in0, in1, ...,
// outputs out0, out1, ..., constants const0, const1, ...; input i has type types[i] when given.
class FakeExportNode final : public OnnxExportNode {
 public:
  FakeExportNode(int opset, std::vector<TensorType> types) : opset_(opset), types_(std::move(types)) {}
  std::vector<ExportedNode> nodes;
  std::vector<Tensor> constants;
  // The constant named `name`, or nullptr when `name` is not a constant.
  const Tensor* find_constant(const std::string& name) const;
  const Tensor& constant(const std::string& name) const;

  int opset() const override { return opset_; }
  std::string input(int index) const override;
  std::string output(int index) const override;
  std::optional<TensorType> input_type(int index) const override;
  std::string add_constant(const Tensor& value) override;
  std::string fresh_name(const std::string& hint) override;
  void add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attrs) override;

 private:
  int opset_;
  std::vector<TensorType> types_;
};

}  // namespace pet::test
