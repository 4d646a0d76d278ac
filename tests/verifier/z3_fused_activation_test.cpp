// A node with a fused activation is encoded as Relu applied to the op's own term: it proves equal
// to the op followed by Relu, and the op's linearity axioms never apply through the Relu.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "verifier/axioms/signature_index.h"
#include "verifier/z3/prover.h"

namespace pet {
namespace {

const char* kInputs = R"(  input %x : f32[1,2,5,5]
  input %w1 : f32[3,2,3,3]
  input %w2 : f32[3,2,3,3]
)";
const char* kConv = "Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";
const char* kFusedConv = "Conv[activation=\"relu\", dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]]";

Graph program(const std::string& body) { return parse_graph("graph \"g\" opset 13 {\n" + std::string(kInputs) + body + "}\n"); }

TEST(Z3FusedActivation, FusedConvIsProvedEqualToConvThenRelu) {
  Graph fused = program(std::string("  %y = ") + kFusedConv + "(%x, %w1)\n  output %y\n");
  Graph separate = program(std::string("  %c = ") + kConv + "(%x, %w1)\n  %y = Relu(%c)\n  output %y\n");
  ProofResult result = prove(fused, separate);
  EXPECT_EQ(result.status, ProofStatus::Proved) << result.reason;
}

TEST(Z3FusedActivation, LinearityDoesNotReachThroughTheActivation) {
  // Conv(x, w1) + Conv(x, w2) = Conv(x, w1 + w2) holds and is proved; with the Relu fused into each
  // Conv it is false, and Z3 alone (no numeric refutation) must not prove it.
  std::string sum = "  %w = Add(%w1, %w2)\n";
  Graph linear_lhs = program(std::string("  %a = ") + kConv + "(%x, %w1)\n  %b = " + kConv +
                             "(%x, %w2)\n  %y = Add(%a, %b)\n  output %y\n");
  Graph linear_rhs = program(sum + "  %y = " + kConv + "(%x, %w)\n  output %y\n");
  Graph fused_lhs = program(std::string("  %a = ") + kFusedConv + "(%x, %w1)\n  %b = " + kFusedConv +
                            "(%x, %w2)\n  %y = Add(%a, %b)\n  output %y\n");
  Graph fused_rhs = program(sum + "  %y = " + kFusedConv + "(%x, %w)\n  output %y\n");
  ProveOptions options;
  options.numeric_refutation = false;
  EXPECT_EQ(prove(linear_lhs, linear_rhs, options).status, ProofStatus::Proved);
  ProofResult fused = prove(fused_lhs, fused_rhs, options);
  EXPECT_EQ(fused.status, ProofStatus::Unknown) << fused.reason;
  EXPECT_EQ(prove(fused_lhs, fused_rhs).status, ProofStatus::Refuted);
}

TEST(Z3FusedActivation, SignaturesSplitTheOpFromItsActivation) {
  Graph fused = program(std::string("  %y = ") + kFusedConv + "(%x, %w1)\n  output %y\n");
  const Node& node = fused.node(0);
  EXPECT_EQ(axioms::signature_key(axioms::signature_of(fused, node)),
            "Conv[dilations=[1,1],group=1,pads=[1,1,1,1],strides=[1,1]](f32[1,2,5,5],f32[3,2,3,3])");
  std::optional<axioms::NodeSignature> activation = axioms::activation_signature_of(fused, node);
  ASSERT_TRUE(activation.has_value());
  EXPECT_EQ(axioms::signature_key(*activation), "Relu[](f32[1,3,5,5])");
  axioms::SignatureIndex index;
  EXPECT_EQ(index.add_graph(fused), 2);
  EXPECT_EQ(index.of("Relu").size(), 1u);
}

}  // namespace
}  // namespace pet
