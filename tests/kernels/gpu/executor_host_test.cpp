// pet-gpu's executor, what a CPU can check: weight layouts exactly, the cuDNN and cuBLASLt configs
// a graph gives (before -> after), the refusals' exact messages, the generated conv epilogue, every
// test model prepared with its kernels compiled to CUBIN, and the references round-tripped.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "core/error.h"
#include "core/executor.h"
#include "core/file_safety.h"
#include "core/onnx_export.h"
#include "core/temporary_folder.h"
#include "core/text_ir.h"
#include "kernels/gpu/executor/conv_columns.h"
#include "kernels/gpu/executor/conv_decision_cache.h"
#include "kernels/gpu/executor/conv_epilogue.h"
#include "kernels/gpu/executor/device_session.h"
#include "kernels/gpu/executor/host_program.h"
#include "kernels/gpu/executor/reference.h"
#include "kernels/gpu/executor/weight_layout.h"
#include "kernels/gpu/executor/own_kernels.h"
#include "kernels/nvrtc_compile.h"
#include "tests/scoped_env.h"
#include "tests/kernels/gpu/executor_test_models.h"
#include "tools/model_format.h"

namespace pet::gpu {
namespace {

namespace fs = std::filesystem;

std::string model_path(const std::string& name) { return testing::executor_model_path(name); }

std::string refusal(const std::string& ir) {
  try {
    prepare_host_program(parse_graph(ir));
  } catch (const UserError& error) {
    return error.what();
  }
  return "(prepared without a refusal)";
}

// The one step of a host program that has one.
const StepProgram& only_step(const HostProgram& program) {
  EXPECT_EQ(program.steps.size(), 1u);
  return program.steps.front();
}

// The kernel's source with its hashed name written NAME, for comparing whole sources.
std::string source_named_name(const codegen::GeneratedKernel& kernel) {
  std::string source = kernel.source;
  source.replace(source.find(kernel.name), kernel.name.size(), "NAME");
  return source;
}

// A 2-D convolution of one group, x[N,C,H,W] by w[F,C,KH,KW] to y, stride 1 and no dilation; the
// pads, the same at both ends; values x 1, w 2, y 3.
ConvConfig conv_config(std::vector<int> input, std::vector<int> filter, std::vector<int> output, int pad) {
  ConvConfig config;
  config.input = std::move(input);
  config.filter = std::move(filter);
  config.output = std::move(output);
  config.pads = config.pads_end = {pad, pad};
  config.strides = config.dilations = {1, 1};
  config.x = 1;
  config.w = 2;
  config.y = 3;
  return config;
}

TEST(WeightLayout, PerChannelValuesTakeAnyOneAxisShapeOrOneValue) {
  EXPECT_EQ(per_channel_values(Tensor::f32(Shape{3}, {1, 2, 3}), 3), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(per_channel_values(Tensor::f32(Shape{1, 3, 1, 1}, {4, 5, 6}), 3), (std::vector<float>{4, 5, 6}));
  EXPECT_EQ(per_channel_values(Tensor::f32(Shape{1, 1, 1}, {7}), 4), (std::vector<float>{7, 7, 7, 7}));
  EXPECT_THROW(per_channel_values(Tensor::f32(Shape{2}, {1, 2}), 3), InternalError);
}

TEST(WeightLayout, GemmCBroadcastsToTheFullMatrixRowMajor) {
  EXPECT_EQ(gemm_c_matrix(Tensor::scalar_f32(2), 2, 2), (std::vector<float>{2, 2, 2, 2}));
  EXPECT_EQ(gemm_c_matrix(Tensor::f32(Shape{3}, {1, 2, 3}), 2, 3), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(gemm_c_matrix(Tensor::f32(Shape{1, 3}, {1, 2, 3}), 2, 3), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(gemm_c_matrix(Tensor::f32(Shape{2, 1}, {1, 2}), 2, 3), (std::vector<float>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(gemm_c_matrix(Tensor::f32(Shape{2, 2}, {1, 2, 3, 4}), 2, 2), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_THROW(gemm_c_matrix(Tensor::f32(Shape{2}, {1, 2}), 2, 3), InternalError);
}

TEST(ConvConfig, GroupedDilatedConvWithBiasAndNoReluNeedsTheEpilogueUnlessPrecompGemm) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[2,8,12,12]
  const %w : f32[16,2,3,3] = random(1)
  const %b : f32[16] = random(2)
  %y = Conv[dilations=[2,2], group=4, pads=[2,2,2,2], strides=[2,2]](%x, %w, %b) : f32[2,16,6,6]
  output %y
})"));
  const StepProgram& step = only_step(program);
  ASSERT_TRUE(step.conv.has_value());
  EXPECT_EQ(step.backend, Backend::cudnn);
  EXPECT_EQ(step.conv->key(), "x[2,8,12,12] w[16,2,3,3] pads[2,2] strides[2,2] dilations[2,2] groups 4");
  EXPECT_EQ(step.conv->output, (std::vector<int>{2, 16, 6, 6}));
  EXPECT_FALSE(step.conv->relu);
  EXPECT_EQ(conv_call(*step.conv, true), ConvCall::fused);
  EXPECT_EQ(conv_call(*step.conv, false), ConvCall::forward_then_epilogue);
  EXPECT_TRUE(step.epilogue.has_value());
}

TEST(ConvConfig, ResidualAndReluAlwaysTakeTheFusedCall) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,2,5,5]
  input %s : f32[1,3,5,5]
  const %w : f32[3,2,3,3] = random(1)
  const %b : f32[1,3,1,1] = [1,2,3]
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,3,5,5]
  %a = Add(%c, %b) : f32[1,3,5,5]
  %r = Add(%s, %a) : f32[1,3,5,5]
  %y = Relu(%r) : f32[1,3,5,5]
  output %y
})"));
  const StepProgram& step = only_step(program);
  ASSERT_TRUE(step.conv.has_value());
  EXPECT_TRUE(step.conv->relu);
  EXPECT_NE(step.conv->residual, kNoValue);
  EXPECT_NE(step.conv->bias, kNoValue);
  EXPECT_EQ(conv_call(*step.conv, false), ConvCall::fused);
  EXPECT_TRUE(step.epilogue.has_value()) << "the alternative when cuDNN refuses the fused call";
}

TEST(ConvConfig, OneDimensionalConvIsTwoDimensionalWithAUnitHeightAndPlainConvIsForward) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %s : f32[2,4,20]
  const %w : f32[6,4,5] = random(1)
  %y = Conv[dilations=[2], group=1, pads=[4,4], strides=[1]](%s, %w) : f32[2,6,20]
  output %y
})"));
  const StepProgram& step = only_step(program);
  ASSERT_TRUE(step.conv.has_value());
  EXPECT_EQ(step.conv->key(), "x[2,4,1,20] w[6,4,1,5] pads[0,4] strides[1,1] dilations[1,2] groups 1");
  EXPECT_EQ(conv_call(*step.conv, false), ConvCall::forward);
  EXPECT_FALSE(step.epilogue.has_value());
}

TEST(ConvConfig, ThreeDimensionalConvKeepsFiveDimensions) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %v : f32[1,4,6,8,8]
  const %w : f32[8,4,3,3,3] = random(1)
  %y = Conv[dilations=[1,1,1], group=1, pads=[1,1,1,1,1,1], strides=[1,2,2]](%v, %w) : f32[1,8,6,4,4]
  output %y
})"));
  EXPECT_EQ(only_step(program).conv->key(),
            "x[1,4,6,8,8] w[8,4,3,3,3] pads[1,1,1] strides[1,2,2] dilations[1,1,1] groups 1");
}

// Pads that differ at the two ends (a split operand's pieces) run on the column path alone.
TEST(ConvColumns, AsymmetricPadsTakeTheColumnPathWithTheirOwnEndPads) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,2,6,6]
  const %w : f32[3,2,2,2] = random(1)
  %y = Conv[dilations=[1,1], group=1, pads=[0,0,1,1], strides=[2,2]](%x, %w) : f32[1,3,3,3]
  output %y
})"));
  const StepProgram& step = only_step(program);
  ASSERT_TRUE(step.conv.has_value());
  EXPECT_FALSE(step.conv->symmetric_pads());
  EXPECT_EQ(step.conv->key(), "x[1,2,6,6] w[3,2,2,2] pads[0,0] pads_end[1,1] strides[2,2] dilations[1,1] groups 1");
  EXPECT_TRUE(step.column_path);
  ASSERT_TRUE(step.columns.has_value());
  EXPECT_EQ(program.distinct_kernels().size(), 1u);
}

TEST(ConvColumns, AGroupedConvWithAsymmetricPadsIsRefusedByName) {
  EXPECT_EQ(
      refusal(R"(graph "g" opset 13 {
  input %x : f32[1,4,6,6]
  const %w : f32[4,2,2,2] = random(1)
  %y = Conv[dilations=[1,1], group=2, pads=[0,0,1,1], strides=[2,2]](%x, %w) : f32[1,4,3,3]
  output %y
})"),
      "pet-gpu's executor cannot run step 0 (cudnn-conv, node 'y', op Conv): its pads [0,0] at the start and [1,1] at "
      "the end differ, which cuDNN cannot pad, and the column path takes no grouped convolution (2 groups); run this "
      "model on a CPU target (--target ort-cpu)");
}

// Before: conv(x[2,8,5,5], w[4,8,3,3]) to y[2,4,5,5]. After: per image y_n[4, 25] = w[4, 72] *
// columns_n[72, 25], which cuBLASLt (column-major) computes as D[25 x 4] = A[25 x 72] * B[72 x 4].
TEST(ConvColumns, ThePlanIsOneStridedBatchOfFilterTimesColumns) {
  ConvConfig config = conv_config({2, 8, 5, 5}, {4, 8, 3, 3}, {2, 4, 5, 5}, 1);
  std::optional<ColumnPlan> plan = column_plan(config);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->rows, 72);
  EXPECT_EQ(plan->pixels, 25);
  EXPECT_EQ(plan->bytes, 2 * 72 * 25 * 4);
  const GemmConfig& gemm = plan->gemm;
  EXPECT_EQ(gemm.a, kNoValue);
  EXPECT_EQ(gemm.b, 2);
  EXPECT_EQ(gemm.d, 3);
  EXPECT_EQ(gemm.c, kNoValue);
  EXPECT_EQ(gemm.key(), "m 25 n 4 k 72 batch 2 a 25x72/25/1800N b 72x4/72/0N d 25x4/25/100 c false bias false relu false");
  EXPECT_TRUE(column_path_offered(config));
  config.groups = 2;
  EXPECT_FALSE(column_plan(config).has_value());
}

// What the GEMM takes of the epilogue: a weight bias as C (expanded), a residual as C, the ReLU as
// cuBLASLt's RELU after either; a bias with a residual, or a computed bias, leaves all of it to
// the generated epilogue kernel.
TEST(ConvColumns, TheGemmReadsOneAddedTermAsCAndAppliesTheRelu) {
  ConvConfig config = conv_config({2, 8, 5, 5}, {4, 8, 3, 3}, {2, 4, 5, 5}, 1);
  config.relu = true;
  EXPECT_EQ(column_plan(config)->epilogue, ColumnEpilogue::in_gemm_relu);
  EXPECT_TRUE(column_plan(config)->gemm.relu);
  config.bias = 5;
  config.bias_is_weight = true;
  ColumnPlan bias = *column_plan(config);
  EXPECT_EQ(bias.epilogue, ColumnEpilogue::bias_as_c);
  EXPECT_EQ(bias.gemm.key(), "m 25 n 4 k 72 batch 2 a 25x72/25/1800N b 72x4/72/0N d 25x4/25/100 c true bias false relu true");
  EXPECT_EQ(bias.gemm.beta, 1.0f);
  config.bias_is_weight = false;
  EXPECT_EQ(column_plan(config)->epilogue, ColumnEpilogue::kernel);
  EXPECT_FALSE(column_plan(config)->gemm.relu);
  EXPECT_EQ(column_plan(config)->gemm.beta, 0.0f);
  config.bias = kNoValue;
  config.residual = 6;
  ColumnPlan residual = *column_plan(config);
  EXPECT_EQ(residual.epilogue, ColumnEpilogue::residual_as_c);
  EXPECT_EQ(residual.gemm.c, 6);
  config.bias = 5;
  config.bias_is_weight = true;
  EXPECT_EQ(column_plan(config)->epilogue, ColumnEpilogue::kernel);
  EXPECT_EQ(column_bias_matrix({1, 2}, 2, 3), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}));
}

// The conv_columns test model covers every way the column path applies an epilogue, and its
// asymmetric pads, which the GPU session's device tests then run.
TEST(ConvColumns, TheTestModelTakesEveryEpilogueOfTheColumnPath) {
  HostProgram program = prepare_host_program(read_model(model_path("conv_columns"), {}));
  std::vector<ColumnEpilogue> epilogues;
  int asymmetric = 0, im2col = 0;
  for (const StepProgram& step : program.steps) {
    if (!step.conv) continue;
    ASSERT_TRUE(step.column_path);
    epilogues.push_back(column_plan(*step.conv)->epilogue);
    asymmetric += step.conv->symmetric_pads() ? 0 : 1;
    im2col += step.columns.has_value() ? 1 : 0;
  }
  EXPECT_EQ(epilogues, (std::vector<ColumnEpilogue>{ColumnEpilogue::bias_as_c, ColumnEpilogue::none,
                                                     ColumnEpilogue::kernel, ColumnEpilogue::residual_as_c,
                                                     ColumnEpilogue::in_gemm_relu, ColumnEpilogue::bias_as_c}));
  EXPECT_EQ(asymmetric, 2);
  EXPECT_EQ(im2col, 5) << "the 1x1 convolution reads its input as the columns";
}

// Before: a 1x1 convolution at stride 1 without pads. After: the GEMM reads x as its columns (no
// im2col, no buffer); a stride of 2 needs the im2col kernel again.
TEST(ConvColumns, APointwiseConvolutionReadsItsInputAsTheColumns) {
  ConvConfig config = conv_config({2, 8, 5, 5}, {4, 8, 1, 1}, {2, 4, 5, 5}, 0);
  ColumnPlan plan = *column_plan(config);
  EXPECT_TRUE(plan.reads_input);
  EXPECT_EQ(plan.bytes, 0);
  EXPECT_EQ(plan.gemm.key(), "m 25 n 4 k 8 batch 2 a 25x8/25/200N b 8x4/8/0N d 25x4/25/100 c false bias false relu false");
  EXPECT_THROW(column_kernel(config), InternalError);
  config.strides = {2, 2};
  config.input = {2, 8, 9, 9};
  EXPECT_FALSE(column_plan(config)->reads_input);
}

// A symmetric convolution is offered the column path only while its output is small; one whose
// columns exceed kMaxColumnBytes never.
TEST(ConvColumns, OnlySmallOutputsOrAsymmetricPadsAreOffered) {
  ConvConfig config = conv_config({16, 64, 56, 56}, {64, 64, 3, 3}, {16, 64, 56, 56}, 1);
  EXPECT_FALSE(column_path_offered(config)) << "16 x 56 x 56 output rows fill the card through cuDNN";
  config.input = config.output = {1, 64, 56, 56};
  EXPECT_TRUE(column_path_offered(config));
  config.pads_end = {0, 0};
  config.output = {1, 64, 55, 55};
  EXPECT_TRUE(column_path_offered(config));
  config.input = {1, 4096, 56, 56};
  config.filter = {64, 4096, 3, 3};
  EXPECT_FALSE(column_path_offered(config)) << "its columns take 4096 x 9 x 55 x 55 floats";
}

TEST(ConvColumns, TheIm2colKernelWritesZerosInThePaddingAndCompiles) {
  ConvConfig config = conv_config({1, 2, 6, 6}, {3, 2, 2, 2}, {1, 3, 3, 3}, 0);
  config.pads_end = {1, 1};
  config.strides = {2, 2};
  codegen::GeneratedKernel kernel = column_kernel(config);
  EXPECT_EQ(source_named_name(kernel),
            "// pet-gpu im2col: columns f32[1,8,9] of x[1,2,6,6] kernel 2x2 pads[0,0] pads_end[1,1] strides[2,2] "
            "dilations[1,1]\n"
            "extern \"C\" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, float* "
            "__restrict__ out0) {\n"
            "  using index = int;\n"
            "  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + "
            "static_cast<index>(threadIdx.x);\n"
            "       i < 72; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {\n"
            "    index p = i % 9;\n"
            "    index k = (i / 9) % 8;\n"
            "    index n = i / (9 * 8);\n"
            "    index oh = p / 3, ow = p % 3;\n"
            "    index kx = k % 2, ky = (k / 2) % 2, c = k / (2 * 2);\n"
            "    index ih = oh * 2 - 0 + ky * 1;\n"
            "    index iw = ow * 2 - 0 + kx * 1;\n"
            "    bool inside = ih >= 0 && ih < 6 && iw >= 0 && iw < 6;\n"
            "    out0[i] = inside ? in0[((n * 2 + c) * 6 + ih) * 6 + iw] : 0.0f;\n"
            "  }\n"
            "}\n");
  ASSERT_EQ(kernel.arguments.size(), 2u);
  EXPECT_EQ(kernel.arguments[0].value, 1);
  EXPECT_EQ(kernel.arguments[1].value, kNoValue);
  CubinCompilation compiled = compile_to_cubin(kernel.source, kernel.name + ".cu");
  EXPECT_TRUE(compiled.ok()) << compiled.error;
}

TEST(GemmConfig, MatMulWithOneWeightMatrixFoldsTheBatchIntoRowsAndSwapsOperands) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[2,5,16]
  const %w : f32[16,32] = random(1)
  const %b : f32[32] = random(2)
  %m = MatMul(%x, %w) : f32[2,5,32]
  %a = Add(%m, %b) : f32[2,5,32]
  %y = Relu(%a) : f32[2,5,32]
  output %y
})"));
  const StepProgram& step = only_step(program);
  ASSERT_TRUE(step.gemm.has_value());
  const GemmConfig& gemm = *step.gemm;
  EXPECT_EQ(gemm.key(), "m 32 n 10 k 16 batch 1 a 32x16/32/0N b 16x10/16/0N d 32x10/32/0 c false bias true relu true");
  EXPECT_EQ(program.plan.values[static_cast<size_t>(gemm.a)].name, "w");  // cuBLASLt's A is the node's B
  EXPECT_EQ(program.plan.values[static_cast<size_t>(gemm.b)].name, "x");
  EXPECT_EQ(gemm.beta, 0.0f);
}

TEST(GemmConfig, GemmTransposesScalesAndReadsAWeightCExpanded) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %a : f32[7,3]
  const %w : f32[5,7] = random(1)
  const %c : f32[5] = random(2)
  %y = Gemm[alpha=0.5, beta=2.0, transA=1, transB=1](%a, %w, %c) : f32[3,5]
  output %y
})"));
  const GemmConfig& gemm = *only_step(program).gemm;
  EXPECT_EQ(gemm.key(), "m 5 n 3 k 7 batch 1 a 7x5/7/0T b 3x7/3/0T d 5x3/5/0 c true bias false relu false");
  EXPECT_TRUE(gemm.c_expanded);
  EXPECT_EQ(gemm.alpha, 0.5f);
  EXPECT_EQ(gemm.beta, 2.0f);
}

TEST(GemmConfig, BatchedMatMulsStrideBothSidesOrShareOneMatrix) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %q : f32[2,4,8,16]
  input %k : f32[2,4,16,8]
  const %w : f32[8,16] = random(1)
  %s = MatMul(%q, %k) : f32[2,4,8,8]
  %u = MatMul(%w, %k) : f32[2,4,8,8]
  output %s
  output %u
})"));
  ASSERT_EQ(program.steps.size(), 2u);
  EXPECT_EQ(program.steps[0].gemm->key(),
            "m 8 n 8 k 16 batch 8 a 8x16/8/128N b 16x8/16/128N d 8x8/8/64 c false bias false relu false");
  EXPECT_EQ(program.steps[1].gemm->key(),
            "m 8 n 8 k 16 batch 8 a 8x16/8/128N b 16x8/16/0N d 8x8/8/64 c false bias false relu false");
}

// Before: MatMul(a[2,3,4,5], b[1,3,5,6]). After: a strided batch of 3 over the trailing equal dim,
// called for a's two outer matrices (b's offset stays 0); against c[2,1,4,5] no dim is equal
// from the right, so six calls of one matrix each.
TEST(GemmConfig, PartlyBroadcastBatchesAreOneStridedBatchPerOuterIndex) {
  HostProgram program = prepare_host_program(read_model(model_path("matmul_broadcast"), {}));
  ASSERT_EQ(program.steps.size(), 4u);
  EXPECT_EQ(program.steps[0].gemm->key(),
            "m 6 n 4 k 5 batch 3 a 6x5/6/30N b 5x4/5/20N d 6x4/6/24 c false bias false relu false calls 2: 0/0/0 "
            "0/60/72");
  EXPECT_EQ(program.steps[1].gemm->key(),
            "m 6 n 4 k 5 batch 1 a 6x5/6/30N b 5x4/5/20N d 6x4/6/24 c false bias false relu false calls 6: 0/0/0 "
            "30/0/24 60/0/48 0/20/72 30/20/96 60/20/120");
}

// Before: Gemm(f, w, relu(s)) with beta 1 and s computed, one value per column. After: no C; the
// BIAS epilogue adds relu(s) to every row (cuBLASLt's per-row vector of its transposed product).
TEST(GemmConfig, AComputedPerColumnCWithBetaOneIsTheBiasEpiloguesVector) {
  Graph graph = read_model(model_path("matmul_broadcast"), {});
  HostProgram program = prepare_host_program(graph);
  const StepProgram& gemm = program.steps.back();
  ASSERT_TRUE(gemm.gemm.has_value());
  EXPECT_EQ(graph.value(gemm.gemm->bias).name, "cs");
  EXPECT_EQ(gemm.gemm->c, kNoValue);
  EXPECT_EQ(gemm.gemm->beta, 0.0f);
  EXPECT_EQ(gemm.gemm->alpha, 0.5f);
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %f : f32[4,5]
  input %s : f32[4,1]
  const %w : f32[6,5] = random(1)
  %g = Gemm[alpha=1.0, beta=1.0, transA=0, transB=1](%f, %w, %s) : f32[4,6]
  output %g
})"),
            "pet-gpu's executor cannot run step 0 (cublaslt-gemm, node 'g', op Gemm): its C 's' of shape 4x1 is a "
            "computed value that broadcasts to [4,6] otherwise than one value per column added once, and cuBLASLt "
            "reads C as a full matrix; run this model on a CPU target (--target ort-cpu)");
}

// The attention test model's scores times 0.25: the Mul joined the MatMul's step, as its alpha.
TEST(GemmConfig, AScaleTheStepTookIsCublasLtsAlpha) {
  HostProgram program = prepare_host_program(read_model(model_path("attention"), {}));
  ASSERT_TRUE(program.steps.front().gemm.has_value());
  EXPECT_EQ(program.plan.steps.front().nodes.size(), 2u);
  EXPECT_EQ(program.steps.front().gemm->alpha, 0.25f);
}

TEST(GemmConfig, PartlyBroadcastBatchesBeyondTheCallLimitAreRefusedByName) {
  EXPECT_EQ(refusal(R"(graph "g" opset 13 {
  input %a : f32[65,1,3,4]
  input %b : f32[1,5,4,6]
  %y = MatMul(%a, %b) : f32[65,5,3,6]
  output %y
})"),
            "pet-gpu's executor cannot run step 0 (cublaslt-gemm, node 'y', op MatMul): its batch dims [65,1] and [1,5] "
            "broadcast partially over more than 64 strided batches; run this model on a CPU target (--target ort-cpu)");
}

// A written model's correction runs on the device: its patch (Slice, then Sigmoid) as generated
// steps marked as computing a patch, the Overwrite as one generated kernel after them.
TEST(HostProgram, ACorrectionIsAGeneratedKernelAfterTheStepsOfItsPatch) {
  HostProgram program = prepare_host_program(parse_graph(R"(graph "g" opset 13 {
  input %x : f32[4,4]
  %r = Relu(%x) : f32[4,4]
  %s = Slice[ends=[2,4], starts=[0,0], steps=[1,1]](%x) : f32[2,4]
  %p = Sigmoid(%s) : f32[2,4]
  %y = Overwrite[offsets=[0,0]](%r, %p) : f32[4,4]
  output %y
})"));
  ASSERT_EQ(program.steps.size(), 4u);
  EXPECT_FALSE(program.plan.steps[0].computes_patch);  // the Relu: the base
  EXPECT_EQ(program.plan.steps[1].kind, StepKind::slice);
  EXPECT_TRUE(program.plan.steps[1].computes_patch);
  EXPECT_EQ(program.plan.steps[2].kind, StepKind::elementwise);  // the Sigmoid
  EXPECT_TRUE(program.plan.steps[2].computes_patch);
  EXPECT_EQ(program.plan.steps[3].kind, StepKind::correction);
  EXPECT_EQ(program.steps[3].backend, Backend::generated);
  for (const codegen::GeneratedKernel& kernel : program.distinct_kernels()) {
    CubinCompilation compiled = compile_to_cubin(kernel.source, kernel.name + ".cu");
    EXPECT_TRUE(compiled.ok()) << compiled.error;
  }
}

// The kernel store between processes (a second compile_kernels stands for another process: it
// shares nothing with the first but the folder): before, every kernel compiled and stored; after,
// every one read back byte for byte; a kernel whose source changed under the same name compiled.
TEST(KernelStore, ASecondCompilationReadsEveryKernelTheFirstStored) {
  TemporaryFolder folder("pet-kernel-store", "a test's kernel store");
  pet::testing::ScopedEnv store("PET_GPU_KERNEL_CACHE", folder.path().c_str());
  std::vector<codegen::GeneratedKernel> kernels =
      prepare_host_program(read_model(model_path("conv_block"), {})).distinct_kernels();
  ASSERT_FALSE(kernels.empty());
  CompiledKernels first = compile_kernels(kernels, 2);
  EXPECT_EQ(first.recalled(), 0u);
  CompiledKernels second = compile_kernels(kernels, 2);
  EXPECT_EQ(second.recalled(), kernels.size());
  EXPECT_EQ(second.compile_ms, 0);
  EXPECT_EQ(second.cubins, first.cubins);
  kernels[0].source += "\n// changed\n";
  CompiledKernels changed = compile_kernels(kernels, 2);
  EXPECT_EQ(changed.recalled(), kernels.size() - 1);
  EXPECT_EQ(changed.recalled_names.size(), kernels.size() - 1);
  EXPECT_EQ(changed.recalled_names.count(kernels[0].name), 0u) << "the changed kernel was compiled";
  EXPECT_FALSE(changed.cubins.at(kernels[0].name).empty());
}

// A worker compiles a request's kernels before it takes the GPU lock: host work, no context made;
// each distinct kernel once, however many models name it, and none again for a second request.
TEST(DeviceSession, CompilingAheadNeedsNoDeviceAndCompilesEachKernelOnce) {
  TemporaryFolder folder("pet-kernel-store", "a test's kernel store");
  pet::testing::ScopedEnv store("PET_GPU_KERNEL_CACHE", folder.path().c_str());
  std::vector<codegen::GeneratedKernel> kernels =
      prepare_host_program(read_model(model_path("conv_block"), {})).distinct_kernels();
  ASSERT_FALSE(kernels.empty());
  std::vector<codegen::GeneratedKernel> twice = kernels;
  twice.insert(twice.end(), kernels.begin(), kernels.end());
  DeviceSession session(0);
  session.compile_ahead(twice, 2);
  EXPECT_EQ(session.compiled_ahead(), kernels.size());
  session.compile_ahead(kernels, 2);
  EXPECT_EQ(session.compiled_ahead(), kernels.size());
  EXPECT_EQ(compile_kernels(kernels, 2).recalled(), kernels.size()) << "compiled ahead into the kernel store";
}

TEST(KernelStore, OffStoresNothing) {
  TemporaryFolder folder("pet-kernel-store", "a test's kernel store");
  pet::testing::ScopedEnv store("PET_GPU_KERNEL_CACHE", "off");
  pet::testing::ScopedEnv cache("XDG_CACHE_HOME", folder.path().c_str());
  std::vector<codegen::GeneratedKernel> kernels =
      prepare_host_program(read_model(model_path("mlp"), {})).distinct_kernels();
  compile_kernels(kernels, 2);
  EXPECT_EQ(compile_kernels(kernels, 2).recalled(), 0u);
  EXPECT_FALSE(fs::exists(folder.path() / "pet" / "gpu-kernels"));
  EXPECT_FALSE(kernel_store().has_value());
}

TEST(ConvEpilogue, AddsBiasAndResidualInPlace) {
  ConvConfig config;
  config.output = {2, 3, 4, 5};
  config.bias = 1;
  config.residual = 2;
  config.y = 3;
  codegen::GeneratedKernel kernel = conv_epilogue_kernel(config);
  EXPECT_EQ(source_named_name(kernel),
            "// pet-gpu conv_epilogue: bias + residual on f32[2,3,4,5] in place\n"
            "extern \"C\" __global__ void __launch_bounds__(256) NAME(const float* __restrict__ in0, const float* "
            "__restrict__ in1, float* __restrict__ out0) {\n"
            "  using index = int;\n"
            "  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + "
            "static_cast<index>(threadIdx.x);\n"
            "       i < 120; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {\n"
            "    float v = out0[i];\n"
            "    v += in0[(i / 20) % 3];\n"
            "    v += in1[i];\n"
            "    out0[i] = v;\n"
            "  }\n"
            "}\n");
  EXPECT_EQ(kernel.arguments.size(), 3u);
  EXPECT_EQ(kernel.launch.grid, 1);
}

// Every model the GPU session checks prepares here, and every kernel it will load compiles.
class ExecutorModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ExecutorModel, PreparesAndEveryKernelCompilesToCubin) {
  HostProgram program = prepare_host_program(read_model(model_path(GetParam()), {}));
  EXPECT_FALSE(program.steps.empty());
  for (const codegen::GeneratedKernel& kernel : program.distinct_kernels()) {
    CubinCompilation compiled = compile_to_cubin(kernel.source, kernel.name + ".cu");
    EXPECT_TRUE(compiled.ok()) << compiled.error;
  }
}

// pet-gpu's runtime receives its models as ONNX, so each must pass ONNX's checker as written (an
// op newer than the model's opset would be refused only on the device otherwise).
TEST_P(ExecutorModel, ExportsAsAModelTheOnnxCheckerAccepts) {
  Graph graph = read_model(model_path(GetParam()), {});
  EXPECT_FALSE(serialize_onnx(graph).empty());
}

INSTANTIATE_TEST_SUITE_P(TestModels, ExecutorModel,
                         ::testing::Values("conv_relu", "conv_block", "conv_nd", "conv_columns", "matmul_broadcast", "mlp",
                                           "attention", "correction", "layer_norm_ops"));

TEST(ConvDecisionCache, ALaterLoadReadsWhatAnEarlierOneRecordedForItsDeviceOnly) {
  fs::path file = fs::path(::testing::TempDir()) / "pet_conv_decisions.tsv";
  fs::remove(file);
  {
    ConvDecisionCache h200(file.string(), "GPU 0: NVIDIA H200, cuDNN 9.19.0 tf32");
    EXPECT_FALSE(h200.find("conv a").has_value());
    h200.record("conv a", {42, 0.0125f, 0.25f});
    h200.record("conv b", {-1, 0.5f, 0.375f});
    ConvDecisionCache h100(file.string(), "GPU 0: NVIDIA H100, cuDNN 9.19.0 tf32");
    h100.record("conv a", {7, 1.0f, 2.0f});
  }
  ConvDecisionCache later(file.string(), "GPU 0: NVIDIA H200, cuDNN 9.19.0 tf32");
  ASSERT_TRUE(later.find("conv a").has_value());
  EXPECT_EQ(later.find("conv a")->engine, 42);
  EXPECT_EQ(later.find("conv a")->ms, 0.0125f);
  EXPECT_EQ(later.find("conv a")->legacy_ms, 0.25f);
  EXPECT_EQ(later.find("conv b")->engine, -1);
  EXPECT_FALSE(later.find("conv c").has_value());
}

TEST(ConvDecisionCache, AMalformedLineNamesTheFileAndLineAndTheRemedy) {
  fs::path file = fs::path(::testing::TempDir()) / "pet_conv_decisions_bad.tsv";
  write_file_atomically(file.string(), "GPU 0\tconv a\t3\t0.1\t0.2\nGPU 0\tconv b\tseven\t0.1\t0.2\n", "test");
  try {
    ConvDecisionCache cache(file.string(), "GPU 0");
    FAIL() << "read a malformed cache";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              file.string() + ":2: not a convolution decision ('<device>\\t<key>\\t<engine>\\t<ms>\\t<legacy ms>'); "
                              "delete the file and the next load times the plans again");
  }
}

TEST(Reference, WrittenAndReadBackItIsTheSameAndNeverZeros) {
  Graph graph = read_model(model_path("mlp"), {});
  ReferenceData written = compute_reference(graph, 7);
  fs::path folder = fs::path(::testing::TempDir()) / "pet_gpu_reference_mlp";
  write_reference(folder.string(), written);
  ReferenceData read = read_reference(folder.string());
  require_reference_fits(graph, read, folder.string());
  ASSERT_EQ(read.inputs.size(), 2u);
  ASSERT_EQ(read.outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(read.inputs[i].same_content(written.inputs[i]));
    EXPECT_TRUE(read.outputs[i].same_content(written.outputs[i]));
    EXPECT_GT(relative_l2_error(Tensor(read.inputs[i].type()), read.inputs[i]), 0.99) << "inputs are not zeros";
  }
  EXPECT_EQ(read.input_names, (std::vector<std::string>{"x", "a"}));
  EXPECT_EQ(read.output_names, (std::vector<std::string>{"n", "gr"}));
}

TEST(Reference, AFolderForAnotherModelIsRefusedByName) {
  Graph mlp = read_model(model_path("mlp"), {});
  Graph conv = read_model(model_path("conv_relu"), {});
  fs::path folder = fs::path(::testing::TempDir()) / "pet_gpu_reference_conv";
  write_reference(folder.string(), compute_reference(conv, 1));
  try {
    require_reference_fits(mlp, read_reference(folder.string()), folder.string());
    FAIL() << "a reference for another model was accepted";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()),
              "reference folder '" + folder.string() +
                  "' holds 1 input files, but the model has 2 inputs; write it for this model with pet-gpu reference");
  }
}

TEST(Reference, AMissingFolderSaysHowToWriteOne) {
  EXPECT_THROW(read_reference("/nonexistent/pet_gpu_reference"), UserError);
}

TEST(RelativeL2, MeasuresTheDifferenceAgainstTheReferenceNorm) {
  Tensor reference = Tensor::f32(Shape{2}, {3, 4});
  EXPECT_EQ(relative_l2_error(reference, reference), 0.0);
  EXPECT_DOUBLE_EQ(relative_l2_error(Tensor::f32(Shape{2}, {3, 4.5f}), reference), 0.1);
  EXPECT_TRUE(std::isnan(relative_l2_error(Tensor::f32(Shape{2}, {NAN, 4}), reference)));
  EXPECT_DOUBLE_EQ(relative_l2_error(Tensor::f32(Shape{2}, {0, 2}), Tensor::f32(Shape{2}, {0, 0})), 2.0);
  EXPECT_THROW(relative_l2_error(Tensor::f32(Shape{1}, {1}), reference), InternalError);
}

}  // namespace
}  // namespace pet::gpu
