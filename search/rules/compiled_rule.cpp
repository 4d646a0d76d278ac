// Parsing one rule direction and planning the order in which its left side is matched.
#include "search/rules/compiled_rule.h"

#include <algorithm>

#include "core/hash.h"
#include "core/shape_fit.h"
#include "core/structural_hash.h"
#include "core/text_ir.h"
#include "search/generate/partition.h"

namespace pet::search {
namespace {

int compute_ops(const Graph& graph) {
  return static_cast<int>(std::count_if(graph.nodes().begin(), graph.nodes().end(),
                                        [](const Node& node) { return node.def->traits.compute_heavy; }));
}

bool reads(const Node& node, ValueId value) {
  return std::find(node.inputs.begin(), node.inputs.end(), value) != node.inputs.end();
}

// The next step: a node producing a value an ordered node reads, else a node reading a value
// an ordered node reads or produces; latest nodes first, so the plan walks up from the anchor.
std::optional<MatchStep> next_step(const Graph& lhs, const std::vector<bool>& ordered) {
  auto count = static_cast<NodeId>(lhs.nodes().size());
  for (NodeId m = count; m-- > 0;) {
    if (ordered[static_cast<size_t>(m)]) continue;
    const std::vector<ValueId>& outputs = lhs.node(m).outputs;
    for (NodeId o = 0; o < count; ++o)
      if (ordered[static_cast<size_t>(o)])
        for (ValueId v : outputs)
          if (reads(lhs.node(o), v)) return MatchStep{m, MatchStep::Link::Producer, v, 0};
  }
  for (NodeId m = count; m-- > 0;) {
    if (ordered[static_cast<size_t>(m)]) continue;
    const Node& node = lhs.node(m);
    for (size_t p = 0; p < node.inputs.size(); ++p)
      for (NodeId o = 0; o < count; ++o) {
        if (!ordered[static_cast<size_t>(o)] || node.inputs[p] == kNoValue) continue;
        const Node& other = lhs.node(o);
        bool shared = reads(other, node.inputs[p]) ||
                      std::find(other.outputs.begin(), other.outputs.end(), node.inputs[p]) != other.outputs.end();
        if (shared) return MatchStep{m, MatchStep::Link::Consumer, node.inputs[p], static_cast<int>(p)};
      }
  }
  return std::nullopt;
}

// Checks that only make sense for a subgraph rewrite; "" when the direction is usable.
std::string unusable(const Graph& lhs, const Graph& rhs) {
  if (lhs.nodes().empty()) return "the left side has no node";
  for (ValueId out : lhs.outputs())
    if (lhs.value(out).producer < 0) return "a left-side output is an input";
  for (ValueId in : lhs.inputs())
    if (std::none_of(lhs.nodes().begin(), lhs.nodes().end(), [&](const Node& node) { return reads(node, in); }))
      return "the left side never reads input %" + lhs.value(in).name;
  for (ValueId in : rhs.inputs())
    if (!lhs.find_value(rhs.value(in).name) || lhs.value(*lhs.find_value(rhs.value(in).name)).producer >= 0)
      return "the right side reads %" + rhs.value(in).name + ", which the left side does not take";
  if (lhs.outputs().size() != rhs.outputs().size()) return "the sides have different output counts";
  return "";
}

// The right side with the left side's inputs, in the left side's order.
Graph align_inputs(const Graph& lhs, const Graph& rhs) {
  Graph aligned;
  aligned.name = rhs.name;
  aligned.opset = rhs.opset;
  std::vector<ValueId> inputs;
  for (ValueId in : lhs.inputs()) aligned.add_input(lhs.value(in).name, lhs.value(in).type);
  for (ValueId in : rhs.inputs()) inputs.push_back(*aligned.find_value(rhs.value(in).name));
  aligned.set_outputs(insert_graph(aligned, rhs, inputs, ""));
  return aligned;
}

}  // namespace

bool is_variable_attribute(const std::string& op, const std::string& key) {
  // The group stays exact: what holds for one dense conv (concat of weights on the filters, of
  // inputs and weights on the channels) does not for a grouped one, and a rule proved at group 1
  // would only fail its instance proofs there.
  if (op == "Conv") return key != "group";
  if (op == "Split") return key == "split";
  return false;
}

bool bind_attributes(const std::string& op, const Attributes& rule, const Attributes& graph, AttrBindings& bindings) {
  if (rule.entries().size() != graph.entries().size()) return false;
  for (const auto& [key, rule_value] : rule.entries()) {
    auto found = graph.entries().find(key);
    if (found == graph.entries().end()) return false;
    if (!is_variable_attribute(op, key)) {
      if (!(found->second == rule_value)) return false;
      continue;
    }
    auto bound = std::find_if(bindings.begin(), bindings.end(), [&, k = &key, v = &rule_value](const AttrBinding& b) {
      return b.key == *k && b.rule_value == *v;
    });
    if (bound == bindings.end())
      bindings.push_back({key, rule_value, found->second});
    else if (!(bound->graph_value == found->second))
      return false;
  }
  return true;
}

Attributes bound_attributes(const std::string& op, const Attributes& rule, const AttrBindings& bindings) {
  Attributes result = rule;
  for (const auto& [key, value] : rule.entries())
    for (const AttrBinding& binding : bindings)
      if (is_variable_attribute(op, key) && binding.key == key && binding.rule_value == value)
        result.set(key, binding.graph_value);
  return result;
}

bool CompiledRule::anchor_inputs_fit(const Graph& graph, const Node& anchor) const {
  for (const auto& [position, op] : anchor_input_producers) {
    if (position >= anchor.inputs.size() || anchor.inputs[position] == kNoValue) return false;
    NodeId producer = graph.value(anchor.inputs[position]).producer;
    if (producer < 0 || graph.node(producer).def != op) return false;
  }
  return true;
}

bool CompiledRule::guard_holds(const std::vector<TensorType>& input_types) const {
  for (size_t i : per_channel_inputs) {
    const std::vector<int64_t>& dims = input_types.at(i).shape.dims();
    if (dims.size() < 2) return false;
    for (size_t d = 0; d < dims.size(); ++d)
      if (d != 1 && dims[d] != 1) return false;
  }
  for (size_t i : scalar_inputs)
    if (input_types.at(i).shape.rank() != 0) return false;
  return true;
}

bool CompiledRule::operands_unbroadcast(const Graph& graph, const std::vector<NodeId>& bound_nodes) const {
  for (NodeId lhs_node : unbroadcast_nodes) {
    NodeId bound = bound_nodes.at(static_cast<size_t>(lhs_node));
    if (bound < 0) continue;
    const Node& node = graph.node(bound);
    for (ValueId input : node.inputs)
      if (input != kNoValue && graph.value(input).type.shape != graph.value(node.inputs[0]).type.shape) return false;
  }
  return true;
}

uint64_t anchor_key_of(const std::string& op, const Attributes& attrs) {
  Attributes exact;
  for (const auto& [key, value] : attrs.entries())
    if (!is_variable_attribute(op, key)) exact.set(key, value);
  Hasher hasher;
  hasher.add(op);
  hasher.add(attributes_hash(exact));
  return hasher.value();
}

namespace {

// Elementwise nodes with operands of one shape beside a node that is not elementwise (a Conv, a
// MatMul): see CompiledRule::unbroadcast_nodes.
std::vector<NodeId> find_unbroadcast_nodes(const Graph& lhs) {
  Consumers readers = lhs.consumers();
  auto linear = [&](NodeId id) { return id >= 0 && !lhs.node(id).def->traits.elementwise; };
  std::vector<NodeId> nodes;
  for (NodeId id = 0; id < static_cast<NodeId>(lhs.nodes().size()); ++id) {
    const Node& node = lhs.node(id);
    if (!node.def->traits.elementwise || node.inputs.size() < 2) continue;
    bool one_shape = true, beside_linear = false;
    for (ValueId input : node.inputs) {
      if (input == kNoValue) continue;
      one_shape = one_shape && lhs.value(input).type.shape == lhs.value(node.inputs[0]).type.shape;
      beside_linear = beside_linear || linear(lhs.value(input).producer);
    }
    for (ValueId output : node.outputs)
      for (NodeId reader : readers[static_cast<size_t>(output)]) beside_linear = beside_linear || linear(reader);
    if (one_shape && beside_linear) nodes.push_back(id);
  }
  return nodes;
}

// A Split whose pieces are all side outputs cuts what the match needs: the library wrote its
// sizes for its small shapes, so they are taken from the matched output types instead (the
// instance proof checks the result like any other).
Attributes fitted_attributes(const Graph& side, const Node& node, Attributes attrs,
                             const std::vector<TensorType>* output_types) {
  if (!output_types || node.op() != "Split") return attrs;
  std::vector<int64_t> sizes;
  for (ValueId out : node.outputs) {
    auto position = std::find(side.outputs().begin(), side.outputs().end(), out);
    if (position == side.outputs().end()) return attrs;
    const Shape& shape = (*output_types)[static_cast<size_t>(position - side.outputs().begin())].shape;
    int64_t rank = static_cast<int64_t>(shape.rank()), axis = node.attrs.get_int("axis");
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return attrs;
    sizes.push_back(shape.dims()[static_cast<size_t>(axis)]);
  }
  attrs.set("split", sizes);
  return attrs;
}

}  // namespace

std::optional<Graph> instantiate(const Graph& side, const std::vector<TensorType>& input_types,
                                 const std::vector<TensorType>* output_types, std::string& refusal,
                                 const AttrBindings* bindings) {
  Graph instance;
  instance.name = side.name;
  instance.opset = side.opset;
  std::vector<ValueId> mapped(side.values().size(), kNoValue);
  for (size_t i = 0; i < side.inputs().size(); ++i)
    mapped[static_cast<size_t>(side.inputs()[i])] =
        instance.add_input(side.value(side.inputs()[i]).name, input_types.at(i));
  for (size_t v = 0; v < side.values().size(); ++v)
    if (side.values()[v].constant) mapped[v] = instance.add_constant(side.values()[v].name, *side.values()[v].constant);
  for (const Node& node : side.nodes()) {
    std::vector<ValueId> inputs;
    for (ValueId in : node.inputs) inputs.push_back(in == kNoValue ? kNoValue : mapped[static_cast<size_t>(in)]);
    std::vector<std::string> names;
    for (ValueId out : node.outputs) names.push_back(side.value(out).name);
    Attributes attrs = bindings ? bound_attributes(node.op(), node.attrs, *bindings) : node.attrs;
    std::optional<std::vector<ValueId>> outs =
        add_node_if_fits(instance, node.op(), fitted_attributes(side, node, std::move(attrs), output_types), inputs,
                         node.name, names, refusal);
    if (!outs) return std::nullopt;
    for (size_t i = 0; i < outs->size(); ++i) mapped[static_cast<size_t>(node.outputs[i])] = (*outs)[i];
  }
  std::vector<ValueId> outputs;
  for (ValueId out : side.outputs()) outputs.push_back(mapped[static_cast<size_t>(out)]);
  instance.set_outputs(outputs);
  return instance;
}

std::optional<CompiledRule> CompiledRule::compile(const std::string& name, const std::string& library_name,
                                                  const std::string& lhs_text, const std::string& rhs_text,
                                                  std::string& why, const std::vector<std::string>& per_channel) {
  CompiledRule rule;
  rule.name = name;
  rule.library_name = library_name;
  rule.lhs = parse_graph(lhs_text);
  Graph rhs = parse_graph(rhs_text);
  why = unusable(rule.lhs, rhs);
  if (!why.empty()) return std::nullopt;
  rule.rhs = align_inputs(rule.lhs, rhs);
  std::vector<bool> ordered(rule.lhs.nodes().size(), false);
  auto anchor = static_cast<NodeId>(rule.lhs.nodes().size() - 1);
  rule.plan.push_back({anchor, MatchStep::Link::Anchor, kNoValue, 0});
  ordered.back() = true;
  while (rule.plan.size() < rule.lhs.nodes().size()) {
    std::optional<MatchStep> step = next_step(rule.lhs, ordered);
    if (!step) {
      why = "the left side is not connected";
      return std::nullopt;
    }
    rule.plan.push_back(*step);
    ordered[static_cast<size_t>(step->node)] = true;
  }
  const Node& last = rule.lhs.node(anchor);
  rule.anchor_key = anchor_key_of(last.op(), last.attrs);
  for (size_t i = 0; i < last.inputs.size(); ++i)
    if (last.inputs[i] != kNoValue)
      if (NodeId producer = rule.lhs.value(last.inputs[i]).producer; producer >= 0)
        rule.anchor_input_producers.emplace_back(i, rule.lhs.node(producer).def);
  rule.internal.assign(rule.lhs.values().size(), false);
  for (const Node& node : rule.lhs.nodes())
    for (ValueId out : node.outputs) rule.internal[static_cast<size_t>(out)] = true;
  for (ValueId out : rule.lhs.outputs()) rule.internal[static_cast<size_t>(out)] = false;
  rule.lhs_compute_ops = compute_ops(rule.lhs);
  rule.rhs_compute_ops = compute_ops(rule.rhs);
  for (size_t i = 0; i < rule.lhs.inputs().size(); ++i)
    if (std::find(per_channel.begin(), per_channel.end(), rule.lhs.value(rule.lhs.inputs()[i]).name) != per_channel.end())
      rule.per_channel_inputs.push_back(i);
  for (size_t i = 0; i < rule.lhs.inputs().size(); ++i)
    if (rule.lhs.value(rule.lhs.inputs()[i]).type.shape.rank() == 0) rule.scalar_inputs.push_back(i);
  rule.unbroadcast_nodes = find_unbroadcast_nodes(rule.lhs);
  rule.over_convs = std::any_of(rule.lhs.nodes().begin(), rule.lhs.nodes().end(), [](const Node& node) {
    return node.op() == "Conv" && (node.inputs.size() < 3 || node.inputs[2] == kNoValue);
  });
  return rule;
}

}  // namespace pet::search
