// ReduceSum: sum over the listed axes; jointly linear in its input.
#include <algorithm>
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/ops/reduce_common.h"

namespace pet::ops {

namespace {

// Input coordinates of an output position: reduced axes are enumerated, the rest copied.
uint64_t reduce_sum_point(const PointContext& context) {
  const Shape& x = context.input(0).shape;
  const auto& axes = context.attrs.get_ints("axes");
  bool keep = context.attrs.get_int("keepdims") != 0;
  std::vector<int64_t> reduced_dims;
  for (int64_t axis : axes) reduced_dims.push_back(x[static_cast<int>(axis)]);
  Shape reduced(reduced_dims);
  int64_t index[kMaxRank];
  uint64_t total = 0;
  for (int64_t flat = 0, end = reduced.numel(); flat < end; ++flat) {
    int64_t inner[kMaxRank];
    unravel_index(flat, reduced, inner);
    int out_axis = 0;
    size_t r = 0;
    for (int d = 0; d < x.rank(); ++d) {
      bool is_reduced = r < axes.size() && axes[r] == d;
      if (is_reduced) index[d] = inner[r++];
      else index[d] = context.index[out_axis];
      if (!is_reduced || keep) ++out_axis;
    }
    total = field::add(total, context.pull(0, index));
  }
  return total;
}

BoxGrid reduce_sum_boxes(const BoxContext& context) {
  const Shape& x = context.input(0).shape;
  const auto& axes = context.attrs.get_ints("axes");
  bool keep = context.attrs.get_int("keepdims") != 0;
  std::vector<std::vector<int64_t>> cuts;
  for (int d = 0; d < x.rank(); ++d) {
    bool is_reduced = std::find(axes.begin(), axes.end(), d) != axes.end();
    if (!is_reduced) cuts.push_back(context.grid(0).cuts(d));
    else if (keep) cuts.push_back({0, 1});
  }
  return BoxGrid(std::move(cuts));
}

}  // namespace

OpDef make_ReduceSum() {
  OpDef def = reduce_op("ReduceSum", Reduction::Sum);
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.eval_point = reduce_sum_point;
  def.propagate_boxes = reduce_sum_boxes;
  return def;
}

}  // namespace pet::ops
