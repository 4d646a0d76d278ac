// Exact fingerprints of small programs: every value is computed over Z_p (p = 2^61 - 1) from
// seeded random inputs, linear ops by their own point evaluation and Relu/MaxPool by polynomial
// stand-ins, so equal programs give equal fingerprints and different ones almost never do.
#pragma once

#include <cstdint>
#include <vector>

#include "mutant/rules/rule_ops.h"

namespace pet::rules {

// The seeded random contents of pool input `position`.
FieldData random_field_data(const TensorType& type, uint64_t seed, int position);

// The outputs of one template application over Z_p.
std::vector<FieldData> evaluate_template(const RuleOpTemplate& op, const Attributes& attrs,
                                         const std::vector<const TensorType*>& types,
                                         const std::vector<const FieldData*>& inputs,
                                         const std::vector<TensorType>& output_types);

// Hash of a value's type and contents.
uint64_t data_hash(const TensorType& type, const FieldData& data);

// Hash of a program's outputs as a multiset of data hashes (output order does not matter).
uint64_t fingerprint_of(std::vector<uint64_t> output_hashes);

}  // namespace pet::rules
