// The graph IR: static-shape values (inputs, weights, intermediates) and nodes in topological order.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/name_set.h"
#include "core/op_def.h"
#include "core/tensor.h"

namespace pet {

using ValueId = int32_t;
using NodeId = int32_t;
inline constexpr ValueId kNoValue = -1;

struct Value {
  std::string name;
  TensorType type;
  std::optional<Tensor> constant;  // weights and folded constants; shared storage
  NodeId producer = -1;            // -1 for graph inputs and constants
};

struct Node {
  const OpDef* def = nullptr;
  std::string name;
  Attributes attrs;
  std::vector<ValueId> inputs;  // kNoValue for an absent optional input
  std::vector<ValueId> outputs;
  const std::string& op() const { return def->name; }
};

// The readers of every value of a graph: for each value id, the ids of the nodes that read it, in
// ascending order and each once. Held in two arrays, since passes build one per run.
class Consumers {
 public:
  Consumers() = default;
  std::span<const NodeId> operator[](size_t value) const {
    return {readers_.data() + starts_.at(value), readers_.data() + starts_.at(value + 1)};
  }
  size_t size() const { return starts_.empty() ? 0 : starts_.size() - 1; }

 private:
  friend class Graph;
  std::vector<uint32_t> starts_;  // per value, where its readers begin; one more at the end
  std::vector<NodeId> readers_;
};

class Graph {
 public:
  std::string name = "graph";
  int opset = 13;
  // How the model file stores values that pet computes in f32: the graph inputs, outputs and
  // initializers it keeps as float16 (by name), and whether every float initializer was float16
  // (then constants the optimizer derives are written as float16 too). Export writes these back.
  std::set<std::string> float16_values;
  bool float16_weights = false;

  ValueId add_input(const std::string& value_name, TensorType type);
  ValueId add_constant(const std::string& value_name, Tensor value);
  // Creates a node, fills default attributes, runs the op's shape rule and creates its outputs.
  // Empty names are made unique from the node name. For a user's model (the importers, the
  // textual IR) a refusal is a UserError with the rule's message; a candidate that may not fit
  // asks add_node_if_fits (core/shape_fit.h) instead.
  std::vector<ValueId> add_node(const std::string& op, Attributes attrs, std::vector<ValueId> inputs,
                                const std::string& node_name = "", std::vector<std::string> output_names = {});
  ValueId add_node1(const std::string& op, Attributes attrs, std::vector<ValueId> inputs,
                    const std::string& node_name = "") {
    return add_node(op, std::move(attrs), std::move(inputs), node_name).at(0);
  }
  void add_output(ValueId value) { outputs_.push_back(value); }
  void set_outputs(std::vector<ValueId> values) { outputs_ = std::move(values); }

  const std::vector<Value>& values() const { return values_; }
  const Value& value(ValueId id) const { return values_.at(static_cast<size_t>(id)); }
  Value& mutable_value(ValueId id) { return values_.at(static_cast<size_t>(id)); }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& node(NodeId id) const { return nodes_.at(static_cast<size_t>(id)); }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  bool is_constant(ValueId id) const { return id != kNoValue && value(id).constant.has_value(); }
  // Whether the value is one of the graph's outputs (passes must keep those, and their names).
  bool is_output(ValueId id) const;
  std::optional<ValueId> find_value(const std::string& value_name) const;

  // Sets one attribute of a node, which must leave its output types as they are (the shape rule
  // runs again: UserError when it refuses the value, an internal check when the types change).
  void set_node_attribute(NodeId id, const std::string& attr, AttrValue attr_value);
  // Gives a node other inputs in place, which must leave its output types as they are (the shape
  // rule runs again, as above) and keep the order topological: each input a graph input, a
  // constant or produced by an earlier node (internal checks).
  void set_node_inputs(NodeId id, std::vector<ValueId> inputs);
  // Every use of `from` (node inputs and graph outputs) now reads `to`.
  void replace_uses(ValueId from, ValueId to);
  // The same for many pairs in one pass over the nodes: each (from, to) as above. Internal check:
  // no value is replaced twice, and no `to` is itself replaced (so the order of the pairs is moot).
  void replace_uses(std::span<const std::pair<ValueId, ValueId>> replacements);
  // Consumers of each value, as node ids in ascending order.
  Consumers consumers() const;
  // Drops the listed nodes, then values no node, output or input refers to; renumbers ids.
  void remove_nodes(const std::vector<NodeId>& doomed);
  // Takes back the last add_node: drops the last node and its output values (no graph output may
  // be one of them). Ids and names are as they were before that add_node.
  void remove_last_node();
  // Turns a value into a constant and detaches it from its producer (constant folding).
  void make_constant(ValueId id, Tensor value);
  // Re-orders nodes topologically, stable with respect to the current order.
  void sort_topologically();
  // Internal checks: ids in range, single producers, topological order, types match shape rules.
  void validate() const;
  // The same checks without re-running shape rules: for a graph built from a validated one by
  // add_node (which runs them) and removals.
  void validate_structure() const;
  std::string unique_value_name(const std::string& hint);
  // Gives a value a new name (internal check when the name is taken).
  void rename_value(ValueId id, const std::string& new_name);

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;
  std::vector<ValueId> outputs_;
  NameSet names_in_use_;  // shared with this graph's copies but for what each changed
  ValueId add_value(Value value);
  void check_order(bool run_shape_rules) const;
};

// Runs an op's shape rule for the given inputs: the output types, or the rule's refusal as a value
// (used by add_node, validate, importers and every candidate the search builds).
ShapeResult infer_types(const OpDef& def, const Attributes& attrs, const std::vector<const TensorType*>& inputs,
                        const std::string& node_name);

// Fills declared defaults and checks that no unknown attribute is present (internal check).
Attributes complete_attributes(const OpDef& def, Attributes attrs);

}  // namespace pet
