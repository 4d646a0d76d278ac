// Op signatures: what a profile DB entry is keyed by, printed the way the textual IR prints nodes.
#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/memo.h"
#include "core/ops/fused_activation.h"
#include "search/cost/cost_model.h"

namespace pet::cost {
namespace {

// Where the bracket opened at text[open] closes (quoted strings skipped); npos when it does not.
size_t closing_bracket(const std::string& text, size_t open) {
  int depth = 0;
  bool quoted = false;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && --depth == 0) return i;
  }
  return std::string::npos;
}

// Splits at `separator` outside brackets and quoted strings.
std::vector<std::string> split_top_level(const std::string& text, const std::string& separator) {
  std::vector<std::string> pieces;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    depth += (c == '[' || c == '(') - (c == ']' || c == ')');
    if (depth == 0 && text.compare(i, separator.size(), separator) == 0) {
      pieces.push_back(text.substr(start, i - start));
      start = i + separator.size();
      i = start - 1;
    }
  }
  pieces.push_back(text.substr(start));
  return pieces;
}

// One node of a key: "Op[attributes](inputs) dtype", its attributes and inputs still as text.
struct KeyNode {
  std::string op;
  std::vector<std::string> attributes;  // "name=value", in canonical (sorted) order
  std::vector<std::string> inputs;      // types, "_", "const ...", or "#k" for the group's node k
  std::string rest;                     // " dtype"
};

std::optional<KeyNode> parse_key_node(const std::string& text) {
  size_t open = text.find_first_of("[(");
  if (open == std::string::npos || open == 0) return std::nullopt;
  KeyNode node{text.substr(0, open), {}, {}, ""};
  if (text[open] == '[') {
    size_t close = closing_bracket(text, open);
    if (close == std::string::npos) return std::nullopt;
    node.attributes = split_top_level(text.substr(open + 1, close - open - 1), ", ");
    open = close + 1;
  }
  if (open >= text.size() || text[open] != '(') return std::nullopt;
  size_t close = closing_bracket(text, open);
  if (close == std::string::npos) return std::nullopt;
  std::string inputs = text.substr(open + 1, close - open - 1);
  if (!inputs.empty()) node.inputs = split_top_level(inputs, ", ");
  node.rest = text.substr(close + 1);
  return node;
}

// The standard op a node's fused-activation attribute stands for, which it drops from the node.
std::optional<std::string> take_activation(KeyNode& node) {
  const std::string prefix = std::string(ops::kActivationAttr) + "=\"";
  for (auto it = node.attributes.begin(); it != node.attributes.end(); ++it) {
    if (it->rfind(prefix, 0) != 0 || it->back() != '"') continue;
    std::string value = it->substr(prefix.size(), it->size() - prefix.size() - 1);
    std::optional<std::string> op = ops::activation_op(Attributes{{ops::kActivationAttr, value}});
    if (op) node.attributes.erase(it);
    return op;
  }
  return std::nullopt;
}

std::string print_key_node(const KeyNode& node) {
  std::string attributes = node.attributes.empty() ? "" : fmt::format("[{}]", fmt::join(node.attributes, ", "));
  return fmt::format("{}{}({}){}", node.op, attributes, fmt::join(node.inputs, ", "), node.rest);
}

// canonical_key's work for a key that names a fused activation.
std::string expand_activations(const std::string& key) {
  std::vector<KeyNode> nodes;
  for (const std::string& part : split_top_level(key, " ; ")) {
    std::optional<KeyNode> node = parse_key_node(part);
    if (!node) return key;  // not a kernel key
    nodes.push_back(std::move(*node));
  }
  std::vector<std::string> parts;
  std::vector<size_t> output_part;  // the part that holds node k's output, once expanded
  for (KeyNode& node : nodes) {
    for (std::string& input : node.inputs) {
      if (input.size() < 2 || input.size() > 6 || input[0] != '#' ||
          !std::all_of(input.begin() + 1, input.end(), [](char c) { return c >= '0' && c <= '9'; }))
        continue;
      size_t index = std::stoul(input.substr(1));
      if (index < output_part.size()) input = fmt::format("#{}", output_part[index]);
    }
    std::optional<std::string> activation = take_activation(node);
    parts.push_back(print_key_node(node));
    if (activation) parts.push_back(print_key_node({*activation, {}, {fmt::format("#{}", parts.size() - 1)}, node.rest}));
    output_part.push_back(parts.size() - 1);
  }
  return fmt::format("{}", fmt::join(parts, " ; "));
}

// Expanded keys remembered before the memo starts over (a few MB of text).
constexpr size_t kRememberedKeys = 8192;

}  // namespace

std::string canonical_key(const std::string& key) {
  if (key.find(ops::kActivationAttr) == std::string::npos) return key;
  // The search prices the same kernel groups in thousands of programs, and parsing a key back
  // into nodes is most of pricing a group that is already memoized. The result depends on the
  // text alone.
  static Memo<std::string> expanded(kRememberedKeys);
  if (std::optional<std::string> known = expanded.find(key)) return *known;
  std::string result = expand_activations(key);
  expanded.remember(key, result);
  return result;
}

std::string OpSignature::key() const {
  std::vector<std::string> inputs;
  for (const std::string& type : input_types) inputs.push_back(type.empty() ? "_" : type);
  return fmt::format("{}{}({}) {}", op, attributes, fmt::join(inputs, ", "), dtype);
}

OpSignature signature_of(const Graph& graph, const Node& node) {
  OpSignature signature;
  signature.op = node.op();
  signature.attributes = node.attrs.to_string();
  for (ValueId input : node.inputs)
    signature.input_types.push_back(input == kNoValue ? "" : graph.value(input).type.to_string());
  signature.dtype = node.outputs.empty() ? "" : std::string(dtype_name(graph.value(node.outputs[0]).type.dtype));
  return signature;
}

}  // namespace pet::cost
