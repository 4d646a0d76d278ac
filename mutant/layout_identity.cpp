// The sampled Z_p comparison behind recomputes_existing_value().
#include "mutant/layout_identity.h"

#include <optional>
#include <random>

#include "core/ops/linear_facets.h"
#include "verifier/field_evaluator.h"

namespace pet::mutant {
namespace {

constexpr int kRandomPoints = 12;

std::vector<std::vector<int64_t>> sample_points(const Shape& shape, uint64_t seed) {
  std::vector<std::vector<int64_t>> points;
  if (shape.numel() == 0) return points;
  std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
  ops::unravel_index(0, shape, index.data());
  points.push_back(index);
  ops::unravel_index(shape.numel() - 1, shape, index.data());
  points.push_back(index);
  std::mt19937_64 engine(seed);
  for (int i = 0; i < kRandomPoints; ++i) {
    ops::unravel_index(static_cast<int64_t>(engine() % static_cast<uint64_t>(shape.numel())), shape, index.data());
    points.push_back(index);
  }
  return points;
}

// A value at the sample points, each computed once, when a comparison first needs it (the value
// behind a layout is often a conv: one point costs a whole receptive field).
class SampledValue {
 public:
  SampledValue(FieldEvaluator& evaluator, ValueId id, std::vector<std::vector<int64_t>> points)
      : evaluator_(evaluator), id_(id), points_(std::move(points)), values_(points_.size()) {}

  bool same_as(ValueId other) {
    for (size_t i = 0; i < points_.size(); ++i)
      if (at(i) != evaluator_.value(other, points_[i].data())) return false;
    return true;
  }

 private:
  uint64_t at(size_t i) {
    if (!values_[i]) values_[i] = evaluator_.value(id_, points_[i].data());
    return *values_[i];
  }

  FieldEvaluator& evaluator_;
  ValueId id_;
  std::vector<std::vector<int64_t>> points_;
  std::vector<std::optional<uint64_t>> values_;
};

bool any_output_recomputes(const Graph& graph, const Node& last, FieldEvaluator& evaluator, uint64_t seed) {
  for (ValueId out : last.outputs) {
    SampledValue sampled(evaluator, out, sample_points(graph.value(out).type.shape, seed ^ static_cast<uint64_t>(out)));
    for (size_t v = 0; v < graph.values().size(); ++v) {
      auto other = static_cast<ValueId>(v);
      const Value& value = graph.value(other);
      bool is_last = value.producer >= 0 && &graph.node(value.producer) == &last;
      if (is_last || value.type != graph.value(out).type || value.constant) continue;
      if (sampled.same_as(other)) return true;
    }
  }
  return false;
}

}  // namespace

bool recomputes_existing_value(const Graph& graph, uint64_t seed, int64_t& work) {
  const Node& last = graph.nodes().back();
  if (!last.def->traits.layout_only) return false;
  FieldEvaluator evaluator(graph, seed, 0, /*memoize=*/false);
  for (const Node& node : graph.nodes()) {
    if (!node.def->traits.layout_only)
      for (ValueId out : node.outputs) evaluator.read_as_input(out);
    else if (!node.def->eval_point)
      return false;
  }
  bool found = any_output_recomputes(graph, last, evaluator, seed);
  work += evaluator.reads();
  return found;
}

}  // namespace pet::mutant
