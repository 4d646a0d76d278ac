// The activation a Conv, MatMul, Gemm or LayoutOverwrite node applies to its own output once the
// finalize stage has fused the Relu that read it: one pet-only attribute and the facets it adds.
#pragma once

#include <optional>
#include <string>

#include "core/op_def.h"

namespace pet::ops {

inline constexpr const char* kActivationAttr = "activation";

// The node's activation: "none" (absent from canonical attributes) or "relu".
const std::string& fused_activation(const Attributes& attrs);
// The standard op the node's activation stands for ("Relu"); nullopt for "none".
std::optional<std::string> activation_op(const Attributes& attrs);
// The activation value that fuses a following node of `op` with no attributes ("relu" for Relu);
// nullopt when that op cannot be fused.
std::optional<std::string> activation_for_op(const std::string& op);
// The attributes without the activation: the op's own computation.
Attributes without_activation(Attributes attrs);

// Adds the `activation` attribute to an op and wraps its facets: the shape rule checks the value,
// the reference kernel applies it after the op, the linearity holds only without it (linear_when),
// point evaluation and box propagation refuse it (internal check), the cost gains one FLOP per
// output element and no bytes (the fused op never writes the pre-activation tensor), and the ONNX
// export lowers it to the op followed by a standard Relu node.
OpDef with_fused_activation(OpDef def);

}  // namespace pet::ops
