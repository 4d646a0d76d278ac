// splice(): a replacement program takes a region's place in its parent graph.
#include <algorithm>
#include <map>

#include "core/error.h"
#include "search/generate/partition.h"
#include "search/passes/eliminate_dead_nodes.h"

namespace pet::search {

std::vector<ValueId> insert_graph(Graph& target, const Graph& source, const std::vector<ValueId>& inputs,
                                  const std::string& name_prefix) {
  PET_CHECK(inputs.size() == source.inputs().size(), "insert_graph: input count differs");
  std::vector<ValueId> mapped(source.values().size(), kNoValue);
  for (size_t i = 0; i < inputs.size(); ++i) mapped[static_cast<size_t>(source.inputs()[i])] = inputs[i];
  for (size_t v = 0; v < source.values().size(); ++v) {
    const Value& value = source.values()[v];
    if (value.constant && mapped[v] == kNoValue)
      mapped[v] = target.add_constant(target.unique_value_name(name_prefix + value.name), *value.constant);
  }
  for (const Node& node : source.nodes()) {
    std::vector<ValueId> node_inputs;
    for (ValueId in : node.inputs) node_inputs.push_back(in == kNoValue ? kNoValue : mapped[static_cast<size_t>(in)]);
    std::vector<std::string> names;
    for (ValueId out : node.outputs) names.push_back(target.unique_value_name(name_prefix + source.value(out).name));
    std::vector<ValueId> outs = target.add_node(node.op(), node.attrs, node_inputs, name_prefix + node.name, names);
    for (size_t i = 0; i < outs.size(); ++i) mapped[static_cast<size_t>(node.outputs[i])] = outs[i];
  }
  std::vector<ValueId> outputs;
  for (ValueId out : source.outputs()) outputs.push_back(mapped[static_cast<size_t>(out)]);
  return outputs;
}

namespace {

// After the rewrite each graph output position holds the replacement's value; give it back the
// name the parent exported (an Identity when that value already carries a name of its own that
// must stay: a graph input, or a value exported twice).
void restore_output_names(Graph& graph, const std::vector<std::pair<size_t, std::string>>& renamed,
                          const std::vector<bool>& created) {
  std::vector<ValueId> outputs = graph.outputs();
  std::vector<bool> renamed_once(graph.values().size(), false);
  for (const auto& [position, name] : renamed) {
    ValueId value = outputs[position];
    auto slot = static_cast<size_t>(value);
    if (graph.value(value).name == name) continue;
    if (slot < created.size() && created[slot] && !renamed_once[slot] && !graph.find_value(name)) {
      graph.rename_value(value, name);
      renamed_once[slot] = true;
    } else {
      outputs[position] = graph.add_node("Identity", {}, {value}, name, {name}).at(0);
    }
  }
  graph.set_outputs(outputs);
}

void check_interface(const Graph& parent, const Subprogram& sub, const Graph& replacement) {
  PET_CHECK(replacement.inputs().size() == sub.inputs.size() && replacement.outputs().size() == sub.outputs.size(),
            "splice: the replacement's interface differs from the region's");
  for (size_t i = 0; i < sub.inputs.size(); ++i)
    PET_CHECK(replacement.value(replacement.inputs()[i]).type == parent.value(sub.inputs[i]).type,
              "splice: replacement input " + std::to_string(i) + " has another type");
  for (size_t i = 0; i < sub.outputs.size(); ++i)
    PET_CHECK(replacement.value(replacement.outputs()[i]).type == parent.value(sub.outputs[i]).type,
              "splice: replacement output " + std::to_string(i) + " has another type");
}

// The sites' nodes, after checking each site's interface against the replacement and that no
// two sites share a node.
std::vector<NodeId> nodes_of_sites(const Graph& parent, const std::vector<const Subprogram*>& sites,
                                   const std::vector<const Graph*>& replacements) {
  std::vector<bool> taken(parent.nodes().size(), false);
  std::vector<NodeId> nodes;
  for (size_t s = 0; s < sites.size(); ++s) {
    const Subprogram* sub = sites[s];
    check_interface(parent, *sub, *replacements[s]);
    for (NodeId id : sub->nodes) {
      PET_CHECK(!taken[static_cast<size_t>(id)], "splice_all: two sites share node " + parent.node(id).name);
      taken[static_cast<size_t>(id)] = true;
      nodes.push_back(id);
    }
  }
  return nodes;
}

}  // namespace

Graph splice_all(const Graph& parent, const std::vector<const Subprogram*>& sites, const Graph& replacement,
                 const std::vector<std::string>& name_prefixes) {
  return splice_all(parent, sites, std::vector<const Graph*>(sites.size(), &replacement), name_prefixes);
}

Graph splice_all(const Graph& parent, const std::vector<const Subprogram*>& sites,
                 const std::vector<const Graph*>& replacements, const std::vector<std::string>& name_prefixes) {
  PET_CHECK(sites.size() == name_prefixes.size() && sites.size() == replacements.size(),
            "splice_all: one name prefix and one replacement per site");
  std::vector<NodeId> removed = nodes_of_sites(parent, sites, replacements);
  Graph graph = parent;
  std::vector<std::pair<size_t, std::string>> renamed;  // graph output positions the regions produced
  for (size_t p = 0; p < parent.outputs().size(); ++p)
    for (const Subprogram* sub : sites)
      if (std::count(sub->outputs.begin(), sub->outputs.end(), parent.outputs()[p]))
        renamed.emplace_back(p, parent.value(parent.outputs()[p]).name);
  size_t first_new = graph.values().size();
  // Every replacement is inserted before any use is rewired, so a site reading another site's
  // output reads the other's replacement once the rewiring is done.
  std::vector<std::vector<ValueId>> produced;
  for (size_t s = 0; s < sites.size(); ++s)
    produced.push_back(insert_graph(graph, *replacements[s], sites[s]->inputs, name_prefixes[s]));
  for (size_t s = 0; s < sites.size(); ++s)
    for (size_t i = 0; i < sites[s]->outputs.size(); ++i) graph.replace_uses(sites[s]->outputs[i], produced[s][i]);
  // Values the splice created, tracked through remove_nodes' renumbering by marking their names.
  std::vector<std::string> created_names;
  for (size_t v = first_new; v < graph.values().size(); ++v) created_names.push_back(graph.values()[v].name);
  graph.remove_nodes(removed);
  std::vector<bool> created(graph.values().size(), false);
  for (const std::string& name : created_names)
    if (auto id = graph.find_value(name)) created[static_cast<size_t>(*id)] = true;
  restore_output_names(graph, renamed, created);
  graph.sort_topologically();
  eliminate_dead_nodes(graph);
  // add_node ran the shape rules of every inserted node and the interface types are checked
  // above, so only the order and the producers need checking again.
  graph.validate_structure();
  return graph;
}

Graph splice(const Graph& parent, const Subprogram& sub, const Graph& replacement, const std::string& name_prefix) {
  return splice_all(parent, {&sub}, replacement, {name_prefix});
}

}  // namespace pet::search
