// Forward propagation of box grids through a graph.
#include "verifier/box_analysis.h"

#include "core/error.h"

namespace pet {

std::vector<BoxGrid> analyze_boxes(const Graph& graph) {
  std::vector<BoxGrid> grids(graph.values().size());
  for (size_t v = 0; v < graph.values().size(); ++v)
    if (graph.values()[v].producer < 0) grids[v] = BoxGrid::whole(graph.values()[v].type.shape);
  for (const Node& node : graph.nodes()) {
    PET_CHECK(static_cast<bool>(node.def->propagate_boxes), "op " + node.op() + " has no box rule");
    std::vector<const TensorType*> types;
    std::vector<const BoxGrid*> inputs;
    for (ValueId id : node.inputs) {
      types.push_back(id == kNoValue ? nullptr : &graph.value(id).type);
      inputs.push_back(id == kNoValue ? nullptr : &grids[static_cast<size_t>(id)]);
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const TensorType& out = graph.value(node.outputs[i]).type;
      BoxContext context{node.attrs, types, inputs, out, static_cast<int>(i)};
      BoxGrid grid = node.def->propagate_boxes(context);
      PET_CHECK(grid.shape() == out.shape, "box rule of " + node.op() + " gave grid " + grid.shape().to_string() +
                                               " for output " + out.shape.to_string());
      grids[static_cast<size_t>(node.outputs[i])] = std::move(grid);
    }
  }
  return grids;
}

}  // namespace pet
