// The generic enumerator of attribute domains: axis sets x values x sides x forms, each attribute
// set once, in declaration order (the generator's search order, hence its budgets, follow it).
#include "mutant/attribute_domain.h"

#include <algorithm>
#include <set>

namespace pet::mutant {
namespace {

std::vector<std::vector<int>> axis_sets(Axes axes, int rank) {
  std::vector<std::vector<int>> sets;
  auto each = [&](int from, int to) {
    for (int axis = from; axis < std::min(to, rank); ++axis) sets.push_back({axis});
  };
  switch (axes) {  // the vocabulary of axis sets, not op kinds
    case Axes::None: sets.push_back({}); break;
    case Axes::Every: each(0, rank); break;
    case Axes::Leading: each(0, 2); break;
    case Axes::Channel: each(1, 2); break;
    case Axes::Height: each(2, 3); break;
    case Axes::Spatial: each(2, rank); break;
    case Axes::BothSpatialThenEach:
      if (rank == 4) sets.push_back({2, 3});
      each(2, rank);
      break;
    case Axes::LastTwo:
      if (rank >= 2) sets.push_back({rank - 2, rank - 1});
      break;
  }
  return sets;
}

// Batch-size ratios between the operand and the targets: the factors a closing layout needs.
std::set<int64_t> batch_ratios(const TemplateContext& context) {
  std::set<int64_t> ratios;
  const Shape& shape = context.operands.at(0).shape;
  for (const TensorType& target : context.targets) {
    if (target.shape.rank() != shape.rank() || shape.rank() == 0) continue;
    if (shape[0] > 0 && target.shape[0] > shape[0] && target.shape[0] % shape[0] == 0)
      ratios.insert(target.shape[0] / shape[0]);
    if (shape[0] > target.shape[0] && target.shape[0] > 0 && shape[0] % target.shape[0] == 0)
      ratios.insert(shape[0] / target.shape[0]);
  }
  return ratios;
}

// The dilations above 1 that every original compute op with dilations has on one of the axes,
// common to all axes of the set.
std::set<int64_t> original_dilations(const TemplateContext& context, const std::vector<int>& axes) {
  std::set<int64_t> common;
  for (size_t i = 0; i < axes.size(); ++i) {
    std::set<int64_t> values;
    for (const Node* node : context.original_compute) {
      if (!node->attrs.has("dilations")) continue;
      const std::vector<int64_t>& dilations = node->attrs.get_ints("dilations");
      auto index = static_cast<size_t>(axes[i] - 2);
      if (axes[i] >= 2 && index < dilations.size() && dilations[index] >= 2) values.insert(dilations[index]);
    }
    if (i == 0) common = values;
    std::set<int64_t> kept;
    std::set_intersection(common.begin(), common.end(), values.begin(), values.end(), std::inserter(kept, kept.end()));
    common = kept;
  }
  return common;
}

std::set<int64_t> integer_values(const AttributeDomain& domain, const TemplateContext& context,
                                 const std::vector<int>& axes) {
  std::set<int64_t> values(domain.values.begin(), domain.values.end());
  std::set<int64_t> more;
  if (domain.source == Source::BatchRatios) more = batch_ratios(context);
  if (domain.source == Source::OriginalDilation) more = original_dilations(context, axes);
  if (domain.source == Source::ChannelMultiples)
    more.insert(context.channel_multiples.begin(), context.channel_multiples.end());
  for (int64_t value : more)
    if (value >= 2) values.insert(value);
  return values;
}

// The points of one axis set, before sides and forms.
std::vector<DomainPoint> points(const AttributeDomain& domain, const std::string& op, const TemplateContext& context,
                                const std::vector<int>& axes) {
  std::vector<DomainPoint> out;
  const Shape& operand = context.operands.at(0).shape;
  if (domain.source == Source::NoValue) out.push_back({context, axes});
  if (domain.source == Source::Targets)
    for (const TensorType& target : context.targets) out.push_back({context, axes, 0, Side::End, &target.shape});
  if (domain.source == Source::OriginalKernels) {
    bool is_weight = std::any_of(context.original_weights.begin(), context.original_weights.end(),
                                 [&](const TensorType& weight) { return weight.shape == operand; });
    for (const TensorType& weight : context.original_weights)
      if (is_weight) out.push_back({context, axes, 0, Side::End, &weight.shape});
  }
  if (domain.source == Source::OriginalCompute)
    for (const Node* node : context.original_compute)
      if (node->op() == op) out.push_back({context, axes, 0, Side::End, nullptr, node});
  bool integer = domain.source == Source::Fixed || domain.source == Source::BatchRatios ||
                 domain.source == Source::OriginalDilation || domain.source == Source::ChannelMultiples;
  if (integer)
    for (int64_t value : integer_values(domain, context, axes)) out.push_back({context, axes, value});
  return out;
}

}  // namespace

std::vector<Attributes> enumerate_attributes(const std::vector<AttributeDomain>& domains, const std::string& op,
                                             const TemplateContext& context) {
  std::vector<Attributes> sets;
  if (context.operands.empty()) return sets;
  int rank = context.operands[0].shape.rank();
  for (const AttributeDomain& domain : domains) {
    if (rank < domain.min_rank || rank > domain.max_rank) continue;
    for (const std::vector<int>& axes : axis_sets(domain.axes, rank))
      for (DomainPoint point : points(domain, op, context, axes))
        for (Side side : domain.sides)
          for (Form form : domain.forms) {
            point.side = side;
            std::optional<Attributes> attrs = form(point);
            if (attrs && std::find(sets.begin(), sets.end(), *attrs) == sets.end()) sets.push_back(std::move(*attrs));
          }
  }
  return sets;
}

}  // namespace pet::mutant
