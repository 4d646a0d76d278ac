// match_layer_norm walks the pattern forward from its first ReduceMean, one expected reader at a
// time; every check that fails ends the match.
#include "kernels/gpu/plan/layer_norm_pattern.h"

#include <algorithm>

namespace pet::gpu {
namespace {

class Matcher {
 public:
  Matcher(const Graph& graph, const Consumers& readers, const std::vector<bool>& known)
      : graph_(graph), readers_(readers), known_(known) {}

  std::optional<LayerNormPattern> match(NodeId first) {
    const Node& mean = graph_.node(first);
    if (mean.op() != "ReduceMean" || mean.inputs.size() != 1) return std::nullopt;
    pattern_.x = mean.inputs[0];
    const TensorType& x = graph_.value(pattern_.x).type;
    if (x.dtype != DType::f32) return std::nullopt;
    std::optional<int> axis = trailing_axis(mean, x.shape.rank());
    if (!axis) return std::nullopt;
    pattern_.axis = *axis;
    pattern_.nodes.push_back(first);
    // d = x - mean, read by the Pow and the Div alone
    std::optional<NodeId> sub = only_reader(mean.outputs[0], "Sub");
    if (!sub || graph_.node(*sub).inputs != std::vector<ValueId>{pattern_.x, mean.outputs[0]}) return std::nullopt;
    ValueId d = graph_.node(*sub).outputs[0];
    if (graph_.is_output(d) || readers(d).size() != 2) return std::nullopt;
    std::optional<NodeId> pow = reader_with_op(d, "Pow"), div = reader_with_op(d, "Div");
    if (!pow || !div || graph_.node(*pow).inputs.at(0) != d || !constant_equals(graph_.node(*pow).inputs.at(1), 2.0f))
      return std::nullopt;
    std::optional<NodeId> variance = only_reader(graph_.node(*pow).outputs[0], "ReduceMean");
    if (!variance || trailing_axis(graph_.node(*variance), x.shape.rank()) != axis) return std::nullopt;
    std::optional<NodeId> add = only_reader(graph_.node(*variance).outputs[0], "Add");
    if (!add) return std::nullopt;
    std::optional<float> epsilon = other_scalar(*add, graph_.node(*variance).outputs[0]);
    if (!epsilon) return std::nullopt;
    pattern_.epsilon = *epsilon;
    std::optional<NodeId> sqrt = only_reader(graph_.node(*add).outputs[0], "Sqrt");
    if (!sqrt || only_reader(graph_.node(*sqrt).outputs[0], "Div") != div ||
        graph_.node(*div).inputs != std::vector<ValueId>{d, graph_.node(*sqrt).outputs[0]})
      return std::nullopt;
    for (NodeId n : {*sub, *pow, *variance, *add, *sqrt, *div}) pattern_.nodes.push_back(n);
    if (!affine(graph_.node(*div).outputs[0])) return std::nullopt;
    std::sort(pattern_.nodes.begin(), pattern_.nodes.end());
    return pattern_;
  }

 private:
  std::span<const NodeId> readers(ValueId id) const { return readers_[static_cast<size_t>(id)]; }

  // The first of the trailing axes a keepdims ReduceMean averages over; nullopt for other axes.
  static std::optional<int> trailing_axis(const Node& node, int rank) {
    if (node.op() != "ReduceMean" || node.attrs.get_int("keepdims") == 0) return std::nullopt;
    std::vector<int> axes;
    for (int64_t axis : node.attrs.get_ints("axes")) axes.push_back(normalize_axis(axis, rank));
    std::sort(axes.begin(), axes.end());
    if (axes.empty() || axes.back() != rank - 1) return std::nullopt;
    for (size_t i = 1; i < axes.size(); ++i)
      if (axes[i] != axes[i - 1] + 1) return std::nullopt;
    return axes.front();
  }

  // The one node reading `id`, when it is `op` and `id` is no graph output.
  std::optional<NodeId> only_reader(ValueId id, const char* op) const {
    if (graph_.is_output(id) || readers(id).size() != 1 || graph_.node(readers(id)[0]).op() != op)
      return std::nullopt;
    return readers(id)[0];
  }

  std::optional<NodeId> reader_with_op(ValueId id, const char* op) const {
    for (NodeId reader : readers(id))
      if (graph_.node(reader).op() == op) return reader;
    return std::nullopt;
  }

  std::optional<float> scalar(ValueId id) const {
    if (!graph_.is_constant(id)) return std::nullopt;
    const Tensor& tensor = *graph_.value(id).constant;
    if (tensor.dtype() != DType::f32 || tensor.numel() != 1) return std::nullopt;
    return tensor.f32()[0];
  }
  bool constant_equals(ValueId id, float expected) const { return scalar(id) == expected; }

  // The scalar constant `node` (a two-input op) adds to `operand`.
  std::optional<float> other_scalar(NodeId node, ValueId operand) const {
    const std::vector<ValueId>& inputs = graph_.node(node).inputs;
    if (inputs.size() != 2) return std::nullopt;
    return scalar(inputs[0] == operand ? inputs[1] : inputs[0]);
  }

  // A known f32 value that varies only along the normalized axes of a value of `rank` dims.
  bool per_column(ValueId id) const {
    if (id == kNoValue || !known_[static_cast<size_t>(id)] || graph_.value(id).type.dtype != DType::f32) return false;
    const Shape& shape = graph_.value(id).type.shape;
    int rank = graph_.value(pattern_.x).type.shape.rank(), pad = rank - shape.rank();
    if (pad < 0) return false;
    for (int d = 0; d < shape.rank(); ++d)
      if (d + pad < pattern_.axis && shape[d] != 1) return false;
    return true;
  }

  // The Mul by the scale after the normalized value, then an Add of the bias where there is one;
  // each keeps x's type.
  bool affine(ValueId normalized) {
    std::optional<NodeId> mul = only_reader(normalized, "Mul");
    if (!mul) return false;
    pattern_.scale = other_operand(*mul, normalized);
    if (!per_column(pattern_.scale) || !keeps_type(*mul)) return false;
    pattern_.nodes.push_back(*mul);
    pattern_.output = graph_.node(*mul).outputs[0];
    std::optional<NodeId> add = only_reader(pattern_.output, "Add");
    if (!add || !per_column(other_operand(*add, pattern_.output)) || !keeps_type(*add)) return true;
    pattern_.bias = other_operand(*add, pattern_.output);
    pattern_.nodes.push_back(*add);
    pattern_.output = graph_.node(*add).outputs[0];
    return true;
  }

  ValueId other_operand(NodeId node, ValueId operand) const {
    const std::vector<ValueId>& inputs = graph_.node(node).inputs;
    if (inputs.size() != 2 || inputs[0] == inputs[1]) return kNoValue;
    return inputs[0] == operand ? inputs[1] : inputs[0];
  }
  bool keeps_type(NodeId node) const {
    return graph_.value(graph_.node(node).outputs[0]).type == graph_.value(pattern_.x).type;
  }

  const Graph& graph_;
  const Consumers& readers_;
  const std::vector<bool>& known_;
  LayerNormPattern pattern_;
};

}  // namespace

std::optional<LayerNormPattern> match_layer_norm(const Graph& graph, const Consumers& readers,
                                                 const std::vector<bool>& known, NodeId first) {
  return Matcher(graph, readers, known).match(first);
}

}  // namespace pet::gpu
