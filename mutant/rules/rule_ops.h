// The rule operator set as data: each template is one registry op with attributes chosen from its
// input types, plus, for the non-linear ops, the polynomial stand-in that fingerprinting uses.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::rules {

// A tensor's elements over Z_p, row-major.
using FieldData = std::vector<uint64_t>;

// Computes an op's outputs over Z_p in place of its real semantics (Relu, MaxPool), so that
// fingerprints stay exact and programs that commute with the op still pair up.
using StandIn = std::function<FieldData(const Attributes& attrs, const std::vector<const TensorType*>& types,
                                        const std::vector<const FieldData*>& inputs, const TensorType& output)>;

struct RuleOpTemplate {
  std::string label;  // kebab-case, used in rule names: "matmul", "concat-1", "scalar-mul"
  std::string op;     // registry name
  int arity = 1;
  // Attributes for these input types, or nullopt when the template does not apply to them.
  std::function<std::optional<Attributes>(const std::vector<const TensorType*>&)> attrs_for;
  StandIn stand_in;  // empty: the op's own eval_point
  bool commutative = false;
};

// Every template, in a fixed order (the order is part of the generator's determinism).
const std::vector<RuleOpTemplate>& rule_op_set();

// The template with this label (internal check when missing).
int rule_op_index(const std::string& label);

// The constant c of the Relu stand-in x * (x + c).
uint64_t relu_stand_in_offset();

}  // namespace pet::rules
