// Pull-based Z_p evaluation with memoization of computed node outputs.
#include "verifier/field_evaluator.h"

#include "core/error.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"

namespace pet {
namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class NodePuller final : public FieldPuller {
 public:
  NodePuller(FieldEvaluator& evaluator, const Node& node) : evaluator_(evaluator), node_(node) {}
  uint64_t pull(int input, const int64_t* index) const override {
    return evaluator_.value(node_.inputs[static_cast<size_t>(input)], index);
  }

 private:
  FieldEvaluator& evaluator_;
  const Node& node_;
};

}  // namespace

FieldEvaluator::FieldEvaluator(const Graph& graph, uint64_t seed, int trial)
    : graph_(graph), seed_(seed), trial_(trial), input_position_(graph.values().size(), -1),
      node_input_types_(graph.nodes().size()), memo_(graph.values().size()) {
  for (size_t i = 0; i < graph.inputs().size(); ++i) input_position_[static_cast<size_t>(graph.inputs()[i])] = static_cast<int>(i);
  for (size_t n = 0; n < graph.nodes().size(); ++n)
    for (ValueId id : graph.nodes()[n].inputs) node_input_types_[n].push_back(id == kNoValue ? nullptr : &graph.value(id).type);
}

uint64_t FieldEvaluator::input_value(uint64_t seed, int trial, int position, int64_t flat) {
  uint64_t h = mix(seed ^ mix(static_cast<uint64_t>(trial) * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(position)));
  return mix(h ^ mix(static_cast<uint64_t>(flat))) % field::kPrime;
}

uint64_t FieldEvaluator::constant_value(ValueId id, int64_t flat) {
  const Tensor& tensor = *graph_.value(id).constant;
  if (tensor.dtype() == DType::f32) return field::from_float(tensor.f32()[static_cast<size_t>(flat)]);
  return field::from_int(tensor.as_int(flat));
}

uint64_t FieldEvaluator::value(ValueId id, const int64_t* index) {
  const Value& v = graph_.value(id);
  int64_t flat = ops::ravel_index(index, v.type.shape);
  int position = input_position_[static_cast<size_t>(id)];
  if (position >= 0) return input_value(seed_, trial_, position, flat);
  if (v.constant) return constant_value(id, flat);
  auto& memo = memo_[static_cast<size_t>(id)];
  auto found = memo.find(flat);
  if (found != memo.end()) return found->second;
  uint64_t result = node_value(id, index);
  memo.emplace(flat, result);
  return result;
}

uint64_t FieldEvaluator::node_value(ValueId id, const int64_t* index) {
  const Value& v = graph_.value(id);
  const Node& node = graph_.node(v.producer);
  PET_CHECK(static_cast<bool>(node.def->eval_point), "op " + node.op() + " has no point evaluation over Z_p");
  int output_index = 0;
  while (node.outputs[static_cast<size_t>(output_index)] != id) ++output_index;
  NodePuller puller(*this, node);
  PointContext context{node.attrs, node_input_types_[static_cast<size_t>(v.producer)], v.type, output_index, index, puller};
  return node.def->eval_point(context);
}

}  // namespace pet
