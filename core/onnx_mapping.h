// Protobuf-free views of one ONNX node, through which op files import and export themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/op_def.h"
#include "core/tensor.h"

namespace pet {

struct Node;

// One ONNX node being imported. Attribute getters without a default raise a UserError naming
// the node when the attribute is missing.
class OnnxImportNode {
 public:
  virtual ~OnnxImportNode() = default;
  virtual const std::string& op_type() const = 0;
  virtual const std::string& node_name() const = 0;
  virtual int opset() const = 0;

  virtual bool has_attr(const std::string& name) const = 0;
  virtual std::vector<std::string> attr_names() const = 0;
  virtual int64_t attr_int(const std::string& name, std::optional<int64_t> fallback = {}) const = 0;
  virtual double attr_float(const std::string& name, std::optional<double> fallback = {}) const = 0;
  virtual std::string attr_string(const std::string& name, std::optional<std::string> fallback = {}) const = 0;
  virtual std::vector<int64_t> attr_ints(const std::string& name,
                                         std::optional<std::vector<int64_t>> fallback = {}) const = 0;
  virtual std::vector<double> attr_floats(const std::string& name,
                                          std::optional<std::vector<double>> fallback = {}) const = 0;
  virtual Tensor attr_tensor(const std::string& name) const = 0;

  // Inputs as ONNX lists them; an empty name is an absent optional input.
  virtual int num_inputs() const = 0;
  virtual bool has_input(int index) const = 0;
  virtual const TensorType& input_type(int index) const = 0;
  // The value when the input is a known constant (initializer or folded), else nullptr.
  virtual const Tensor* constant_input(int index) const = 0;
  // The constant value, or a UserError saying that input INDEX (WHAT) must be constant.
  virtual const Tensor& require_constant_input(int index, const std::string& what) const = 0;
  virtual int num_outputs() const = 0;
  // Whether input INDEX is float16 in the model (pet holds it in f32): CastLike's target.
  virtual bool input_is_float16(int /*index*/) const { return false; }

  // UserError: "node 'NAME' (OP, opset N): WHAT. FIX"
  [[noreturn]] virtual void fail(const std::string& what, const std::string& fix) const = 0;
  // For attribute values we do not implement.
  [[noreturn]] void unsupported(const std::string& what) const {
    fail(what + " is not supported", "re-export the model without it, or open an issue with this model");
    __builtin_unreachable();  // fail() always throws
  }
};

// One node being exported. Ops add ONNX nodes and constant initializers through it.
class OnnxExportNode {
 public:
  virtual ~OnnxExportNode() = default;
  virtual int opset() const = 0;
  // Names of the node's present inputs/outputs in the exported graph ("" for absent inputs).
  virtual std::string input(int index) const = 0;
  virtual std::string output(int index) const = 0;
  // The type of present input INDEX when the exporter knows it (lets ops skip identity steps).
  virtual std::optional<TensorType> input_type(int /*index*/) const { return std::nullopt; }
  // A fresh initializer holding the value; returns its name.
  virtual std::string add_constant(const Tensor& value) = 0;
  // A fresh intermediate tensor name.
  virtual std::string fresh_name(const std::string& hint) = 0;
  virtual void add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs, const Attributes& attrs) = 0;
};

// An export node that forwards everything to `outer`: a lowering's wrapper overrides only what it
// renames (its inputs, outputs or their types).
class ForwardingExportNode : public OnnxExportNode {
 public:
  explicit ForwardingExportNode(OnnxExportNode& outer) : outer_(outer) {}
  int opset() const override { return outer_.opset(); }
  std::string input(int index) const override { return outer_.input(index); }
  std::string output(int index) const override { return outer_.output(index); }
  std::optional<TensorType> input_type(int index) const override { return outer_.input_type(index); }
  std::string add_constant(const Tensor& value) override { return outer_.add_constant(value); }
  std::string fresh_name(const std::string& hint) override { return outer_.fresh_name(hint); }
  void add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attrs) override {
    outer_.add_node(op_type, inputs, outputs, attrs);
  }

 protected:
  OnnxExportNode& outer() const { return outer_; }

 private:
  OnnxExportNode& outer_;
};

// Default mapping: the ONNX op has the same name, every ONNX input is kept, and each declared
// attribute is read from the ONNX node (or takes its default).
// Any ONNX attribute the op does not declare is a UserError (never silently ignored).
OnnxImported import_same_name(const OpDef& def, const OnnxImportNode& node);
void export_same_name(const Node& node, OnnxExportNode& out);
// pet's own op read back from its extension domain: every canonical attribute, pet-only ones too.
OnnxImported import_extension_op(const OpDef& def, const OnnxImportNode& node);

// The ONNX domain of pet's own ops (OpDef::extension_domain), which pet's runtime extensions run.
inline constexpr const char* kPetDomain = "ai.pet";
// ONNX Runtime's contrib ops' domain (its fused Attention), run by every ONNX Runtime release.
inline constexpr const char* kOnnxRuntimeDomain = "com.microsoft";

}  // namespace pet
