// Writes a Graph as an ONNX model through each op's to_onnx facet.
#include "core/onnx_export.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/float16.h"
#include "core/onnx_import.h"
#include "core/onnx_mapping.h"
#include "core/onnx_tensor.h"
#include "core/structural_hash.h"

namespace pet {
namespace {

// The IR version ONNX pairs with each opset: 8 up to opset 18 (what ONNX 1.12 writes and every
// current runtime reads), 9 for opsets 19-20, 10 for opset 21.
int64_t ir_version_for(int opset) {
  if (opset <= 18) return 8;
  return opset <= 20 ? 9 : 10;
}

// A float32 tensor stored as float16 (values rounded to nearest even).
void float16_tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto& proto) {
  proto.Clear();
  proto.set_name(name);
  for (int64_t d : tensor.shape().dims()) proto.add_dims(d);
  proto.set_data_type(onnx::TensorProto::FLOAT16);
  std::string bytes(2 * static_cast<size_t>(tensor.numel()), '\0');
  auto values = tensor.f32();
  for (size_t i = 0; i < values.size(); ++i) {
    uint16_t half = float_to_half_bits(values[i]);
    std::memcpy(bytes.data() + 2 * i, &half, sizeof half);
  }
  proto.set_raw_data(bytes);
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
  ModelWriter(const Graph& graph, onnx::ModelProto& model, const ExportOptions& options)
      : graph_(graph), model_(model), options_(options) {
    for (const Value& value : graph.values()) names_.insert(value.name);
  }

  void write() {
    model_.Clear();
    model_.set_ir_version(ir_version_for(graph_.opset));
    model_.set_producer_name("pet");
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(graph_.opset);
    auto* proto_graph = model_.mutable_graph();
    proto_graph->set_name(graph_.name);
    for (ValueId id : graph_.inputs()) write_input(id);
    write_initializers();
    rename_float16_outputs();
    for (const Node& node : graph_.nodes()) {
      ProtoExportNode view(*this, node);
      if (casts_straight_to_float16_output(node))
        add_node("Cast", node.name, {view.input(0)}, {view.output(0)}, {{"to", int64_t{onnx::TensorProto::FLOAT16}}});
      else if (options_.extension_ops && !node.def->extension_domain.empty())
        write_extension_node(node, view);
      else
        node.def->to_onnx(node, view);
    }
    write_outputs();
    write_random_weights();
  }

  const Graph& graph() const { return graph_; }

  // The name nodes read and write a value under: its own, or the f32 twin of a float16 value.
  std::string name_of(ValueId id) const {
    auto twin = f32_names_.find(id);
    return twin != f32_names_.end() ? twin->second : graph_.value(id).name;
  }

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
    write_tensor(value, name, *model_.mutable_graph()->add_initializer());
    return name;
  }

  // A constant's initializer: its values, or for a weight of a weight-free model its shape alone
  // and a line of kRandomWeightsKey.
  void write_tensor(const Tensor& value, const std::string& name, onnx::TensorProto& proto) {
    if (!options_.weight_free || !is_weight(value)) {
      tensor_to_proto(value, name, proto);
      return;
    }
    tensor_shape_to_proto(value, name, proto);
    random_weights_ += fmt::format("{}\t{}\t{}\n", name, value.content_hash(), rms_keeping_scale(value));
  }

  // The weights written as shapes alone, as the model's metadata says them.
  void write_random_weights() {
    if (random_weights_.empty()) return;
    auto* entry = model_.add_metadata_props();
    entry->set_key(kRandomWeightsKey);
    entry->set_value(random_weights_);
  }

  void add_node(const std::string& op_type, const std::string& node_name, const std::vector<std::string>& inputs,
                const std::vector<std::string>& outputs, const Attributes& attrs, const std::string& domain = "") {
    auto* proto = model_.mutable_graph()->add_node();
    proto->set_op_type(op_type);
    if (!domain.empty()) proto->set_domain(domain);
    proto->set_name(unique_node_name(node_name));
    for (const std::string& input : inputs) proto->add_input(input);
    for (const std::string& output : outputs) proto->add_output(output);
    for (const auto& [name, value] : attrs.entries()) set_attribute(*proto->add_attribute(), name, value);
  }

 private:
  // The node as itself in its extension domain (version 1, imported once).
  void write_extension_node(const Node& node, const ProtoExportNode& view) {
    const std::string& domain = node.def->extension_domain;
    if (domains_.insert(domain).second) {
      auto* opset = model_.add_opset_import();
      opset->set_domain(domain);
      opset->set_version(1);
    }
    std::vector<std::string> inputs, outputs;
    for (size_t i = 0; i < node.inputs.size(); ++i) inputs.push_back(view.input(static_cast<int>(i)));
    for (size_t i = 0; i < node.outputs.size(); ++i) outputs.push_back(view.output(static_cast<int>(i)));
    add_node(node.def->name, node.name, inputs, outputs, node.attrs, domain);
  }

  // A value the model file stores as float16 while pet computes it in f32.
  bool stored_as_float16(const Value& value) const {
    if (value.type.dtype != DType::f32) return false;
    return graph_.float16_values.count(value.name) || (value.constant && graph_.float16_weights);
  }

  // Nodes read a float16 value through a Cast to its f32 twin.
  void read_through_cast(ValueId id) {
    std::string twin = fresh(graph_.value(id).name + "_f32");
    f32_names_[id] = twin;
    add_node("Cast", graph_.value(id).name + "_to_f32", {graph_.value(id).name}, {twin},
             {{"to", int64_t{onnx::TensorProto::FLOAT}}});
  }

  void write_input(ValueId id) {
    const Value& value = graph_.value(id);
    auto* info = model_.mutable_graph()->add_input();
    set_value_info(*info, value.name, value.type);
    if (!stored_as_float16(value)) return;
    info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
    read_through_cast(id);
  }

  // Constants that nodes read or that are graph outputs, under their own names.
  void write_initializers() {
    std::vector<bool> used(graph_.values().size(), false);
    for (const Node& node : graph_.nodes())
      for (ValueId id : node.inputs)
        if (id != kNoValue) used[static_cast<size_t>(id)] = true;
    for (ValueId id : graph_.outputs()) used[static_cast<size_t>(id)] = true;
    for (size_t v = 0; v < graph_.values().size(); ++v) {
      const Value& value = graph_.values()[v];
      if (!used[v] || !value.constant) continue;
      auto* proto = model_.mutable_graph()->add_initializer();
      if (!stored_as_float16(value)) {
        write_tensor(*value.constant, value.name, *proto);
        continue;
      }
      float16_tensor_to_proto(*value.constant, value.name, *proto);
      read_through_cast(static_cast<ValueId>(v));
    }
  }

  // A float16 graph output is computed under its f32 twin's name, then cast (write_outputs), unless
  // a rounding Cast to float16 writes it for no other reader: that Cast is written as one Cast to
  // float16 under the output's name, so the file reads back as it was and exports to the same bytes.
  void rename_float16_outputs() {
    std::vector<bool> read(graph_.values().size(), false);
    for (const Node& node : graph_.nodes())
      for (ValueId id : node.inputs)
        if (id != kNoValue) read[static_cast<size_t>(id)] = true;
    for (ValueId id : graph_.outputs()) {
      const Value& value = graph_.value(id);
      if (value.producer < 0 || f32_names_.count(id) || !stored_as_float16(value)) continue;
      const Node& producer = graph_.node(value.producer);
      if (!read[static_cast<size_t>(id)] && producer.op() == "Cast" && producer.attrs.get_string("to") == "f16") {
        straight_float16_casts_.insert(id);
        float16_outputs_written_.insert(value.name);
        continue;
      }
      f32_names_[id] = fresh(value.name + "_f32");
    }
  }

  bool casts_straight_to_float16_output(const Node& node) const {
    return node.op() == "Cast" && straight_float16_casts_.count(node.outputs[0]) > 0;
  }

  // The Cast that writes a float16 graph output from its f32 value.
  void write_float16_output(ValueId id) {
    const Value& value = graph_.value(id);
    add_node("Cast", value.name + "_to_f16", {name_of(id)}, {value.name}, {{"to", int64_t{onnx::TensorProto::FLOAT16}}});
    auto* info = model_.mutable_graph()->add_output();
    set_value_info(*info, value.name, value.type);
    info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
  }

  // The graph outputs exactly as the model listed them: in order, under their values' names, an
  // output listed twice twice. ONNX (and ONNX Runtime and OpenVINO) accept a graph output that
  // is a graph input, an initializer, or another output again, so none is renamed or copied.
  void write_outputs() {
    auto* proto_graph = model_.mutable_graph();
    for (ValueId id : graph_.outputs()) {
      const Value& value = graph_.value(id);
      bool float16 = stored_as_float16(value);
      if (float16 && value.producer >= 0 && float16_outputs_written_.insert(value.name).second) {
        write_float16_output(id);
        continue;
      }
      // Any other output names a value the file already holds under that name (an input, an
      // initializer, or an output listed again), in the element type the file holds it in.
      auto* info = proto_graph->add_output();
      set_value_info(*info, value.name, value.type);
      if (float16) info->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT16);
    }
  }


  const Graph& graph_;
  onnx::ModelProto& model_;
  std::set<std::string> names_;
  std::set<std::string> node_names_;
  std::map<ValueId, std::string> f32_names_;  // float16 values' f32 twins
  std::string random_weights_;                 // kRandomWeightsKey's lines, in the order written
  std::set<std::string> float16_outputs_written_;
  std::set<ValueId> straight_float16_casts_;  // outputs of rounding Casts written as one Cast to float16
  ExportOptions options_;
  std::set<std::string> domains_;  // extension domains already imported
};

int ProtoExportNode::opset() const { return writer_.graph().opset; }

std::string ProtoExportNode::input(int index) const {
  ValueId id = node_.inputs.at(static_cast<size_t>(index));
  return id == kNoValue ? "" : writer_.name_of(id);
}

std::optional<TensorType> ProtoExportNode::input_type(int index) const {
  ValueId id = node_.inputs.at(static_cast<size_t>(index));
  if (id == kNoValue) return std::nullopt;
  return writer_.graph().value(id).type;
}

std::string ProtoExportNode::output(int index) const {
  return writer_.name_of(node_.outputs.at(static_cast<size_t>(index)));
}

std::string ProtoExportNode::add_constant(const Tensor& value) { return writer_.add_initializer(value, node_.name + "_const"); }

std::string ProtoExportNode::fresh_name(const std::string& hint) { return writer_.fresh(node_.name + "_" + hint); }

void ProtoExportNode::add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                               const std::vector<std::string>& outputs, const Attributes& attrs) {
  writer_.add_node(op_type, node_.name, inputs, outputs, attrs);
}

}  // namespace

uint64_t written_constant_bytes(const Graph& graph, const ExportOptions& options) {
  uint64_t bytes = 0;
  for (const Value& value : graph.values()) {
    if (!value.constant || (options.weight_free && is_weight(*value.constant))) continue;
    bool float16 = value.type.dtype == DType::f32 &&
                   (graph.float16_values.count(value.name) > 0 || graph.float16_weights);
    bytes += float16 ? static_cast<uint64_t>(value.constant->numel()) * 2 : value.constant->nbytes();
  }
  return bytes;
}

void check_writable_size(uint64_t bytes, uint64_t limit) {
  if (bytes <= limit) return;
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  throw UserError(fmt::format(
      "the model would be {:.2f} GiB as one ONNX file, over protobuf's limit of {:.2f} GiB for one file; pet "
      "writes every weight inside the model and cannot write external data yet, so optimize the model in parts "
      "below that size (onnx.utils.extract_model) and join the written parts (onnx.compose.merge_models)",
      static_cast<double>(bytes) / kGiB, static_cast<double>(limit) / kGiB));
}

void export_onnx_proto(const Graph& graph, onnx::ModelProto& model, const ExportOptions& options) {
  ModelWriter(graph, model, options).write();
  check_writable_size(model.ByteSizeLong(), options.max_bytes);
  // The linked ONNX 1.12 checker rejects the IR versions of opsets 19-21 and does not know
  // opset 18's schemas; those models are checked by tests with a current ONNX (pip onnx's
  // check_model(full_check=True)) and onnxruntime instead.
  if (graph.opset > kMaxLibraryOpset || options.weight_free) return;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    PET_CHECK(false, fmt::format("exported model fails the ONNX checker: {}", error.what()));
  }
}

std::string serialize_onnx(const Graph& graph, const ExportOptions& options) {
  onnx::ModelProto model;
  export_onnx_proto(graph, model, options);
  return model.SerializeAsString();
}

int write_onnx(const Graph& graph, int fd, const ExportOptions& options) {
  onnx::ModelProto model;
  export_onnx_proto(graph, model, options);
  google::protobuf::io::FileOutputStream stream(fd);
  if (model.SerializeToZeroCopyStream(&stream) && stream.Flush()) return 0;
  return stream.GetErrno() != 0 ? stream.GetErrno() : EIO;
}

void export_onnx(const Graph& graph, const std::string& path, const ExportOptions& options) {
  StagedFile(path, [&](int fd) { return write_onnx(graph, fd, options); }, "model").commit();
}

}  // namespace pet
