// Layout composition through common refinements of mixed-radix digit decompositions.
#include "verifier/axioms/layout_composition.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "core/error.h"
#include "core/ops/layout.h"

namespace pet::axioms {
namespace {

struct Digit {
  int64_t size;    // > 1
  int64_t stride;  // into the flat input
};
using OutputDigits = std::vector<std::vector<Digit>>;  // per output dim, most significant first

OutputDigits output_digits(const Attributes& layout) {
  const auto& expanded = layout.get_ints("expanded");
  const auto& perm = layout.get_ints("perm");
  std::vector<int64_t> strides = Shape(expanded).strides();
  OutputDigits result;
  size_t next = 0;
  for (int64_t count : layout.get_ints("groups")) {
    std::vector<Digit> dim;
    for (int64_t k = 0; k < count; ++k) {
      auto axis = static_cast<size_t>(perm[next++]);
      if (expanded[axis] > 1) dim.push_back({expanded[axis], strides[axis]});
    }
    result.push_back(dim);
  }
  return result;
}

std::vector<Digit> flatten(const OutputDigits& digits) {
  std::vector<Digit> flat;
  for (const auto& dim : digits) flat.insert(flat.end(), dim.begin(), dim.end());
  return flat;
}

// Sorted digit boundaries of both decompositions, or empty when they do not form a chain under
// divisibility (then no common refinement exists).
std::vector<int64_t> common_boundaries(const std::vector<Digit>& middle, const std::vector<int64_t>& middle_weights,
                                       const OutputDigits& second) {
  std::set<int64_t> bounds{1};
  for (size_t k = 0; k < middle.size(); ++k) bounds.insert({middle_weights[k], middle_weights[k] * middle[k].size});
  for (const Digit& digit : flatten(second)) bounds.insert({digit.stride, digit.stride * digit.size});
  std::vector<int64_t> sorted(bounds.begin(), bounds.end());
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i] % sorted[i - 1] != 0) return {};
  return sorted;
}

// Attributes of the Layout whose output digits are `digits`, reading an input of shape `input`.
std::optional<Attributes> layout_from_digits(const Shape& input, const OutputDigits& digits) {
  std::vector<Digit> sorted = flatten(digits);
  std::sort(sorted.begin(), sorted.end(), [](const Digit& a, const Digit& b) { return a.stride > b.stride; });
  std::vector<int64_t> expanded, units;
  std::map<int64_t, int64_t> position_of_stride;
  size_t next = 0;
  for (int64_t dim : input.dims()) {
    if (dim == 1) units.push_back(static_cast<int64_t>(expanded.size()));
    if (dim == 1) expanded.push_back(1);
    for (int64_t product = 1; product < dim; product *= sorted[next++].size) {
      if (next == sorted.size()) return std::nullopt;
      position_of_stride[sorted[next].stride] = static_cast<int64_t>(expanded.size());
      expanded.push_back(sorted[next].size);
    }
  }
  if (next != sorted.size() || !ops::layout_refinement(input.dims(), expanded)) return std::nullopt;
  std::vector<int64_t> perm, groups;
  size_t next_unit = 0;
  for (const auto& dim : digits) {
    if (dim.empty() && next_unit == units.size()) {
      units.push_back(static_cast<int64_t>(expanded.size()));
      expanded.push_back(1);  // a trailing factor 1 joins the last input dim
    }
    if (dim.empty()) perm.push_back(units[next_unit++]);
    for (const Digit& digit : dim) perm.push_back(position_of_stride.at(digit.stride));
    groups.push_back(std::max<int64_t>(1, static_cast<int64_t>(dim.size())));
  }
  if (groups.empty()) return std::nullopt;
  for (; next_unit < units.size(); ++next_unit, ++groups.back()) perm.push_back(units[next_unit]);
  return ops::layout_attrs(expanded, perm, groups);
}

}  // namespace

std::optional<Attributes> compose_layouts(const Shape& input, const Attributes& first, const Attributes& second) {
  std::vector<Digit> middle = flatten(output_digits(first));
  std::vector<int64_t> weights(middle.size(), 1);  // row-major strides of the middle digits
  for (size_t k = middle.size(); k-- > 1;) weights[k - 1] = weights[k] * middle[k].size;
  OutputDigits outer = output_digits(second);
  std::vector<int64_t> bounds = common_boundaries(middle, weights, outer);
  if (bounds.empty()) return std::nullopt;
  OutputDigits composed;
  for (const auto& dim : outer) {
    std::vector<Digit> refined;
    for (const Digit& digit : dim)
      for (size_t i = bounds.size() - 1; i-- > 0;) {
        int64_t low = bounds[i];
        if (low < digit.stride || low >= digit.stride * digit.size) continue;
        size_t k = 0;
        while (k < middle.size() && !(weights[k] <= low && low < weights[k] * middle[k].size)) ++k;
        PET_CHECK(k < middle.size(), "a refined digit lies outside the middle tensor");
        refined.push_back({bounds[i + 1] / low, middle[k].stride * (low / weights[k])});
      }
    composed.push_back(refined);
  }
  return layout_from_digits(input, composed);
}

bool is_identity_layout(const Shape& input, const Attributes& layout) {
  if (ops::layout_output_shape(layout) != input) return false;
  std::vector<Digit> flat = flatten(output_digits(layout));
  for (size_t i = 1; i < flat.size(); ++i)
    if (flat[i - 1].stride <= flat[i].stride) return false;
  return true;
}

}  // namespace pet::axioms
