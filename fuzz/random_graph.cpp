// Draws small valid graphs op by op: each proposal picks an operand and attributes that fit its shape.
#include "fuzz/random_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "core/shape_fit.h"

namespace pet::fuzz {
namespace {

using Ints = std::vector<int64_t>;

class Builder {
 public:
  explicit Builder(FuzzedDataProvider& bytes) : bytes_(bytes) {}

  FuzzedDataProvider& bytes() { return bytes_; }
  Graph& graph() { return graph_; }
  std::vector<ValueId>& operands() { return operands_; }

  int64_t pick(std::initializer_list<int64_t> choices) {
    return *(choices.begin() + bytes_.ConsumeIntegralInRange<size_t>(0, choices.size() - 1));
  }
  int64_t in_range(int64_t low, int64_t high) { return bytes_.ConsumeIntegralInRange<int64_t>(low, high); }
  const Shape& shape(ValueId value) const { return graph_.value(value).type.shape; }

  // Mostly the newest value (chains), sometimes an older one (branches that share an input).
  ValueId pick_operand() {
    if (bytes_.ConsumeBool()) return operands_.back();
    return operands_[bytes_.ConsumeIntegralInRange<size_t>(0, operands_.size() - 1)];
  }
  // Another operand of the same shape as `like`, if there is one.
  std::optional<ValueId> pick_same_shape(ValueId like) {
    std::vector<ValueId> same;
    for (ValueId value : operands_)
      if (shape(value) == shape(like)) same.push_back(value);
    return same[bytes_.ConsumeIntegralInRange<size_t>(0, same.size() - 1)];
  }
  ValueId weight(Shape weight_shape) {
    return graph_.add_constant(fresh("w"), Tensor::random_f32(std::move(weight_shape), bytes_.ConsumeIntegral<uint8_t>()));
  }
  std::string fresh(const char* hint) { return fmt::format("{}{}", hint, counter_++); }

  // Adds a node; a proposal the op's shape rule refuses is dropped (nullopt).
  std::optional<std::vector<ValueId>> add(const std::string& op, const Attributes& attrs,
                                          std::vector<ValueId> inputs) {
    std::string refusal;
    return add_node_if_fits(graph_, op, attrs, std::move(inputs), fresh("n"), {}, refusal);
  }

 private:
  FuzzedDataProvider& bytes_;
  Graph graph_;
  std::vector<ValueId> operands_;
  int counter_ = 0;
};

using Proposal = std::function<std::optional<std::vector<ValueId>>(Builder&, ValueId)>;

std::optional<std::vector<ValueId>> conv(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  if (in.rank() != 4) return std::nullopt;
  int64_t channels = in[1];
  bool depthwise = channels > 1 && b.bytes().ConsumeBool();
  int64_t group = depthwise ? channels : 1;
  int64_t out_channels = depthwise ? channels * b.pick({1, 2}) : b.pick({1, 2, 3, 4, 8});
  int64_t kernel = b.pick({1, 1, 2, 3});
  int64_t stride = b.pick({1, 1, 2});
  int64_t dilation = b.pick({1, 1, 2});
  Ints pads = {b.in_range(0, kernel - 1), b.in_range(0, kernel - 1), b.in_range(0, kernel - 1), b.in_range(0, kernel - 1)};
  if (b.bytes().ConsumeBool()) pads = Ints(4, pads[0]);
  std::vector<ValueId> inputs = {x, b.weight(Shape{out_channels, channels / group, kernel, kernel})};
  if (b.bytes().ConsumeBool()) inputs.push_back(b.weight(Shape{out_channels}));
  return b.add("Conv", {{"dilations", Ints{dilation, dilation}}, {"group", group}, {"pads", pads}, {"strides", Ints{stride, stride}}},
               inputs);
}

std::optional<std::vector<ValueId>> matmul(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  if (in.rank() < 2) return std::nullopt;
  int64_t k = in[in.rank() - 1];
  return b.add("MatMul", {}, {x, b.weight(Shape{k, b.pick({1, 2, 3, 4, 8})})});
}

std::optional<std::vector<ValueId>> gemm(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  if (in.rank() != 2) return std::nullopt;
  int64_t n = b.pick({1, 2, 4, 8});
  bool trans_b = b.bytes().ConsumeBool();
  std::vector<ValueId> inputs = {x, b.weight(trans_b ? Shape{n, in[1]} : Shape{in[1], n})};
  if (b.bytes().ConsumeBool()) inputs.push_back(b.weight(Shape{n}));
  return b.add("Gemm", {{"transB", int64_t{trans_b}}}, inputs);
}

std::optional<std::vector<ValueId>> unary(Builder& b, ValueId x) {
  const char* op = std::array{"Relu", "Sigmoid", "Tanh", "Relu", "Neg", "Abs"}[b.in_range(0, 5)];
  return b.add(op, {}, {x});
}

// With another operand of the same shape, or a constant that broadcasts (per channel or scalar).
std::optional<std::vector<ValueId>> binary(Builder& b, ValueId x) {
  const char* op = std::array{"Add", "Mul", "Sub", "Add"}[b.in_range(0, 3)];
  const Shape& in = b.shape(x);
  ValueId other = x;
  switch (b.in_range(0, 2)) {
    case 0: other = *b.pick_same_shape(x); break;
    case 1: other = b.weight(in.rank() == 4 ? Shape{in[1], 1, 1} : Shape{in[in.rank() - 1]}); break;
    default: other = b.weight(Shape{}); break;
  }
  if (b.bytes().ConsumeBool()) std::swap(x, other);
  return b.add(op, {}, {x, other});
}

std::optional<std::vector<ValueId>> pool(Builder& b, ValueId x) {
  if (b.shape(x).rank() != 4) return std::nullopt;
  int64_t kernel = b.pick({1, 2, 3});
  int64_t stride = b.pick({1, 2});
  int64_t pad = b.in_range(0, kernel - 1);
  Ints pads(4, pad);
  if (b.bytes().ConsumeBool())
    return b.add("MaxPool", {{"kernel_shape", Ints{kernel, kernel}}, {"strides", Ints{stride, stride}}, {"pads", pads},
                             {"dilations", Ints{1, 1}}},
                 {x});
  return b.add("AveragePool", {{"kernel_shape", Ints{kernel, kernel}}, {"strides", Ints{stride, stride}}, {"pads", pads}},
               {x});
}

// Concat along an axis with operands that agree elsewhere (often the same value twice).
std::optional<std::vector<ValueId>> concat(Builder& b, ValueId x) {
  int rank = b.shape(x).rank();
  auto axis = static_cast<int>(b.in_range(0, rank - 1));
  std::vector<ValueId> inputs = {x};
  for (ValueId value : b.operands()) {
    const Shape& other = b.shape(value);
    if (other.rank() != rank || value == x || inputs.size() >= 3) continue;
    bool fits = true;
    for (int i = 0; i < rank; ++i) fits = fits && (i == axis || other[i] == b.shape(x)[i]);
    if (fits && b.bytes().ConsumeBool()) inputs.push_back(value);
  }
  if (inputs.size() == 1) inputs.push_back(x);
  return b.add("Concat", {{"axis", int64_t{axis}}}, inputs);
}

std::optional<std::vector<ValueId>> split(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  auto axis = static_cast<int>(b.in_range(0, in.rank() - 1));
  if (in[axis] < 2) return std::nullopt;
  int64_t first = b.in_range(1, in[axis] - 1);
  return b.add("Split", {{"axis", int64_t{axis}}, {"split", Ints{first, in[axis] - first}}}, {x});
}

std::optional<std::vector<ValueId>> transpose(Builder& b, ValueId x) {
  Ints perm(static_cast<size_t>(b.shape(x).rank()));
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int64_t>(i);
  for (size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[b.bytes().ConsumeIntegralInRange<size_t>(0, i - 1)]);
  return b.add("Transpose", {{"perm", perm}}, {x});
}

// Flattens to a matrix (keeping the first axis) or reshapes a matrix back to NCHW-like.
std::optional<std::vector<ValueId>> reshape(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  if (in.rank() == 4 || b.bytes().ConsumeBool()) return b.add("Reshape", {{"shape", Ints{in[0], -1}}}, {x});
  return b.add("Reshape", {{"shape", Ints{in[0], -1, 1, 1}}}, {x});
}

std::optional<std::vector<ValueId>> softmax(Builder& b, ValueId x) {
  return b.add("Softmax", {{"axis", int64_t{-1}}}, {x});
}

std::optional<std::vector<ValueId>> batch_norm(Builder& b, ValueId x) {
  const Shape& in = b.shape(x);
  if (in.rank() != 4) return std::nullopt;
  Shape channels{in[1]};
  std::vector<ValueId> inputs = {x, b.weight(channels), b.weight(channels), b.weight(channels)};
  // The variance must be positive: |w| + 0.5.
  inputs.push_back(b.graph().add_constant(b.fresh("var"), Tensor::random_f32(channels, b.bytes().ConsumeIntegral<uint8_t>(), 0.5f, 1.5f)));
  return b.add("BatchNormalization", {}, inputs);
}

const std::vector<Proposal>& proposals() {
  static const std::vector<Proposal> table = {conv, conv,    matmul,  gemm,    unary,     binary,    binary,
                                              pool, concat,  split,   transpose, reshape, softmax, batch_norm};
  return table;
}

Shape random_input_shape(Builder& b) {
  if (b.bytes().ConsumeBool()) return Shape{b.pick({1, 1, 2}), b.pick({1, 2, 3, 4, 8}), b.in_range(1, 6), b.in_range(1, 6)};
  return Shape{b.pick({1, 2, 4}), b.pick({1, 2, 3, 4, 8})};
}

// Every output no node reads, then (sometimes) one more node output, without repeats.
std::vector<ValueId> choose_outputs(Builder& b) {
  const Graph& graph = b.graph();
  Consumers consumers = graph.consumers();
  std::vector<ValueId> outputs;
  for (const Node& node : graph.nodes())
    for (ValueId value : node.outputs)
      if (consumers[static_cast<size_t>(value)].empty()) outputs.push_back(value);
  ValueId extra = b.operands().back();
  if (b.bytes().ConsumeBool()) extra = b.operands()[b.bytes().ConsumeIntegralInRange<size_t>(1, b.operands().size() - 1)];
  if (std::find(outputs.begin(), outputs.end(), extra) == outputs.end()) outputs.push_back(extra);
  return outputs;
}

}  // namespace

Graph random_graph(FuzzedDataProvider& bytes, int max_nodes) {
  Builder b(bytes);
  b.graph().name = "fuzz";
  b.operands().push_back(b.graph().add_input("x", TensorType{DType::f32, random_input_shape(b)}));
  int wanted = static_cast<int>(b.in_range(1, max_nodes));
  for (int attempt = 0; attempt < 4 * max_nodes && static_cast<int>(b.graph().nodes().size()) < wanted; ++attempt) {
    const std::vector<Proposal>& table = proposals();
    const Proposal& propose = table[bytes.ConsumeIntegralInRange<size_t>(0, table.size() - 1)];
    if (auto outputs = propose(b, b.pick_operand()))
      for (ValueId value : *outputs) b.operands().push_back(value);
  }
  if (b.graph().nodes().empty()) b.operands().push_back(b.add("Relu", {}, {b.operands().front()}).value().at(0));
  b.graph().set_outputs(choose_outputs(b));
  return std::move(b.graph());
}

}  // namespace pet::fuzz
