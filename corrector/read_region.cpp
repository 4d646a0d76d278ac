// Region rules by op family: windowed (Conv), contracting (MatMul, Gemm), broadcasting
// (elementwise), and the whole-tensor fallback that keeps every other op correct.
#include "corrector/read_region.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::corrector {
namespace {

const TensorType& input_type(const Graph& graph, const Node& node, int index) {
  return graph.value(node.inputs.at(static_cast<size_t>(index))).type;
}

bool has_input(const Node& node, int index) {
  return index < static_cast<int>(node.inputs.size()) && node.inputs[static_cast<size_t>(index)] != kNoValue;
}

// The box of an input broadcast into the output (axes aligned from the right): a size-1 axis
// reads its one element, any other axis reads the wanted range.
Box broadcast_region(const Shape& input, const Box& wanted) {
  Box box = whole_box(input);
  int offset = static_cast<int>(wanted.lo.size()) - input.rank();
  for (int d = 0; d < input.rank(); ++d) {
    if (input[d] == 1 || d + offset < 0) continue;
    box.lo[static_cast<size_t>(d)] = wanted.lo[static_cast<size_t>(d + offset)];
    box.hi[static_cast<size_t>(d)] = wanted.hi[static_cast<size_t>(d + offset)];
  }
  return box;
}

void set_range(Box& box, int axis, int64_t lo, int64_t hi) {
  box.lo[static_cast<size_t>(axis)] = lo;
  box.hi[static_cast<size_t>(axis)] = hi;
}

RegionPlan whole_plan(const Graph& graph, const Node& node) {
  RegionPlan plan{{}, node.attrs, {}};
  for (ValueId input : node.inputs)
    plan.inputs.push_back(input == kNoValue ? std::nullopt : std::optional<Box>(whole_box(graph.value(input).type.shape)));
  for (ValueId output : node.outputs) plan.computed.push_back(whole_box(graph.value(output).type.shape));
  return plan;
}

RegionPlan broadcast_plan(const Graph& graph, const Node& node, const Box& wanted) {
  RegionPlan plan{{}, node.attrs, {wanted}};
  for (ValueId input : node.inputs)
    plan.inputs.push_back(input == kNoValue ? std::nullopt
                                            : std::optional<Box>(broadcast_region(graph.value(input).type.shape, wanted)));
  return plan;
}

// Output channels widen to whole groups so the sliced conv is again a grouped conv.
void plan_conv_channels(const Shape& x, const Shape& w, const Box& wanted, RegionPlan& plan) {
  int64_t group = plan.attrs.get_int("group");
  int64_t out_per_group = w[0] / group, in_per_group = x[1] / group;
  int64_t first = wanted.lo[1] / out_per_group, last = (wanted.hi[1] - 1) / out_per_group;
  int64_t lo = wanted.lo[1], hi = wanted.hi[1];
  if (group > 1) {
    lo = first * out_per_group, hi = (last + 1) * out_per_group;
    set_range(*plan.inputs[0], 1, first * in_per_group, (last + 1) * in_per_group);
    plan.attrs.set("group", last - first + 1);
  }
  set_range(*plan.inputs[1], 0, lo, hi);
  if (plan.inputs.size() > 2 && plan.inputs[2]) set_range(*plan.inputs[2], 0, lo, hi);
  set_range(plan.computed[0], 1, lo, hi);
}

// Output rows [lo, hi) read input rows lo*stride - pad .. (hi-1)*stride - pad + (k-1)*dilation;
// the part of that range outside the input becomes the sliced conv's own padding.
void plan_conv_axis(const Node& node, const Shape& x, const Shape& w, const Box& wanted, int axis, RegionPlan& plan,
                    std::vector<int64_t>& pads) {
  auto s = static_cast<size_t>(axis - 2);
  int spatial = x.rank() - 2;
  int64_t stride = node.attrs.get_ints("strides")[s], dilation = node.attrs.get_ints("dilations")[s];
  int64_t pad_begin = node.attrs.get_ints("pads")[s];
  int64_t first = wanted.lo[static_cast<size_t>(axis)] * stride - pad_begin;
  int64_t last = (wanted.hi[static_cast<size_t>(axis)] - 1) * stride - pad_begin + (w[axis] - 1) * dilation;
  int64_t clamped_first = std::max<int64_t>(first, 0), clamped_last = std::min<int64_t>(last, x[axis] - 1);
  if (clamped_first > clamped_last)
    throw UserError(fmt::format("node '{}' (Conv): output box {} reads only padding on axis {}; such boxes cannot be "
                                "recomputed from a slice of the input",
                                node.name, wanted.to_string(), axis));
  set_range(*plan.inputs[0], axis, clamped_first, clamped_last + 1);
  pads[s] = clamped_first - first;
  pads[s + static_cast<size_t>(spatial)] = last - clamped_last;
}

RegionPlan conv_plan(const Graph& graph, const Node& node, const Box& wanted) {
  const Shape& x = input_type(graph, node, 0).shape;
  const Shape& w = input_type(graph, node, 1).shape;
  RegionPlan plan = whole_plan(graph, node);
  plan.computed[0] = wanted;
  set_range(*plan.inputs[0], 0, wanted.lo[0], wanted.hi[0]);
  plan_conv_channels(x, w, wanted, plan);
  std::vector<int64_t> pads(static_cast<size_t>(2 * (x.rank() - 2)), 0);
  for (int axis = 2; axis < x.rank(); ++axis) plan_conv_axis(node, x, w, wanted, axis, plan, pads);
  plan.attrs.set("pads", pads);
  return plan;
}

// Batch axes broadcast; A keeps the wanted rows, B the wanted columns; K is read whole.
RegionPlan matmul_plan(const Graph& graph, const Node& node, const Box& wanted) {
  const Shape& a = input_type(graph, node, 0).shape;
  const Shape& b = input_type(graph, node, 1).shape;
  int rank = static_cast<int>(wanted.lo.size());
  RegionPlan plan = whole_plan(graph, node);
  plan.computed[0] = wanted;
  if (a.rank() >= 2) {
    Box batch = wanted;  // A's axes line up with the output's, but its last axis is K
    if (b.rank() >= 2) set_range(batch, rank - 1, 0, 1);
    else batch.lo.push_back(0), batch.hi.push_back(1);
    plan.inputs[0] = broadcast_region(a, batch);
    set_range(*plan.inputs[0], a.rank() - 1, 0, a[a.rank() - 1]);
  }
  if (b.rank() >= 2) {
    Box batch = wanted;  // B's axes line up with the output's, but its second-to-last axis is K
    if (a.rank() < 2) batch.lo.insert(batch.lo.end() - 1, 0), batch.hi.insert(batch.hi.end() - 1, 1);
    plan.inputs[1] = broadcast_region(b, batch);
    set_range(*plan.inputs[1], b.rank() - 2, 0, b[b.rank() - 2]);
  }
  return plan;
}

RegionPlan gemm_plan(const Graph& graph, const Node& node, const Box& wanted) {
  RegionPlan plan = whole_plan(graph, node);
  plan.computed[0] = wanted;
  bool trans_a = node.attrs.get_int("transA") != 0, trans_b = node.attrs.get_int("transB") != 0;
  set_range(*plan.inputs[0], trans_a ? 1 : 0, wanted.lo[0], wanted.hi[0]);
  set_range(*plan.inputs[1], trans_b ? 0 : 1, wanted.lo[1], wanted.hi[1]);
  if (has_input(node, 2)) plan.inputs[2] = broadcast_region(input_type(graph, node, 2).shape, wanted);
  return plan;
}

using RegionRule = std::function<RegionPlan(const Graph&, const Node&, const Box&)>;

// The op families with exact rules; traits cover the elementwise and identity-like ones.
const std::map<std::string, RegionRule>& region_rules() {
  static const std::map<std::string, RegionRule> rules = {
      {"Conv", conv_plan}, {"MatMul", matmul_plan}, {"Gemm", gemm_plan}};
  return rules;
}

}  // namespace

Box whole_box(const Shape& shape) {
  return Box{std::vector<int64_t>(static_cast<size_t>(shape.rank()), 0), shape.dims()};
}

Box bounding_box(const Box& a, const Box& b) {
  PET_CHECK(a.lo.size() == b.lo.size(), "boxes of different ranks");
  Box result = a;
  for (size_t d = 0; d < a.lo.size(); ++d) {
    result.lo[d] = std::min(a.lo[d], b.lo[d]);
    result.hi[d] = std::max(a.hi[d], b.hi[d]);
  }
  return result;
}

RegionPlan plan_region(const Graph& graph, const Node& node, const Box& wanted) {
  if (node.outputs.size() != 1) return whole_plan(graph, node);
  auto rule = region_rules().find(node.op());
  if (rule != region_rules().end()) return rule->second(graph, node, wanted);
  const OpTraits& traits = node.def->traits;
  if (traits.elementwise || (traits.identity_like && node.inputs.size() == 1)) return broadcast_plan(graph, node, wanted);
  return whole_plan(graph, node);
}

}  // namespace pet::corrector
