// Describing a node's GPU work for the roofline from its op's declared facets.
#include "search/cost/workload.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops/fused_activation.h"

namespace pet::cost {
namespace {

Cost op_counts(const Graph& graph, const Node& node) {
  PET_CHECK(static_cast<bool>(node.def->cost), node.op() + " has no cost rule");
  std::vector<const TensorType*> inputs;
  for (ValueId input : node.inputs) inputs.push_back(input == kNoValue ? nullptr : &graph.value(input).type);
  std::vector<TensorType> outputs;
  for (ValueId output : node.outputs) outputs.push_back(graph.value(output).type);
  CostContext context{node.attrs, inputs, outputs};
  return node.def->cost(context);
}

bool has_dilation(const Attributes& attrs) {
  if (!attrs.has("dilations")) return false;
  const std::vector<int64_t>& dilations = attrs.get_ints("dilations");
  return std::any_of(dilations.begin(), dilations.end(), [](int64_t d) { return d > 1; });
}

bool permutes(const Node& node) {
  if (!node.def->traits.layout_only || !node.attrs.has("perm")) return false;
  const std::vector<int64_t>& perm = node.attrs.get_ints("perm");
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return true;
  return false;
}

// [N, C_out, spatial...] output: m = N x pixels, n = C_out / group, one GEMM per group.
void describe_conv(const Graph& graph, const Node& node, Workload& work) {
  const Shape& x = graph.value(node.inputs.at(0)).type.shape;
  const Shape& y = graph.value(node.outputs.at(0)).type.shape;
  auto group = static_cast<double>(std::max<int64_t>(1, node.attrs.get_int("group")));
  double pixels = static_cast<double>(y.numel()) / static_cast<double>(y[0] * y[1]);
  double input_channels = static_cast<double>(x[1]) / group;
  work.gemm = {group, static_cast<double>(y[0]) * pixels, static_cast<double>(y[1]) / group, 0};
  work.dilated = has_dilation(node.attrs);
  bool depthwise = group > 1 && input_channels == 1;
  work.engine = depthwise ? Engine::DepthwiseConv : Engine::TensorCoreConv;
  work.grouped = group > 1 && !depthwise;
  work.reduction_channels = input_channels;
  work.output_channels = work.gemm.n;
}

// [batch..., m, n] output (lower ranks when operands were vectors).
void describe_gemm(const Graph& graph, const Node& node, Workload& work) {
  const Shape& y = graph.value(node.outputs.at(0)).type.shape;
  double n = y.rank() >= 1 ? static_cast<double>(y[y.rank() - 1]) : 1.0;
  double m = y.rank() >= 2 ? static_cast<double>(y[y.rank() - 2]) : 1.0;
  work.engine = Engine::TensorCoreGemm;
  work.gemm = {static_cast<double>(y.numel()) / (m * n), m, n, 0};
  work.output_channels = n;
}

}  // namespace

Workload describe_workload(const Graph& graph, const Node& node) {
  Cost counts = op_counts(graph, node);
  Workload work;
  work.flops = counts.flops;
  work.bytes = counts.bytes;
  work.permutes = permutes(node);
  bool has_output = !node.outputs.empty() && graph.value(node.outputs[0]).type.shape.numel() > 0;
  if (!node.def->traits.compute_heavy || !has_output || counts.flops <= 0) return work;
  if (node.attrs.has("group"))
    describe_conv(graph, node, work);
  else
    describe_gemm(graph, node, work);
  GemmShape& g = work.gemm;
  // The reduction depth, from the op's own count less a fused activation's flop per output element,
  // which the epilogue applies after the reduction (the same price as the Relu node it replaced).
  double epilogue_flops = ops::activation_op(node.attrs) ? static_cast<double>(graph.value(node.outputs[0]).type.shape.numel()) : 0.0;
  g.k = (counts.flops - epilogue_flops) / (2.0 * g.batch * g.m * g.n);
  if (work.engine == Engine::TensorCoreGemm) work.reduction_channels = g.k;
  return work;
}

}  // namespace pet::cost
