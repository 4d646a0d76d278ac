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

namespace {

// Uniform in [0, 1) from the top `bits` bits of one draw, the same on every standard library.
double unit_interval(std::mt19937_64& engine, int bits) {
  return static_cast<double>(engine() >> (64 - bits)) / static_cast<double>(uint64_t{1} << bits);
}

Tensor random_f64(const Shape& shape, uint64_t seed, double range) {
  Tensor tensor(DType::f64, shape);
  std::mt19937_64 engine(seed);
  for (double& value : tensor.mutable_view<DType::f64>()) value = -range + 2 * range * unit_interval(engine, 53);
  return tensor;
}

// Rounded to nearest; a value that rounds up to `range` steps down one bfloat16 to stay below it.
Tensor random_bf16(const Shape& shape, uint64_t seed, double range) {
  Tensor tensor(DType::bf16, shape);
  std::mt19937_64 engine(seed);
  const float high = static_cast<float>(range);
  for (BFloat16& value : tensor.mutable_view<DType::bf16>()) {
    value = float_to_bfloat16(static_cast<float>(-range + 2 * range * unit_interval(engine, 24)));
    if (bfloat16_to_float(value) >= high) value.bits = static_cast<uint16_t>(float_to_bfloat16(high).bits - 1);
  }
  return tensor;
}

// Every bit pattern of the type equally likely: its whole range, extremes included.
template <DType D>
Tensor random_whole_range(const Shape& shape, uint64_t seed) {
  Tensor tensor(D, shape);
  std::mt19937_64 engine(seed);
  for (storage_t<D>& value : tensor.mutable_view<D>()) value = static_cast<storage_t<D>>(engine());
  return tensor;
}

// 0 or 1 from the lowest bit of each draw (i64 and bool drew so before the other types came).
template <DType D>
Tensor random_bits(const Shape& shape, uint64_t seed) {
  Tensor tensor(D, shape);
  std::mt19937_64 engine(seed);
  for (storage_t<D>& value : tensor.mutable_view<D>()) value = static_cast<storage_t<D>>(engine() & 1);
  return tensor;
}

}  // namespace

Tensor random_input(const TensorType& type, uint64_t seed, double range) {
  PET_CHECK(range > 0, "random_input needs a positive range");
  switch (type.dtype) {
    case DType::f32: return Tensor::random_f32(type.shape, seed, static_cast<float>(-range), static_cast<float>(range));
    case DType::f64: return random_f64(type.shape, seed, range);
    case DType::bf16: return random_bf16(type.shape, seed, range);
    case DType::i8: return random_whole_range<DType::i8>(type.shape, seed);
    case DType::u8: return random_whole_range<DType::u8>(type.shape, seed);
    case DType::i16: return random_whole_range<DType::i16>(type.shape, seed);
    case DType::u16: return random_whole_range<DType::u16>(type.shape, seed);
    case DType::i64: return random_bits<DType::i64>(type.shape, seed);
    case DType::i32: return random_bits<DType::i32>(type.shape, seed);
    case DType::u32: return random_bits<DType::u32>(type.shape, seed);
    case DType::u64: return random_bits<DType::u64>(type.shape, seed);
    case DType::boolean: return random_bits<DType::boolean>(type.shape, seed);
  }
  __builtin_unreachable();
}

std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed) {
  std::vector<Tensor> result;
  for (size_t i = 0; i < graph.inputs().size(); ++i)
    result.push_back(random_input(graph.value(graph.inputs()[i]).type, seed + i));
  return result;
}

}  // namespace pet
