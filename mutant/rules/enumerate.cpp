// Depth-first enumeration with incremental Z_p evaluation: each step's outputs are computed once
// and shared by every program that extends the prefix.
#include "mutant/rules/enumerate.h"

#include <memory>
#include <unordered_set>

#include "core/error.h"
#include "core/registry.h"
#include "mutant/rules/fingerprint.h"

namespace pet::rules {
namespace {

struct LiveValue {
  TensorType type;
  uint64_t key = 0;
  std::shared_ptr<const FieldData> data;
  uint64_t data_hash = 0;
  int uses = 0;
  int step = -1;  // producing step, -1 for pool inputs
};

class Enumerator {
 public:
  Enumerator(const ShapeClass& shape_class, const EnumerationOptions& options) : options_(options) {
    for (const std::string& label : shape_class.ops) ops_.push_back(rule_op_index(label));
    program_.pool_size = static_cast<int>(shape_class.inputs.size());
    for (int i = 0; i < program_.pool_size; ++i) {
      const TensorType& type = shape_class.inputs[static_cast<size_t>(i)].type;
      auto data = std::make_shared<const FieldData>(random_field_data(type, options.seed, i));
      values_.push_back({type, input_key(i), data, data_hash(type, *data), 0, -1});
    }
  }

  std::vector<EnumeratedProgram> run() {
    add_input_programs();
    extend();
    return std::move(result_);
  }

 private:
  void add_input_programs() {
    for (int i = 0; i < program_.pool_size; ++i) {
      if (values_[static_cast<size_t>(i)].type.shape.rank() == 0) continue;
      record({i});
      for (int j = i + 1; j < program_.pool_size; ++j)
        if (values_[static_cast<size_t>(j)].type.shape.rank() > 0) record({i, j});
    }
  }

  void record(std::vector<int> outputs) {
    program_.outputs = std::move(outputs);
    uint64_t key = program_key(program_, identity_renaming(program_.pool_size));
    if (!seen_.insert(key).second) return;
    EnumeratedProgram entry{program_, key, 0, {}, {}};
    for (const LiveValue& value : values_) entry.value_hashes.push_back(value.data_hash);
    for (int output : program_.outputs) entry.output_hashes.push_back(values_[static_cast<size_t>(output)].data_hash);
    entry.fingerprint = fingerprint_of(entry.output_hashes);
    result_.push_back(std::move(entry));
  }

  void record_unconsumed() {
    std::vector<int> outputs;
    for (size_t v = static_cast<size_t>(program_.pool_size); v < values_.size(); ++v)
      if (values_[v].uses == 0) outputs.push_back(static_cast<int>(v));
    record(std::move(outputs));
  }

  void extend() {
    if (static_cast<int>(program_.steps.size()) >= options_.max_ops) return;
    int count = static_cast<int>(values_.size());
    for (int op : ops_) {
      const RuleOpTemplate& t = rule_op_set()[static_cast<size_t>(op)];
      for (int a = 0; a < count; ++a) {
        if (t.arity == 1) {
          try_step(op, {a});
          continue;
        }
        for (int b = t.commutative ? a : 0; b < count; ++b) try_step(op, {a, b});
      }
    }
  }

  // Keeps one order per DAG: a step that reads nothing of the previous step must have a larger key.
  bool in_canonical_order(const std::vector<int>& inputs, uint64_t key) const {
    if (step_keys_.empty()) return true;
    int last = static_cast<int>(step_keys_.size()) - 1;
    for (int input : inputs)
      if (values_[static_cast<size_t>(input)].step == last) return true;
    return key > step_keys_.back();
  }

  std::optional<std::vector<TensorType>> output_types(const RuleOpTemplate& t, Attributes& attrs,
                                                      const std::vector<const TensorType*>& types) const {
    std::optional<Attributes> chosen = t.attrs_for(types);
    if (!chosen) return std::nullopt;
    const OpDef& def = OpRegistry::global().get(t.op);
    attrs = complete_attributes(def, *chosen);
    ShapeResult fit = infer_types(def, attrs, types, "n");
    if (fit.refused()) return std::nullopt;
    for (const TensorType& type : fit.value())
      if (type.shape.numel() > options_.max_elements) return std::nullopt;
    return std::move(fit).value();
  }

  void try_step(int op, const std::vector<int>& inputs) {
    const RuleOpTemplate& t = rule_op_set()[static_cast<size_t>(op)];
    std::vector<const TensorType*> types;
    std::vector<uint64_t> input_keys;
    for (int input : inputs) {
      types.push_back(&values_[static_cast<size_t>(input)].type);
      input_keys.push_back(values_[static_cast<size_t>(input)].key);
    }
    Attributes attrs;
    std::optional<std::vector<TensorType>> outputs = output_types(t, attrs, types);
    if (!outputs) return;
    std::vector<uint64_t> keys;
    for (size_t k = 0; k < outputs->size(); ++k) {
      keys.push_back(step_key(op, static_cast<int>(k), input_keys));
      for (const LiveValue& value : values_)
        if (value.key == keys.back()) return;  // the same computation exists already
    }
    if (!in_canonical_order(inputs, keys[0])) return;
    push_step(op, inputs, attrs, types, *outputs, keys);
    record_unconsumed();
    extend();
    pop_step(inputs, outputs->size());
  }

  void push_step(int op, const std::vector<int>& inputs, const Attributes& attrs,
                 const std::vector<const TensorType*>& types, const std::vector<TensorType>& outputs,
                 const std::vector<uint64_t>& keys) {
    std::vector<const FieldData*> data;
    for (int input : inputs) data.push_back(values_[static_cast<size_t>(input)].data.get());
    std::vector<FieldData> results =
        evaluate_template(rule_op_set()[static_cast<size_t>(op)], attrs, types, data, outputs);
    for (int input : inputs) ++values_[static_cast<size_t>(input)].uses;
    int step = static_cast<int>(program_.steps.size());
    for (size_t k = 0; k < outputs.size(); ++k) {
      auto shared = std::make_shared<const FieldData>(std::move(results[k]));
      values_.push_back({outputs[k], keys[k], shared, data_hash(outputs[k], *shared), 0, step});
    }
    program_.steps.push_back({op, inputs, static_cast<int>(outputs.size())});
    step_keys_.push_back(keys[0]);
  }

  void pop_step(const std::vector<int>& inputs, size_t num_outputs) {
    values_.resize(values_.size() - num_outputs);
    for (int input : inputs) --values_[static_cast<size_t>(input)].uses;
    program_.steps.pop_back();
    step_keys_.pop_back();
  }

  const EnumerationOptions& options_;
  std::vector<int> ops_;
  std::vector<LiveValue> values_;
  std::vector<uint64_t> step_keys_;
  Program program_;
  std::unordered_set<uint64_t> seen_;
  std::vector<EnumeratedProgram> result_;
};

}  // namespace

std::vector<EnumeratedProgram> enumerate_programs(const ShapeClass& shape_class, const EnumerationOptions& options) {
  return Enumerator(shape_class, options).run();
}

}  // namespace pet::rules
