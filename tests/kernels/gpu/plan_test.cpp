// pet-gpu's plan on small graphs, before -> after: the textual IR in, the plan's dump out; and
// the refusals' exact messages.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/text_ir.h"
#include "kernels/gpu/plan/op_support.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {
namespace {

// runnable_support (a cost model's question) says no exactly where support_for refuses, node by node.
void expect_runnable_support_agrees(const Graph& graph) {
  for (const Node& node : graph.nodes()) {
    bool refused = false;
    try {
      support_for(graph, node);
    } catch (const UserError&) {
      refused = true;
    }
    EXPECT_EQ(runnable_support(graph, node).has_value(), !refused) << node.name;
  }
}

std::string plan_text(const std::string& ir) {
  expect_runnable_support_agrees(parse_graph(ir));
  return format_plan(plan_for_gpu(parse_graph(ir)));
}

std::string refusal(const std::string& ir) {
  expect_runnable_support_agrees(parse_graph(ir));
  try {
    plan_for_gpu(parse_graph(ir));
  } catch (const UserError& error) {
    return error.what();
  }
  return "(planned without a refusal)";
}

TEST(GpuPlan, ConvBiasResidualReluIsOneCudnnStep) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  input %s : f32[1,3,5,5]
  const %w : f32[3,2,3,3] = random(1)
  const %b : f32[1,3,1,1] = [1,2,3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,3,5,5]
  %a = Add(%c, %b) : f32[1,3,5,5]
  %r = Add(%s, %a) : f32[1,3,5,5]
  %y = Relu(%r) : f32[1,3,5,5]
  output %y
})"),
            "gpu plan: steps 1, aliases 0, arena 0 bytes (no reuse 0), workspace 1800 bytes\n"
            "0 cudnn-conv [c, a, r, y]: %x(input) %w(weight conv-filter) %b(weight conv-bias) %s(input) -> "
            "%y(output) | bias=%b residual=%s activation=relu workspace=1800\n");
}

// The bias Add reads the conv's output, but so does the Sigmoid: the Add stays an elementwise
// kernel, and a Conv whose finalize-fused activation is set takes nothing after it.
TEST(GpuPlan, ConvOutputWithTwoReadersFusesNothing) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[1,2,4,4]
  const %w : f32[2,2,1,1] = [1,2,3,4]
  const %b : f32[1,2,1,1] = [1,2]
  %c = Conv[activation="relu", dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,2,4,4]
  %a = Add(%c, %b) : f32[1,2,4,4]
  %s = Sigmoid(%c) : f32[1,2,4,4]
  output %a
  output %s
})"),
            "gpu plan: steps 3, aliases 0, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 cudnn-conv [c]: %x(input) %w(weight conv-filter) -> %c(arena 0+128) | activation=relu\n"
            "1 elementwise [a]: %c(arena 0+128) %b(weight upload) -> %a(output)\n"
            "2 elementwise [s]: %c(arena 0+128) -> %s(output)\n");
}

TEST(GpuPlan, MatMulTakesItsBiasAndReluAsAnEpilogue) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[1,4,8]
  const %w : f32[8,16] = random(2)
  const %b : f32[16] = random(3)
  %m = MatMul(%x, %w) : f32[1,4,16]
  %a = Add(%b, %m) : f32[1,4,16]
  %y = Relu(%a) : f32[1,4,16]
  output %y
})"),
            "gpu plan: steps 1, aliases 0, arena 0 bytes (no reuse 0), workspace 33554432 bytes\n"
            "0 cublaslt-gemm [m, a, y]: %x(input) %w(weight gemm-operand) %b(weight gemm-bias) -> %y(output) | "
            "bias=%b activation=relu workspace=33554432\n");
}

// Attention's scores over the square root of the head size: the Div by a one-value weight joins
// the MatMul's step as cuBLASLt's alpha (1/8); a Div of the weight by the scores does not.
TEST(GpuPlan, MatMulTakesADivisionByAOneValueWeightAsItsScale) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %q : f32[2,4,8]
  input %k : f32[2,8,4]
  const %c : f32[] = [8.0]
  %s = MatMul(%q, %k) : f32[2,4,4]
  %d = Div(%s, %c) : f32[2,4,4]
  %p = Softmax[axis=2](%d) : f32[2,4,4]
  output %p
})"),
            "gpu plan: steps 2, aliases 0, arena 256 bytes (no reuse 256), workspace 33554432 bytes\n"
            "0 cublaslt-gemm [s, d]: %q(input) %k(input) %c(weight upload) -> %d(arena 0+128) | scale=0.125 "
            "workspace=33554432\n"
            "1 softmax [p]: %d(arena 0+128) -> %p(output)\n");
  std::string kept = plan_text(R"(graph "g" opset 13 {
  input %q : f32[2,4,8]
  input %k : f32[2,8,4]
  const %c : f32[] = [8.0]
  %s = MatMul(%q, %k) : f32[2,4,4]
  %d = Div(%c, %s) : f32[2,4,4]
  output %d
})");
  EXPECT_EQ(kept.find("scale="), std::string::npos) << kept;
}

// A transpose's input stays alive to the GEMM step that alone reads the transpose's output (the
// executor may read through the transpose there): h to step 3, not to the transpose (step 1).
TEST(GpuPlan, ATransposesInputLivesToTheGemmThatAloneReadsIt) {
  GpuPlan plan = plan_for_gpu(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,5,12]
  input %w : f32[1,3,4,5]
  %h = Relu(%x) : f32[1,5,12]
  %hr = Reshape[shape=[1,5,3,4]](%h) : f32[1,5,3,4]
  %ht = Transpose[perm=[0,2,1,3]](%hr) : f32[1,3,5,4]
  %z = Sigmoid(%w) : f32[1,3,4,5]
  %s = MatMul(%ht, %z) : f32[1,3,5,5]
  output %s
})"));
  ASSERT_EQ(plan.steps.size(), 4u);
  EXPECT_EQ(plan.steps[3].kind, StepKind::cublaslt_gemm);
  int last_step = -1;
  for (const PlannedValue& value : plan.values)
    if (value.name == "h") last_step = value.storage.lifetime.last_step;
  EXPECT_EQ(last_step, 3);
}

// GELU as exported: x read twice, four elementwise nodes each read once: one kernel.
TEST(GpuPlan, ElementwiseNodesReadOnceFuseIntoOneKernel) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[2,8]
  const %sqrt2 : f32[] = [1.4142135]
  const %one : f32[] = [1]
  const %half : f32[] = [0.5]
  %d = Div(%x, %sqrt2) : f32[2,8]
  %e = Erf(%d) : f32[2,8]
  %p = Add(%e, %one) : f32[2,8]
  %m = Mul(%x, %p) : f32[2,8]
  %y = Mul(%m, %half) : f32[2,8]
  output %y
})"),
            "gpu plan: steps 1, aliases 0, arena 0 bytes (no reuse 0), workspace 0 bytes\n"
            "0 elementwise [d, e, p, m, y]: %x(input) %sqrt2(weight upload) %one(weight upload) %half(weight upload) "
            "-> %y(output)\n");
}

// Layer normalization as PyTorch exports it below opset 17 (BERT's): nine standard ops, one
// layer_norm step; the exponent and epsilon constants are its inputs, every intermediate fused.
constexpr const char* kWrittenOutLayerNorm = R"(graph "g" opset 13 {
  input %x : f32[2,3,8]
  const %two : f32[] = [2]
  const %eps : f32[] = [0.00001]
  const %gamma : f32[8] = random(5)
  const %beta : f32[8] = random(6)
  %mean = ReduceMean[axes=[-1], keepdims=1](%x) : f32[2,3,1]
  %d = Sub(%x, %mean) : f32[2,3,8]
  %p = Pow(%d, %two) : f32[2,3,8]
  %var = ReduceMean[axes=[-1], keepdims=1](%p) : f32[2,3,1]
  %ve = Add(%var, %eps) : f32[2,3,1]
  %sd = Sqrt(%ve) : f32[2,3,1]
  %n = Div(%d, %sd) : f32[2,3,8]
  %sc = Mul(%n, %gamma) : f32[2,3,8]
  %y = Add(%sc, %beta) : f32[2,3,8]
  output %y
})";

TEST(GpuPlan, LayerNormWrittenOutInStandardOpsIsOneStep) {
  EXPECT_EQ(plan_text(kWrittenOutLayerNorm),
            "gpu plan: steps 1, aliases 0, arena 0 bytes (no reuse 0), workspace 0 bytes\n"
            "0 layer-norm [mean, d, p, var, ve, sd, n, sc, y]: %x(input) %two(weight upload) %eps(weight upload) "
            "%gamma(weight upload) %beta(weight upload) -> %y(output)\n");
}

// Where the pattern is not exactly a layer normalization (a cube for the square) or an
// intermediate is read outside it (a graph output), its nodes plan as they would alone.
TEST(GpuPlan, LayerNormLookalikesPlanNodeByNode) {
  std::string cubed = kWrittenOutLayerNorm;
  cubed.replace(cubed.find("[2]"), 3, "[3]");
  std::string exposed = kWrittenOutLayerNorm;
  exposed.replace(exposed.find("  output %y"), 11, "  output %y\n  output %d");
  for (const std::string& ir : {cubed, exposed}) {
    std::string plan = plan_text(ir);
    EXPECT_EQ(plan.find("layer-norm"), std::string::npos) << plan;
    EXPECT_NE(plan.find("reduce [mean]"), std::string::npos) << plan;
  }
}

TEST(GpuPlan, ReshapeIsAViewWithoutAStep) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[2,3,4]
  %r = Softmax[axis=2](%x) : f32[2,3,4]
  %f = Reshape[shape=[6,4]](%r) : f32[6,4]
  %y = Softmax[axis=1](%f) : f32[6,4]
  output %y
})"),
            "gpu plan: steps 2, aliases 1, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 softmax [r]: %x(input) -> %r(arena 0+96)\n"
            "1 softmax [y]: %f(view %r+0) -> %y(output)\n"
            "alias view [f]: %r(arena 0+96) -> %f(view %r+0)\n");
}

TEST(GpuPlan, ReshapeToAGraphOutputIsACopy) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[2,3]
  %r = Relu(%x) : f32[2,3]
  %y = Flatten[axis=0](%r) : f32[1,6]
  output %y
})"),
            "gpu plan: steps 2, aliases 0, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 elementwise [r]: %x(input) -> %r(arena 0+24)\n"
            "1 copy [y]: %r(arena 0+24) -> %y(output)\n");
}

// Batch 1, axis 1: each Relu writes straight into its slice of the Concat's output.
TEST(GpuPlan, ConcatOnAxisOneOfBatchOneIsWrittenInPlace) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[1,2,4,4]
  %a = Relu(%x) : f32[1,2,4,4]
  %b = Sigmoid(%x) : f32[1,2,4,4]
  %c = Concat[axis=1](%a, %b) : f32[1,4,4,4]
  %y = MaxPool[dilations=[1,1], kernel_shape=[2,2], pads=[0,0,0,0], strides=[2,2]](%c) : f32[1,4,2,2]
  output %y
})"),
            "gpu plan: steps 3, aliases 1, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 elementwise [a]: %x(input) -> %a(view %c+0)\n"
            "1 elementwise [b]: %x(input) -> %b(view %c+128)\n"
            "2 pool [y]: %c(arena 0+256) -> %y(output)\n"
            "alias concat-in-place [c]: %a(view %c+0) %b(view %c+128) -> %c(arena 0+256)\n");
}

// Batch 2: the slices are not contiguous; a graph input has storage of its own: both copy.
TEST(GpuPlan, ConcatThatCannotBeInPlaceIsACopyStep) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[2,2,4]
  %a = Relu(%x) : f32[2,2,4]
  %c = Concat[axis=1](%a, %a) : f32[2,4,4]
  %d = Concat[axis=0](%a, %x) : f32[4,2,4]
  output %c
  output %d
})"),
            "gpu plan: steps 3, aliases 0, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 elementwise [a]: %x(input) -> %a(arena 0+64)\n"
            "1 concat [c]: %a(arena 0+64) -> %c(output)\n"
            "2 concat [d]: %a(arena 0+64) %x(input) -> %d(output)\n");
}

TEST(GpuPlan, SplitAlongTheOutermostAxisGivesViews) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[1,6,2]
  %a, %b = Split[axis=1, split=[2,4]](%x) : f32[1,2,2], f32[1,4,2]
  %p = Relu(%a) : f32[1,2,2]
  %q = Relu(%b) : f32[1,4,2]
  output %p
  output %q
})"),
            "gpu plan: steps 2, aliases 1, arena 0 bytes (no reuse 0), workspace 0 bytes\n"
            "0 elementwise [p]: %a(view %x+0) -> %p(output)\n"
            "1 elementwise [q]: %b(view %x+16) -> %q(output)\n"
            "alias split-views [a]: %x(input) -> %a(view %x+0) %b(view %x+16)\n");
}

// Four softmaxes in a row: the first and third intermediates share bytes, the second does not.
TEST(GpuPlan, ArenaReusesBytesOfValuesNoLongerAlive) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %x : f32[4,64]
  %a = Softmax[axis=1](%x) : f32[4,64]
  %b = Softmax[axis=1](%a) : f32[4,64]
  %c = Softmax[axis=1](%b) : f32[4,64]
  %y = Softmax[axis=1](%c) : f32[4,64]
  output %y
})"),
            "gpu plan: steps 4, aliases 0, arena 2048 bytes (no reuse 3072), workspace 0 bytes\n"
            "0 softmax [a]: %x(input) -> %a(arena 0+1024)\n"
            "1 softmax [b]: %a(arena 0+1024) -> %b(arena 1024+1024)\n"
            "2 softmax [c]: %b(arena 1024+1024) -> %c(arena 0+1024)\n"
            "3 softmax [y]: %c(arena 0+1024) -> %y(output)\n");
}

// A corrected conv as fuse_corrections writes it: the patch's Slice and Conv and the other patch's
// Sigmoid run as their own steps, marked as computing patches (their time is the correction's),
// then the LayoutOverwrite is one kernel; the big Conv that reads the same input is no patch.
TEST(GpuPlan, CorrectionRunsAfterTheStepsThatComputeOnlyItsPatches) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %m : f32[2,2,12,5]
  input %x : f32[2,2,9,7]
  input %q : f32[2,2,1,5]
  const %w : f32[2,2,3,3] = random(4)
  %s = Slice[ends=[2,2,3,7], starts=[0,0,0,0], steps=[1,1,1,1]](%x) : f32[2,2,3,7]
  %p0 = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%s, %w) : f32[2,2,1,5]
  %p1 = Sigmoid(%q) : f32[2,2,1,5]
  %r = LayoutOverwrite[activation="relu", expanded=[2,2,2,6,5], groups=[2,1,1,1], offsets=[0,0,5,0,2,0,0,0], perm=[2,0,1,3,4]](%m, %p0, %p1) : f32[4,2,6,5]
  %big = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[2,2,9,7]
  output %r
  output %big
})"),
            "gpu plan: steps 5, aliases 0, arena 768 bytes (no reuse 1024), workspace 9072 bytes\n"
            "0 slice [s]: %x(input) -> %s(arena 0+336) | patch\n"
            "1 cudnn-conv [p0]: %s(arena 0+336) %w(weight conv-filter) -> %p0(arena 512+80) | workspace=720 patch\n"
            "2 elementwise [p1]: %q(input) -> %p1(arena 0+80) | patch\n"
            "3 correction [r]: %m(input) %p0(arena 512+80) %p1(arena 0+80) -> %r(output)\n"
            "4 cudnn-conv [big]: %x(input) %w(weight conv-filter) -> %big(output) | workspace=9072\n");
}

TEST(GpuPlanError, UnsupportedOpIsRefusedByName) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %x : f32[2,3]
  %h = Hardmax[axis=1](%x) : f32[2,3]
  output %h
})"),
            "pet-gpu cannot run op 'Hardmax' (node 'h'); the GPU executor runs elementwise and identity-like ops, "
            "Conv, MatMul, Gemm, BatchNormalization, Cast, Transpose, Layout, Pad, Slice, Concat, Split, Gather, "
            "Expand, Softmax, LogSoftmax, LayerNormalization, MaxPool, AveragePool, GlobalAveragePool, "
            "GlobalMaxPool, ReduceMean, ReduceSum, ReduceMax, ReduceMin, Overwrite, LayoutOverwrite, Reshape, "
            "Flatten, Squeeze, Unsqueeze; run this model on a CPU target (--target ort-cpu)");
}

TEST(GpuPlanError, IntegerArithmeticIsRefused) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %i : i64[4]
  input %j : i64[4]
  %k = Add(%i, %j) : i64[4]
  output %k
})"),
            "pet-gpu cannot run op 'Add' (node 'k') on i64 values; the GPU executor runs arithmetic in f32 and moves "
            "i64 and bool data only through data-movement and index ops (shape arithmetic is folded at import when "
            "shapes are static); run this model on a CPU target (--target ort-cpu)");
}

TEST(GpuPlanError, ConvOfFourSpatialDimsIsRefused) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %x : f32[1,1,2,2,2,2]
  const %w : f32[1,1,1,1,1,1] = [2]
  %c = Conv[dilations=[1,1,1,1], group=1, pads=[0,0,0,0,0,0,0,0], strides=[1,1,1,1]](%x, %w) : f32[1,1,2,2,2,2]
  output %c
})"),
            "pet-gpu cannot run op 'Conv' (node 'c') with 4 spatial dimensions; the GPU executor runs convolutions of "
            "1 to 3 spatial dimensions (1-D as 2-D with a unit height); run this model on a CPU target (--target "
            "ort-cpu)");
}

TEST(GpuPlanError, DropoutWithItsMaskIsRefused) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %x : f32[2,3]
  %d, %mask = Dropout[with_mask=1](%x) : f32[2,3], bool[2,3]
  output %d
  output %mask
})"),
            "pet-gpu cannot run op 'Dropout' (node 'd') with 2 outputs; the GPU executor runs identity-like ops as a "
            "view of their input, which gives one output; run this model on a CPU target (--target ort-cpu)");
}

TEST(GpuPlan, IndicesAndMasksMoveAsTheyAre) {
  EXPECT_EQ(plan_text(R"(graph "g" opset 13 {
  input %ids : i64[1,3]
  input %mask : bool[1,3]
  const %table : f32[10,4] = random(5)
  const %zero : f32[] = [0]
  %e = Gather[axis=0](%table, %ids) : f32[1,3,4]
  %m = Unsqueeze[axes=[2]](%mask) : bool[1,3,1]
  %y = Where(%m, %e, %zero) : f32[1,3,4]
  output %y
})"),
            "gpu plan: steps 2, aliases 1, arena 256 bytes (no reuse 256), workspace 0 bytes\n"
            "0 gather [e]: %table(weight upload) %ids(input) -> %e(arena 0+48)\n"
            "1 elementwise [y]: %m(view %mask+0) %e(arena 0+48) %zero(weight upload) -> %y(output)\n"
            "alias view [m]: %mask(input) -> %m(view %mask+0)\n");
}

}  // namespace
}  // namespace pet::gpu
