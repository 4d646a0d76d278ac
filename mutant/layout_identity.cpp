// The index-tensor test for cancelling layout chains.
#include "mutant/layout_identity.h"

#include <optional>

#include "core/executor.h"

namespace pet::mutant {
namespace {

bool is_single_layout(const Node& node) {
  return node.def->traits.layout_only && node.outputs.size() == 1 && node.inputs.size() == 1;
}

Tensor iota(const Shape& shape) {
  Tensor tensor(DType::i64, shape);
  auto values = tensor.mutable_i64();
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i);
  return tensor;
}

Tensor run_layout(const Graph& graph, const Node& node, const Tensor& input) {
  TensorType out = graph.value(node.outputs[0]).type;
  out.dtype = DType::i64;
  return execute_node(node, {&input}, {out})[0];
}

}  // namespace

bool cancels(const Graph& graph, const Node& node) {
  if (!is_single_layout(node)) return false;
  const Value& input = graph.value(node.inputs[0]);
  constexpr int64_t kLargest = int64_t{1} << 22;  // a bigger check costs more than it saves
  if (input.type.shape.numel() > kLargest) return false;
  Tensor start = iota(input.type.shape);
  Tensor once = run_layout(graph, node, start);
  if (once.same_content(start)) return true;
  if (input.producer < 0) return false;
  const Node& previous = graph.node(input.producer);
  if (!is_single_layout(previous)) return false;
  const Value& source = graph.value(previous.inputs[0]);
  if (source.type.shape.numel() > kLargest) return false;
  Tensor origin = iota(source.type.shape);
  return run_layout(graph, node, run_layout(graph, previous, origin)).same_content(origin);
}

bool reproduces_an_input(const Graph& graph) {
  const Node& last = graph.nodes().back();
  if (!last.def->traits.layout_only) return false;
  constexpr int64_t kLargest = int64_t{1} << 18;
  // Every graph input gets its own range of indices, so mixing inputs is visible too.
  std::vector<std::optional<Tensor>> values(graph.values().size());
  int64_t offset = 0;
  for (ValueId id : graph.inputs()) {
    const Shape& shape = graph.value(id).type.shape;
    if (shape.numel() > kLargest) return false;
    Tensor tensor = iota(shape);
    for (int64_t& v : tensor.mutable_i64()) v += offset;
    offset += shape.numel();
    values[static_cast<size_t>(id)] = std::move(tensor);
  }
  for (const Node& node : graph.nodes()) {
    std::vector<const Tensor*> args;
    for (ValueId id : node.inputs) {
      if (id == kNoValue || !values[static_cast<size_t>(id)]) return false;  // reads a constant or a computed value
      args.push_back(&*values[static_cast<size_t>(id)]);
    }
    if (!node.def->traits.layout_only) continue;
    std::vector<TensorType> types;
    for (ValueId id : node.outputs) types.push_back({DType::i64, graph.value(id).type.shape});
    std::vector<Tensor> results = execute_node(node, args, types);
    for (size_t i = 0; i < results.size(); ++i) values[static_cast<size_t>(node.outputs[i])] = std::move(results[i]);
  }
  for (ValueId out : last.outputs)
    for (ValueId in : graph.inputs())
      if (values[static_cast<size_t>(out)] && values[static_cast<size_t>(out)]->same_content(*values[static_cast<size_t>(in)]))
        return true;
  return false;
}

}  // namespace pet::mutant
