// The default ONNX mapping: same op name, same inputs, declared attributes read or defaulted.
#include "core/onnx_mapping.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "core/graph.h"
#include "core/op_def.h"

namespace pet {

static AttrValue read_attr(const OnnxImportNode& node, const AttrSpec& spec) {
  const auto& fallback = spec.default_value;
  switch (spec.kind) {
    case AttrKind::Int:
      return node.attr_int(spec.name, fallback ? std::optional<int64_t>(std::get<int64_t>(*fallback)) : std::nullopt);
    case AttrKind::Float:
      return node.attr_float(spec.name, fallback ? std::optional<double>(std::get<double>(*fallback)) : std::nullopt);
    case AttrKind::String:
      return node.attr_string(spec.name,
                              fallback ? std::optional<std::string>(std::get<std::string>(*fallback)) : std::nullopt);
    case AttrKind::Ints:
      return node.attr_ints(spec.name, fallback ? std::optional<std::vector<int64_t>>(
                                                      std::get<std::vector<int64_t>>(*fallback))
                                                : std::nullopt);
    case AttrKind::Floats:
      return node.attr_floats(spec.name, fallback ? std::optional<std::vector<double>>(
                                                        std::get<std::vector<double>>(*fallback))
                                                  : std::nullopt);
  }
  return int64_t{0};
}

OnnxImported import_same_name(const OpDef& def, const OnnxImportNode& node) {
  for (const std::string& name : node.attr_names()) {
    bool declared = std::any_of(def.attrs.begin(), def.attrs.end(),
                                [&](const AttrSpec& s) { return s.name == name && !s.pet_only; });
    if (!declared) node.unsupported("attribute '" + name + "'");
  }
  OnnxImported result{def.name, {}, {}};
  for (const AttrSpec& spec : def.attrs)
    if (!spec.pet_only) result.attrs.set(spec.name, read_attr(node, spec));
  for (int i = 0; i < node.num_inputs(); ++i) result.inputs.push_back(node.has_input(i) ? i : -1);
  return result;
}

OnnxImported import_extension_op(const OpDef& def, const OnnxImportNode& node) {
  if (node.num_inputs() > def.max_inputs)
    node.fail(fmt::format("{} inputs given, pet's {} reads at most {}", node.num_inputs(), def.name, def.max_inputs),
              "re-export the model without the optional inputs past those, or open an issue with this model");
  for (const std::string& name : node.attr_names()) {
    bool declared = std::any_of(def.attrs.begin(), def.attrs.end(), [&](const AttrSpec& s) { return s.name == name; });
    if (!declared) node.unsupported("attribute '" + name + "'");
  }
  OnnxImported result{def.name, {}, {}};
  for (const AttrSpec& spec : def.attrs) result.attrs.set(spec.name, read_attr(node, spec));
  for (int i = 0; i < node.num_inputs(); ++i) result.inputs.push_back(node.has_input(i) ? i : -1);
  return result;
}

void export_same_name(const Node& node, OnnxExportNode& out) {
  std::vector<std::string> inputs, outputs;
  for (size_t i = 0; i < node.inputs.size(); ++i) inputs.push_back(out.input(static_cast<int>(i)));
  for (size_t i = 0; i < node.outputs.size(); ++i) outputs.push_back(out.output(static_cast<int>(i)));
  for (const AttrSpec& spec : node.def->attrs)
    PET_CHECK(!spec.pet_only || !node.attrs.has(spec.name),
              "node '" + node.name + "' (" + node.op() + "): pet-only attribute '" + spec.name + "' needs a lowering");
  out.add_node(node.op(), inputs, outputs, node.attrs);
}

}  // namespace pet
