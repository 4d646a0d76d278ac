// CompiledRule: one direction of a library rule, both sides parsed, with the order in which the
// matcher binds the left side's nodes (from its last node outward along shared values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace pet::search {

// How the matcher finds the graph node for one left-side node, given the nodes bound before it.
struct MatchStep {
  enum class Link : uint8_t {
    Anchor,    // any graph node (the matcher's index already picked it)
    Producer,  // the producer of the graph value bound to `via` (an output of this node)
    Consumer,  // a reader of the graph value bound to `via` at input `position`
  };
  NodeId node = 0;  // left-side node
  Link link = Link::Anchor;
  ValueId via = kNoValue;  // left-side value bound before this step
  int position = 0;
};

struct CompiledRule {
  std::string name;          // kebab-case; " (reversed)" appended for right-to-left
  std::string library_name;  // the library entry's name
  Graph lhs;                 // the side to find
  Graph rhs;                 // the replacement; its inputs are lhs's inputs, same order and names
  std::vector<MatchStep> plan;  // plan[0] is the anchor: lhs's last node
  uint64_t anchor_key = 0;      // anchor_key_of(op, attributes) of the anchor
  std::vector<bool> internal;   // per lhs value: produced by an lhs node and not an lhs output
  int lhs_compute_ops = 0, rhs_compute_ops = 0;
  // The left side has a bias-free Conv: the matcher looks for it in the bias-free view of a graph
  // (search/rules/bias_free_view.h), so it also finds the convs that carry a bias.
  bool over_convs = false;
  std::vector<size_t> per_channel_inputs;  // guard: lhs inputs (by index) that must be [1,C,1,...]
  std::vector<size_t> scalar_inputs;       // guard: lhs inputs of rank 0, which bind scalars only
  // guard: lhs elementwise nodes next to a linear op of the rule (an operand it computes, or its
  // output read by it) whose operands have one shape in the rule: they bind operands of one shape.
  // A linear op distributes over an Add of equal shapes only; with a broadcast operand (a conv's
  // [1,C,1,1] bias) conv(a + b) is not conv(a) + conv(b) near the borders.
  std::vector<NodeId> unbroadcast_nodes;
  // The anchor's inputs computed inside the left side: (input position, the producing node's op).
  std::vector<std::pair<size_t, const OpDef*>> anchor_input_producers;

  // nullopt with `why` set when the direction cannot be matched as a subgraph: an output that is
  // an input, an input the left side never reads, a right side reading a variable the left
  // side lacks, or a left side in several disconnected pieces.
  static std::optional<CompiledRule> compile(const std::string& name, const std::string& library_name,
                                             const std::string& lhs_text, const std::string& rhs_text,
                                             std::string& why, const std::vector<std::string>& per_channel = {});
  // Whether the matched input types meet the rule's guard: per-channel inputs are [1,C,1,...],
  // and a scalar of the rule (the factor of its scalar multiplications) binds a scalar.
  bool guard_holds(const std::vector<TensorType>& input_types) const;
  // The unbroadcast_nodes guard, on the graph nodes bound to the lhs nodes (-1: unbound).
  bool operands_unbroadcast(const Graph& graph, const std::vector<NodeId>& bound_nodes) const;
  // A necessary condition of a match anchored at `anchor`, checked before any binding: the graph
  // computes each of those anchor inputs with the same op (most rules stop here, at a conv).
  bool anchor_inputs_fit(const Graph& graph, const Node& anchor) const;
};

// Some attribute values of a rule are variables: the library proved each rule at one kernel,
// stride, padding and group and at one set of Split sizes, so a left-side node binds the matched
// node's value of each variable attribute (one rule value, one graph value), and a right-side
// attribute equal to a bound rule value takes the matched value. The instance proof then decides
// at those values, as it does for shapes.
struct AttrBinding {
  std::string key;
  AttrValue rule_value;
  AttrValue graph_value;
};
using AttrBindings = std::vector<AttrBinding>;

// Whether an attribute of the op is a variable in rules: every Conv attribute but the group (the
// library's rules are about dense convs) and a Split's sizes.
bool is_variable_attribute(const std::string& op, const std::string& key);

// Binds the rule node's attributes to the graph node's, appending new bindings: false (bindings
// possibly extended; the caller truncates) when the key sets differ, an exact attribute differs
// or a rule value is already bound to another graph value.
bool bind_attributes(const std::string& op, const Attributes& rule, const Attributes& graph, AttrBindings& bindings);

// The rule node's attributes with every bound variable replaced by its graph value.
Attributes bound_attributes(const std::string& op, const Attributes& rule, const AttrBindings& bindings);

// The index key of a node: its op and its exact (not variable) attributes.
uint64_t anchor_key_of(const std::string& op, const Attributes& attrs);

// The side re-built over inputs of the given types (same names as the side's inputs), or nothing
// with the shape rule's reason in `refusal` when a node of the side does not fit them. With
// `output_types` (a right side: the types the match must produce), a Split whose pieces are all
// outputs cuts those sizes. With `bindings`, variable attributes take their bound graph values.
std::optional<Graph> instantiate(const Graph& side, const std::vector<TensorType>& input_types,
                                 const std::vector<TensorType>* output_types, std::string& refusal,
                                 const AttrBindings* bindings = nullptr);

}  // namespace pet::search
