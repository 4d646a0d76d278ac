// Printing graphs as textual IR.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text_ir.h"

namespace pet {
namespace {

// A node name reads back unquoted only as one word of the lexer's (no '/' or ':', which a value
// name after '%' may hold).
bool plain_word(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '+' && c != '-') return false;
  return true;
}

bool plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '/' && c != ':' && c != '-')
      return false;
  return true;
}

std::string quoted(const std::string& text) {
  std::string result = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') result += '\\';
    result += c;
  }
  return result + "\"";
}

std::string value_ref(const Graph& graph, ValueId id) {
  if (id == kNoValue) return "_";
  const std::string& name = graph.value(id).name;
  return "%" + (plain_name(name) ? name : quoted(name));
}

// One element as text that parses back to the same value: the shortest round-trip form of a
// float, the exact integer otherwise.
std::string element_text(const Tensor& tensor, int64_t i) {
  auto at = static_cast<size_t>(i);
  return visit_dtype(tensor.dtype(), [&]<DType D>() {
    storage_t<D> value = tensor.view<D>()[at];
    if constexpr (D == DType::bf16) return fmt::format("{}", bfloat16_to_float(value));
    else if constexpr (D == DType::boolean) return std::string(value ? "1" : "0");
    else if constexpr (D == DType::i8 || D == DType::u8) return std::to_string(static_cast<int>(value));
    else return fmt::format("{}", value);
  });
}

std::string constant_text(const Tensor& tensor, const PrintOptions& options) {
  if (!options.constant_values) return "...";
  if (options.weight_free && is_weight(tensor))
    return fmt::format("random({}, {})", tensor.content_hash(), rms_keeping_scale(tensor));
  // Weight-free text is read where no blob table exists: index and shape constants stay inline.
  bool inline_all = options.weight_free && tensor.dtype() != DType::f32;
  if (tensor.numel() > options.inline_limit && !inline_all) return fmt::format("blob({:016x})", tensor.content_hash());
  std::string text = "[";
  for (int64_t i = 0, end = tensor.numel(); i < end; ++i) {
    if (i) text += ',';
    text += element_text(tensor, i);
  }
  return text + "]";
}

std::string node_line(const Graph& graph, const Node& node, const PrintOptions& options) {
  std::string outputs, inputs, types;
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    outputs += (i ? ", " : "") + value_ref(graph, node.outputs[i]);
    types += (i ? ", " : "") + graph.value(node.outputs[i]).type.to_string();
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) inputs += (i ? ", " : "") + value_ref(graph, node.inputs[i]);
  std::string line = fmt::format("  {} = {}{}({}) : {}", outputs, node.op(), node.attrs.to_string(), inputs, types);
  if (options.node_names) line += " @" + (plain_word(node.name) ? node.name : quoted(node.name));
  return line + "\n";
}

}  // namespace

std::string print_graph(const Graph& graph, const PrintOptions& options) {
  std::string text = fmt::format("graph {} opset {} {{\n", quoted(graph.name), graph.opset);
  for (ValueId id : graph.inputs())
    text += fmt::format("  input {} : {}\n", value_ref(graph, id), graph.value(id).type.to_string());
  for (size_t v = 0; v < graph.values().size(); ++v) {
    const Value& value = graph.values()[v];
    if (value.constant)
      text += fmt::format("  const {} : {} = {}\n", value_ref(graph, static_cast<ValueId>(v)), value.type.to_string(),
                          constant_text(*value.constant, options));
  }
  for (const Node& node : graph.nodes()) text += node_line(graph, node, options);
  for (ValueId id : graph.outputs()) text += fmt::format("  output {}\n", value_ref(graph, id));
  return text + "}\n";
}

BlobTable collect_blobs(const Graph& graph) {
  BlobTable blobs;
  for (const Value& value : graph.values())
    if (value.constant) blobs.emplace(value.constant->content_hash(), *value.constant);
  return blobs;
}

}  // namespace pet
