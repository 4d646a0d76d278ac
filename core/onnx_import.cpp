// Imports an ONNX model into a static-shape Graph, folding constant and shape-driven chains.
#include "core/onnx_import.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_import_node.h"
#include "core/onnx_tensor.h"
#include "core/registry.h"

namespace pet {
namespace {

// Outputs larger than this (and larger than their inputs) stay computed at run time, so folding
// an Expand or ConstantOfShape never bloats the model.
constexpr int64_t kFoldElementLimit = 1 << 16;

onnx::ModelProto load_model_proto(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw UserError(fmt::format("'{}' is a folder, not a model file; pass the path of the .onnx file in it", path));
  std::ifstream file(path, std::ios::binary);
  if (!file) throw UserError(fmt::format("cannot open model file '{}'; check the path", path));
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    throw UserError(fmt::format("'{}' is not a valid ONNX model (protobuf parsing failed); the file may be "
                                "truncated or not an ONNX file",
                                path));
  if (!model.has_graph())
    throw UserError(fmt::format("'{}' has no graph; it is not an ONNX model", path));
  return model;
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

bool has_external_data(const onnx::ModelProto& model) {
  for (const auto& init : model.graph().initializer())
    if (init.data_location() == onnx::TensorProto::EXTERNAL) return true;
  return false;
}

// ONNX 1.12 checks external data relative to the model's folder only through the path
// overload (which parses the file again), so that one is used only when it matters.
void run_checker(const onnx::ModelProto& model, const std::string& path) {
  try {
    if (has_external_data(model)) onnx::checker::check_model(path);
    else onnx::checker::check_model(model);
  } catch (const std::exception& error) {
    throw UserError(fmt::format("the model fails the ONNX checker: {}; fix or re-export the model",
                                std::string(error.what()).substr(0, 600)));
  }
}

std::optional<TensorType> static_type(const onnx::TypeProto& type) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return std::nullopt;
  DType dtype;
  switch (type.tensor_type().elem_type()) {
    case onnx::TensorProto::FLOAT: dtype = DType::f32; break;
    case onnx::TensorProto::INT64: dtype = DType::i64; break;
    case onnx::TensorProto::BOOL: dtype = DType::boolean; break;
    default: return std::nullopt;
  }
  std::vector<int64_t> dims;
  for (const auto& dim : type.tensor_type().shape().dim()) {
    if (!dim.has_dim_value()) return std::nullopt;
    dims.push_back(dim.dim_value());
  }
  return TensorType{dtype, Shape(dims)};
}

// ONNX's own shape inference, used to cross-check every shape our op rules compute. When it
// rejects the model the message goes to `rejection` and no types come back: ONNX lets a
// mismatch it does not check (MatMul's inner dimensions) flow on and blames the later node
// where it meets a declared shape, so pet's own shape rules get the first word.
std::unordered_map<std::string, TensorType> infer_onnx_types(onnx::ModelProto model, std::string& rejection) {
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& error) {
    rejection = fmt::format("ONNX shape inference rejects the model: {}; fix or re-export the model",
                            std::string(error.what()).substr(0, 600));
    return {};
  }
  std::unordered_map<std::string, TensorType> types;
  for (const auto& info : model.graph().value_info())
    if (auto type = static_type(info.type())) types.emplace(info.name(), *type);
  return types;
}

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string base_dir, std::unordered_map<std::string, TensorType> onnx_types)
      : model_(model), base_dir_(std::move(base_dir)), onnx_types_(std::move(onnx_types)) {}

  Graph run() {
    graph_.name = model_.graph().name().empty() ? "model" : model_.graph().name();
    graph_.opset = default_opset(model_);
    import_initializers();
    import_inputs();
    for (int i = 0; i < model_.graph().node_size(); ++i) import_node(model_.graph().node(i), i);
    import_outputs();
    graph_.remove_nodes({});  // drops initializers and folded values nobody reads
    graph_.validate();
    return std::move(graph_);
  }

 private:
  void import_initializers() {
    for (const auto& init : model_.graph().initializer())
      bind(init.name(), graph_.add_constant(init.name(), tensor_from_proto(init, base_dir_,
                                                                            "initializer '" + init.name() + "'")));
  }

  void import_inputs() {
    for (const auto& input : model_.graph().input()) {
      if (by_name_.count(input.name())) continue;  // an initializer listed as input (IR < 4)
      bind(input.name(), graph_.add_input(input.name(), input_type(input)));
    }
  }

  TensorType input_type(const onnx::ValueInfoProto& input) {
    const auto& tensor_type = input.type().tensor_type();
    if (!input.type().has_tensor_type())
      throw UserError(fmt::format("input '{}' is not a tensor; pet supports tensor inputs only", input.name()));
    DType dtype = dtype_from_onnx(tensor_type.elem_type(), "input '" + input.name() + "'");
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

  void import_node(const onnx::NodeProto& node, int index) {
    std::string name = node_name(node, index);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      throw UserError(fmt::format("node '{}' ({}, domain '{}'): operators outside the default ONNX domain are not "
                                  "supported; export the model with standard ONNX operators",
                                  name, node.op_type(), node.domain()));
    if (node.op_type() == "Constant") return import_constant(node, name);
    const OpDef* onnx_def = OpRegistry::global().find_onnx(node.op_type());
    if (!onnx_def)
      throw UserError(fmt::format("node '{}' ({}, opset {}): operator {} is not supported by pet; replace it in the "
                                  "model or open an issue asking for it",
                                  name, node.op_type(), graph_.opset, node.op_type()));
    std::vector<ValueId> ids;
    std::vector<const TensorType*> types;
    std::vector<const Tensor*> constants;
    for (const std::string& input : node.input()) {
      ValueId id = input.empty() ? kNoValue : lookup(input, name, node.op_type());
      ids.push_back(id);
      types.push_back(id == kNoValue ? nullptr : &graph_.value(id).type);
      constants.push_back(id != kNoValue && graph_.is_constant(id) ? &*graph_.value(id).constant : nullptr);
    }
    ProtoImportNode view(node, name, graph_.opset, types, constants, base_dir_);
    OnnxImported imported = onnx_def->from_onnx(*onnx_def, view);
    std::vector<ValueId> inputs;
    for (int position : imported.inputs) inputs.push_back(position < 0 ? kNoValue : ids.at(static_cast<size_t>(position)));
    add_imported(node, name, imported, inputs);
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
      cross_check(output_names[i], graph_.value(outputs[i]).type, name);
      bind(output_names[i], outputs[i]);
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
    for (const TensorType& type : infer_types(def, complete_attributes(def, attrs), types, name))
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
    std::vector<TensorType> out_types = infer_types(def, node.attrs, types, name);
    std::vector<Tensor> results = execute_node(node, args, out_types);
    for (size_t i = 0; i < output_names.size() && i < results.size(); ++i) {
      if (output_names[i].empty()) continue;
      cross_check(output_names[i], results[i].type(), name);
      bind(output_names[i], graph_.add_constant(output_names[i], std::move(results[i])));
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
    bind(node.output(0), graph_.add_constant(node.output(0), std::move(value)));
  }

  void cross_check(const std::string& value_name, const TensorType& ours, const std::string& node) {
    auto found = onnx_types_.find(value_name);
    if (found == onnx_types_.end()) return;
    PET_CHECK(found->second == ours, fmt::format("node '{}': pet infers {} for '{}' but ONNX shape inference says {}",
                                                 node, ours.to_string(), value_name, found->second.to_string()));
  }

  void import_outputs() {
    for (const auto& output : model_.graph().output()) {
      auto found = by_name_.find(output.name());
      if (found == by_name_.end())
        throw UserError(fmt::format("graph output '{}' is never produced; the model is malformed", output.name()));
      graph_.add_output(found->second);
    }
  }

  const onnx::ModelProto& model_;
  std::string base_dir_;
  std::unordered_map<std::string, TensorType> onnx_types_;
  Graph graph_;
  std::unordered_map<std::string, ValueId> by_name_;
  std::set<std::string> node_names_;
};

}  // namespace

Graph import_onnx(const std::string& path, const ImportOptions& options) {
  try {
    onnx::ModelProto model = load_model_proto(path);
    default_opset(model);
    apply_input_shapes(model, options);
    run_checker(model, path);
    std::string onnx_rejection;
    auto onnx_types = infer_onnx_types(model, onnx_rejection);
    std::string base_dir = std::filesystem::path(path).parent_path().string();
    Graph graph = Importer(model, base_dir, std::move(onnx_types)).run();
    if (!onnx_rejection.empty()) throw UserError(onnx_rejection);
    return graph;
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
