// Z_p evaluation of rule op templates and the hashes that turn the results into fingerprints.
#include "mutant/rules/fingerprint.h"

#include <algorithm>

#include "core/error.h"
#include "core/hash.h"
#include "core/ops/linear_facets.h"
#include "core/prime_field.h"
#include "core/registry.h"

namespace pet::rules {
namespace {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Pulls input elements from dense arrays.
class DensePuller : public FieldPuller {
 public:
  DensePuller(const std::vector<const TensorType*>& types, const std::vector<const FieldData*>& inputs)
      : types_(types), inputs_(inputs) {}
  uint64_t pull(int input, const int64_t* index) const override {
    auto i = static_cast<size_t>(input);
    return (*inputs_[i])[static_cast<size_t>(ops::ravel_index(index, types_[i]->shape))];
  }

 private:
  const std::vector<const TensorType*>& types_;
  const std::vector<const FieldData*>& inputs_;
};

FieldData evaluate_output(const OpDef& def, const Attributes& attrs, const std::vector<const TensorType*>& types,
                          const DensePuller& puller, const TensorType& output, int output_index) {
  FieldData out(static_cast<size_t>(output.shape.numel()));
  std::vector<int64_t> index(static_cast<size_t>(std::max(output.shape.rank(), 1)), 0);
  for (int64_t flat = 0; flat < output.shape.numel(); ++flat) {
    ops::unravel_index(flat, output.shape, index.data());
    PointContext context{attrs, types, output, output_index, index.data(), puller};
    out[static_cast<size_t>(flat)] = def.eval_point(context);
  }
  return out;
}

}  // namespace

FieldData random_field_data(const TensorType& type, uint64_t seed, int position) {
  FieldData data(static_cast<size_t>(type.shape.numel()));
  uint64_t stream = mix(seed ^ mix(static_cast<uint64_t>(position) + 1));
  for (size_t j = 0; j < data.size(); ++j) data[j] = mix(stream + j) % field::kPrime;
  return data;
}

std::vector<FieldData> evaluate_template(const RuleOpTemplate& op, const Attributes& attrs,
                                         const std::vector<const TensorType*>& types,
                                         const std::vector<const FieldData*>& inputs,
                                         const std::vector<TensorType>& output_types) {
  if (op.stand_in) return {op.stand_in(attrs, types, inputs, output_types.at(0))};
  const OpDef& def = OpRegistry::global().get(op.op);
  PET_CHECK(def.eval_point != nullptr, "rule op " + op.label + " has neither a stand-in nor point evaluation");
  DensePuller puller(types, inputs);
  std::vector<FieldData> outputs;
  for (size_t k = 0; k < output_types.size(); ++k)
    outputs.push_back(evaluate_output(def, attrs, types, puller, output_types[k], static_cast<int>(k)));
  return outputs;
}

uint64_t data_hash(const TensorType& type, const FieldData& data) {
  Hasher hasher;
  hasher.add(type.to_string());
  hasher.add_bytes(data.data(), data.size() * sizeof(uint64_t));
  return hasher.value();
}

uint64_t fingerprint_of(std::vector<uint64_t> output_hashes) {
  std::sort(output_hashes.begin(), output_hashes.end());
  Hasher hasher;
  for (uint64_t h : output_hashes) hasher.add(h);
  return hasher.value();
}

}  // namespace pet::rules
