// The attribute forms of the mutant set's ops: one point of a domain read as one op's attributes.
#include "mutant/attribute_forms.h"

#include <algorithm>
#include <numeric>

#include "core/ops/layout.h"

namespace pet::mutant::form {
namespace {

using Dims = std::vector<int64_t>;

// The layout builders need the axis (not the batch) divisible by the factor; a refusal is no point.
bool splits_axis(const Shape& shape, int axis, int64_t factor) {
  return !ops::axis_split_refusal(shape, axis, factor, false, "");
}
// ... and, to move `factor` batch chunks in, the batch divisible too.
bool moves_batch_chunks(const Shape& shape, int axis, int64_t factor) {
  return splits_axis(shape, axis, 1) && !ops::axis_split_refusal(shape, 0, factor, true, "");
}

Dims identity_perm(int rank) {
  Dims perm(static_cast<size_t>(rank));
  std::iota(perm.begin(), perm.end(), 0);
  return perm;
}

Dims swapped_perm(int rank, const std::vector<int>& axes) {
  Dims perm = identity_perm(rank);
  std::swap(perm[static_cast<size_t>(axes[0])], perm[static_cast<size_t>(axes[1])]);
  return perm;
}

// Both spatial axes of NCHW de-interleaved by d at once: chunk (rh*d + rw)*n + b holds
// in[b, c, j*d + rh, k*d + rw], so a conv dilated by d on both axes runs undilated per chunk.
Attributes deinterleave_both(const Shape& s, int64_t d) {
  return ops::layout_attrs({s[0], s[1], s[2] / d, d, s[3] / d, d}, {3, 5, 0, 1, 2, 4}, {3, 1, 1, 1});
}
Attributes interleave_both(const Shape& s, int64_t d) {
  return ops::layout_attrs({d, d, s[0] / (d * d), s[1], s[2], s[3]}, {2, 3, 4, 0, 5, 1}, {1, 1, 2, 2});
}

// `axis` split into the two factors `outer` x `inner`, the two exchanged, merged again.
Attributes exchange_axis_factors(const Shape& s, int axis, int64_t outer, int64_t inner) {
  Dims expanded, perm, groups;
  for (int d = 0; d < s.rank(); ++d) {
    if (d == axis) {
      expanded.insert(expanded.end(), {outer, inner});
      perm.insert(perm.end(), {d + 1, d});
      groups.push_back(2);
    } else {
      expanded.push_back(s[d]);
      perm.push_back(d < axis ? d : d + 1);
      groups.push_back(1);
    }
  }
  return ops::layout_attrs(expanded, perm, groups);
}

Attributes pads_attrs(Dims pads) {
  return {{"mode", std::string("constant")}, {"pads", std::move(pads)}, {"value", 0.0}};
}

// The pads growing kernel `from` to `to` evenly on each spatial axis, when it grows by even amounts.
std::optional<Attributes> kernel_growth_pads(const Shape& from, const Shape& to) {
  Dims pads(static_cast<size_t>(2 * from.rank()), 0);
  bool grows = false;
  for (int d = 2; d < from.rank(); ++d) {
    int64_t grow = to[d] - from[d];
    if (grow < 0 || grow % 2 != 0) return std::nullopt;
    grows = grows || grow > 0;
    pads[static_cast<size_t>(d)] = pads[static_cast<size_t>(d + from.rank())] = grow / 2;
  }
  if (!grows) return std::nullopt;
  return pads_attrs(std::move(pads));
}

// The operands' group (input channels over weight channels), when the weight divides them.
std::optional<int64_t> operand_group(const DomainPoint& point) {
  const Shape& x = point.operand(0);
  const Shape& w = point.operand(1);
  if (x.rank() < 3 || w.rank() != x.rank() || w[1] == 0 || x[1] % w[1] != 0) return std::nullopt;
  int64_t group = x[1] / w[1];
  if (w[0] % group != 0) return std::nullopt;
  return group;
}

struct Window {
  Dims strides, pads, dilations;
};

// The original op's window attributes, when it has as many spatial axes as the operands.
std::optional<Window> original_window(const DomainPoint& point) {
  const Attributes& attrs = point.original->attrs;
  if (!attrs.has("strides") || point.context.operands.size() < 2) return std::nullopt;
  Window window{attrs.get_ints("strides"), attrs.get_ints("pads"), attrs.get_ints("dilations")};
  if (window.strides.size() != static_cast<size_t>(point.operand(0).rank() - 2)) return std::nullopt;
  return window;
}

std::optional<Attributes> window_attrs(const DomainPoint& point, Window window) {
  std::optional<int64_t> group = operand_group(point);
  if (!group) return std::nullopt;
  return Attributes{{"strides", std::move(window.strides)}, {"pads", std::move(window.pads)},
                    {"dilations", std::move(window.dilations)}, {"group", *group}};
}

}  // namespace

std::optional<Attributes> no_attributes(const DomainPoint&) { return Attributes{}; }

std::optional<Attributes> batch_to_axis(const DomainPoint& p) {
  if (!moves_batch_chunks(p.operand(), p.axes[0], p.value)) return std::nullopt;
  return ops::layout_batch_to_axis(p.operand(), p.axes[0], p.value);
}

std::optional<Attributes> axis_to_batch(const DomainPoint& p) {
  if (!splits_axis(p.operand(), p.axes[0], p.value)) return std::nullopt;
  return ops::layout_axis_to_batch(p.operand(), p.axes[0], p.value);
}

std::optional<Attributes> deinterleave(const DomainPoint& p) {
  const Shape& s = p.operand();
  if (p.axes.size() == 2)
    return s[2] % p.value == 0 && s[3] % p.value == 0 ? std::optional(deinterleave_both(s, p.value)) : std::nullopt;
  if (!splits_axis(s, p.axes[0], p.value)) return std::nullopt;
  return ops::layout_dilation_deinterleave(s, p.axes[0], p.value);
}

std::optional<Attributes> interleave(const DomainPoint& p) {
  const Shape& s = p.operand();
  if (p.axes.size() == 2)
    return s[0] % (p.value * p.value) == 0 ? std::optional(interleave_both(s, p.value)) : std::nullopt;
  if (!moves_batch_chunks(s, p.axes[0], p.value)) return std::nullopt;
  return ops::layout_dilation_interleave(s, p.axes[0], p.value);
}

// Positions j*d + r of the axis move to r*(size/d) + j: the residue classes stacked (PET's D2H).
std::optional<Attributes> stack_residues(const DomainPoint& p) {
  int64_t size = p.operand()[p.axes[0]];
  if (size % p.value != 0) return std::nullopt;
  return exchange_axis_factors(p.operand(), p.axes[0], size / p.value, p.value);
}

std::optional<Attributes> unstack_residues(const DomainPoint& p) {
  int64_t size = p.operand()[p.axes[0]];
  if (size % p.value != 0) return std::nullopt;
  return exchange_axis_factors(p.operand(), p.axes[0], p.value, size / p.value);
}

// [n, c, .., s, ..] -> [n, c/f, .., s*f, ..], position s*f + k from channel c'*f + k.
std::optional<Attributes> channels_into_axis(const DomainPoint& p) {
  const Shape& s = p.operand();
  int64_t f = p.value;
  if (s[1] < f || s[1] % f != 0) return std::nullopt;
  Dims expanded = {s[0], s[1] / f, f}, perm = {0, 1}, groups = {1, 1};
  for (int d = 2; d < s.rank(); ++d) {
    expanded.push_back(s[d]);
    perm.push_back(d + 1);
    if (d == p.axes[0]) perm.push_back(2);
    groups.push_back(d == p.axes[0] ? 2 : 1);
  }
  return ops::layout_attrs(expanded, perm, groups);
}

std::optional<Attributes> swap_axes(const DomainPoint& p) {
  return ops::layout_transpose(p.operand(), swapped_perm(p.operand().rank(), p.axes));
}

std::optional<Attributes> transpose_axes(const DomainPoint& p) {
  return Attributes{{"perm", swapped_perm(p.operand().rank(), p.axes)}};
}

std::optional<Attributes> merge_spatial(const DomainPoint& p) {
  const Shape& s = p.operand();
  int64_t spatial = 1;
  for (int d = 2; d < s.rank(); ++d) spatial *= s[d];
  return Attributes{{"shape", Dims{s[0], s[1], spatial}}};
}

std::optional<Attributes> drop_unit_spatial(const DomainPoint& p) {
  const Shape& s = p.operand();
  for (int d = 2; d < s.rank(); ++d)
    if (s[d] != 1) return std::nullopt;
  return Attributes{{"shape", Dims{s[0], s[1]}}};
}

std::optional<Attributes> reshape_to_target(const DomainPoint& p) {
  if (p.target->numel() != p.operand().numel() || *p.target == p.operand()) return std::nullopt;
  return Attributes{{"shape", p.target->dims()}};
}

std::optional<Attributes> pad_to_multiple(const DomainPoint& p) {
  const Shape& s = p.operand();
  int64_t size = s[p.axes[0]];
  int64_t grow = (size + p.value - 1) / p.value * p.value - size;
  if (grow == 0) return std::nullopt;
  Dims pads(static_cast<size_t>(2 * s.rank()), 0);
  pads[static_cast<size_t>(p.axes[0] + (p.side == Side::End ? s.rank() : 0))] = grow;
  return pads_attrs(std::move(pads));
}

// Grown evenly on each spatial axis, so a conv with pads grown alike keeps its output.
std::optional<Attributes> pad_to_kernel(const DomainPoint& p) {
  const Shape& s = p.operand();
  const Shape& to = *p.target;
  if (to.rank() != s.rank() || s.rank() < 3 || to[0] != s[0] || to[1] != s[1]) return std::nullopt;
  return kernel_growth_pads(s, to);
}

std::optional<Attributes> pad_to_square(const DomainPoint& p) {
  const Shape& s = p.operand();
  if (s.rank() < 3) return std::nullopt;
  Dims square = s.dims();
  int64_t side = *std::max_element(square.begin() + 2, square.end());
  std::fill(square.begin() + 2, square.end(), side);
  return kernel_growth_pads(s, Shape(square));
}


std::optional<Attributes> slice_to_target(const DomainPoint& p) {
  const Shape& s = p.operand();
  const Shape& to = *p.target;
  int axis = p.axes[0];
  if (to.rank() != s.rank() || s[axis] <= to[axis]) return std::nullopt;
  for (int d = 0; d < s.rank(); ++d)
    if (d != axis && s[d] != to[d]) return std::nullopt;
  int64_t first = p.side == Side::Start ? 0 : s[axis] - to[axis];
  Dims starts(static_cast<size_t>(s.rank()), 0), ends = s.dims(), steps(static_cast<size_t>(s.rank()), 1);
  starts[static_cast<size_t>(axis)] = first;
  ends[static_cast<size_t>(axis)] = first + to[axis];
  return Attributes{{"starts", starts}, {"ends", ends}, {"steps", steps}};
}

std::optional<Attributes> on_axis(const DomainPoint& p) { return Attributes{{"axis", int64_t{p.axes[0]}}}; }

std::optional<Attributes> split_equal(const DomainPoint& p) {
  int64_t size = p.operand()[p.axes[0]];
  if (size < p.value || size % p.value != 0) return std::nullopt;
  return Attributes{{"axis", int64_t{p.axes[0]}}, {"split", Dims(static_cast<size_t>(p.value), size / p.value)}};
}

// Where the targets' sizes on the axis add up to the operand's and agree elsewhere (merged results).
std::optional<Attributes> split_to_targets(const DomainPoint& p) {
  const Shape& s = p.operand();
  int axis = p.axes[0];
  if (p.context.targets.size() < 2) return std::nullopt;
  Dims sizes;
  int64_t total = 0;
  for (const TensorType& target : p.context.targets) {
    if (target.shape.rank() != s.rank()) return std::nullopt;
    for (int d = 0; d < s.rank(); ++d)
      if (d != axis && target.shape[d] != s[d]) return std::nullopt;
    sizes.push_back(target.shape[axis]);
    total += target.shape[axis];
  }
  if (total != s[axis]) return std::nullopt;
  return Attributes{{"axis", int64_t{axis}}, {"split", sizes}};
}

std::optional<Attributes> inherited(const DomainPoint& p) {
  std::optional<Window> window = original_window(p);
  return window ? window_attrs(p, *window) : std::nullopt;
}

std::optional<Attributes> undilated(const DomainPoint& p) {
  std::optional<Window> window = original_window(p);
  if (!window) return std::nullopt;
  size_t spatial = window->strides.size();
  for (size_t s = 0; s < spatial; ++s) {
    int64_t d = window->dilations[s];
    if (window->pads[s] % d != 0 || window->pads[s + spatial] % d != 0) return std::nullopt;
    window->pads[s] /= d;
    window->pads[s + spatial] /= d;
    window->dilations[s] = 1;
  }
  return window_attrs(p, *window);
}

std::optional<Attributes> spatial_swapped(const DomainPoint& p) {
  std::optional<Window> w = original_window(p);
  if (!w || w->strides.size() != 2) return std::nullopt;
  return window_attrs(p, {{w->strides[1], w->strides[0]}, {w->pads[1], w->pads[0], w->pads[3], w->pads[2]},
                          {w->dilations[1], w->dilations[0]}});
}

std::optional<Attributes> first_axis_strided(const DomainPoint& p) {
  std::optional<Window> w = original_window(p);
  if (!w || w->strides.size() != 2) return std::nullopt;
  return window_attrs(p, {{w->strides[0] * 2, w->strides[1]}, {w->pads[0] * 2, w->pads[1], w->pads[2] * 2, w->pads[3]},
                          w->dilations});
}

// The original's pads grown by half of what the weight operand's kernel grew over the original's
// weight (times the dilation): a kernel grown with zeros then reads the same window (SAME stays SAME).
std::optional<Attributes> pads_follow_kernel(const DomainPoint& p) {
  std::optional<Window> w = original_window(p);
  const auto& originals = p.context.original_compute;
  auto index = static_cast<size_t>(std::find(originals.begin(), originals.end(), p.original) - originals.begin());
  if (!w || index >= p.context.original_weights.size()) return std::nullopt;
  const Shape& kernel = p.operand(1);
  const Shape& original = p.context.original_weights[index].shape;
  if (kernel.rank() != original.rank()) return std::nullopt;
  size_t spatial = w->strides.size();
  bool grown = false;
  for (size_t s = 0; s < spatial; ++s) {
    int64_t grow = kernel[static_cast<int>(s) + 2] - original[static_cast<int>(s) + 2];
    if (grow < 0 || grow % 2 != 0) return std::nullopt;
    grown = grown || grow > 0;
    w->pads[s] += w->dilations[s] * grow / 2;
    w->pads[s + spatial] += w->dilations[s] * grow / 2;
  }
  return grown ? window_attrs(p, *w) : std::nullopt;
}

}  // namespace pet::mutant::form
