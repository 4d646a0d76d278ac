// Writes a Graph as an ONNX model through each op's to_onnx facet.
#include "core/onnx_export.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>
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

// An initializer whose values the proto leaves out until the model is written, streamed then from
// the tensor (which shares the graph's storage): the proto holds a one-byte placeholder, so the
// checker, which reads no values, still finds the one value field it asks of every tensor.
struct DeferredValues {
  int initializer = 0;  // its index among the graph proto's initializers
  Tensor tensor;
  bool float16 = false;  // written as float16, rounded as float16_tensor_to_proto rounds
  uint64_t written_bytes() const { return float16 ? 2 * static_cast<uint64_t>(tensor.numel()) : tensor.nbytes(); }
};

// Constants of at least this many bytes are deferred when a model is streamed.
constexpr size_t kDeferredValueBytes = 4096;

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
  // With `deferred`, large constants' values are left out of the proto and listed there.
  ModelWriter(const Graph& graph, onnx::ModelProto& model, const ExportOptions& options,
              std::vector<DeferredValues>* deferred = nullptr)
      : graph_(graph), model_(model), options_(options), deferred_(deferred) {
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
      else if (writes_as_itself(*node.def))
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
    write_initializer(value, name, false);
    return name;
  }

  // A constant's initializer: its values (as float16 when the file stores it so; deferred when the
  // writer defers large ones), or for a weight of a weight-free model stored as f32 its shape alone
  // and a line of kRandomWeightsKey.
  void write_initializer(const Tensor& value, const std::string& name, bool float16) {
    auto* proto_graph = model_.mutable_graph();
    onnx::TensorProto& proto = *proto_graph->add_initializer();
    if (!float16 && options_.weight_free && is_weight(value)) {
      tensor_shape_to_proto(value, name, proto);
      random_weights_ += fmt::format("{}\t{}\t{}\n", name, value.content_hash(), rms_keeping_scale(value));
      return;
    }
    if (deferred_ && value.nbytes() >= kDeferredValueBytes) {
      tensor_shape_to_proto(value, name, proto);
      if (float16) proto.set_data_type(onnx::TensorProto::FLOAT16);
      proto.set_raw_data(std::string(1, '\0'));
      deferred_->push_back({proto_graph->initializer_size() - 1, value, float16});
      return;
    }
    if (float16)
      float16_tensor_to_proto(value, name, proto);
    else
      tensor_to_proto(value, name, proto);
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
  // Whether an op of a custom domain is written in that domain, for a runtime that runs it.
  bool writes_as_itself(const OpDef& def) const {
    if (def.extension_domain == kPetDomain) return options_.extension_ops;
    if (def.extension_domain == kOnnxRuntimeDomain) return options_.onnx_runtime_ops;
    return false;
  }

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
      bool float16 = stored_as_float16(value);
      write_initializer(*value.constant, value.name, float16);
      if (float16) read_through_cast(static_cast<ValueId>(v));
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
  std::vector<DeferredValues>* deferred_;  // null: every value written into the proto
  std::set<std::string> domains_;          // extension domains already imported
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

// The ONNX checker over an exported model (values unread), where the linked checker applies.
void check_exported(const Graph& graph, const onnx::ModelProto& model, const ExportOptions& options) {
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

// A length-delimited field's key and length, as protobuf writes them before its `size` bytes.
std::string field_prefix(int number, uint64_t size) {
  using google::protobuf::internal::WireFormatLite;
  using google::protobuf::io::CodedOutputStream;
  uint8_t bytes[2 * 10];  // two varints of at most 10 bytes each
  uint8_t* end = CodedOutputStream::WriteVarint32ToArray(
      WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED), bytes);
  end = CodedOutputStream::WriteVarint64ToArray(size, end);
  return {reinterpret_cast<const char*>(bytes), static_cast<size_t>(end - bytes)};
}

// The message's set fields numbered from `first` to `last`, as the whole message serializes them:
// protobuf writes fields in number order, so consecutive ranges concatenate to the message's bytes.
std::string serialized_fields(const google::protobuf::Message& message, int first, int last) {
  std::unique_ptr<google::protobuf::Message> part(message.New());
  part->CopyFrom(message);
  const google::protobuf::Reflection* reflection = part->GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  reflection->ListFields(*part, &fields);
  for (const google::protobuf::FieldDescriptor* field : fields)
    if (field->number() < first || field->number() > last) reflection->ClearField(part.get(), field);
  return part->SerializeAsString();
}

// Where a streamed model's bytes go, counted.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  void put(std::string_view bytes) {
    written_ += bytes.size();
    write(bytes);
  }
  uint64_t written() const { return written_; }

 private:
  virtual void write(std::string_view bytes) = 0;
  uint64_t written_ = 0;
};

// Appends to a string (reserved for the model by the caller).
class StringSink final : public ByteSink {
 public:
  explicit StringSink(std::string& out) : out_(out) {}

 private:
  void write(std::string_view bytes) override { out_.append(bytes); }
  std::string& out_;
};

// Writes through a protobuf stream (a file's FileOutputStream); had_error() after a failed write.
class CodedSink final : public ByteSink {
 public:
  explicit CodedSink(google::protobuf::io::ZeroCopyOutputStream& stream) : coded_(&stream) {}
  bool had_error() { return coded_.HadError(); }

 private:
  void write(std::string_view bytes) override {
    // One tensor is below protobuf's 2 GiB limit on a message (check_writable_size), so its size fits an int.
    coded_.WriteRaw(bytes.data(), static_cast<int>(bytes.size()));
  }
  google::protobuf::io::CodedOutputStream coded_;
};

// A deferred constant's values as the file stores them, from the tensor's storage (float16 in
// chunks, rounded as float16_tensor_to_proto rounds).
void put_values(const DeferredValues& values, ByteSink& sink) {
  if (!values.float16) {
    sink.put({reinterpret_cast<const char*>(values.tensor.raw()), values.tensor.nbytes()});
    return;
  }
  constexpr size_t kChunkElements = 16384;
  auto floats = values.tensor.f32();
  std::string chunk;
  for (size_t begin = 0; begin < floats.size(); begin += kChunkElements) {
    size_t end = std::min(floats.size(), begin + kChunkElements);
    chunk.resize(2 * (end - begin));
    for (size_t i = begin; i < end; ++i) {
      uint16_t half = float_to_half_bits(floats[i]);
      std::memcpy(chunk.data() + 2 * (i - begin), &half, sizeof half);
    }
    sink.put(chunk);
  }
}

// A model whose large constants stay in the graph's tensors until it is written, and its bytes
// (exactly export_onnx_proto's serialized) streamed in order: the model's fields before its graph,
// the graph's key and length, the graph's fields before its initializers, each initializer (a
// deferred one as its fields around raw_data with the values between), the graph's fields after
// its initializers, the model's after its graph. No copy of the weights is made, in a proto or in
// the bytes beside it.
class StreamedModel {
 public:
  StreamedModel(const Graph& graph, const ExportOptions& options) {
    ModelWriter(graph, model_, options, &deferred_).write();
    plan();
    check_writable_size(size_, options.max_bytes);
    check_exported(graph, model_, options);
  }

  uint64_t size() const { return size_; }

  void write(ByteSink& sink) const {
    sink.put(model_before_graph_);
    sink.put(field_prefix(onnx::ModelProto::kGraphFieldNumber, graph_size_));
    sink.put(graph_before_initializers_);
    for (const Initializer& initializer : initializers_) {
      sink.put(field_prefix(onnx::GraphProto::kInitializerFieldNumber, initializer.size));
      if (!initializer.values) {
        sink.put(initializer.whole);
        continue;
      }
      sink.put(initializer.before_values);
      sink.put(field_prefix(onnx::TensorProto::kRawDataFieldNumber, initializer.values->written_bytes()));
      put_values(*initializer.values, sink);
      sink.put(initializer.after_values);
    }
    sink.put(graph_after_initializers_);
    sink.put(model_after_graph_);
    PET_CHECK(sink.written() == size_, fmt::format("a streamed model wrote {} bytes of the {} planned", sink.written(), size_));
  }

 private:
  struct Initializer {
    std::string whole;                          // a tensor written with its values in the proto
    std::string before_values, after_values;    // a deferred one's fields around raw_data
    const DeferredValues* values = nullptr;     // its values
    uint64_t size = 0;                          // the tensor's serialized bytes
  };

  void plan() {
    constexpr int kLast = std::numeric_limits<int>::max();
    const int graph_field = onnx::ModelProto::kGraphFieldNumber;
    const int initializer_field = onnx::GraphProto::kInitializerFieldNumber;
    const onnx::GraphProto& graph = model_.graph();
    model_before_graph_ = serialized_fields(model_, 0, graph_field - 1);
    model_after_graph_ = serialized_fields(model_, graph_field + 1, kLast);
    graph_before_initializers_ = serialized_fields(graph, 0, initializer_field - 1);
    graph_after_initializers_ = serialized_fields(graph, initializer_field + 1, kLast);
    std::vector<const DeferredValues*> deferred_at(static_cast<size_t>(graph.initializer_size()), nullptr);
    for (const DeferredValues& values : deferred_) deferred_at.at(static_cast<size_t>(values.initializer)) = &values;
    graph_size_ = graph_before_initializers_.size() + graph_after_initializers_.size();
    for (int i = 0; i < graph.initializer_size(); ++i) {
      initializers_.push_back(planned_initializer(graph.initializer(i), deferred_at[static_cast<size_t>(i)]));
      graph_size_ += field_prefix(initializer_field, initializers_.back().size).size() + initializers_.back().size;
    }
    size_ = model_before_graph_.size() + field_prefix(graph_field, graph_size_).size() + graph_size_ +
            model_after_graph_.size();
  }

  static Initializer planned_initializer(const onnx::TensorProto& tensor, const DeferredValues* values) {
    Initializer initializer;
    if (!values) {
      initializer.whole = tensor.SerializeAsString();
      initializer.size = initializer.whole.size();
      return initializer;
    }
    const int raw_data_field = onnx::TensorProto::kRawDataFieldNumber;
    initializer.values = values;
    initializer.before_values = serialized_fields(tensor, 0, raw_data_field - 1);
    initializer.after_values = serialized_fields(tensor, raw_data_field + 1, std::numeric_limits<int>::max());
    initializer.size = initializer.before_values.size() + field_prefix(raw_data_field, values->written_bytes()).size() +
                       values->written_bytes() + initializer.after_values.size();
    return initializer;
  }

  onnx::ModelProto model_;
  std::vector<DeferredValues> deferred_;
  std::string model_before_graph_, model_after_graph_;
  std::string graph_before_initializers_, graph_after_initializers_;
  std::vector<Initializer> initializers_;
  uint64_t graph_size_ = 0;
  uint64_t size_ = 0;
};

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
  check_exported(graph, model, options);
}

std::string serialize_onnx(const Graph& graph, const ExportOptions& options) {
  StreamedModel model(graph, options);
  std::string bytes;
  bytes.reserve(model.size());
  StringSink sink(bytes);
  model.write(sink);
  return bytes;
}

int write_onnx(const Graph& graph, int fd, const ExportOptions& options) {
  StreamedModel model(graph, options);
  constexpr int kBufferBytes = 1 << 20;
  google::protobuf::io::FileOutputStream stream(fd, kBufferBytes);
  bool written = false;
  {
    CodedSink sink(stream);  // gives its unused buffer back to the stream when it goes
    model.write(sink);
    written = !sink.had_error();
  }
  if (written && stream.Flush()) return 0;
  return stream.GetErrno() != 0 ? stream.GetErrno() : EIO;
}

void export_onnx(const Graph& graph, const std::string& path, const ExportOptions& options) {
  StagedFile(path, [&](int fd) { return write_onnx(graph, fd, options); }, "model").commit();
}

}  // namespace pet
