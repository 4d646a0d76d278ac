// OpenVINO's CPU runtime times real models built with pet's IR and exporter, and names bad ones.
#include "kernels/runtime/openvino_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/executor.h"
#include "core/graph.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "tests/kernels/runtime/runtime_test_models.h"

namespace pet::runtime {
namespace {

std::string conv_relu_model() {
  return serialized(R"(graph "conv_relu" opset 13 {
    input %x : f32[1,4,16,16]
    const %w : f32[8,4,3,3] = random(7)
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,16,16]
    %y = Relu(%c) : f32[1,8,16,16]
    output %y
  })");
}

std::string add_model() {
  return serialized(R"(graph "add" opset 13 {
    input %x : f32[1,64]
    const %b : f32[64] = random(3)
    %y = Add(%x, %b) : f32[1,64]
    output %y
  })");
}

void expect_positive_runs(const Timing& timing, int runs) {
  ASSERT_EQ(timing.runs_us.size(), static_cast<size_t>(runs));
  for (double run : timing.runs_us) EXPECT_GT(run, 0);
}

TEST(OpenVinoRuntime, TimesTwoModelsInterleavedWithPerNodeTimes) {
  TimingOptions options;
  options.warmup = 1;
  options.runs = 3;
  options.per_node = true;
  std::vector<Timing> timings = open_openvino_runtime()->time_models({conv_relu_model(), add_model()}, options);
  ASSERT_EQ(timings.size(), 2u);
  expect_positive_runs(timings[0], options.runs);
  expect_positive_runs(timings[1], options.runs);
  auto conv = std::find_if(timings[0].nodes.begin(), timings[0].nodes.end(),
                           [](const NodeTime& node) { return node.op == "Convolution"; });
  ASSERT_NE(conv, timings[0].nodes.end());
  EXPECT_GT(conv->microseconds, 0);
  EXPECT_FALSE(conv->kernel.empty());
}

TEST(OpenVinoRuntime, RunsAModelOnGivenInputsAsPetsExecutorDoes) {
  const char* ir = R"(graph "three_types" opset 13 {
    input %x : f32[1,4,6,6]
    const %w : f32[8,4,3,3] = random(7)
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[1,8,6,6]
    %z = Relu(%c) : f32[1,8,6,6]
    %g = Greater(%c, %z) : bool[1,8,6,6]
    %a = ArgMax[axis=1, keepdims=0, select_last_index=0](%z) : i64[1,6,6]
    output %z
    output %g
    output %a
  })";
  Graph graph = parse_graph(ir);
  std::vector<Tensor> inputs = random_inputs(graph, 5);
  std::vector<Tensor> expected = execute(graph, inputs);
  std::vector<Tensor> outputs = open_openvino_runtime()->run_model(serialized(ir), inputs, 1);
  ASSERT_EQ(outputs.size(), 3u);
  ASSERT_EQ(outputs[0].type(), expected[0].type());
  for (int64_t i = 0; i < expected[0].numel(); ++i) EXPECT_NEAR(outputs[0].f32()[i], expected[0].f32()[i], 1e-4) << i;
  EXPECT_TRUE(outputs[1].same_content(expected[1]));
  EXPECT_TRUE(outputs[2].same_content(expected[2]));
}

TEST(OpenVinoRuntime, RunWithTheWrongNumberOfInputsIsAUserError) {
  try {
    open_openvino_runtime()->run_model(add_model(), {}, 1);
    FAIL() << "a model ran without its input";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()), "model 0 has 1 inputs for OpenVINO, 0 were given");
  }
}

TEST(OpenVinoRuntime, NamesItsTargetAndOpenVinoVersion) {
  std::unique_ptr<Runtime> runtime = open_openvino_runtime();
  EXPECT_EQ(runtime->target(), "openvino-cpu");
  EXPECT_EQ(runtime->version().rfind("openvino ", 0), 0u) << runtime->version();
}

// The user-facing message is ours up to the colon; OpenVINO's own text follows, without its
// "Exception from src/...cpp:N:" location lines.
void expect_rejected(const std::vector<ModelBytes>& models, const std::string& prefix) {
  try {
    open_openvino_runtime()->time_models(models, TimingOptions{});
    FAIL() << "expected a UserError";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
    EXPECT_EQ(message.find("Exception from "), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

TEST(OpenVinoRuntime, RejectsBytesThatAreNotAModelNamingTheirIndex) {
  expect_rejected({std::string("not a model")}, "model 0 was rejected by OpenVINO: Unable to read the model.");
}

TEST(OpenVinoRuntime, NamesTheRejectedModelAfterAGoodOne) {
  expect_rejected({add_model(), std::string("not a model")}, "model 1 was rejected by OpenVINO: ");
}

}  // namespace
}  // namespace pet::runtime
