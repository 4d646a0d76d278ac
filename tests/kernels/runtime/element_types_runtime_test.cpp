// Every element type through the runtimes: the wire to ONNX Runtime's worker, OpenVINO's tensors, and timing.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/runtime/openvino_runtime.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/tensor_wire.h"

namespace pet::runtime {
namespace {

// x : T[2,3] -> Cast to T -> y : T[2,3] (Cast takes every type; a runtime may fold it away).
std::string cast_to_itself(DType type) {
  std::string t = fmt::format("{}[2,3]", dtype_name(type));
  return serialize_onnx(parse_graph(fmt::format(R"(graph "same_{0}" opset 13 {{
    input %x : {1}
    %y = Cast[to="{0}"](%x) : {1}
    output %y
  }})",
                                                dtype_name(type), t)));
}

// Six elements of `type` with its extremes where it is an integer type (in int32's range for i64
// when `int32_range`: OpenVINO's CPU plugin holds i64 as i32).
Tensor samples(DType type, bool int32_range = false) {
  Tensor tensor(type, Shape{2, 3});
  visit_dtype(type, [&]<DType D>() {
    std::span<storage_t<D>> values = tensor.mutable_view<D>();
    if constexpr (is_integer_dtype(D)) {
      using Limits = std::numeric_limits<storage_t<D>>;
      storage_t<D> low = Limits::min(), high = Limits::max();
      if constexpr (D == DType::i64)
        if (int32_range) low = INT32_MIN, high = INT32_MAX;
      values[0] = low, values[1] = high, values[2] = 0, values[3] = 1;
      values[4] = static_cast<storage_t<D>>(high - 1), values[5] = static_cast<storage_t<D>>(low + 1);
    } else {
      // Exact in float32, bfloat16 and float64 alike; bool: nonzero ones are true.
      const double doubles[] = {1.5, -2.25, 0, 0.125, -1024, 3};
      for (size_t i = 0; i < values.size(); ++i) values[i] = narrow<D>(doubles[i]);
    }
  });
  return tensor;
}

std::string describe(const Tensor& tensor) {
  std::string text = tensor.type().to_string() + " {";
  for (int64_t i = 0; i < tensor.numel(); ++i) text += fmt::format("{}{}", i ? ", " : "", tensor.as_double(i));
  return text + "}";
}

std::unique_ptr<Runtime> openvino_if_built() {
  try {
    return open_openvino_runtime("");
  } catch (const UserError&) {
    return nullptr;
  }
}

TEST(TensorWire, EveryElementTypeRoundTripsWithNumpysName) {
  EXPECT_EQ(tensor_to_wire(samples(DType::u8))["dtype"], "uint8");
  EXPECT_EQ(tensor_to_wire(samples(DType::bf16))["dtype"], "bfloat16");
  EXPECT_EQ(tensor_to_wire(samples(DType::f64))["dtype"], "float64");
  for (DType type : kAllDTypes) {
    Tensor tensor = samples(type);
    EXPECT_TRUE(tensor_from_wire(tensor_to_wire(tensor)).same_content(tensor)) << dtype_name(type);
  }
}

TEST(TensorWire, ADtypePetCannotHoldIsAnInternalErrorNamingIt) {
  nlohmann::json wire = {{"dtype", "complex64"}, {"shape", {1}}, {"data", "AAAAAAAAAAA="}};
  try {
    tensor_from_wire(wire);
    FAIL() << "complex64 was read";
  } catch (const InternalError& error) {
    EXPECT_EQ(std::string(error.what()), "the runtime answered a tensor of dtype 'complex64', which pet cannot hold");
  }
}

TEST(OrtRuntimeElementTypes, EveryTypeRoundTripsThroughTheWorker) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  for (DType type : kAllDTypes) {
    Tensor x = samples(type);
    std::vector<Tensor> outputs = ort->run_model(cast_to_itself(type), {x}, 1);
    ASSERT_EQ(outputs.size(), 1u) << dtype_name(type);
    EXPECT_TRUE(outputs[0].same_content(x)) << describe(x) << " came back as " << describe(outputs[0]);
  }
}

TEST(OpenVinoRuntimeElementTypes, EveryTypeRoundTripsThroughOpenVino) {
  std::unique_ptr<Runtime> openvino = openvino_if_built();
  if (!openvino) GTEST_SKIP() << "pet was built without OpenVINO";
  for (DType type : kAllDTypes) {
    Tensor x = samples(type, /*int32_range=*/true);
    std::vector<Tensor> outputs = openvino->run_model(cast_to_itself(type), {x}, 1);
    ASSERT_EQ(outputs.size(), 1u) << dtype_name(type);
    EXPECT_TRUE(outputs[0].same_content(x)) << describe(x) << " came back as " << describe(outputs[0]);
  }
}

TEST(OpenVinoRuntimeElementTypes, SaysItComputesFloat64InFloat32AndInt64InInt32) {
  std::unique_ptr<Runtime> openvino = openvino_if_built();
  if (!openvino) GTEST_SKIP() << "pet was built without OpenVINO";
  EXPECT_EQ(openvino->computes_in(DType::f64), DType::f32);
  EXPECT_EQ(openvino->computes_in(DType::i64), DType::i32);
  EXPECT_EQ(openvino->computes_in(DType::u8), DType::u8);
  EXPECT_EQ(open_ort_runtime()->computes_in(DType::f64), DType::f64);
}

// A uint8 image normalized to float: what a model taking raw pixels starts with.
const char* kUint8Image = R"(graph "pixels" opset 13 {
  input %image : u8[1,3,32,32]
  const %scale : f32[1] = [0.00392157]
  %f = Cast[to="f32"](%image) : f32[1,3,32,32]
  %y = Mul(%f, %scale) : f32[1,3,32,32]
  output %y
})";

void expect_timed(Runtime& runtime, const std::string& model) {
  TimingOptions options;
  options.warmup = 1;
  options.runs = 3;
  std::vector<Timing> timings = runtime.time_models({model}, options);
  ASSERT_EQ(timings.size(), 1u);
  ASSERT_EQ(timings[0].runs_us.size(), 3u) << runtime.target();
  for (double us : timings[0].runs_us) EXPECT_GT(us, 0) << runtime.target();
}

TEST(OrtRuntimeElementTypes, TimesModelsTakingUint8AndBFloat16Inputs) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  expect_timed(*ort, serialize_onnx(parse_graph(kUint8Image)));
  expect_timed(*ort, cast_to_itself(DType::bf16));
}

TEST(OpenVinoRuntimeElementTypes, TimesModelsTakingUint8AndBFloat16Inputs) {
  std::unique_ptr<Runtime> openvino = openvino_if_built();
  if (!openvino) GTEST_SKIP() << "pet was built without OpenVINO";
  expect_timed(*openvino, serialize_onnx(parse_graph(kUint8Image)));
  expect_timed(*openvino, cast_to_itself(DType::bf16));
}

TEST(OrtRuntimeElementTypes, AnOpWithoutACpuKernelForItsTypeIsRejectedSayingWhereItRuns) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  std::string bf16_matmul = serialize_onnx(parse_graph(R"(graph "bf16_matmul" opset 13 {
    input %a : bf16[2,3]
    input %b : bf16[3,2]
    %y = MatMul(%a, %b) : bf16[2,2]
    output %y
  })"));
  try {
    ort->run_model(bf16_matmul, {samples(DType::bf16), samples(DType::bf16).reshaped(Shape{3, 2})}, 1);
    FAIL() << "ONNX Runtime's CPU provider ran a bfloat16 MatMul; this test's premise no longer holds";
  } catch (const ModelRejected& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("model 0 was rejected by ONNX Runtime: "), std::string::npos) << message;
    EXPECT_NE(message.find("NOT_IMPLEMENTED"), std::string::npos) << message;
    EXPECT_NE(message.find("; ONNX Runtime's CPU provider has no kernel for that op on that element type: optimize "
                           "for --target openvino-cpu, or cast the model to float32"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace pet::runtime
