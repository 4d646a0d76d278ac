// The protobuf-backed OnnxImportNode the importer hands to op files.
#pragma once

#include <onnx/onnx_pb.h>

#include "core/onnx_mapping.h"

namespace pet {

class ProtoImportNode final : public OnnxImportNode {
 public:
  ProtoImportNode(const onnx::NodeProto& proto, std::string name, int opset, std::vector<const TensorType*> types,
                  std::vector<const Tensor*> constants, std::string base_dir, std::vector<bool> float16_inputs = {});

  const std::string& op_type() const override { return proto_.op_type(); }
  const std::string& node_name() const override { return name_; }
  int opset() const override { return opset_; }
  bool has_attr(const std::string& name) const override { return find(name) != nullptr; }
  std::vector<std::string> attr_names() const override;
  int64_t attr_int(const std::string& name, std::optional<int64_t> fallback) const override;
  double attr_float(const std::string& name, std::optional<double> fallback) const override;
  std::string attr_string(const std::string& name, std::optional<std::string> fallback) const override;
  std::vector<int64_t> attr_ints(const std::string& name, std::optional<std::vector<int64_t>> fallback) const override;
  std::vector<double> attr_floats(const std::string& name, std::optional<std::vector<double>> fallback) const override;
  Tensor attr_tensor(const std::string& name) const override;
  int num_inputs() const override { return static_cast<int>(types_.size()); }
  bool has_input(int index) const override;
  const TensorType& input_type(int index) const override;
  const Tensor* constant_input(int index) const override;
  const Tensor& require_constant_input(int index, const std::string& what) const override;
  int num_outputs() const override { return proto_.output_size(); }
  bool input_is_float16(int index) const override {
    return index >= 0 && static_cast<size_t>(index) < float16_inputs_.size() && float16_inputs_[static_cast<size_t>(index)];
  }
  [[noreturn]] void fail(const std::string& what, const std::string& fix) const override;

 private:
  const onnx::AttributeProto* find(const std::string& name) const;
  const onnx::AttributeProto& expect(const std::string& name, onnx::AttributeProto::AttributeType type,
                                     const char* kind) const;
  const onnx::NodeProto& proto_;
  std::string name_;
  int opset_;
  std::vector<const TensorType*> types_;
  std::vector<const Tensor*> constants_;
  std::string base_dir_;
  std::vector<bool> float16_inputs_;
};

}  // namespace pet
