// ONNX Runtime's worker for real: tiny pet graphs in, interleaved run times and per-node times out.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/tensor_wire.h"
#include "tests/kernels/runtime/runtime_test_models.h"
#include "tests/os_conditions.h"
#include "tests/scoped_env.h"
#include "tests/test_temp_dir.h"

namespace pet::runtime {
namespace {

using testing::ScopedEnv;

const char* kConvRelu = R"(graph "conv_relu" opset 13 {
  input %x : f32[1,8,16,16]
  const %w : f32[16,8,3,3] = random(1)
  const %b : f32[16] = random(2)
  %y = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[1,16,16,16]
  %z = Relu(%y) : f32[1,16,16,16]
  output %z
})";

// Three outputs of the three element types pet holds, from two inputs.
const char* kThreeTypes = R"(graph "three_types" opset 13 {
  input %x : f32[2,5]
  input %t : f32[2,5]
  %s = Add(%x, %t) : f32[2,5]
  %g = Greater(%x, %t) : bool[2,5]
  %a = ArgMax[axis=1, keepdims=0, select_last_index=0](%s) : i64[2]
  output %s
  output %g
  output %a
})";

TEST(OrtRuntime, RunsAModelOnGivenInputsAsPetsExecutorDoes) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  Graph graph = parse_graph(kConvRelu);
  std::vector<Tensor> inputs = random_inputs(graph, 11);
  Tensor expected = execute(graph, inputs)[0];
  std::vector<Tensor> outputs = ort->run_model(serialized(kConvRelu), inputs, 1);
  ASSERT_EQ(outputs.size(), 1u);
  ASSERT_EQ(outputs[0].type(), expected.type());
  for (int64_t i = 0; i < expected.numel(); ++i) EXPECT_NEAR(outputs[0].f32()[i], expected.f32()[i], 1e-4) << i;
}

// pet's Attention written as ONNX Runtime's com.microsoft op, without and with an attention bias
// broadcast over the heads: ONNX Runtime's kernel computes what pet's reference kernel does.
TEST(OrtRuntime, RunsPetsAttentionAsItsOwnContribOp) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  for (bool masked : {false, true}) {
    std::string text = "graph \"attention\" opset 13 {\n  input %x : f32[2,5,8]\n";
    if (masked) text += "  input %m : f32[2,1,5,5]\n";
    text += "  const %w : f32[8,24] = random(3)\n  const %b : f32[24] = random(4)\n";
    text += masked ? "  %y = Attention[num_heads=2](%x, %w, %b, _, _, %m)\n"
                   : "  %y = Attention[num_heads=2, scale=0.3](%x, %w, %b)\n";
    text += "  output %y\n}\n";
    Graph graph = parse_graph(text);
    std::vector<Tensor> inputs = random_inputs(graph, 13);
    Tensor expected = execute(graph, inputs)[0];
    std::vector<Tensor> outputs = ort->run_model(serialize_onnx(graph, {.onnx_runtime_ops = true}), inputs, 1);
    ASSERT_EQ(outputs[0].type(), expected.type()) << (masked ? "masked" : "unmasked");
    for (int64_t i = 0; i < expected.numel(); ++i)
      EXPECT_NEAR(outputs[0].f32()[i], expected.f32()[i], 1e-4) << (masked ? "masked " : "unmasked ") << i;
  }
}

TEST(OrtRuntime, RunReturnsFloatBoolAndIntegerOutputsInOrder) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  Graph graph = parse_graph(kThreeTypes);
  std::vector<Tensor> inputs = {Tensor::f32({2, 5}, {1, 2, 3, 4, 5, 5, 4, 3, 2, 1}),
                                Tensor::f32({2, 5}, {0, 3, 0, 3, 0, 9, 0, 0, 0, 0})};
  std::vector<Tensor> outputs = ort->run_model(serialized(kThreeTypes), inputs, 2);
  std::vector<Tensor> expected = execute(graph, inputs);
  ASSERT_EQ(outputs.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(outputs[i].same_content(expected[i])) << "output " << i;
}

TEST(OrtRuntime, RunWithAWrongInputIsAUserErrorAndTheWorkerSurvives) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  try {
    ort->run_model(serialized(kAddRelu), {Tensor::f32({1, 3}, {1, 2, 3})}, 1);
    FAIL() << "a wrongly shaped input ran";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("model 0 was rejected by ONNX Runtime: ", 0), 0u) << error.what();
  }
  EXPECT_EQ(ort->run_model(serialized(kAddRelu), {Tensor::f32({1, 64}, std::vector<float>(64, 1))}, 1).size(), 1u);
}

TEST(TensorWire, Base64RoundTripsEveryLengthAndMatchesKnownText) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
  std::string bytes;
  for (int n = 0; n < 300; ++n) {
    EXPECT_EQ(base64_decode(base64_encode(bytes)), bytes) << n;
    bytes += static_cast<char>((n * 37 + 11) & 255);
  }
}

TEST(TensorWire, MalformedBase64IsAnInternalError) {
  EXPECT_THROW(base64_decode("Zg="), InternalError);
  EXPECT_THROW(base64_decode("Z!=="), InternalError);
  EXPECT_THROW(base64_decode("Zg==Zm9v"), InternalError);
}

TEST(OrtRuntime, TimesTwoModelsInterleavedWithPerNodeTimes) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  TimingOptions options;
  options.warmup = 2;
  options.runs = 5;
  options.per_node = true;
  std::vector<Timing> timings = ort->time_models({serialized(kConvRelu), serialized(kAddRelu)}, options);
  ASSERT_EQ(timings.size(), 2u);
  for (const Timing& timing : timings) {
    ASSERT_EQ(timing.runs_us.size(), 5u);
    for (double us : timing.runs_us) EXPECT_GT(us, 0);
    EXPECT_FALSE(timing.nodes.empty());
  }
  bool conv_timed = false;
  for (const NodeTime& node : timings[0].nodes) conv_timed |= node.op == "Conv" && node.microseconds > 0;
  EXPECT_TRUE(conv_timed) << "no Conv with a positive time among " << timings[0].nodes.size() << " nodes";
  EXPECT_EQ(timings[0].nodes.front().kernel, "CPUExecutionProvider");
}

// A model written from its graph as the runtime reads it: the bytes serialize_onnx gives, asked for
// or streamed to a file, and a held model's bytes streamed alike; a closed descriptor's errno returned.
TEST(ModelBytes, AGraphIsWrittenAsSerializeOnnxWritesItAndHeldBytesAsTheyAre) {
  Graph graph = parse_graph(kConvRelu);
  ModelBytes written = ModelBytes::written_from(graph, {});
  ModelBytes held = serialize_onnx(graph);
  EXPECT_FALSE(written.holds_bytes());
  EXPECT_TRUE(held.holds_bytes());
  EXPECT_EQ(written.with_bytes([](const std::string& bytes) { return bytes; }), serialize_onnx(graph));
  for (const ModelBytes* model : {&written, &held}) {
    std::string path = (testing::private_temp_dir() / "model_bytes.onnx").string();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(model->write(fd), 0);
    ::close(fd);
    std::ifstream in(path, std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), serialize_onnx(graph));
    EXPECT_EQ(model->write(fd), EBADF) << "a closed descriptor";
  }
}

// Before: a model reached ONNX Runtime's worker only as bytes held in memory. After: one written from
// its graph is streamed into the worker's file and times as its bytes do.
TEST(OrtRuntime, TimesAModelWrittenFromItsGraphBesideOneGivenAsBytes) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  Graph graph = parse_graph(kConvRelu);
  TimingOptions options;
  options.warmup = 0;
  options.runs = 2;
  std::vector<Timing> timings = ort->time_models({ModelBytes::written_from(graph, {}), serialized(kAddRelu)}, options);
  ASSERT_EQ(timings.size(), 2u);
  EXPECT_EQ(timings[0].runs_us.size(), 2u);
  EXPECT_EQ(timings[1].runs_us.size(), 2u);
}

// A model the worker's folder cannot take (here: over a lowered file size limit) is a UserError
// naming the model and the reason, and leaves no file of the request behind (before: the files
// written until then stayed until the runtime closed).
TEST(OrtRuntime, AModelItCannotWriteIsAUserErrorAndLeavesNoFile) {
  std::filesystem::path tmp = testing::private_temp_dir() / "ort_tmp";
  std::filesystem::create_directories(tmp);
  ScopedEnv tmpdir("TMPDIR", tmp.c_str());
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  Graph graph = parse_graph(kConvRelu);  // a 4.6 KB weight
  try {
    testing::FileSizeLimit limit(4096);
    ort->time_models({serialized(kAddRelu), ModelBytes::written_from(graph, {})}, TimingOptions{});
    FAIL() << "a model over the file size limit was timed";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("cannot write model 1 for ONNX Runtime"), std::string::npos)
        << error.what();
    EXPECT_NE(std::string(error.what()).find(std::strerror(EFBIG)), std::string::npos) << error.what();
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(tmp))
    EXPECT_NE(entry.path().extension().string(), ".onnx") << entry.path();
}

TEST(OrtRuntime, WithoutPerNodeGivesRunTimesOnly) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  TimingOptions options;
  options.warmup = 0;
  options.runs = 3;
  std::vector<Timing> timings = ort->time_models({serialized(kAddRelu)}, options);
  ASSERT_EQ(timings.size(), 1u);
  EXPECT_EQ(timings[0].runs_us.size(), 3u);
  EXPECT_TRUE(timings[0].nodes.empty());
}

TEST(OrtRuntime, OpenedRuntimeNamesItsTargetAndVersion) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  EXPECT_EQ(ort->target(), "ort-cpu");
  EXPECT_EQ(ort->version().rfind("onnxruntime ", 0), 0u) << ort->version();
}

TEST(OrtRuntime, MalformedModelIsAUserErrorNamingItsIndexAndTheWorkerSurvives) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  TimingOptions options;
  options.warmup = 0;
  options.runs = 1;
  try {
    ort->time_models({std::string("not a model")}, options);
    FAIL() << "a malformed model was timed";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("model 0 was rejected by ONNX Runtime: ", 0), 0u) << error.what();
  }
  EXPECT_EQ(ort->time_models({serialized(kAddRelu)}, options).size(), 1u);
}

TEST(OrtRuntime, MissingPythonIsAUserErrorSayingHowToInstall) {
  ScopedEnv python("PET_PYTHON", "/nonexistent/python3");
  try {
    open_ort_runtime();
    FAIL() << "a runtime opened without a python";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_EQ(message,
              "ONNX Runtime is not available for the python '/nonexistent/python3': it could not be started (No such "
              "file or directory). Install it with `bash scripts/install-deps.sh` or `/nonexistent/python3 -m pip "
              "install onnxruntime`, or set PET_PYTHON to a python that has it");
  }
}

TEST(OrtRuntime, PythonWithoutOnnxruntimeIsAUserErrorNamingTheImportFailure) {
  ScopedEnv python("PET_PYTHON", "/usr/bin/python3");
  if (std::system("/usr/bin/python3 -c 'import onnxruntime' 2>/dev/null") == 0)
    GTEST_SKIP() << "/usr/bin/python3 has onnxruntime";
  try {
    open_ort_runtime();
    FAIL() << "a runtime opened on a python without onnxruntime";
  } catch (const UserError& error) {
    std::string message = error.what();
    EXPECT_NE(message.find("No module named"), std::string::npos) << message;
    EXPECT_NE(message.find("install-deps"), std::string::npos) << message;
  }
}

TEST(OrtRuntime, WorkerDyingAfterStartIsAnInternalErrorWithItsStderr) {
  std::string fake = (testing::private_temp_dir() / "dying_worker.sh").string();
  std::ofstream(fake) << "#!/bin/sh\nread request\necho '{\"ok\": true, \"version\": \"onnxruntime fake\"}'\n"
                         "echo 'fake worker dying' >&2\nexit 3\n";
  chmod(fake.c_str(), 0700);
  ScopedEnv python("PET_PYTHON", fake.c_str());
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  EXPECT_EQ(ort->version(), "onnxruntime fake");
  for (int attempt = 0; attempt < 2; ++attempt) {  // the second write meets a closed pipe: no SIGPIPE death
    try {
      ort->time_models({serialized(kAddRelu)}, TimingOptions{});
      FAIL() << "a dead worker answered";
    } catch (const InternalError& error) {
      std::string message = error.what();
      EXPECT_NE(message.find("has exited"), std::string::npos) << message;
      EXPECT_NE(message.find("fake worker dying"), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace pet::runtime
