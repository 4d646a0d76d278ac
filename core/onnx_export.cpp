// Writes a Graph as an ONNX model through each op's to_onnx facet.
#include "core/onnx_export.h"

#include <set>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/onnx_mapping.h"
#include "core/onnx_tensor.h"

namespace pet {
namespace {

// IR version 8 is what ONNX 1.12 writes and what every current runtime reads for opsets <= 17.
constexpr int64_t kIrVersion = 8;

int onnx_elem_type(DType dtype) {
  switch (dtype) {
    case DType::f32: return onnx::TensorProto::FLOAT;
    case DType::i64: return onnx::TensorProto::INT64;
    case DType::boolean: return onnx::TensorProto::BOOL;
  }
  return onnx::TensorProto::UNDEFINED;
}

void set_value_info(onnx::ValueInfoProto& info, const std::string& name, const TensorType& type) {
  info.set_name(name);
  auto* tensor_type = info.mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx_elem_type(type.dtype));
  auto* shape = tensor_type->mutable_shape();
  for (int64_t d : type.shape.dims()) shape->add_dim()->set_dim_value(d);
}

void set_attribute(onnx::AttributeProto& proto, const std::string& name, const AttrValue& value) {
  proto.set_name(name);
  switch (attr_kind(value)) {
    case AttrKind::Int:
      proto.set_type(onnx::AttributeProto::INT);
      proto.set_i(std::get<int64_t>(value));
      break;
    case AttrKind::Float:
      proto.set_type(onnx::AttributeProto::FLOAT);
      proto.set_f(static_cast<float>(std::get<double>(value)));
      break;
    case AttrKind::String:
      proto.set_type(onnx::AttributeProto::STRING);
      proto.set_s(std::get<std::string>(value));
      break;
    case AttrKind::Ints:
      proto.set_type(onnx::AttributeProto::INTS);
      for (int64_t v : std::get<std::vector<int64_t>>(value)) proto.add_ints(v);
      break;
    case AttrKind::Floats:
      proto.set_type(onnx::AttributeProto::FLOATS);
      for (double v : std::get<std::vector<double>>(value)) proto.add_floats(static_cast<float>(v));
      break;
  }
}

class ModelWriter;

class ProtoExportNode final : public OnnxExportNode {
 public:
  ProtoExportNode(ModelWriter& writer, const Node& node) : writer_(writer), node_(node) {}
  int opset() const override;
  std::string input(int index) const override;
  std::string output(int index) const override;
  std::optional<TensorType> input_type(int index) const override;
  std::string add_constant(const Tensor& value) override;
  std::string fresh_name(const std::string& hint) override;
  void add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attrs) override;

 private:
  ModelWriter& writer_;
  const Node& node_;
};

class ModelWriter {
 public:
  ModelWriter(const Graph& graph, onnx::ModelProto& model) : graph_(graph), model_(model) {
    for (const Value& value : graph.values()) names_.insert(value.name);
  }

  void write() {
    model_.Clear();
    model_.set_ir_version(kIrVersion);
    model_.set_producer_name("pet");
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(graph_.opset);
    auto* proto_graph = model_.mutable_graph();
    proto_graph->set_name(graph_.name);
    for (ValueId id : graph_.inputs()) set_value_info(*proto_graph->add_input(), graph_.value(id).name, graph_.value(id).type);
    write_initializers();
    for (const Node& node : graph_.nodes()) {
      ProtoExportNode view(*this, node);
      node.def->to_onnx(node, view);
    }
    write_outputs();
  }

  const Graph& graph() const { return graph_; }

  std::string fresh(const std::string& hint) {
    std::string name = hint;
    for (int suffix = 1; names_.count(name); ++suffix) name = fmt::format("{}_{}", hint, suffix);
    names_.insert(name);
    return name;
  }

  // Node names live apart from value names; onnxruntime rejects a model that repeats one (an
  // op lowered to several nodes names them all after itself).
  std::string unique_node_name(const std::string& hint) {
    std::string name = hint;
    for (int suffix = 1; !node_names_.insert(name).second; ++suffix) name = fmt::format("{}_{}", hint, suffix);
    return name;
  }

  std::string add_initializer(const Tensor& value, const std::string& hint) {
    std::string name = fresh(hint);
    tensor_to_proto(value, name, *model_.mutable_graph()->add_initializer());
    return name;
  }

  void add_node(const std::string& op_type, const std::string& node_name, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attrs) {
    auto* proto = model_.mutable_graph()->add_node();
    proto->set_op_type(op_type);
    proto->set_name(unique_node_name(node_name));
    for (const std::string& input : inputs) proto->add_input(input);
    for (const std::string& output : outputs) proto->add_output(output);
    for (const auto& [name, value] : attrs.entries()) set_attribute(*proto->add_attribute(), name, value);
  }

 private:
  // Constants that nodes read or that are graph outputs, under their own names.
  void write_initializers() {
    std::vector<bool> used(graph_.values().size(), false);
    for (const Node& node : graph_.nodes())
      for (ValueId id : node.inputs)
        if (id != kNoValue) used[static_cast<size_t>(id)] = true;
    for (ValueId id : graph_.outputs()) used[static_cast<size_t>(id)] = true;
    for (size_t v = 0; v < graph_.values().size(); ++v)
      if (used[v] && graph_.values()[v].constant)
        tensor_to_proto(*graph_.values()[v].constant, graph_.values()[v].name, *model_.mutable_graph()->add_initializer());
  }

  // The graph outputs exactly as the model listed them: in order, under their values' names, an
  // output listed twice twice. ONNX (and ONNX Runtime and OpenVINO) accept a graph output that
  // is a graph input, an initializer, or another output again, so none is renamed or copied.
  void write_outputs() {
    auto* proto_graph = model_.mutable_graph();
    for (ValueId id : graph_.outputs()) set_value_info(*proto_graph->add_output(), graph_.value(id).name, graph_.value(id).type);
  }

  const Graph& graph_;
  onnx::ModelProto& model_;
  std::set<std::string> names_;
  std::set<std::string> node_names_;
};

int ProtoExportNode::opset() const { return writer_.graph().opset; }

std::string ProtoExportNode::input(int index) const {
  ValueId id = node_.inputs.at(static_cast<size_t>(index));
  return id == kNoValue ? "" : writer_.graph().value(id).name;
}

std::optional<TensorType> ProtoExportNode::input_type(int index) const {
  ValueId id = node_.inputs.at(static_cast<size_t>(index));
  if (id == kNoValue) return std::nullopt;
  return writer_.graph().value(id).type;
}

std::string ProtoExportNode::output(int index) const {
  return writer_.graph().value(node_.outputs.at(static_cast<size_t>(index))).name;
}

std::string ProtoExportNode::add_constant(const Tensor& value) { return writer_.add_initializer(value, node_.name + "_const"); }

std::string ProtoExportNode::fresh_name(const std::string& hint) { return writer_.fresh(node_.name + "_" + hint); }

void ProtoExportNode::add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                               const std::vector<std::string>& outputs, const Attributes& attrs) {
  writer_.add_node(op_type, node_.name, inputs, outputs, attrs);
}

}  // namespace

void export_onnx_proto(const Graph& graph, onnx::ModelProto& model) {
  ModelWriter(graph, model).write();
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    PET_CHECK(false, fmt::format("exported model fails the ONNX checker: {}", error.what()));
  }
}

std::string serialize_onnx(const Graph& graph) {
  onnx::ModelProto model;
  export_onnx_proto(graph, model);
  return model.SerializeAsString();
}

void export_onnx(const Graph& graph, const std::string& path) {
  onnx::ModelProto model;
  export_onnx_proto(graph, model);
  write_file_atomically(path, model.SerializeAsString(), "model");
}

}  // namespace pet
