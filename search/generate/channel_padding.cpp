// Channel padding sites and the rewrite that pads them.
#include "search/generate/channel_padding.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/error.h"
#include "search/cost/kernel_groups.h"
#include "verifier/element_domain.h"

namespace pet::search {
namespace {

bool is_plain_conv(const Node& node) {
  return node.op() == "Conv" && node.attrs.get_int("group") == 1 && node.inputs.size() >= 2;
}

// An elementwise op whose only computed input is input 0 (Relu, Clip with constant bounds, ...).
bool is_unary_elementwise(const Node& node, const std::vector<bool>& derived) {
  if (!node.def->traits.elementwise || node.outputs.size() != 1 || node.inputs.empty()) return false;
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoValue && !derived[static_cast<size_t>(node.inputs[i])]) return false;
  return true;
}

// The axis of a constant operand of an elementwise op that runs along the channels (dimension 1 of
// the op's output of rank `rank`), or -1 when the operand is broadcast over them.
int channel_axis(const Graph& graph, ValueId operand, int rank, int64_t channels) {
  const Shape& shape = graph.value(operand).type.shape;
  int axis = 1 - (rank - shape.rank());
  return axis >= 0 && shape[axis] == channels ? axis : -1;
}

// Elementwise ops whose per-channel constant, padded with zeros, keeps the padded channels finite
// (the readers weigh them by zero, which a NaN or an infinity would not survive).
bool takes_zero_padded_operand(const Node& node) {
  return node.op() == "Add" || node.op() == "Sub" || node.op() == "Mul";
}

bool per_channel_operands_padded_safely(const Graph& graph, const Node& node, int64_t channels) {
  int rank = graph.value(node.outputs[0]).type.shape.rank();
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoValue && channel_axis(graph, node.inputs[i], rank, channels) >= 0 &&
        !takes_zero_padded_operand(node))
      return false;
  return true;
}

// The site starting at `conv`, if its output reaches only convs' data inputs.
std::optional<PaddingSite> site_at(const Graph& graph, NodeId conv, const Consumers& readers,
                                   const std::vector<bool>& derived) {
  const Node& producer = graph.node(conv);
  if (!is_plain_conv(producer) || !derived[static_cast<size_t>(producer.inputs[1])]) return std::nullopt;
  if (producer.inputs.size() > 2 && producer.inputs[2] != kNoValue && !derived[static_cast<size_t>(producer.inputs[2])])
    return std::nullopt;
  PaddingSite site;
  site.producer = conv;
  site.channels = graph.value(producer.outputs[0]).type.shape[1];
  ValueId end = producer.outputs[0];
  while (!graph.is_output(end) && readers[static_cast<size_t>(end)].size() == 1 &&
         is_unary_elementwise(graph.node(readers[static_cast<size_t>(end)][0]), derived) &&
         graph.node(readers[static_cast<size_t>(end)][0]).inputs[0] == end) {
    site.chain.push_back(readers[static_cast<size_t>(end)][0]);
    end = graph.node(site.chain.back()).outputs[0];
    if (!per_channel_operands_padded_safely(graph, graph.node(site.chain.back()), site.channels)) return std::nullopt;
  }
  if (graph.is_output(end) || readers[static_cast<size_t>(end)].empty()) return std::nullopt;
  for (NodeId reader : readers[static_cast<size_t>(end)]) {
    const Node& node = graph.node(reader);
    bool data_only = std::count(node.inputs.begin(), node.inputs.end(), end) == 1 && node.inputs[0] == end;
    if (!is_plain_conv(node) || !data_only || !derived[static_cast<size_t>(node.inputs[1])]) return std::nullopt;
    site.readers.push_back(reader);
  }
  std::vector<NodeId> nodes = site.chain;
  nodes.push_back(conv);
  nodes.insert(nodes.end(), site.readers.begin(), site.readers.end());
  if (!may_rewrite(graph, nodes)) return std::nullopt;
  return site;
}

int64_t round_up(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

// A Pad node adding `extra` zeros at the end of `axis` of a constant-derived value.
ValueId padded(Graph& graph, ValueId value, int axis, int64_t extra, const std::string& name) {
  int rank = graph.value(value).type.shape.rank();
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  pads[static_cast<size_t>(rank + axis)] = extra;
  Attributes attrs{{"mode", std::string("constant")}, {"pads", pads}, {"value", 0.0}};
  return graph.add_node1("Pad", attrs, {value}, graph.unique_value_name(name));
}

}  // namespace

std::vector<PaddingSite> channel_padding_sites(const Graph& graph, int64_t multiple) {
  PET_CHECK(multiple > 1, "a channel multiple above 1");
  Consumers readers = graph.consumers();
  std::vector<bool> derived = cost::constant_derived_values(graph);
  std::vector<PaddingSite> sites;
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    std::optional<PaddingSite> site = site_at(graph, id, readers, derived);
    if (site && site->channels % multiple != 0) sites.push_back(std::move(*site));
  }
  return sites;
}

Graph pad_channels(const Graph& graph, const PaddingSite& site, int64_t multiple) {
  int64_t extra = round_up(site.channels, multiple) - site.channels;
  PET_CHECK(extra > 0, "the site needs padding");
  Graph result;
  result.name = graph.name;
  result.opset = graph.opset;
  std::vector<ValueId> mapped(graph.values().size(), kNoValue);
  for (ValueId input : graph.inputs()) mapped[static_cast<size_t>(input)] = result.add_input(graph.value(input).name, graph.value(input).type);
  for (ValueId id = 0; id < static_cast<ValueId>(graph.values().size()); ++id)
    if (graph.is_constant(id)) mapped[static_cast<size_t>(id)] = result.add_constant(graph.value(id).name, *graph.value(id).constant);
  for (NodeId id = 0; id < static_cast<NodeId>(graph.nodes().size()); ++id) {
    const Node& node = graph.node(id);
    std::vector<ValueId> inputs;
    for (ValueId input : node.inputs) inputs.push_back(input == kNoValue ? kNoValue : mapped[static_cast<size_t>(input)]);
    if (id == site.producer) {
      inputs[1] = padded(result, inputs[1], 0, extra, node.name + "_padded_weights");
      if (inputs.size() > 2 && inputs[2] != kNoValue) inputs[2] = padded(result, inputs[2], 0, extra, node.name + "_padded_bias");
    } else if (std::find(site.readers.begin(), site.readers.end(), id) != site.readers.end()) {
      inputs[1] = padded(result, inputs[1], 1, extra, node.name + "_padded_weights");
    } else if (std::find(site.chain.begin(), site.chain.end(), id) != site.chain.end()) {
      // A per-channel operand between (a bias the search split off, a scale) grows with the channels.
      int rank = graph.value(node.outputs[0]).type.shape.rank();
      for (size_t i = 1; i < inputs.size(); ++i) {
        int axis = inputs[i] == kNoValue ? -1 : channel_axis(graph, node.inputs[i], rank, site.channels);
        if (axis >= 0) inputs[i] = padded(result, inputs[i], axis, extra, node.name + "_padded_operand");
      }
    }
    std::vector<std::string> names;
    for (ValueId output : node.outputs) names.push_back(graph.value(output).name);
    std::vector<ValueId> outputs = result.add_node(node.op(), node.attrs, inputs, node.name, names);
    for (size_t i = 0; i < outputs.size(); ++i) mapped[static_cast<size_t>(node.outputs[i])] = outputs[i];
  }
  for (ValueId output : graph.outputs()) result.add_output(mapped[static_cast<size_t>(output)]);
  return result;
}

}  // namespace pet::search
