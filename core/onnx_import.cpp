// Imports an ONNX model into a static-shape Graph, folding constant and shape-driven chains.
#include "core/onnx_import.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/file_safety.h"
#include "core/memo.h"
#include "core/onnx_export.h"
#include "core/onnx_import_node.h"
#include "core/onnx_tensor.h"
#include "core/registry.h"
#include "core/structural_hash.h"

namespace pet {
namespace {

// Outputs larger than this (and larger than their inputs) stay computed at run time, so folding
// an Expand or ConstantOfShape never bloats the model.
constexpr int64_t kFoldElementLimit = 1 << 16;

// `parsed`: whether protobuf parsed a non-empty input; `what` names the bytes' source in messages:
// "'m.onnx'", "model 2".
onnx::ModelProto checked_model_proto(onnx::ModelProto model, bool parsed, const std::string& what) {
  if (!parsed)
    throw UserError(fmt::format("{} is not a valid ONNX model (protobuf parsing failed); the file may be "
                                "truncated or not an ONNX file",
                                what));
  if (!model.has_graph())
    throw UserError(fmt::format("{} has no graph; it is not an ONNX model", what));
  return model;
}

onnx::ModelProto parse_model_proto(const std::string& bytes, const std::string& what) {
  onnx::ModelProto model;
  bool parsed = !bytes.empty() && model.ParseFromString(bytes);
  return checked_model_proto(std::move(model), parsed, what);
}

// The model parsed as the file streams in, so no copy of the file's bytes is held beside the proto
// (a model's weights are most of both).
onnx::ModelProto load_model_proto(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw UserError(fmt::format("'{}' is a folder, not a model file; pass the path of the .onnx file in it", path));
  onnx::ModelProto model;
  bool parsed = false;
  read_file_through(path, "model file", [&](int fd) {
    google::protobuf::io::FileInputStream stream(fd);
    parsed = model.ParseFromZeroCopyStream(&stream) && stream.ByteCount() > 0;
    return stream.GetErrno();
  });
  return checked_model_proto(std::move(model), parsed, fmt::format("'{}'", path));
}

int default_opset(const onnx::ModelProto& model) {
  for (const auto& entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx") {
      auto version = static_cast<int>(entry.version());
      if (version < kMinOpset || version > kMaxOpset)
        throw UserError(fmt::format("the model uses opset {} of the default ONNX domain; pet supports opsets {} to "
                                    "{}: convert it with onnx.version_converter.convert_version(model, {})",
                                    version, kMinOpset, kMaxOpset, std::clamp(version, kMinOpset, kMaxOpset)));
      return version;
    }
  std::vector<std::string> domains;
  for (const auto& entry : model.opset_import()) domains.push_back("'" + entry.domain() + "'");
  throw UserError(fmt::format("the model imports no opset of the default ONNX domain, only {}; pet supports models "
                              "built from standard ONNX operators",
                              fmt::join(domains, ", ")));
}

std::set<std::string> initializer_names(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const auto& init : graph.initializer()) names.insert(init.name());
  return names;
}

void apply_input_shapes(onnx::ModelProto& model, const ImportOptions& options) {
  std::set<std::string> inits = initializer_names(model.graph());
  for (const auto& [name, shape] : options.input_shapes) {
    onnx::ValueInfoProto* target = nullptr;
    std::vector<std::string> known;
    for (auto& input : *model.mutable_graph()->mutable_input()) {
      if (inits.count(input.name())) continue;
      known.push_back(input.name());
      if (input.name() == name) target = &input;
    }
    if (!target)
      throw UserError(fmt::format("--input-shape names '{}', but the model's inputs are: {}", name,
                                  fmt::join(known, ", ")));
    auto* tensor_shape = target->mutable_type()->mutable_tensor_type()->mutable_shape();
    tensor_shape->clear_dim();
    for (int64_t d : shape.dims()) tensor_shape->add_dim()->set_dim_value(d);
  }
}

// Frees an imported weight's values in the proto (its name, type and dims stay). ONNX's shape
// inference, which reads the proto after pet's importer, reads the values of shape-like inputs alone (a
// Reshape's shape, a Resize's scales: integers, or a handful of floats, never an is_weight tensor), so
// the weights, most of a model's bytes, are then held once (in the Graph), not twice.
void release_weight_values(onnx::TensorProto& tensor) {
  std::string().swap(*tensor.mutable_raw_data());  // clear() alone keeps the capacity
  tensor.clear_raw_data();
  google::protobuf::RepeatedField<float>().Swap(tensor.mutable_float_data());
  google::protobuf::RepeatedField<int32_t>().Swap(tensor.mutable_int32_data());
  google::protobuf::RepeatedField<double>().Swap(tensor.mutable_double_data());
}

// The folder external data locations are relative to.
std::string model_folder(const std::string& path) { return std::filesystem::path(path).parent_path().string(); }

// Whether the linked ONNX library knows the model's opset and IR version. Newer models (opset
// 18-21, IR 9-10) skip its checker and shape inference: the library rejects what it does not
// know. They rely on pet's own checks instead, which every model goes through anyway: each
// value is defined before it is read and exactly once (Importer::lookup, bind_once), every
// attribute is read or rejected by the op's importer, and every shape comes from pet's rules.
bool library_understands(const onnx::ModelProto& model) {
  return default_opset(model) <= kMaxLibraryOpset && model.ir_version() <= kMaxLibraryIrVersion;
}

// ONNX 1.12 checks external data relative to the model's folder only through the path
// overload (which parses the file again), so that one is used only when it matters. The checker
// looks at the files external data names, so their containment is checked first.
void run_checker(const onnx::ModelProto& model, const std::string& path) {
  bool external = !external_data_files(model, model_folder(path)).empty();
  if (!library_understands(model)) return;
  try {
    if (external) onnx::checker::check_model(path);
    else onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    throw UserError(fmt::format("the model fails the ONNX checker: {}; fix or re-export the model",
                                std::string(error.what()).substr(0, 600)));
  }
}

// pet's view of an ONNX element type: float16 values are computed in f32.
std::optional<DType> computed_dtype(int elem_type) {
  if (elem_type == onnx::TensorProto::FLOAT16) return DType::f32;
  return dtype_of_onnx(elem_type);
}

std::optional<TensorType> static_type(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  std::optional<DType> dtype = computed_dtype(type.tensor_type().elem_type());
  if (!dtype) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return TensorType{*dtype, Shape(dims)};
}

// ONNX 1.16 corrected the output size of pooling with ceil_mode (a last window that would start
// in the end padding is dropped); pet follows the corrected rule and ONNX 1.12 does not.
bool uses_pooling_ceil_mode(const onnx::ModelProto& model) {
  for (const auto& node : model.graph().node())
    for (const auto& attr : node.attribute())
      if (attr.name() == "ceil_mode" && attr.i() != 0) return true;
  return false;
}

// ONNX's own shape inference, used to cross-check every shape our op rules compute (only for
// models the library understands and computes as ONNX does today; see library_understands).
// When it rejects the model the message goes to `rejection` and no types come back: ONNX lets
// a mismatch it does not check (MatMul's inner dimensions) flow on and blames the later node
// where it meets a declared shape, so pet's own shape rules get the first word.
std::unordered_map<std::string, TensorType> infer_onnx_types(onnx::ModelProto model, std::string& rejection) {
  std::unordered_map<std::string, TensorType> types;
  if (!library_understands(model) || uses_pooling_ceil_mode(model)) return types;
  // The model's own value_info and output shapes are claims, not ONNX's rules: the library keeps a
  // declared shape it cannot contradict, so a stale or wrong one (or one --input-shape outdated)
  // would read as a disagreement of the two rule sets. pet computes every shape itself and writes
  // its own back, so the claims are dropped.
  model.mutable_graph()->clear_value_info();
  for (auto& output : *model.mutable_graph()->mutable_output())  // likewise the outputs' declared shapes
    if (output.type().has_tensor_type()) output.mutable_type()->mutable_tensor_type()->clear_shape();
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& error) {
    rejection = fmt::format("ONNX shape inference rejects the model: {}; fix or re-export the model",
                            std::string(error.what()).substr(0, 600));
    return {};
  }
  for (const auto& info : model.graph().value_info())
    if (auto type = static_type(info.type())) types.emplace(info.name(), *type);
  return types;
}

class Importer {
 public:
  // What pet's shape rules gave a named value, and the node that computes it.
  struct InferredType {
    std::string value;
    TensorType type;
    std::string node;
  };

  // Each weight's values leave `model` once its tensor is made (release_weight_values).
  Importer(onnx::ModelProto& model, std::string base_dir) : model_(model), base_dir_(std::move(base_dir)) {}

  // Every value's type in import order, for the cross-check with ONNX's shape inference.
  const std::vector<InferredType>& inferred_types() const { return inferred_; }

  Graph run() {
    graph_.name = model_.graph().name().empty() ? "model" : model_.graph().name();
    graph_.opset = default_opset(model_);
    import_initializers();
    import_inputs();
    for (int i = 0; i < model_.graph().node_size(); ++i) import_node(model_.graph().node(i), i);
    import_outputs();
    record_float16_outputs();
    graph_.remove_nodes({});  // drops initializers and folded values nobody reads
    graph_.validate();
    return std::move(graph_);
  }

 private:
  void import_initializers() {
    bool any_float = false, all_float16 = true;
    for (int i = 0; i < model_.graph().initializer_size(); ++i) {
      onnx::TensorProto& init = *model_.mutable_graph()->mutable_initializer(i);
      require_new_name(init.name(), fmt::format("initializer #{}", i));
      Tensor tensor = tensor_from_proto(init, base_dir_, "initializer '" + init.name() + "'");
      bool weight = is_weight(tensor);  // float16 is held as f32
      bind(init.name(), graph_.add_constant(init.name(), std::move(tensor)));
      if (weight && init.data_location() != onnx::TensorProto::EXTERNAL) release_weight_values(init);
      bool float16 = init.data_type() == onnx::TensorProto::FLOAT16;
      if (float16) graph_.float16_values.insert(init.name());
      if (float16) float16_names_.insert(init.name());
      if (float16 || init.data_type() == onnx::TensorProto::FLOAT) {
        any_float = true;
        all_float16 = all_float16 && float16;
      }
    }
    graph_.float16_weights = any_float && all_float16;
  }

  // Graph outputs the model declares float16 (pet computes them in f32; export writes them back).
  void record_float16_outputs() {
    for (const auto& output : model_.graph().output())
      if (output.type().tensor_type().elem_type() == onnx::TensorProto::FLOAT16)
        graph_.float16_values.insert(output.name());
  }

  void import_inputs() {
    std::set<std::string> inits;
    for (const auto& init : model_.graph().initializer()) inits.insert(init.name());
    for (int i = 0; i < model_.graph().input_size(); ++i) {
      const auto& input = model_.graph().input(i);
      if (inits.count(input.name())) continue;  // an initializer listed as input (IR < 4)
      require_new_name(input.name(), fmt::format("graph input #{}", i));
      bind(input.name(), graph_.add_input(input.name(), input_type(input)));
    }
  }

  // An initializer or graph input needs a name of its own: nodes read values by name.
  void require_new_name(const std::string& name, const std::string& what) {
    if (name.empty())
      throw UserError(fmt::format("{} has no name; every input and initializer needs one, since nodes read values "
                                  "by name: the model is malformed",
                                  what));
    if (by_name_.count(name))
      throw UserError(fmt::format("{} is named '{}', like an earlier input or initializer; every value must be "
                                  "defined once: rename one of them",
                                  what, name));
  }

  TensorType input_type(const onnx::ValueInfoProto& input) {
    const auto& tensor_type = input.type().tensor_type();
    if (!input.type().has_tensor_type())
      throw UserError(fmt::format("input '{}' is not a tensor; pet supports tensor inputs only", input.name()));
    bool float16 = tensor_type.elem_type() == onnx::TensorProto::FLOAT16;
    DType dtype = float16 ? DType::f32 : dtype_from_onnx(tensor_type.elem_type(), "input '" + input.name() + "'");
    if (float16) graph_.float16_values.insert(input.name());
    if (float16) float16_names_.insert(input.name());
    std::vector<int64_t> dims;
    const auto& shape_dims = tensor_type.shape().dim();
    for (int d = 0; d < shape_dims.size(); ++d) {
      if (!shape_dims[d].has_dim_value() || shape_dims[d].dim_value() < 0) {
        std::string label = shape_dims[d].dim_param().empty() ? "unknown" : "'" + shape_dims[d].dim_param() + "'";
        throw UserError(fmt::format("input '{}' has a symbolic dimension {} (dim {}); give its static shape with "
                                    "--input-shape {}=<d0>x<d1>x...",
                                    input.name(), label, d, input.name()));
      }
      dims.push_back(shape_dims[d].dim_value());
    }
    if (!tensor_type.has_shape())
      throw UserError(fmt::format("input '{}' has no shape; give it with --input-shape {}=<d0>x<d1>x...",
                                  input.name(), input.name()));
    return {dtype, Shape(dims)};
  }

  void bind(const std::string& name, ValueId id) { by_name_[name] = id; }

  // Binds a node's output name, which ONNX graphs define exactly once.
  void bind_once(const std::string& name, ValueId id, const std::string& node_name, const std::string& op_type) {
    if (by_name_.count(name))
      throw UserError(fmt::format("node '{}' ({}, opset {}) writes '{}', which an input, initializer or earlier node "
                                  "already defines; every value must be defined once: rename one of them",
                                  node_name, op_type, graph_.opset, name));
    bind(name, id);
  }

  ValueId lookup(const std::string& name, const std::string& node_name, const std::string& op_type) {
    auto found = by_name_.find(name);
    if (found == by_name_.end())
      throw UserError(fmt::format("node '{}' ({}, opset {}) reads '{}', which no earlier node, input or initializer "
                                  "produces; the model is malformed",
                                  node_name, op_type, graph_.opset, name));
    return found->second;
  }

  std::string node_name(const onnx::NodeProto& node, int index) {
    std::string name = node.name().empty() ? fmt::format("{}_{}", node.op_type(), index) : node.name();
    if (!node_names_.insert(name).second) name = fmt::format("{}_{}", name, index);
    node_names_.insert(name);
    return name;
  }

  // ", of domain D pet reads only A, B" where pet has ops of that domain (ONNX Runtime's Attention).
  static std::string ops_read_of(const std::string& domain) {
    std::vector<std::string> names;
    for (const OpDef* def : OpRegistry::global().all())
      if (!domain.empty() && def->extension_domain == domain) names.push_back(def->name);
    return names.empty() ? "" : fmt::format(" (of domain '{}' pet reads {} only)", domain, fmt::join(names, ", "));
  }

  // pet's own op written in its extension domain (pet-opt's output for a runtime with pet's extension).
  static const OpDef* extension_op(const onnx::NodeProto& node) {
    const OpDef* def = OpRegistry::global().find(node.op_type());
    return def && !def->extension_domain.empty() && def->extension_domain == node.domain() ? def : nullptr;
  }

  void import_node(const onnx::NodeProto& node, int index) {
    std::string name = node_name(node, index);
    bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    const OpDef* onnx_def = standard ? OpRegistry::global().find_onnx(node.op_type()) : extension_op(node);
    if (!standard && !onnx_def)
      throw UserError(fmt::format("node '{}' ({}, domain '{}'): operators outside the default ONNX domain are not "
                                  "supported{}; export the model with standard ONNX operators",
                                  name, node.op_type(), node.domain(), ops_read_of(node.domain())));
    if (standard && node.op_type() == "Constant") return import_constant(node, name);
    if (!onnx_def)
      throw UserError(fmt::format("node '{}' ({}, opset {}): operator {} is not supported by pet; replace it in the "
                                  "model or open an issue asking for it",
                                  name, node.op_type(), graph_.opset, node.op_type()));
    std::vector<ValueId> ids;
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    std::vector<bool> float16_inputs;
    for (const std::string& input : node.input()) {
      float16_inputs.push_back(float16_names_.count(input) > 0);
      ValueId id = input.empty() ? kNoValue : lookup(input, name, node.op_type());
      ids.push_back(id);
      types.push_back(id == kNoValue ? nullptr : &graph_.value(id).type);
      constants.push_back(id != kNoValue && graph_.is_constant(id) ? &*graph_.value(id).constant : nullptr);
    }
    ProtoImportNode view(node, name, graph_.opset, types, constants, base_dir_, float16_inputs);
    OnnxImported imported = standard ? onnx_def->from_onnx(*onnx_def, view) : import_extension_op(*onnx_def, view);
    if (widens_float16_exactly(node, imported, float16_inputs))
      return bind_once(node.output(0), ids.at(0), name, node.op_type());
    std::vector<ValueId> inputs;
    for (int position : imported.inputs) inputs.push_back(position < 0 ? kNoValue : ids.at(static_cast<size_t>(position)));
    add_imported(node, name, imported, inputs);
    track_float16(node, imported, float16_inputs);
  }

  // A Cast of a float16 value to float32 computes nothing pet does not hold already (float16 values
  // are held in f32, exactly), so its result names that value; export reads a float16 input or
  // initializer through such a Cast, and re-importing it must not add one more each round trip.
  // A graph output keeps its own node, so that its name stays the one the model lists.
  bool widens_float16_exactly(const onnx::NodeProto& node, const OnnxImported& imported,
                              const std::vector<bool>& float16_inputs) const {
    bool output_listed = std::any_of(model_.graph().output().begin(), model_.graph().output().end(),
                                     [&](const auto& output) { return output.name() == node.output(0); });
    return node.op_type() == "Cast" && imported.attrs.has("to") && imported.attrs.get_string("to") == "f32" &&
           !float16_inputs.empty() && float16_inputs[0] && node.output_size() == 1 && !output_listed;
  }

  // Which float values are float16 in the model: float16 inputs and initializers, casts to
  // float16, and the float results of ops fed a float16 value (ONNX ops keep their input's type T).
  // Only results pet holds in f32 can be: an op fed float16 may also write i64 (Shape), bool
  // (Equal) or the type a Cast or CastLike names (u8, i32, bf16...), which stay what they are.
  void track_float16(const onnx::NodeProto& node, const OnnxImported& imported, const std::vector<bool>& float16_inputs) {
    bool float16 = node.op_type() == "Cast" || node.op_type() == "CastLike"
                       ? imported.attrs.has("to") && imported.attrs.get_string("to") == "f16"
                       : std::find(float16_inputs.begin(), float16_inputs.end(), true) != float16_inputs.end();
    if (!float16) return;
    for (const std::string& output : node.output()) {
      auto bound = by_name_.find(output);
      if (!output.empty() && bound != by_name_.end() && graph_.value(bound->second).type.dtype == DType::f32)
        float16_names_.insert(output);
    }
  }

  void add_imported(const onnx::NodeProto& node, const std::string& name, const OnnxImported& imported,
                    const std::vector<ValueId>& inputs) {
    const OpDef& def = OpRegistry::global().get(imported.op);
    std::vector<std::string> output_names(node.output().begin(), node.output().end());
    if (should_fold(def, inputs, imported.attrs, name)) return fold(def, imported.attrs, inputs, name, output_names);
    std::vector<ValueId> outputs = graph_.add_node(imported.op, imported.attrs, inputs, name, output_names);
    if (output_names.size() > outputs.size())
      throw UserError(fmt::format("node '{}' ({}, opset {}): asks for {} outputs, pet computes {}; remove the extra "
                                  "outputs from the model",
                                  name, node.op_type(), graph_.opset, output_names.size(), outputs.size()));
    for (size_t i = 0; i < output_names.size(); ++i) {
      if (output_names[i].empty()) continue;
      record_type(output_names[i], graph_.value(outputs[i]).type, name);
      bind_once(output_names[i], outputs[i], name, node.op_type());
    }
  }

  bool should_fold(const OpDef& def, const std::vector<ValueId>& inputs, const Attributes& attrs,
                   const std::string& name) {
    int64_t input_elements = 0;
    for (ValueId id : inputs) {
      if (id == kNoValue) continue;
      if (!graph_.is_constant(id) && !def.traits.type_only) return false;
      input_elements += graph_.value(id).type.shape.numel();
    }
    std::vector<const TensorType*> types;
    for (ValueId id : inputs) types.push_back(id == kNoValue ? nullptr : &graph_.value(id).type);
    int64_t output_elements = 0;
    for (const TensorType& type : infer_types(def, complete_attributes(def, attrs), types, name).value_or_throw())
      output_elements += type.shape.numel();
    return def.traits.type_only || output_elements <= std::max(kFoldElementLimit, input_elements);
  }

  void fold(const OpDef& def, const Attributes& attrs, const std::vector<ValueId>& inputs, const std::string& name,
            const std::vector<std::string>& output_names) {
    Node node{&def, name, complete_attributes(def, attrs), inputs, {}};
    std::vector<const TensorType*> types;
    std::vector<Tensor> placeholders;  // type_only ops read only the shape of non-constant inputs
    placeholders.reserve(inputs.size());
    std::vector<const Tensor*> args;
    for (ValueId id : inputs) {
      types.push_back(id == kNoValue ? nullptr : &graph_.value(id).type);
      if (id == kNoValue) {
        args.push_back(nullptr);
      } else if (graph_.is_constant(id)) {
        args.push_back(&*graph_.value(id).constant);
      } else {
        placeholders.emplace_back(graph_.value(id).type);
        args.push_back(&placeholders.back());
      }
    }
    std::vector<TensorType> out_types = infer_types(def, node.attrs, types, name).value_or_throw();
    std::vector<Tensor> results = execute_node(node, args, out_types);
    for (size_t i = 0; i < output_names.size() && i < results.size(); ++i) {
      if (output_names[i].empty()) continue;
      record_type(output_names[i], results[i].type(), name);
      bind_once(output_names[i], graph_.add_constant(output_names[i], std::move(results[i])), name, def.name);
    }
  }

  void import_constant(const onnx::NodeProto& node, const std::string& name) {
    ProtoImportNode proto_view(node, name, graph_.opset, {}, {}, base_dir_);
    const OnnxImportNode& view = proto_view;
    Tensor value;
    if (view.has_attr("value")) {
      value = view.attr_tensor("value");
    } else if (view.has_attr("value_float")) {
      value = Tensor::scalar_f32(static_cast<float>(view.attr_float("value_float")));
    } else if (view.has_attr("value_int")) {
      value = Tensor::scalar_i64(view.attr_int("value_int"));
    } else if (view.has_attr("value_floats")) {
      std::vector<double> floats = view.attr_floats("value_floats");
      value = Tensor::f32({static_cast<int64_t>(floats.size())}, std::vector<float>(floats.begin(), floats.end()));
    } else if (view.has_attr("value_ints")) {
      std::vector<int64_t> ints = view.attr_ints("value_ints");
      value = Tensor::i64({static_cast<int64_t>(ints.size())}, ints);
    } else {
      view.unsupported(fmt::format("a Constant given by attribute '{}'",
                                   view.attr_names().empty() ? "(none)" : view.attr_names()[0]));
    }
    bind_once(node.output(0), graph_.add_constant(node.output(0), std::move(value)), name, "Constant");
  }

  void record_type(const std::string& value_name, const TensorType& ours, const std::string& node) {
    inferred_.push_back({value_name, ours, node});
  }

  void import_outputs() {
    for (const auto& output : model_.graph().output()) {
      auto found = by_name_.find(output.name());
      if (found == by_name_.end())
        throw UserError(fmt::format("graph output '{}' is never produced; the model is malformed", output.name()));
      graph_.add_output(found->second);
    }
  }

  onnx::ModelProto& model_;
  std::string base_dir_;
  std::vector<InferredType> inferred_;
  Graph graph_;
  std::unordered_map<std::string, ValueId> by_name_;
  std::set<std::string> node_names_;
  std::set<std::string> float16_names_;  // values the model holds as float16 (see track_float16)
};

}  // namespace

namespace {

// What the drawn weights may hold: an Inception-v3's 95 MB many times over, a BERT-base's 440 MB
// four times.
constexpr size_t kRememberedWeightBytes = size_t{2} << 30;
std::atomic<int64_t> weights_drawn{0};
std::atomic<int64_t> weights_reused{0};

size_t tensor_bytes(const Tensor& tensor) { return tensor.nbytes(); }

// random_f32(shape, seed, -scale, scale), drawn once per process: a worker imports every program
// of a model's search, which share most weights (an Inception-v3's are 24 M draws).
Tensor random_weight(const Shape& shape, uint64_t seed, float scale) {
  static Memo<Tensor> drawn(kRememberedWeightBytes, OnForget::Empty, tensor_bytes);
  std::string key = fmt::format("{} {} {}", seed, scale, shape.to_string());
  if (std::optional<Tensor> found = drawn.find(key)) {
    weights_reused += 1;
    return *found;
  }
  Tensor weight = Tensor::random_f32(shape, seed, -scale, scale);
  drawn.remember(std::move(key), weight);
  weights_drawn += 1;
  return weight;
}

// The noise of one line of kRandomWeightsKey ("<name>\t<seed>\t<scale>") in its initializer (found
// in `initializers`, by name), which must have a float shape and no values (a weight-free export's).
void fill_random_weight(const std::unordered_map<std::string, onnx::TensorProto*>& initializers,
                        const std::string& line) {
  std::vector<std::string> fields;
  for (size_t start = 0, tab; start <= line.size(); start = tab + 1) {
    tab = std::min(line.find('\t', start), line.size());
    fields.push_back(line.substr(start, tab - start));
  }
  uint64_t seed = 0;
  double scale = -1;
  bool numbers = fields.size() == 3 &&
                 std::from_chars(fields[1].data(), fields[1].data() + fields[1].size(), seed).ec == std::errc() &&
                 std::from_chars(fields[2].data(), fields[2].data() + fields[2].size(), scale).ec == std::errc();
  if (!numbers || !(scale >= 0 && scale <= 3.4e38))
    throw UserError(fmt::format("its {} line '{}' is not '<name> <seed> <scale>'", kRandomWeightsKey, line));
  auto found = initializers.find(fields[0]);
  if (found == initializers.end())
    throw UserError(fmt::format("{} names '{}', which is no initializer", kRandomWeightsKey, fields[0]));
  onnx::TensorProto& tensor = *found->second;
  if (tensor.data_type() != onnx::TensorProto::FLOAT || tensor.has_raw_data() || tensor.float_data_size() > 0)
    throw UserError(fmt::format("{} names '{}', which is not a float initializer without values", kRandomWeightsKey,
                                fields[0]));
  std::vector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  std::string name = tensor.name();  // tensor_to_proto clears the proto first
  tensor_to_proto(random_weight(Shape(dims), seed, static_cast<float>(scale)), name, tensor);
}

// A weight-free model's weights filled (ImportOptions::fill_random_weights).
void fill_random_weights(onnx::ModelProto& model) {
  std::unordered_map<std::string, onnx::TensorProto*> initializers;
  for (onnx::TensorProto& tensor : *model.mutable_graph()->mutable_initializer())
    initializers.emplace(tensor.name(), &tensor);  // the first of a name, as a linear search found it
  for (const onnx::StringStringEntryProto& entry : model.metadata_props()) {
    if (entry.key() != kRandomWeightsKey) continue;
    const std::string& lines = entry.value();
    for (size_t start = 0, end; start < lines.size(); start = end + 1) {
      end = std::min(lines.find('\n', start), lines.size());
      if (end > start) fill_random_weight(initializers, lines.substr(start, end - start));
    }
  }
}

// The checked model as a Graph: `folder` is where its external data lies ("" for a model from
// memory, which may name none), `path` the file the checker reads again when it has some.
Graph import_model_proto(onnx::ModelProto model, const std::string& folder, const std::string& path,
                         const ImportOptions& options) {
  if (options.fill_random_weights) fill_random_weights(model);
  default_opset(model);
  apply_input_shapes(model, options);
  run_checker(model, path);
  // pet's own shape rules check every node first: they name the node at fault, and ONNX 1.12's
  // shape inference crashes on some malformed nodes (a Conv on a rank-2 input dereferences a
  // null pointer), so it only sees models pet's rules accept.
  Graph graph;
  std::vector<Importer::InferredType> inferred;
  {
    Importer importer(model, folder);
    graph = importer.run();
    inferred = importer.inferred_types();
  }
  std::string onnx_rejection;
  // The importer is gone: ONNX's shape inference takes the model, its large weights released, without a copy.
  auto onnx_types = infer_onnx_types(std::move(model), onnx_rejection);
  if (!onnx_rejection.empty()) throw UserError(onnx_rejection);
  for (const auto& [value, ours, node] : inferred) {
    auto found = onnx_types.find(value);
    PET_CHECK(found == onnx_types.end() || found->second == ours,
              fmt::format("node '{}': pet infers {} for '{}' but ONNX shape inference says {}", node,
                          ours.to_string(), value, found->second.to_string()));
  }
  return graph;
}

bool names_external_data(const onnx::GraphProto& graph) {
  return std::any_of(graph.initializer().begin(), graph.initializer().end(), [](const onnx::TensorProto& tensor) {
    return tensor.data_location() == onnx::TensorProto::EXTERNAL;
  });
}

}  // namespace

Graph import_onnx(const std::string& path, const ImportOptions& options) {
  try {
    return import_model_proto(load_model_proto(path), model_folder(path), path, options);
  } catch (const UserError& error) {
    throw UserError(fmt::format("{}: {}", path, error.what()));
  }
}

RandomWeightDraws random_weight_draws() { return {weights_drawn.load(), weights_reused.load()}; }

std::string describe(const RandomWeightDraws& draws) {
  return fmt::format("weights filled: {} drawn, {} reused", draws.drawn, draws.reused);
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& name, const ImportOptions& options) {
  try {
    onnx::ModelProto model = parse_model_proto(bytes, name);
    if (names_external_data(model.graph()))
      throw UserError("it names external data, which a model given in memory has no folder for; put every weight "
                      "inside the model (onnx.save_model(model, path, save_as_external_data=False))");
    return import_model_proto(std::move(model), "", "", options);
  } catch (const UserError& error) {
    throw UserError(fmt::format("{}: {}", name, error.what()));
  }
}

std::vector<std::string> model_data_files(const std::string& path) {
  try {
    return external_data_files(load_model_proto(path), model_folder(path));
  } catch (const UserError& error) {
    throw UserError(fmt::format("{}: {}", path, error.what()));
  }
}

std::pair<std::string, Shape> parse_input_shape(const std::string& text) {
  auto bad = [&] {
    return UserError(fmt::format("--input-shape '{}' is not NAME=D0xD1x... (e.g. input=1x3x224x224)", text));
  };
  size_t equals = text.rfind('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) throw bad();
  std::vector<int64_t> dims;
  size_t start = equals + 1;
  while (start <= text.size()) {
    size_t end = text.find('x', start);
    if (end == std::string::npos) end = text.size();
    std::string part = text.substr(start, end - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) throw bad();
    int64_t dim = 0;
    if (std::from_chars(part.data(), part.data() + part.size(), dim).ec != std::errc{})
      throw UserError(fmt::format("--input-shape '{}': dimension {} does not fit in 64 bits", text, part));
    dims.push_back(dim);
    start = end + 1;
  }
  return {text.substr(0, equals), Shape(dims)};
}

}  // namespace pet
