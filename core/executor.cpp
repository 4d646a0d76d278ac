// Node-by-node execution with early release of values nobody reads any more.
#include "core/executor.h"

#include <random>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

std::vector<Tensor> execute_node(const Node& node, const std::vector<const Tensor*>& inputs,
                                 const std::vector<TensorType>& output_types) {
  std::vector<Tensor> outputs;
  outputs.reserve(output_types.size());
  for (const TensorType& type : output_types) outputs.emplace_back(type);
  KernelContext context{node.attrs, inputs, outputs};
  node.def->compute(context);
  for (size_t i = 0; i < outputs.size(); ++i)
    PET_CHECK(outputs[i].type() == output_types[i], "kernel of " + node.op() + " changed output " +
                                                        std::to_string(i) + " to " + outputs[i].type().to_string());
  return outputs;
}

static std::vector<int> last_uses(const Graph& graph) {
  std::vector<int> last(graph.values().size(), -1);
  for (size_t n = 0; n < graph.nodes().size(); ++n)
    for (ValueId id : graph.nodes()[n].inputs)
      if (id != kNoValue) last[static_cast<size_t>(id)] = static_cast<int>(n);
  for (ValueId id : graph.outputs()) last[static_cast<size_t>(id)] = static_cast<int>(graph.nodes().size());
  return last;
}

std::vector<Tensor> execute(const Graph& graph, const std::vector<Tensor>& inputs) {
  if (inputs.size() != graph.inputs().size())
    throw UserError(fmt::format("graph '{}' takes {} inputs, got {}", graph.name, graph.inputs().size(), inputs.size()));
  std::vector<std::optional<Tensor>> live(graph.values().size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& input = graph.value(graph.inputs()[i]);
    if (inputs[i].type() != input.type)
      throw UserError(fmt::format("input '{}' must be {}, got {}; pass a tensor of that type and shape", input.name,
                                  input.type.to_string(), inputs[i].type().to_string()));
    live[static_cast<size_t>(graph.inputs()[i])] = inputs[i];
  }
  for (size_t v = 0; v < graph.values().size(); ++v)
    if (graph.values()[v].constant) live[v] = graph.values()[v].constant;
  std::vector<int> last = last_uses(graph);
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    const Node& node = graph.nodes()[n];
    std::vector<const Tensor*> args;
    for (ValueId id : node.inputs) {
      if (id == kNoValue) {
        args.push_back(nullptr);
        continue;
      }
      PET_CHECK(live[static_cast<size_t>(id)].has_value(), "value '" + graph.value(id).name + "' is not computed");
      args.push_back(&*live[static_cast<size_t>(id)]);
    }
    std::vector<TensorType> types;
    for (ValueId id : node.outputs) types.push_back(graph.value(id).type);
    std::vector<Tensor> results = execute_node(node, args, types);
    for (size_t i = 0; i < results.size(); ++i) live[static_cast<size_t>(node.outputs[i])] = std::move(results[i]);
    for (ValueId id : node.inputs)  // release what no later node or output needs
      if (id != kNoValue && last[static_cast<size_t>(id)] == static_cast<int>(n) && !graph.value(id).constant)
        live[static_cast<size_t>(id)].reset();
  }
  std::vector<Tensor> outputs;
  for (ValueId id : graph.outputs()) outputs.push_back(*live[static_cast<size_t>(id)]);
  return outputs;
}

std::vector<Tensor> execute_named(const Graph& graph, const std::map<std::string, Tensor>& inputs) {
  std::vector<Tensor> ordered;
  for (ValueId id : graph.inputs()) {
    auto found = inputs.find(graph.value(id).name);
    if (found == inputs.end())
      throw UserError(fmt::format("no value given for graph input '{}' ({})", graph.value(id).name,
                                  graph.value(id).type.to_string()));
    ordered.push_back(found->second);
  }
  for (const auto& [name, tensor] : inputs) {
    bool known = false;
    for (ValueId id : graph.inputs()) known = known || graph.value(id).name == name;
    if (!known) throw UserError(fmt::format("'{}' is not an input of graph '{}'", name, graph.name));
  }
  return execute(graph, ordered);
}

std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed) {
  std::vector<Tensor> result;
  for (size_t i = 0; i < graph.inputs().size(); ++i) {
    const TensorType& type = graph.value(graph.inputs()[i]).type;
    uint64_t input_seed = seed + i;
    if (type.dtype == DType::f32) {
      result.push_back(Tensor::random_f32(type.shape, input_seed));
      continue;
    }
    Tensor tensor(type);
    std::mt19937_64 engine(input_seed);
    if (type.dtype == DType::i64)
      for (int64_t& v : tensor.mutable_i64()) v = static_cast<int64_t>(engine() & 1);
    else
      for (uint8_t& v : tensor.mutable_b8()) v = static_cast<uint8_t>(engine() & 1);
    result.push_back(std::move(tensor));
  }
  return result;
}

}  // namespace pet
