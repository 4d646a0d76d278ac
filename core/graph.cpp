// Graph construction, use replacement, node removal and validation.
#include "core/graph.h"

#include <algorithm>
#include <queue>

#include <fmt/format.h>

#include "core/error.h"
#include "core/registry.h"

namespace pet {

Attributes complete_attributes(const OpDef& def, Attributes attrs) {
  for (const auto& [name, value] : attrs.entries()) {
    auto spec = std::find_if(def.attrs.begin(), def.attrs.end(), [&](const AttrSpec& s) { return s.name == name; });
    PET_CHECK(spec != def.attrs.end(), fmt::format("op {} has no attribute '{}'", def.name, name));
    PET_CHECK(attr_kind(value) == spec->kind, fmt::format("attribute {}.{} has the wrong kind", def.name, name));
  }
  for (const AttrSpec& spec : def.attrs) {
    if (spec.pet_only) {
      PET_CHECK(spec.default_value.has_value(), fmt::format("pet-only attribute {}.{} needs a default", def.name, spec.name));
      auto found = attrs.entries().find(spec.name);
      if (found != attrs.entries().end() && found->second == *spec.default_value) attrs.erase(spec.name);
      continue;
    }
    if (attrs.has(spec.name)) continue;
    PET_CHECK(spec.default_value.has_value(), fmt::format("op {} needs attribute '{}'", def.name, spec.name));
    attrs.set(spec.name, *spec.default_value);
  }
  return attrs;
}

// What every shape rule's outputs must be: free of negative dimensions, of a supported rank and
// small enough to allocate.
static ShapeCheck check_outputs(const ShapeContext& context, const std::vector<TensorType>& types) {
  for (const TensorType& type : types)
    for (int64_t d : type.shape.dims())
      if (d < 0) return context.refuse("computed a negative output dimension in " + type.shape.to_string());
  for (size_t i = 0; i < types.size(); ++i) {
    std::string what = fmt::format("node '{}' ({}): output {}", context.node_name, context.op, i);
    PET_TRY(check_supported_rank(types[i].shape, what));
    PET_TRY(check_allocatable(types[i], what,
                              "the model is too large for this machine; use smaller dimensions (e.g. a smaller "
                              "batch, with --input-shape for symbolic ones)"));
  }
  return {};
}

// Refuses an element type beyond the core three that the op does not declare it computes. The
// types named are the op's declared ones; an op that declares none computes at most f32, i64 and
// bool, which its shape rule sorts out.
// `side` is "input" or "output"; the message is built only on refusal (shape rules run for every
// candidate the mutant generator and the search build).
static ShapeCheck check_element_type(const ShapeContext& context, const OpDef& def, DType type, const char* side, size_t index) {
  if (is_core_dtype(type) || def.extra_types.contains(type)) return {};
  std::string accepted;
  for (DType declared : kAllDTypes)
    if (def.extra_types.contains(declared)) accepted += fmt::format("{}{}", accepted.empty() ? "" : ", ", dtype_name(declared));
  if (accepted.empty()) accepted = "no type beyond f32, i64 and bool";
  return context.refuse(fmt::format("{} has element type {}, which is not supported by pet's {} (it computes {}); "
                                    "cast the value to a type it computes in the model, or open an issue with this model",
                                    fmt::format("{} {}", side, index), dtype_name(type), def.name, accepted));
}

ShapeResult infer_types(const OpDef& def, const Attributes& attrs, const std::vector<const TensorType*>& inputs,
                        const std::string& node_name) {
  int count = static_cast<int>(inputs.size());
  if (count < def.min_inputs || count > def.max_inputs)
    return Refusal{fmt::format("node '{}' ({}): takes {} to {} inputs, got {}", node_name, def.name, def.min_inputs,
                               def.max_inputs, count)};
  ShapeContext context{attrs, inputs, def.name, node_name};
  for (int i = 0; i < count; ++i)
    if (inputs[static_cast<size_t>(i)])
      PET_TRY(check_element_type(context, def, inputs[static_cast<size_t>(i)]->dtype, "input", static_cast<size_t>(i)));
  PET_TRY_ASSIGN(std::vector<TensorType> types, def.infer(context));
  PET_CHECK(static_cast<int>(types.size()) >= 1, "shape rule of " + def.name + " returned no outputs");
  for (size_t i = 0; i < types.size(); ++i)
    PET_TRY(check_element_type(context, def, types[i].dtype, "output", i));
  PET_TRY(check_outputs(context, types));
  return types;
}

ValueId Graph::add_value(Value value) {
  PET_CHECK(!value.name.empty(), "a value needs a name");
  names_in_use_.insert(value.name);  // internal check: the name is not taken
  values_.push_back(std::move(value));
  return static_cast<ValueId>(values_.size() - 1);
}

namespace {

// Internal check that the node's shape rule, run with `attrs` on `input_types`, gives the output
// types its values have (`change` says what changed, for the message).
void check_output_types_kept(const Graph& graph, const Node& node, const Attributes& attrs,
                             const std::vector<const TensorType*>& input_types, const std::string& change) {
  std::vector<TensorType> types = infer_types(*node.def, attrs, input_types, node.name).value();
  PET_CHECK(types.size() == node.outputs.size(), change + " changed node '" + node.name + "''s output count");
  for (size_t i = 0; i < types.size(); ++i)
    PET_CHECK(types[i] == graph.value(node.outputs[i]).type, change + " changed node '" + node.name + "''s output types");
}

}  // namespace

void Graph::set_node_attribute(NodeId id, const std::string& attr, AttrValue attr_value) {
  Node& node = nodes_.at(static_cast<size_t>(id));
  Attributes attrs = node.attrs;
  attrs.set(attr, std::move(attr_value));
  attrs = complete_attributes(*node.def, std::move(attrs));
  std::vector<const TensorType*> input_types;
  for (ValueId input : node.inputs) input_types.push_back(input == kNoValue ? nullptr : &values_.at(static_cast<size_t>(input)).type);
  check_output_types_kept(*this, node, attrs, input_types, "an attribute");
  node.attrs = std::move(attrs);
}

void Graph::set_node_inputs(NodeId id, std::vector<ValueId> inputs) {
  Node& node = nodes_.at(static_cast<size_t>(id));
  std::vector<const TensorType*> input_types;
  for (ValueId input : inputs) {
    if (input == kNoValue) {
      input_types.push_back(nullptr);
      continue;
    }
    const Value& source = values_.at(static_cast<size_t>(input));
    PET_CHECK(source.producer < id, "node '" + node.name + "' would read '" + source.name + "' before it is computed");
    input_types.push_back(&source.type);
  }
  check_output_types_kept(*this, node, node.attrs, input_types, "new inputs");
  node.inputs = std::move(inputs);
}

std::string Graph::unique_value_name(const std::string& hint) {
  std::string base = hint.empty() ? "t" : hint;
  if (!names_in_use_.contains(base)) return base;
  for (int suffix = 1;; ++suffix) {
    std::string candidate = fmt::format("{}_{}", base, suffix);
    if (!names_in_use_.contains(candidate)) return candidate;
  }
}

void Graph::rename_value(ValueId id, const std::string& new_name) {
  Value& target = mutable_value(id);
  if (target.name == new_name) return;
  PET_CHECK(!names_in_use_.contains(new_name), "value name '" + new_name + "' is taken");
  names_in_use_.erase(target.name);
  names_in_use_.insert(new_name);
  target.name = new_name;
}

ValueId Graph::add_input(const std::string& value_name, TensorType type) {
  require_supported_rank(type.shape, fmt::format("input '{}'", value_name));
  require_allocatable(type, fmt::format("input '{}'", value_name),
                      "give it smaller dimensions (with --input-shape for symbolic ones)");
  ValueId id = add_value(Value{value_name, std::move(type), std::nullopt, -1});
  inputs_.push_back(id);
  return id;
}

ValueId Graph::add_constant(const std::string& value_name, Tensor tensor) {
  TensorType type = tensor.type();
  require_supported_rank(type.shape, fmt::format("constant '{}'", value_name));
  return add_value(Value{unique_value_name(value_name), type, std::move(tensor), -1});
}

std::vector<ValueId> Graph::add_node(const std::string& op, Attributes attrs, std::vector<ValueId> inputs,
                                     const std::string& node_name, std::vector<std::string> output_names) {
  const OpDef& def = OpRegistry::global().get(op);
  Node node{&def, node_name.empty() ? fmt::format("{}_{}", op, nodes_.size()) : node_name,
            complete_attributes(def, std::move(attrs)), std::move(inputs), {}};
  std::vector<const TensorType*> input_types;
  for (ValueId id : node.inputs) input_types.push_back(id == kNoValue ? nullptr : &value(id).type);
  while (!input_types.empty() && input_types.back() == nullptr) {  // trailing absent inputs carry nothing
    input_types.pop_back();
    node.inputs.pop_back();
  }
  std::vector<TensorType> types = infer_types(def, node.attrs, input_types, node.name).value_or_throw();
  NodeId node_id = static_cast<NodeId>(nodes_.size());
  for (size_t i = 0; i < types.size(); ++i) {
    std::string hint = i < output_names.size() && !output_names[i].empty() ? output_names[i]
                       : types.size() == 1                                  ? node.name
                                                                            : fmt::format("{}_out{}", node.name, i);
    node.outputs.push_back(add_value(Value{unique_value_name(hint), types[i], std::nullopt, node_id}));
  }
  nodes_.push_back(std::move(node));
  return nodes_.back().outputs;
}

void Graph::remove_last_node() {
  PET_CHECK(!nodes_.empty(), "remove_last_node on a graph without nodes");
  const Node& node = nodes_.back();
  auto first = static_cast<ValueId>(values_.size() - node.outputs.size());
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    PET_CHECK(node.outputs[i] == first + static_cast<ValueId>(i), "node '" + node.name + "''s outputs are not the last values");
    PET_CHECK(!is_output(node.outputs[i]), "node '" + node.name + "' produces a graph output");
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    names_in_use_.erase(values_.back().name);
    values_.pop_back();
  }
  nodes_.pop_back();
}

std::optional<ValueId> Graph::find_value(const std::string& value_name) const {
  for (size_t i = 0; i < values_.size(); ++i)
    if (values_[i].name == value_name) return static_cast<ValueId>(i);
  return std::nullopt;
}

void Graph::replace_uses(ValueId from, ValueId to) {
  for (Node& node : nodes_)
    for (ValueId& input : node.inputs)
      if (input == from) input = to;
  for (ValueId& output : outputs_)
    if (output == from) output = to;
}

void Graph::replace_uses(std::span<const std::pair<ValueId, ValueId>> replacements) {
  std::vector<ValueId> replaced_by(values_.size(), kNoValue);
  for (const auto& [from, to] : replacements) {
    PET_CHECK(replaced_by.at(static_cast<size_t>(from)) == kNoValue, fmt::format("value {} is replaced twice", from));
    replaced_by[static_cast<size_t>(from)] = to;
  }
  for (const auto& [from, to] : replacements)
    PET_CHECK(replaced_by.at(static_cast<size_t>(to)) == kNoValue, fmt::format("value {} is replaced and a replacement", to));
  auto replace = [&](ValueId& id) {
    if (id != kNoValue && replaced_by[static_cast<size_t>(id)] != kNoValue) id = replaced_by[static_cast<size_t>(id)];
  };
  for (Node& node : nodes_)
    for (ValueId& input : node.inputs) replace(input);
  for (ValueId& output : outputs_) replace(output);
}

Consumers Graph::consumers() const {
  // Counted first, then filled: a node reading a value twice is one reader.
  Consumers result;
  std::vector<uint32_t> count(values_.size() + 1, 0);
  std::vector<NodeId> last_reader(values_.size(), -1);
  for (size_t n = 0; n < nodes_.size(); ++n)
    for (ValueId input : nodes_[n].inputs)
      if (input != kNoValue && last_reader[static_cast<size_t>(input)] != static_cast<NodeId>(n)) {
        last_reader[static_cast<size_t>(input)] = static_cast<NodeId>(n);
        ++count[static_cast<size_t>(input) + 1];
      }
  for (size_t v = 0; v < values_.size(); ++v) count[v + 1] += count[v];
  result.starts_ = count;
  result.readers_.resize(count.back());
  std::fill(last_reader.begin(), last_reader.end(), -1);
  for (size_t n = 0; n < nodes_.size(); ++n)
    for (ValueId input : nodes_[n].inputs)
      if (input != kNoValue && last_reader[static_cast<size_t>(input)] != static_cast<NodeId>(n)) {
        last_reader[static_cast<size_t>(input)] = static_cast<NodeId>(n);
        result.readers_[count[static_cast<size_t>(input)]++] = static_cast<NodeId>(n);
      }
  return result;
}

bool Graph::is_output(ValueId id) const {
  return std::find(outputs_.begin(), outputs_.end(), id) != outputs_.end();
}

void Graph::make_constant(ValueId id, Tensor tensor) {
  Value& target = mutable_value(id);
  PET_CHECK(tensor.type() == target.type, "folded constant type " + tensor.type().to_string() + " differs from " +
                                              target.type.to_string());
  target.constant = std::move(tensor);
  target.producer = -1;
}

void Graph::remove_nodes(const std::vector<NodeId>& doomed) {
  std::vector<bool> drop_node(nodes_.size(), false);
  for (NodeId id : doomed) drop_node.at(static_cast<size_t>(id)) = true;
  std::vector<bool> keep_value(values_.size(), false);
  for (ValueId id : inputs_) keep_value[static_cast<size_t>(id)] = true;
  for (ValueId id : outputs_) keep_value[static_cast<size_t>(id)] = true;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (drop_node[n]) continue;
    for (ValueId id : nodes_[n].inputs)
      if (id != kNoValue) keep_value[static_cast<size_t>(id)] = true;
    for (ValueId id : nodes_[n].outputs) keep_value[static_cast<size_t>(id)] = true;
  }
  std::vector<ValueId> new_value_id(values_.size(), kNoValue);
  std::vector<Value> kept_values;
  for (size_t v = 0; v < values_.size(); ++v) {
    if (!keep_value[v]) {
      names_in_use_.erase(values_[v].name);
      continue;
    }
    new_value_id[v] = static_cast<ValueId>(kept_values.size());
    kept_values.push_back(std::move(values_[v]));
  }
  std::vector<Node> kept_nodes;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (drop_node[n]) continue;
    Node node = std::move(nodes_[n]);
    for (ValueId& id : node.inputs)
      if (id != kNoValue) id = new_value_id[static_cast<size_t>(id)];
    for (ValueId& id : node.outputs) id = new_value_id[static_cast<size_t>(id)];
    kept_nodes.push_back(std::move(node));
  }
  for (ValueId& id : inputs_) id = new_value_id[static_cast<size_t>(id)];
  for (ValueId& id : outputs_) id = new_value_id[static_cast<size_t>(id)];
  values_ = std::move(kept_values);
  nodes_ = std::move(kept_nodes);
  for (Value& v : values_) v.producer = -1;
  for (size_t n = 0; n < nodes_.size(); ++n)
    for (ValueId id : nodes_[n].outputs) values_[static_cast<size_t>(id)].producer = static_cast<NodeId>(n);
}

void Graph::sort_topologically() {
  size_t count = nodes_.size();
  std::vector<int> pending(count, 0);
  auto users = consumers();
  for (size_t n = 0; n < count; ++n)
    for (ValueId id : nodes_[n].inputs)
      if (id != kNoValue && values_[static_cast<size_t>(id)].producer >= 0) ++pending[n];
  // Min-heap on the current index keeps the order stable.
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (size_t n = 0; n < count; ++n)
    if (pending[n] == 0) ready.push(static_cast<NodeId>(n));
  std::vector<NodeId> order;
  while (!ready.empty()) {
    NodeId n = ready.top();
    ready.pop();
    order.push_back(n);
    for (ValueId out : nodes_[static_cast<size_t>(n)].outputs)
      for (NodeId user : users[static_cast<size_t>(out)]) {
        int uses = 0;
        for (ValueId in : nodes_[static_cast<size_t>(user)].inputs) uses += in == out;
        if ((pending[static_cast<size_t>(user)] -= uses) == 0) ready.push(user);
      }
  }
  PET_CHECK(order.size() == count, "graph has a cycle");
  std::vector<Node> sorted;
  for (NodeId n : order) sorted.push_back(std::move(nodes_[static_cast<size_t>(n)]));
  nodes_ = std::move(sorted);
  for (size_t n = 0; n < nodes_.size(); ++n)
    for (ValueId id : nodes_[n].outputs) values_[static_cast<size_t>(id)].producer = static_cast<NodeId>(n);
}

void Graph::validate() const { check_order(true); }

void Graph::validate_structure() const { check_order(false); }

void Graph::check_order(bool run_shape_rules) const {
  std::vector<bool> available(values_.size(), false);
  for (ValueId id : inputs_) available.at(static_cast<size_t>(id)) = true;
  for (size_t v = 0; v < values_.size(); ++v)
    if (values_[v].constant) available[v] = true;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    const Node& node = nodes_[n];
    std::vector<const TensorType*> types;
    for (ValueId id : node.inputs) {
      if (id == kNoValue) {
        types.push_back(nullptr);
        continue;
      }
      PET_CHECK(available.at(static_cast<size_t>(id)), "node '" + node.name + "' reads '" + value(id).name +
                                                           "' before it is computed");
      types.push_back(&value(id).type);
    }
    std::vector<TensorType> expected;
    if (run_shape_rules) {
      expected = infer_types(*node.def, node.attrs, types, node.name).value();
      PET_CHECK(expected.size() >= node.outputs.size(), "node '" + node.name + "' has too many outputs");
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const Value& out = value(node.outputs[i]);
      PET_CHECK(out.producer == static_cast<NodeId>(n) && !out.constant, "value '" + out.name + "' producer mismatch");
      if (run_shape_rules)
        PET_CHECK(out.type == expected[i], "value '" + out.name + "' has type " + out.type.to_string() +
                                               " but its shape rule says " + expected[i].to_string());
      available[static_cast<size_t>(node.outputs[i])] = true;
    }
  }
  for (ValueId id : outputs_) PET_CHECK(available.at(static_cast<size_t>(id)), "graph output is never computed");
}

}  // namespace pet
