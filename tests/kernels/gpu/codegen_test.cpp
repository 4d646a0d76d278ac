// pet-gpu's generated kernels on small graphs, before -> after: the textual IR in, the exact CUDA C
// out; determinism; every kernel family compiled by NVRTC to sm_90 CUBIN (no device needed); and
// the refusals' exact messages.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "core/error.h"
#include "core/registry.h"
#include "core/text_ir.h"
#include "kernels/gpu/codegen/elementwise_ops.h"
#include "kernels/gpu/codegen/generate.h"
#include "kernels/nvrtc_compile.h"

namespace pet::gpu::codegen {
namespace {

// The kernels of every generated step of the graph `ir` describes, in plan order.
std::vector<GeneratedKernel> kernels_of(const std::string& ir) {
  Graph graph = parse_graph(ir);
  std::vector<GeneratedKernel> kernels;
  for (PlannedKernel& planned : generate_kernels(graph, plan_for_gpu(graph))) kernels.push_back(planned.kernel);
  return kernels;
}

// The one generated kernel of `ir`.
GeneratedKernel only_kernel(const std::string& ir) {
  std::vector<GeneratedKernel> kernels = kernels_of(ir);
  EXPECT_EQ(kernels.size(), 1u);
  return kernels.empty() ? GeneratedKernel{} : kernels.front();
}

// The source with its hashed name replaced by NAME, so a golden string survives hash changes
// elsewhere in the text only when the text itself is unchanged.
std::string with_placeholder_name(const GeneratedKernel& kernel) {
  std::string source = kernel.source;
  source.replace(source.find(kernel.name), kernel.name.size(), "NAME");
  return source;
}

std::string refusal(const std::string& ir, int step) {
  Graph graph = parse_graph(ir);
  try {
    generate_kernel(graph, plan_for_gpu(graph), step);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(generated without a refusal)";
}

void expect_compiles(const GeneratedKernel& kernel) {
  if (std::getenv("PET_DEBUG")) std::cout << kernel.source << "// " << kernel.launch.to_string() << "\n\n";
  CubinCompilation compiled = compile_to_cubin(kernel.source, kernel.name + ".cu");
  EXPECT_TRUE(compiled.ok()) << compiled.error << "\n" << kernel.source;
  EXPECT_FALSE(compiled.cubin.empty());
  EXPECT_EQ(compiled.cubin.substr(0, 4),
            "\x7f"
            "ELF")
      << "a CUBIN is an ELF image";
}

TEST(GpuCodegen, AddOfABroadcastBiasThenReluIsOneKernel) {
  GeneratedKernel kernel = only_kernel(R"(graph "g" opset 13 {
  input %x : f32[1,4,8]
  input %b : f32[8]
  %a = Add(%x, %b) : f32[1,4,8]
  %y = Relu(%a) : f32[1,4,8]
  output %y
})");
  EXPECT_EQ(with_placeholder_name(kernel), R"cuda(// pet-gpu elementwise: Add, Relu -> f32[1,4,8]
extern "C" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0) {
  using index = int;
  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + static_cast<index>(threadIdx.x);
       i < 32; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {
    const float a0 = in0[i];
    const float a1 = in1[i % 8];
    const float v0 = a0 + a1;
    const float v1 = v0 > 0.0f ? v0 : 0.0f;
    out0[i] = v1;
  }
}
)cuda");
  EXPECT_EQ(kernel.launch.to_string(), "grid 1, block 256");
  expect_compiles(kernel);
}

TEST(GpuCodegen, TransposeReadsThroughPermutedStrides) {
  GeneratedKernel kernel = only_kernel(R"(graph "g" opset 13 {
  input %x : f32[2,3,4]
  %y = Transpose[perm=[0,2,1]](%x) : f32[2,4,3]
  output %y
})");
  // Output (a, c, b) = i reads input (a, b, c): a = i / 12, c = i / 3 % 4 at stride 1, b = i % 3 at stride 4.
  EXPECT_EQ(with_placeholder_name(kernel), R"cuda(// pet-gpu transpose: Transpose f32[2,3,4] -> f32[2,4,3]
extern "C" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, float* __restrict__ out0) {
  using index = int;
  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + static_cast<index>(threadIdx.x);
       i < 24; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {
    out0[i] = in0[(i / 12) * 12 + i / 3 % 4 + (i % 3) * 4];
  }
}
)cuda");
  expect_compiles(kernel);
}

TEST(GpuCodegen, ConstantPadTestsOnlyThePaddedSides) {
  GeneratedKernel kernel = only_kernel(R"(graph "g" opset 13 {
  input %x : f32[1,2,3]
  %y = Pad[mode="constant", pads=[0,0,1,0,0,2], value=0.5](%x) : f32[1,2,6]
  output %y
})");
  // The unit batch axis drops out; axis 1 has no pads; axis 2 reads input s1 = c1 - 1 when inside.
  EXPECT_EQ(with_placeholder_name(kernel), R"cuda(// pet-gpu pad: constant pads of f32[1,2,3] -> f32[1,2,6]
extern "C" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, float* __restrict__ out0) {
  using index = int;
  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + static_cast<index>(threadIdx.x);
       i < 12; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {
    const index c0 = i / 6;
    const index c1 = i % 6;
    const index s1 = c1 - 1;
    if (s1 >= 0 && s1 < 3) out0[i] = in0[c0 * 3 + s1];
    else out0[i] = (5.000000000e-01f);
  }
}
)cuda");
  expect_compiles(kernel);
}

// A correction: the LayoutOverwrite reads its base through the Layout's view (expanded [2,2,3],
// perm [1,0,2]: a transpose of the two halves), then each patch where its box holds the element,
// the later patch last so it wins, then the fused ReLU; the patch along the whole last axis needs
// no test there.
TEST(GpuCodegen, ACorrectionTakesTheLastPatchHoldingTheElementElseTheLaidOutBase) {
  GeneratedKernel kernel = only_kernel(R"(graph "g" opset 13 {
  input %m : f32[4,3]
  input %p : f32[1,3]
  input %q : f32[2,2]
  %r = LayoutOverwrite[activation="relu", expanded=[2,2,3], groups=[2,1], offsets=[1,0,2,1], perm=[1,0,2]](%m, %p, %q) : f32[4,3]
  output %r
})");
  EXPECT_EQ(with_placeholder_name(kernel), R"cuda(// pet-gpu correction: LayoutOverwrite -> f32[4,3]
extern "C" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out0) {
  using index = int;
  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + static_cast<index>(threadIdx.x);
       i < 12; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {
    const index c0 = i / 3;
    const index c1 = i % 3;
    float value = in0[(i / 6) * 3 + (i / 3 % 2) * 6 + i % 3];
    if (c0 >= 1 && c0 < 2) value = in1[c0 * 3 + c1 - 3];
    if (c0 >= 2 && c1 >= 1) value = in2[c0 * 2 + c1 - 5];
    out0[i] = value > 0.0f ? value : 0.0f;
  }
}
)cuda");
  expect_compiles(kernel);
}

// One graph per kernel family, in the forms the evaluation models do not reach; each generated
// kernel must compile to CUBIN.
struct FamilyCase {
  const char* name;
  int kernels;  // how many generated steps the plan makes of it
  const char* ir;
};

const FamilyCase kFamilyCases[] = {
    {"elementwise ops, per-channel operands, casts and bool logic", 3, R"(graph "g" opset 13 {
  input %x : f32[2,3,4,5]
  input %y : f32[4,5]
  input %c : bool[2,3,4,5]
  input %i : i64[2,3]
  const %scale : f32[3] = [1,2,3]
  const %bias : f32[3] = [0.5,0.25,0]
  const %mean : f32[3] = [0,1,2]
  const %var : f32[3] = [1,1,4]
  const %two : f32[] = [2]
  const %slope : f32[3] = [0.1,0.2,0.3]
  %bn = BatchNormalization[epsilon=0.001](%x, %scale, %bias, %mean, %var) : f32[2,3,4,5]
  %p = Pow(%bn, %two) : f32[2,3,4,5]
  %u1 = Sigmoid(%p) : f32[2,3,4,5]
  %u2 = Tanh(%u1) : f32[2,3,4,5]
  %u3 = Erf(%u2) : f32[2,3,4,5]
  %u4 = Sqrt(%u3) : f32[2,3,4,5]
  %u5 = Exp(%u4) : f32[2,3,4,5]
  %u6 = Log(%u5) : f32[2,3,4,5]
  %u7 = Neg(%u6) : f32[2,3,4,5]
  %u8 = Abs(%u7) : f32[2,3,4,5]
  %u9 = LeakyRelu[alpha=0.1](%u8) : f32[2,3,4,5]
  %u10 = Clip[max=1, min=-1](%u9) : f32[2,3,4,5]
  %u11 = HardSwish(%u10) : f32[2,3,4,5]
  %u12 = Gelu[approximate="tanh"](%u11) : f32[2,3,4,5]
  %u13 = Softplus(%u12) : f32[2,3,4,5]
  %u14 = Selu(%u13) : f32[2,3,4,5]
  %u15 = Celu(%u14) : f32[2,3,4,5]
  %u16 = Div(%u15, %y) : f32[2,3,4,5]
  %u17 = Sub(%u16, %y) : f32[2,3,4,5]
  %w = Where(%c, %u17, %y) : f32[2,3,4,5]
  %lt = Less(%w, %y) : bool[2,3,4,5]
  %n = Not(%lt) : bool[2,3,4,5]
  %a = And(%n, %c) : bool[2,3,4,5]
  %af = Cast[to="f32"](%a) : f32[2,3,4,5]
  %pr = PRelu[channel_slope=1](%x, %slope) : f32[2,3,4,5]
  %m = Max(%af, %pr, %y) : f32[2,3,4,5]
  %mean3 = Mean(%m, %x, %y) : f32[2,3,4,5]
  output %mean3
  %if = Cast[to="f32"](%i) : f32[2,3]
  %h = Cast[to="f16"](%if) : f32[2,3]
  %back = Cast[to="i64"](%h) : i64[2,3]
  output %back
  %nan = IsNaN(%x) : bool[2,3,4,5]
  %inf = IsInf[detect_negative=0](%x) : bool[2,3,4,5]
  %either = Or(%nan, %inf) : bool[2,3,4,5]
  output %either
})"},
    {"strided copies: slice backwards, layout, expand, and a view that owns its bytes", 4, R"(graph "g" opset 13 {
  input %x : f32[4,6,5]
  input %e : f32[3,1]
  %s = Slice[ends=[-1,6,5], starts=[3,1,0], steps=[-1,2,1]](%x) : f32[4,3,5]
  %l = Layout[expanded=[2,2,6,5], groups=[1,2,1], perm=[1,0,2,3]](%x) : f32[2,12,5]
  %b = Expand[shape=[2,3,4]](%e) : f32[2,3,4]
  %r = Reshape[shape=[24,5]](%x) : f32[24,5]
  output %s
  output %l
  output %b
  output %r
})"},
    {"concat and split copies, gather along an inner axis", 3, R"(graph "g" opset 13 {
  input %a : f32[2,3,4]
  input %b : f32[2,3,2]
  input %x : f32[2,6]
  input %table : f32[3,10,4]
  input %ids : i64[2,2]
  %c = Concat[axis=2](%a, %b, %a) : f32[2,3,10]
  %p, %q = Split[axis=1, split=[2,4]](%x) : f32[2,2], f32[2,4]
  %g = Gather[axis=1](%table, %ids) : f32[3,2,2,4]
  output %c
  output %p
  output %q
  output %g
})"},
    {"edge and reflect pads", 2, R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  %e = Pad[mode="edge", pads=[0,0,2,1,0,0,1,2], value=0](%x) : f32[1,2,8,8]
  %r = Pad[mode="reflect", pads=[0,1,2,0,0,1,0,3], value=0](%x) : f32[1,4,7,8]
  output %e
  output %r
})"},
    {"softmax along an inner axis, log-softmax over trailing axes", 2, R"(graph "g" opset 13 {
  input %x : f32[2,7,3]
  %s = Softmax[axis=1](%x) : f32[2,7,3]
  %l = LogSoftmax[axis=1, include_trailing_axes=1](%x) : f32[2,7,3]
  output %s
  output %l
})"},
    {"layer norms with and without bias and statistics", 2, R"(graph "g" opset 17 {
  input %x : f32[2,5,6]
  const %g : f32[6] = random(1)
  const %b : f32[5,6] = random(2)
  %y = LayerNormalization[axis=1, epsilon=0.00001](%x, %g, %b) : f32[2,5,6]
  %z, %mu, %rs = LayerNormalization[axis=-1, epsilon=0.001, with_statistics=1](%x, %g) : f32[2,5,6], f32[2,5,1], f32[2,5,1]
  output %y
  output %z
  output %mu
  output %rs
})"},
    {"pools of 1 to 3 spatial dims and global pools", 5, R"(graph "g" opset 13 {
  input %x : f32[1,2,9,9]
  input %v : f32[1,2,4,6,6]
  input %w : f32[2,3,10]
  %m = MaxPool[ceil_mode=1, dilations=[2,1], kernel_shape=[3,3], pads=[1,1,1,1], strides=[2,3]](%x) : f32[1,2,4,4]
  %a = AveragePool[ceil_mode=0, count_include_pad=1, kernel_shape=[2,3,3], pads=[0,1,1,1,1,1], strides=[2,2,2]](%v) : f32[1,2,2,3,3]
  %o = AveragePool[kernel_shape=[3], pads=[1,1], strides=[2]](%w) : f32[2,3,5]
  %g = GlobalAveragePool(%v) : f32[1,2,1,1,1]
  %h = GlobalMaxPool(%x) : f32[1,2,1,1]
  output %m
  output %a
  output %o
  output %g
  output %h
})"},
    {"reductions over inner and split axes, none, and of bool", 4, R"(graph "g" opset 13 {
  input %x : f32[3,4,5]
  input %b : bool[3,4]
  %m = ReduceMean[axes=[1], keepdims=0](%x) : f32[3,5]
  %x2 = ReduceMax[axes=[0,2], keepdims=1](%x) : f32[1,4,1]
  %s = ReduceSum[axes=[], keepdims=1](%x) : f32[3,4,5]
  %all = ReduceMin[axes=[1], keepdims=0](%b) : bool[3]
  output %m
  output %x2
  output %s
  output %all
})"},
};

TEST(GpuCodegen, EveryKernelFamilyCompilesToCubin) {
  for (const FamilyCase& family : kFamilyCases) {
    SCOPED_TRACE(family.name);
    std::vector<GeneratedKernel> kernels = kernels_of(family.ir);
    EXPECT_EQ(static_cast<int>(kernels.size()), family.kernels);
    for (const GeneratedKernel& kernel : kernels) expect_compiles(kernel);
  }
}

// 2^31 elements and more: offsets and the loop counter need 64 bits; below, 32-bit ints suffice.
TEST(GpuCodegen, IndicesAreSixtyFourBitsWhereATensorReachesTwoToTheThirtyOne) {
  GeneratedKernel large = only_kernel(R"(graph "g" opset 13 {
  input %x : f32[3,1000000000]
  %y = Relu(%x) : f32[3,1000000000]
  output %y
})");
  EXPECT_NE(large.source.find("using index = long long;"), std::string::npos) << large.source;
  EXPECT_NE(large.source.find("i < 3000000000;"), std::string::npos) << large.source;
  EXPECT_EQ(large.launch.to_string(), "grid 4096, block 256");
  expect_compiles(large);
  GeneratedKernel small = only_kernel(R"(graph "g" opset 13 {
  input %x : f32[3,1000]
  %y = Relu(%x) : f32[3,1000]
  output %y
})");
  EXPECT_NE(small.source.find("using index = int;"), std::string::npos) << small.source;
}

TEST(GpuCodegen, GeneratingTwiceGivesByteEqualSourcesAndEqualStepsShareANameAnywhere) {
  const std::string ir = R"(graph "g" opset 13 {
  input %x : f32[2,8]
  input %z : f32[2,8]
  %a = Sigmoid(%x) : f32[2,8]
  %s = Softmax[axis=1](%a) : f32[2,8]
  %b = Sigmoid(%z) : f32[2,8]
  %t = Softmax[axis=1](%b) : f32[2,8]
  output %s
  output %t
})";
  std::vector<GeneratedKernel> first = kernels_of(ir), second = kernels_of(ir);
  ASSERT_EQ(first.size(), 4u);
  ASSERT_EQ(second.size(), 4u);
  for (size_t k = 0; k < first.size(); ++k) {
    EXPECT_EQ(first[k].name, second[k].name);
    EXPECT_EQ(first[k].source, second[k].source);
  }
  EXPECT_EQ(first[0].source, first[2].source) << "two equal Sigmoid steps";
  EXPECT_EQ(first[1].name, first[3].name) << "two equal Softmax steps";
  EXPECT_NE(first[0].name, first[1].name);
}

// Every op the plan may put into an elementwise step has a CUDA expression: the ops with the
// elementwise trait (identity-like ones are views, never computed) and the plan's own additions.
TEST(GpuCodegen, EveryElementwiseOpHasAnExpression) {
  for (const OpDef* def : OpRegistry::global().all()) {
    if (def->traits.elementwise && !def->traits.identity_like) {
      EXPECT_TRUE(has_elementwise_expression(def->name)) << def->name;
    }
  }
  EXPECT_TRUE(has_elementwise_expression("BatchNormalization"));
  EXPECT_TRUE(has_elementwise_expression("Cast"));
}

TEST(GpuCodegen, AStepOfAnotherBackendIsRefusedNamingItsNode) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %x : f32[1,2,4,4]
  const %w : f32[2,2,1,1] = [1,2,3,4]
  %c = Conv[dilations=[1,1], group=1, pads=[0,0,0,0], strides=[1,1]](%x, %w) : f32[1,2,4,4]
  output %c
})",
                    0),
            "pet-gpu cannot generate a kernel for step 0 (node 'c', op Conv): it is a cudnn-conv step, which cuDNN "
            "runs; pet-gpu generates the kernels of elementwise, transpose, layout, pad, slice, concat, split, "
            "gather, expand, copy, softmax, layer-norm, pool, reduce and correction steps only");
}

TEST(GpuCodegen, APoolOfFourSpatialDimsIsRefusedNamingItsNode) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %x : f32[1,1,2,2,2,2]
  %p = MaxPool[dilations=[1,1,1,1], kernel_shape=[2,2,2,2], pads=[0,0,0,0,0,0,0,0], strides=[1,1,1,1]](%x) : f32[1,1,1,1,1,1]
  output %p
})",
                    0),
            "pet-gpu cannot generate a kernel for node 'p' (op MaxPool): a pool of 4 spatial dims; the generated "
            "kernels take MaxPool and AveragePool of 1 to 3 spatial dims, GlobalAveragePool and GlobalMaxPool; run "
            "this model on a CPU target (--target ort-cpu)");
}

TEST(GpuCodegen, CompileToCubinReportsBadSourceWithoutThrowing) {
  CubinCompilation compiled =
      compile_to_cubin("extern \"C\" __global__ void broken() { undeclared = 1; }", "broken.cu");
  EXPECT_FALSE(compiled.ok());
  EXPECT_TRUE(compiled.cubin.empty());
  EXPECT_NE(compiled.error.find("nvrtcCompileProgram"), std::string::npos) << compiled.error;
  EXPECT_NE(compiled.error.find("undeclared"), std::string::npos) << compiled.error;
}

}  // namespace
}  // namespace pet::gpu::codegen
