// The CUDA C expression of every elementwise op pet-gpu fuses, one table line per op, written to
// compute what the op's reference kernel in core/ops computes (same formulas, same NaN and
// infinity handling), plus the device helpers those expressions call.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::gpu::codegen {

// One node's inputs as the kernel names them.
struct ElementwiseTerms {
  const Node& node;
  std::vector<std::string> operands;  // per node input: a local variable or a literal, never compound
  std::vector<DType> operand_types;
  DType result = DType::f32;
};

// The device helper functions an expression calls, by name; printed once each, in name order.
using HelperSet = std::set<std::string>;

// Whether the table has an expression for `op` (every op with the elementwise trait, plus
// BatchNormalization and Cast, which the plan puts in elementwise steps too).
bool has_elementwise_expression(const std::string& op);

// The expression computing the node's output element from its operands, adding the helpers it
// calls to `helpers`; nullopt for an op the table does not have.
std::optional<std::string> elementwise_expression(const ElementwiseTerms& terms, HelperSet& helpers);

// Whether input `input` of `node` holds one value per channel (axis 1 of the node's output)
// instead of broadcasting from the right: BatchNormalization's scale, bias, mean and variance,
// and PRelu's slope with channel_slope = 1.
bool reads_per_channel(const Node& node, size_t input);

// The helpers' definitions, in name order.
std::string helper_definitions(const HelperSet& helpers);

}  // namespace pet::gpu::codegen
