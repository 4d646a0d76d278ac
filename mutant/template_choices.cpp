// Attribute choices of the built-in templates, derived from operand shapes and the original's
// compute ops (their dilations, strides and pads are where PET's families come from).
#include "mutant/template_choices.h"

#include <algorithm>
#include <set>

#include "core/error.h"
#include "core/ops/layout.h"

namespace pet::mutant::choices {
namespace {

const Shape& operand(const TemplateContext& context, size_t i = 0) { return context.operands.at(i).shape; }

// Whether the layout builders split `axis` by `factor` and move `factor` batch chunks in (the
// batch-to-axis and interleave builders need both); a refused split is not a choice.
bool splits(const Shape& shape, int axis, int64_t factor) {
  return !ops::axis_split_refusal(shape, axis, 1, false, "") && !ops::axis_split_refusal(shape, 0, factor, true, "");
}
bool splits_axis(const Shape& shape, int axis, int64_t factor) {
  return !ops::axis_split_refusal(shape, axis, factor, false, "");
}

std::set<int64_t> small_factors(int64_t size, const std::set<int64_t>& extra = {}) {
  std::set<int64_t> factors;
  for (int64_t f : {2, 3, 4})
    if (size % f == 0 && f < size + 1) factors.insert(f);
  for (int64_t f : extra)
    if (f >= 2 && size % f == 0) factors.insert(f);
  return factors;
}

// Batch-size ratios between the operand and the targets: the factors a closing layout needs.
std::set<int64_t> batch_ratios(const TemplateContext& context) {
  std::set<int64_t> ratios;
  const Shape& shape = operand(context);
  for (const TensorType& target : context.targets) {
    if (target.shape.rank() != shape.rank() || shape.rank() == 0) continue;
    if (shape[0] > 0 && target.shape[0] > shape[0] && target.shape[0] % shape[0] == 0)
      ratios.insert(target.shape[0] / shape[0]);
    if (shape[0] > target.shape[0] && target.shape[0] > 0 && shape[0] % target.shape[0] == 0)
      ratios.insert(shape[0] / target.shape[0]);
  }
  return ratios;
}

std::set<int64_t> original_dilations(const TemplateContext& context, int axis) {
  std::set<int64_t> values;
  for (const Node* node : context.original_compute)
    if (node->op() == "Conv") {
      const auto& dilations = node->attrs.get_ints("dilations");
      if (axis - 2 < static_cast<int>(dilations.size())) values.insert(dilations[static_cast<size_t>(axis - 2)]);
    }
  return values;
}

bool is_activation(const Shape& shape) { return shape.rank() >= 3; }

Attributes deinterleave_both(const Shape& s, int64_t d);
Attributes interleave_both(const Shape& s, int64_t d);

}  // namespace

Choices batch_to_axis(const TemplateContext& context) {
  Choices out;
  const Shape& shape = operand(context);
  if (!is_activation(shape)) return out;
  for (int axis = 2; axis < shape.rank(); ++axis)
    for (int64_t factor : small_factors(shape[0], batch_ratios(context)))
      if (splits(shape, axis, factor)) out.push_back(ops::layout_batch_to_axis(shape, axis, factor));
  return out;
}

Choices axis_to_batch(const TemplateContext& context) {
  Choices out;
  const Shape& shape = operand(context);
  if (!is_activation(shape)) return out;
  for (int axis = 2; axis < shape.rank(); ++axis)
    for (int64_t factor : small_factors(shape[axis], batch_ratios(context)))
      if (splits_axis(shape, axis, factor)) out.push_back(ops::layout_axis_to_batch(shape, axis, factor));
  return out;
}

namespace {

// Both spatial axes of NCHW de-interleaved by d at once: chunk (rh*d + rw)*n + b holds
// in[b, c, j*d + rh, k*d + rw], so a conv dilated by d on both axes runs undilated per chunk.
Attributes deinterleave_both(const Shape& s, int64_t d) {
  return ops::layout_attrs({s[0], s[1], s[2] / d, d, s[3] / d, d}, {3, 5, 0, 1, 2, 4}, {3, 1, 1, 1});
}

Attributes interleave_both(const Shape& s, int64_t d) {
  return ops::layout_attrs({d, d, s[0] / (d * d), s[1], s[2], s[3]}, {2, 3, 4, 0, 5, 1}, {1, 1, 2, 2});
}

}  // namespace

Choices dilation_deinterleave(const TemplateContext& context) {
  Choices out;
  const Shape& shape = operand(context);
  if (!is_activation(shape)) return out;
  if (shape.rank() == 4)
    for (int64_t d : original_dilations(context, 2))
      if (d >= 2 && original_dilations(context, 3).count(d) && shape[2] % d == 0 && shape[3] % d == 0)
        out.push_back(deinterleave_both(shape, d));
  for (int axis = 2; axis < shape.rank(); ++axis)
    for (int64_t factor : original_dilations(context, axis))
      if (factor >= 2 && splits_axis(shape, axis, factor))
        out.push_back(ops::layout_dilation_deinterleave(shape, axis, factor));
  return out;
}

Choices dilation_interleave(const TemplateContext& context) {
  Choices out;
  const Shape& shape = operand(context);
  if (!is_activation(shape)) return out;
  if (shape.rank() == 4)
    for (int64_t d : original_dilations(context, 2))
      if (d >= 2 && original_dilations(context, 3).count(d) && shape[0] % (d * d) == 0) out.push_back(interleave_both(shape, d));
  for (int axis = 2; axis < shape.rank(); ++axis)
    for (int64_t factor : original_dilations(context, axis))
      if (factor >= 2 && splits(shape, axis, factor))
        out.push_back(ops::layout_dilation_interleave(shape, axis, factor));
  return out;
}

// Rows h = j*d + r move to row r*(H/d) + j: the residue classes stacked along H (PET's D2H).
Choices rows_deinterleave_stacked(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  if (s.rank() != 4) return out;
  for (int64_t d : original_dilations(context, 2))
    if (d >= 2 && s[2] % d == 0) out.push_back(ops::layout_attrs({s[0], s[1], s[2] / d, d, s[3]}, {0, 1, 3, 2, 4}, {1, 1, 2, 1}));
  return out;
}

Choices rows_interleave_stacked(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  if (s.rank() != 4) return out;
  for (int64_t d : original_dilations(context, 2))
    if (d >= 2 && s[2] % d == 0) out.push_back(ops::layout_attrs({s[0], s[1], d, s[2] / d, s[3]}, {0, 1, 3, 2, 4}, {1, 1, 2, 1}));
  return out;
}

// Channel pairs become row pairs: [n, c, h, w] -> [n, c/2, 2h, w], row 2h + r from channel 2c' + r.
// Applied to both input and weight it lets a row-strided conv replace the channel sum (C2H).
Choices channels_to_rows(const TemplateContext& context) {
  const Shape& s = operand(context);
  if (s.rank() != 4 || s[1] % 2 != 0 || s[1] < 2) return {};
  return {ops::layout_attrs({s[0], s[1] / 2, 2, s[2], s[3]}, {0, 1, 3, 2, 4}, {1, 1, 2, 1})};
}

Choices swap_height_width(const TemplateContext& context) {
  const Shape& s = operand(context);
  if (s.rank() != 4) return {};
  return {ops::layout_transpose(s, {0, 1, 3, 2})};
}

Choices flatten_spatial(const TemplateContext& context) {
  const Shape& s = operand(context);
  if (s.rank() != 4) return {};
  Choices out = {{{"shape", std::vector<int64_t>{s[0], s[1], s[2] * s[3]}}}};
  if (s[2] == 1 && s[3] == 1) out.push_back({{"shape", std::vector<int64_t>{s[0], s[1]}}});
  return out;
}

Choices reshape_to_target(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  for (const TensorType& target : context.targets)
    if (target.shape.numel() == s.numel() && target.shape != s)
      out.push_back({{"shape", target.shape.dims()}});
  return out;
}

// One zero row (or column) at either end of an odd spatial axis (PET's odd H/W family).
Choices pad_odd_side(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  if (s.rank() != 4) return out;
  for (int axis = 2; axis < 4; ++axis) {
    if (s[axis] % 2 == 0) continue;
    for (int side = 0; side < 2; ++side) {
      std::vector<int64_t> pads(8, 0);
      pads[static_cast<size_t>(axis + 4 * side)] = 1;
      out.push_back({{"mode", std::string("constant")}, {"pads", pads}, {"value", 0.0}});
    }
  }
  return out;
}

// Zero-pads a kernel up to the largest kernel among the original's weights (so convs with
// different kernel sizes can merge).
Choices enlarge_kernel(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  if (s.rank() != 4) return out;
  bool is_weight = std::any_of(context.original_weights.begin(), context.original_weights.end(),
                               [&](const TensorType& w) { return w.shape == s; });
  if (!is_weight) return out;
  for (const TensorType& w : context.original_weights) {
    if (w.shape.rank() != 4 || w.shape[0] != s[0] || w.shape[1] != s[1]) continue;
    int64_t grow_h = w.shape[2] - s[2], grow_w = w.shape[3] - s[3];
    if (grow_h < 0 || grow_w < 0 || grow_h % 2 || grow_w % 2 || grow_h + grow_w == 0) continue;
    out.push_back({{"mode", std::string("constant")},
                   {"pads", std::vector<int64_t>{0, 0, grow_h / 2, grow_w / 2, 0, 0, grow_h / 2, grow_w / 2}},
                   {"value", 0.0}});
  }
  return out;
}

// Slices one axis down to a target's size, from the start or from the end.
Choices slice_to_target(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  for (const TensorType& target : context.targets) {
    if (target.shape.rank() != s.rank()) continue;
    int differing = -1, count = 0;
    for (int d = 0; d < s.rank(); ++d)
      if (s[d] != target.shape[d]) {
        differing = d;
        ++count;
      }
    if (count != 1 || s[differing] <= target.shape[differing]) continue;
    for (int64_t first : {int64_t{0}, s[differing] - target.shape[differing]}) {
      std::vector<int64_t> starts(static_cast<size_t>(s.rank()), 0), ends = s.dims(), steps(static_cast<size_t>(s.rank()), 1);
      starts[static_cast<size_t>(differing)] = first;
      ends[static_cast<size_t>(differing)] = first + target.shape[differing];
      out.push_back({{"starts", starts}, {"ends", ends}, {"steps", steps}});
    }
  }
  return out;
}

// Matrices only: on 4-D activations swap-height-width is the same transform.
Choices transpose_last_two(const TemplateContext& context) {
  const Shape& s = operand(context);
  if (s.rank() < 2 || s.rank() > 3) return {};
  std::vector<int64_t> perm;
  for (int d = 0; d < s.rank(); ++d) perm.push_back(d);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return {{{"perm", perm}}};
}

Choices concat(const TemplateContext& context) {
  Choices out;
  const Shape& first = operand(context);
  for (int axis = 0; axis < first.rank(); ++axis) {
    bool fits = true;
    for (const TensorType& other : context.operands) {
      if (other.shape.rank() != first.rank()) fits = false;
      for (int d = 0; fits && d < first.rank(); ++d) fits = d == axis || other.shape[d] == first[d];
    }
    if (fits) out.push_back({{"axis", int64_t{axis}}});
  }
  return out;
}

Choices split_halves(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  for (int axis = 0; axis < std::min(2, s.rank()); ++axis)
    if (s[axis] >= 2 && s[axis] % 2 == 0)
      out.push_back({{"axis", int64_t{axis}}, {"split", std::vector<int64_t>{s[axis] / 2, s[axis] / 2}}});
  return out;
}

// Splits along the axis where the targets' sizes add up to the operand's (merged results).
Choices split_to_targets(const TemplateContext& context) {
  Choices out;
  const Shape& s = operand(context);
  if (context.targets.size() < 2) return out;
  for (int axis = 0; axis < s.rank(); ++axis) {
    int64_t total = 0;
    bool fits = true;
    std::vector<int64_t> sizes;
    for (const TensorType& target : context.targets) {
      if (target.shape.rank() != s.rank()) {
        fits = false;
        break;
      }
      for (int d = 0; d < s.rank(); ++d) fits = fits && (d == axis || target.shape[d] == s[d]);
      sizes.push_back(target.shape[axis]);
      total += target.shape[axis];
    }
    if (fits && total == s[axis]) out.push_back({{"axis", int64_t{axis}}, {"split", sizes}});
  }
  return out;
}

// The original convs' attributes, undilated (pads / d), with H and W swapped, and row-strided
// for channel-to-row inputs; the group follows from the operand shapes.
Choices conv(const TemplateContext& context) {
  Choices out;
  const Shape& x = operand(context, 0);
  const Shape& w = operand(context, 1);
  if (x.rank() < 3 || w.rank() != x.rank() || w[1] == 0 || x[1] % w[1] != 0) return out;
  int64_t group = x[1] / w[1];
  if (w[0] % group != 0) return out;
  std::set<std::vector<std::vector<int64_t>>> seen;
  auto add = [&](std::vector<int64_t> strides, std::vector<int64_t> pads, std::vector<int64_t> dilations) {
    size_t spatial = strides.size();
    for (size_t s = 0; s < spatial; ++s) {  // the dilated kernel must fit the padded input
      int64_t padded = x[static_cast<int>(s) + 2] + pads[s] + pads[s + spatial];
      if (dilations[s] * (w[static_cast<int>(s) + 2] - 1) + 1 > padded) return;
    }
    if (!seen.insert({strides, pads, dilations}).second) return;
    out.push_back({{"strides", strides}, {"pads", pads}, {"dilations", dilations}, {"group", group}});
  };
  for (const Node* node : context.original_compute) {
    if (node->op() != "Conv" || node->attrs.get_ints("strides").size() != static_cast<size_t>(x.rank() - 2)) continue;
    auto strides = node->attrs.get_ints("strides"), pads = node->attrs.get_ints("pads"),
         dilations = node->attrs.get_ints("dilations");
    add(strides, pads, dilations);
    size_t spatial = strides.size();
    std::vector<int64_t> undilated_pads = pads, ones(spatial, 1);
    bool divisible = true;
    for (size_t s = 0; s < spatial; ++s) {
      divisible = divisible && pads[s] % dilations[s] == 0 && pads[s + spatial] % dilations[s] == 0;
      if (divisible) {
        undilated_pads[s] /= dilations[s];
        undilated_pads[s + spatial] /= dilations[s];
      }
    }
    if (divisible) add(strides, undilated_pads, ones);
    if (spatial == 2) {
      add({strides[1], strides[0]}, {pads[1], pads[0], pads[3], pads[2]}, {dilations[1], dilations[0]});
      add({strides[0] * 2, strides[1]}, {pads[0] * 2, pads[1], pads[2] * 2, pads[3]}, dilations);
    }
  }
  return out;
}

Choices matmul(const TemplateContext& context) {
  const Shape& a = operand(context, 0);
  const Shape& b = operand(context, 1);
  if (a.rank() < 2 || b.rank() < 2 || a[a.rank() - 1] != b[b.rank() - 2]) return {};
  return {Attributes{}};
}

}  // namespace pet::mutant::choices
