// Pull-based Z_p evaluation with memoization of computed node outputs.
#include "verifier/field_evaluator.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"

namespace pet {
namespace {

constexpr uint64_t kUnknown = ~uint64_t{0};  // never a value in Z_p
constexpr int64_t kDenseMemoLimit = int64_t{1} << 21;  // larger values stay in the hash map
constexpr int64_t kDenseAtOnce = int64_t{1} << 16;     // smaller values are dense from the start

uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform in [0, p): the top 61 bits of a 64-bit hash, folded once.
inline uint64_t to_field(uint64_t hash) {
  uint64_t value = hash >> 3;
  return value >= field::kPrime ? value - field::kPrime : value;
}

class NodePuller final : public FieldPuller {
 public:
  NodePuller(FieldEvaluator& evaluator, const Node& node) : evaluator_(evaluator), node_(node) {}
  uint64_t pull(int input, const int64_t* index) const override {
    return evaluator_.value(node_.inputs[static_cast<size_t>(input)], index);
  }
  void pull_run(int input, const int64_t* index, int /*rank*/, int axis, int64_t count, uint64_t* out) const override {
    evaluator_.values_along(node_.inputs[static_cast<size_t>(input)], index, axis, count, out);
  }

 private:
  FieldEvaluator& evaluator_;
  const Node& node_;
};

}  // namespace

FieldEvaluator::FieldEvaluator(const Graph& graph, uint64_t seed, int trial, bool memoize)
    : graph_(graph), seed_(seed), trial_(trial), memoize_(memoize), input_position_(graph.values().size(), -1),
      node_input_types_(graph.nodes().size()), memo_(graph.values().size()) {
  for (size_t i = 0; i < graph.inputs().size(); ++i) input_position_[static_cast<size_t>(graph.inputs()[i])] = static_cast<int>(i);
  for (const Value& v : graph.values()) numel_.push_back(v.type.shape.numel());
  for (size_t n = 0; n < graph.nodes().size(); ++n)
    for (ValueId id : graph.nodes()[n].inputs) node_input_types_[n].push_back(id == kNoValue ? nullptr : &graph.value(id).type);
  start_trial(trial);
}

uint64_t FieldEvaluator::input_stream(uint64_t seed, int trial, int position) {
  return mix(seed ^ mix(static_cast<uint64_t>(trial) * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(position)));
}

// SplitMix64 at stream position `flat`: one mix per element on the hot path.
uint64_t FieldEvaluator::input_value(uint64_t seed, int trial, int position, int64_t flat) {
  return to_field(mix(input_stream(seed, trial, position) + static_cast<uint64_t>(flat) * 0x9e3779b97f4a7c15ULL));
}

void FieldEvaluator::start_trial(int trial) {
  trial_ = trial;
  size_t positions = std::max(input_streams_.size(), graph_.inputs().size());
  input_streams_.clear();
  for (size_t i = 0; i < positions; ++i) input_streams_.push_back(input_stream(seed_, trial, static_cast<int>(i)));
  for (Memo& memo : memo_) forget(memo);
}

void FieldEvaluator::forget(Memo& memo) {
  if (memo.touched_overflow) {
    std::fill(memo.dense.begin(), memo.dense.end(), kUnknown);
  } else {
    for (int64_t flat : memo.touched) memo.dense[static_cast<size_t>(flat)] = kUnknown;
  }
  memo.touched.clear();
  memo.touched_overflow = false;
  memo.sparse.clear();
}

void FieldEvaluator::read_as_input(ValueId id) {
  int& position = input_position_[static_cast<size_t>(id)];
  if (position >= 0) return;
  position = static_cast<int>(input_streams_.size());
  input_streams_.push_back(input_stream(seed_, trial_, position));
}

uint64_t FieldEvaluator::constant_value(ValueId id, int64_t flat) {
  const Tensor& tensor = *graph_.value(id).constant;
  if (tensor.dtype() == DType::f32) return field::from_float(tensor.f32()[static_cast<size_t>(flat)]);
  return field::from_int(tensor.as_int(flat));
}

uint64_t FieldEvaluator::value(ValueId id, const int64_t* index) {
  ++reads_;
  auto slot_id = static_cast<size_t>(id);
  const Value& v = graph_.values()[slot_id];
  const std::vector<int64_t>& dims = v.type.shape.dims();
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + index[d];
  int position = input_position_[slot_id];
  if (position >= 0)
    return to_field(mix(input_streams_[static_cast<size_t>(position)] + static_cast<uint64_t>(flat) * 0x9e3779b97f4a7c15ULL));
  if (v.constant) return constant_value(id, flat);
  if (!memoize_) return node_value(id, index);
  return remembered(slot_id, index, flat);
}

void FieldEvaluator::values_along(ValueId id, const int64_t* index, int axis, int64_t count, uint64_t* out) {
  reads_ += count;
  auto slot_id = static_cast<size_t>(id);
  const Value& v = graph_.values()[slot_id];
  const std::vector<int64_t>& dims = v.type.shape.dims();
  PET_CHECK(axis >= 0 && static_cast<size_t>(axis) < dims.size() && index[axis] + count <= dims[static_cast<size_t>(axis)],
            "values_along: the run leaves the value");
  int64_t flat = 0, stride = 1;
  for (size_t d = 0; d < dims.size(); ++d) {
    flat = flat * dims[d] + index[d];
    if (d > static_cast<size_t>(axis)) stride *= dims[d];
  }
  int position = input_position_[slot_id];
  if (position >= 0) {
    uint64_t stream = input_streams_[static_cast<size_t>(position)];
    for (int64_t k = 0; k < count; ++k)
      out[k] = to_field(mix(stream + static_cast<uint64_t>(flat + k * stride) * 0x9e3779b97f4a7c15ULL));
    return;
  }
  if (v.constant) {
    for (int64_t k = 0; k < count; ++k) out[k] = constant_value(id, flat + k * stride);
    return;
  }
  int64_t moving[kMaxRank];
  std::copy(index, index + dims.size(), moving);
  Memo& memo = memo_[slot_id];  // memo_ never grows, so the reference outlives node_value()
  if (memoize_ && memo.dense.empty() && numel_[slot_id] <= kDenseAtOnce) turn_dense(memo, numel_[slot_id]);
  for (int64_t k = 0; k < count; ++k) {
    moving[axis] = index[axis] + k;
    int64_t at = flat + k * stride;
    if (!memoize_) out[k] = node_value(id, moving);
    else if (!memo.dense.empty()) out[k] = from_dense(memo, id, moving, at);
    else out[k] = remembered(slot_id, moving, at);  // may turn the memo dense for the run's rest
  }
}

uint64_t FieldEvaluator::from_dense(Memo& memo, ValueId id, const int64_t* index, int64_t flat) {
  uint64_t known = memo.dense[static_cast<size_t>(flat)];
  if (known != kUnknown) return known;
  uint64_t result = node_value(id, index);
  memo.dense[static_cast<size_t>(flat)] = result;
  note_touched(memo, flat);
  return result;
}

uint64_t FieldEvaluator::remembered(size_t slot_id, const int64_t* index, int64_t flat) {
  Memo& memo = memo_[slot_id];  // memo_ never grows, so the reference outlives node_value()
  auto id = static_cast<ValueId>(slot_id);
  int64_t numel = numel_[slot_id];
  if (memo.dense.empty() && numel <= kDenseAtOnce) turn_dense(memo, numel);
  if (!memo.dense.empty()) return from_dense(memo, id, index, flat);
  auto found = memo.sparse.find(flat);
  if (found != memo.sparse.end()) return found->second;
  uint64_t result = node_value(id, index);
  memo.sparse.emplace(flat, result);
  if (numel <= kDenseMemoLimit && static_cast<int64_t>(memo.sparse.size()) * 16 > numel) turn_dense(memo, numel);
  return result;
}

void FieldEvaluator::turn_dense(Memo& memo, int64_t numel) {
  memo.dense.assign(static_cast<size_t>(numel), kUnknown);
  for (const auto& [flat, known] : memo.sparse) {
    memo.dense[static_cast<size_t>(flat)] = known;
    note_touched(memo, flat);
  }
  memo.sparse.clear();
}

void FieldEvaluator::note_touched(Memo& memo, int64_t flat) {
  if (memo.touched_overflow) return;
  memo.touched.push_back(flat);
  memo.touched_overflow = memo.touched.size() > memo.dense.size() / 8;
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
