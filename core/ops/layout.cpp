// Layout: split each axis into factors, permute the factors, merge them into output axes.
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/layout.h"

#include <numeric>

#include <fmt/format.h>

#include "core/ops/import_util.h"
#include "core/ops/op_util.h"
#include "core/ops/strided_copy.h"

namespace pet::ops {

std::optional<std::vector<int64_t>> layout_refinement(const std::vector<int64_t>& dims,
                                                     const std::vector<int64_t>& factors) {
  std::vector<int64_t> counts;
  size_t next = 0;
  for (int64_t dim : dims) {
    if (next == factors.size()) return std::nullopt;
    int64_t product = factors[next++], count = 1;
    while (product != dim) {  // factors are >= 0, so the product never shrinks unless it is 0
      if (next == factors.size() || product == 0 || (dim != 0 && product > dim)) return std::nullopt;
      product *= factors[next++];
      ++count;
    }
    counts.push_back(count);
  }
  for (; next < factors.size(); ++next) {
    if (factors[next] != 1 || counts.empty()) return std::nullopt;
    ++counts.back();
  }
  return counts;
}

Shape layout_output_shape(const Attributes& attrs) {
  const auto& expanded = attrs.get_ints("expanded");
  const auto& perm = attrs.get_ints("perm");
  std::vector<int64_t> dims;
  size_t next = 0;
  for (int64_t count : attrs.get_ints("groups")) {
    int64_t product = 1;
    for (int64_t k = 0; k < count; ++k) product *= expanded[static_cast<size_t>(perm[next++])];
    dims.push_back(product);
  }
  return Shape(dims);
}

static bool is_permutation(const std::vector<int64_t>& perm) {
  std::vector<bool> seen(perm.size(), false);
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(axis)]) return false;
    seen[static_cast<size_t>(axis)] = true;
  }
  return true;
}

static ShapeResult infer_layout(const ShapeContext& context) {
  const TensorType& input = context.input(0);
  const auto& expanded = context.attrs.get_ints("expanded");
  const auto& perm = context.attrs.get_ints("perm");
  const auto& groups = context.attrs.get_ints("groups");
  PET_REFUSE_UNLESS(
      context, expanded.size() <= static_cast<size_t>(kMaxLayoutFactors),
      fmt::format("expanded has {} factors; a Layout takes at most {}", expanded.size(), kMaxLayoutFactors));
  PET_REFUSE_UNLESS(context, layout_refinement(input.shape.dims(), expanded).has_value(),
                    fmt::format("expanded {} does not refine the input shape {}: each input dimension must split into "
                                "consecutive factors whose product is that dimension",
                                ints_to_string(expanded), input.shape.to_string()));
  PET_REFUSE_UNLESS(
      context, perm.size() == expanded.size() && is_permutation(perm),
      fmt::format("perm {} is not a permutation of the {} expanded dimensions", ints_to_string(perm), expanded.size()));
  int64_t total = 0;
  for (int64_t count : groups) {
    PET_REFUSE_UNLESS(context, count >= 1, "groups " + ints_to_string(groups) + " has an empty group");
    total += count;
  }
  PET_REFUSE_UNLESS(context, total == static_cast<int64_t>(expanded.size()),
                    fmt::format("groups {} merge {} dimensions, but expanded has {}", ints_to_string(groups), total,
                                expanded.size()));
  return {{input.dtype, layout_output_shape(context.attrs)}};
}

// The output is the permuted expanded tensor read in row-major order.
void apply_layout(const Tensor& input, const Attributes& attrs, Tensor& output) {
  const auto& expanded = attrs.get_ints("expanded");
  const auto& perm = attrs.get_ints("perm");
  std::vector<int64_t> strides = Shape(expanded).strides();
  StridedView view;
  for (int64_t axis : perm) {
    view.dims.push_back(expanded[static_cast<size_t>(axis)]);
    view.strides.push_back(strides[static_cast<size_t>(axis)]);
  }
  copy_strided(input, view, output);
}

static void layout_kernel(KernelContext& context) { apply_layout(context.input(0), context.attrs, context.outputs[0]); }

// Lowers to Reshape -> Transpose -> Reshape, leaving out the steps that change nothing.
static void export_layout(const Node& node, OnnxExportNode& out) {
  const auto& expanded = node.attrs.get_ints("expanded");
  const auto& perm = node.attrs.get_ints("perm");
  Shape output = layout_output_shape(node.attrs);
  std::optional<TensorType> input = out.input_type(0);
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  bool transposes = perm != identity;
  std::vector<int64_t> permuted;
  for (int64_t axis : perm) permuted.push_back(expanded[static_cast<size_t>(axis)]);

  struct Step {
    std::string op;
    std::vector<int64_t> values;
  };
  std::vector<Step> steps;
  if (!transposes) {
    if (!(input && input->shape == output)) steps.push_back({"Reshape", output.dims()});
  } else {
    if (!(input && input->shape.dims() == expanded)) steps.push_back({"Reshape", expanded});
    steps.push_back({"Transpose", perm});
    if (permuted != output.dims()) steps.push_back({"Reshape", output.dims()});
  }
  if (steps.empty()) {
    out.add_node("Identity", {out.input(0)}, {out.output(0)}, {});
    return;
  }
  std::string current = out.input(0);
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string next = i + 1 == steps.size() ? out.output(0) : out.fresh_name(node.name + "_" + steps[i].op);
    const auto& values = steps[i].values;
    if (steps[i].op == "Transpose")
      out.add_node("Transpose", {current}, {next}, {{"perm", values}});
    else
      out.add_node("Reshape", {current, out.add_constant(Tensor::i64(Shape{static_cast<int64_t>(values.size())}, values))},
                   {next}, {});
    current = next;
  }
}

namespace {

// Factor sizes of each input dimension, in order (from `expanded`).
std::vector<std::vector<int64_t>> factors_per_input_dim(const Shape& input, const std::vector<int64_t>& expanded) {
  std::vector<int64_t> counts = *layout_refinement(input.dims(), expanded);
  std::vector<std::vector<int64_t>> factors;
  size_t next = 0;
  for (int64_t count : counts) {
    factors.emplace_back(expanded.begin() + static_cast<int64_t>(next), expanded.begin() + static_cast<int64_t>(next + count));
    next += static_cast<size_t>(count);
  }
  return factors;
}

uint64_t layout_point(const PointContext& context) {
  const auto& expanded = context.attrs.get_ints("expanded");
  const auto& perm = context.attrs.get_ints("perm");
  const auto& groups = context.attrs.get_ints("groups");
  int64_t factor_index[kMaxLayoutFactors];  // coordinates in `expanded` order
  size_t k = 0;
  for (size_t j = 0; j < groups.size(); ++j) {  // unravel each output coordinate into its factors
    int64_t rest = context.index[j];
    for (int64_t g = groups[j] - 1; g >= 0; --g) {
      auto factor = static_cast<size_t>(perm[k + static_cast<size_t>(g)]);
      factor_index[factor] = rest % expanded[factor];
      rest /= expanded[factor];
    }
    k += static_cast<size_t>(groups[j]);
  }
  const Shape& in = context.input(0).shape;
  int64_t index[kMaxRank];
  size_t f = 0;
  // Ravel the factors of each input dimension, assigned as layout_refinement does: at least
  // one factor per dimension, more until their product is the dimension; trailing factors of 1
  // (coordinate 0) change nothing.
  for (int d = 0; d < in.rank(); ++d) {
    int64_t product = expanded[f];
    index[d] = factor_index[f++];
    while (product != in[d]) {
      product *= expanded[f];
      index[d] = index[d] * expanded[f] + factor_index[f];
      ++f;
    }
  }
  return context.pull(0, index);
}

// Input cuts split into factor cuts, permuted, then merged per output dimension.
BoxGrid layout_boxes(const BoxContext& context) {
  const auto& expanded = context.attrs.get_ints("expanded");
  const auto& perm = context.attrs.get_ints("perm");
  const auto& groups = context.attrs.get_ints("groups");
  std::vector<std::vector<int64_t>> factor_cuts;
  auto factors = factors_per_input_dim(context.input(0).shape, expanded);
  for (size_t d = 0; d < factors.size(); ++d) {
    std::vector<int64_t> cuts = context.grid(0).cuts(static_cast<int>(d));
    int64_t rest = context.input(0).shape[static_cast<int>(d)];
    for (size_t i = 0; i < factors[d].size(); ++i) {
      rest = factors[d][i] == 0 ? 0 : rest / factors[d][i];
      if (i + 1 == factors[d].size()) {
        factor_cuts.push_back(cuts);
        break;
      }
      auto [outer, inner] = split_cuts(cuts, factors[d][i], rest);
      factor_cuts.push_back(outer);
      cuts = inner;
    }
  }
  std::vector<std::vector<int64_t>> out_cuts;
  size_t k = 0;
  for (int64_t count : groups) {
    std::vector<int64_t> merged = {0, 1};
    for (int64_t g = 0; g < count; ++g, ++k) {
      auto factor = static_cast<size_t>(perm[k]);
      merged = merge_cuts(merged, factor_cuts[factor], expanded[factor]);
    }
    out_cuts.push_back(merged);
  }
  return BoxGrid(std::move(out_cuts));
}

}  // namespace

OpDef make_Layout() {
  OpDef def;
  def.name = "Layout";  // not an ONNX op: onnx_ops stays empty and nothing imports it
  def.attrs = {attr_ints("expanded"), attr_ints("perm"), attr_ints("groups")};
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.traits.layout_only = true;
  def.infer = infer_layout;
  def.compute = layout_kernel;
  def.cost = data_movement_cost;
  def.to_onnx = export_layout;
  def.eval_point = layout_point;
  def.propagate_boxes = layout_boxes;
  return def;
}

}  // namespace pet::ops
