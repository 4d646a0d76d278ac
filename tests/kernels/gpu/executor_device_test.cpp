// pet-gpu's executor on a device: without one, loading gives the no-device outcome and the
// commands say so and exit 0; with one, every test model matches pet's CPU executor in strict FP32
// (as a CUDA-graph replay and eagerly), TF32 stays near, and the profiled and timed runs report.
// Device tests skip without a device and fail on a real CUDA error.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/text_ir.h"
#include "kernels/devices.h"
#include "kernels/gpu/executor/device_session.h"
#include "kernels/gpu/executor/gpu_runtime.h"
#include "kernels/gpu/executor/model_check.h"
#include "kernels/gpu/executor/reference.h"
#include "tests/kernels/device_skip.h"
#include "tests/kernels/gpu/executor_test_models.h"
#include "tools/gpu_command.h"
#include "tools/model_format.h"

namespace pet::gpu {
namespace {

namespace fs = std::filesystem;

std::string model_path(const std::string& name) { return testing::executor_model_path(name); }

Graph model(const std::string& name) { return read_model(model_path(name), {}); }

bool has_device() { return probe_devices().status.ok(); }

struct Ran {
  int status = 0;
  std::string out, err;
};

Ran pet_gpu(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_gpu_main(args, out, err);
  return {status, out.str(), err.str()};
}

TEST(GpuExecutor, LoadingWithoutADeviceIsTheNoDeviceOutcome) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  GpuModelLoad loaded = load_gpu_model(model("conv_relu"));
  EXPECT_EQ(loaded.status.outcome, CudaOutcome::no_device) << loaded.status.message;
  EXPECT_EQ(loaded.model, nullptr);
}

TEST(GpuExecutor, ServeWithoutADeviceSaysSoAndReadsNothing) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  std::istringstream in("time 5 1\n");
  std::ostringstream out, err;
  EXPECT_EQ(pet_gpu_main({"serve", model_path("conv_relu")}, in, out, err), 0) << err.str();
  EXPECT_EQ(out.str().rfind("no CUDA device: ", 0), 0u) << out.str();
  EXPECT_EQ(in.tellg(), 0) << "serve read a request without a device";
}

// --conv-engines takes 0 (the legacy API alone) to 64 plans, on every command that loads a model.
TEST(GpuExecutor, ConvEnginesOutOfRangeIsAUsageError) {
  for (const char* command : {"check", "time", "serve"}) {
    Ran ran = pet_gpu({command, model_path("conv_relu"), "--conv-engines", "65"});
    EXPECT_EQ(ran.status, 2) << command << ": " << ran.err;
    EXPECT_NE(ran.err.find("--conv-engines"), std::string::npos) << ran.err;
  }
}

// --gemm-splits takes 0 (no split candidates) to 8 of the heuristic's algorithms, on every command
// that loads a model.
TEST(GpuExecutor, GemmSplitsOutOfRangeIsAUsageError) {
  for (const char* command : {"check", "time", "serve"}) {
    for (const char* value : {"-1", "9", "some"}) {
      Ran ran = pet_gpu({command, model_path("mlp"), "--gemm-splits", value});
      EXPECT_EQ(ran.status, 2) << command << " " << value << ": " << ran.err;
      EXPECT_NE(ran.err.find("--gemm-splits"), std::string::npos) << ran.err;
    }
  }
}

// --conv-columns takes timed, always or off, on every command that loads a model.
TEST(GpuExecutor, ConvColumnsOtherThanItsThreeWordsIsAUsageError) {
  for (const char* command : {"check", "time", "serve"}) {
    Ran ran = pet_gpu({command, model_path("conv_relu"), "--conv-columns", "sometimes"});
    EXPECT_EQ(ran.status, 2) << command << ": " << ran.err;
    EXPECT_EQ(ran.err, "pet-gpu: error: --conv-columns takes timed, always or off, not 'sometimes'\n") << command;
  }
}

// serve loads once and answers each request line in order: a time request with the time command's
// line, anything else with an error naming it; quit ends it, so the request after it is never read.
TEST(GpuExecutor, ServeAnswersEachTimeRequestAndEndsAtQuit) {
  if (!has_device()) GTEST_SKIP() << "no CUDA device here";
  std::istringstream in("time 5 1\nsleep 3\ntime 3 0\nquit\ntime 1 1\n");
  std::ostringstream out, err;
  ASSERT_EQ(pet_gpu_main({"serve", model_path("conv_relu"), "--tf32"}, in, out, err), 0) << err.str();
  std::vector<std::string> lines;
  std::istringstream text(out.str());
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 4u) << out.str();
  EXPECT_EQ(lines[0].rfind("ready: model 'conv_relu', tf32 math, ", 0), 0u) << lines[0];
  EXPECT_EQ(lines[1].rfind("end to end: median ", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find(" over 5 runs after 1 warm-ups"), std::string::npos) << lines[1];
  EXPECT_EQ(lines[2], "error: 'sleep 3' is no request; send 'time RUNS WARMUP' or 'quit'");
  EXPECT_NE(lines[3].find(" over 3 runs after 0 warm-ups"), std::string::npos) << lines[3];
}

TEST(GpuExecutor, CheckAndTimeWithoutADeviceSayNoDeviceAndExitZero) {
  if (has_device()) GTEST_SKIP() << "a CUDA device exists";
  for (const char* command : {"check", "time"}) {
    Ran ran = pet_gpu({command, model_path("conv_relu")});
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_EQ(ran.out.rfind("no CUDA device: ", 0), 0u) << ran.out;
  }
}

TEST(GpuExecutor, ReferenceWritesTheTestDataWithoutADevice) {
  fs::path folder = fs::path(::testing::TempDir()) / "pet_gpu_command_reference";
  Ran ran = pet_gpu({"reference", model_path("conv_relu"), "--out", folder.string(), "--seed", "5"});
  EXPECT_EQ(ran.status, 0) << ran.err;
  EXPECT_EQ(ran.out, "wrote 1 inputs and 1 outputs of model 'conv_relu' (seed 5, pet's CPU executor) to " +
                         folder.string() + "\n");
  EXPECT_TRUE(fs::exists(folder / "input_0.pb"));
  EXPECT_TRUE(fs::exists(folder / "output_0.pb"));
}

TEST(GpuExecutor, CommandUsageErrorsNameTheFix) {
  EXPECT_EQ(pet_gpu({"reference", model_path("conv_relu")}).err,
            "pet-gpu: error: pet-gpu reference needs --out DIR, the folder the references go to\n");
  EXPECT_EQ(pet_gpu({"check", model_path("conv_relu"), "--strict", "--tf32"}).err,
            "pet-gpu: error: --strict and --tf32 exclude each other\n");
  EXPECT_EQ(pet_gpu({"time"}).err, "pet-gpu: error: pet-gpu time takes one model file, 0 given (pet-gpu --help)\n");
  // An unknown command: PetGpu.AnUnknownCommandNamesTheCommandsThereAre (tests/kernels/gpu_command_test.cpp).
}

TEST(GpuRuntime, RefusesAModelTheExecutorCannotRunByIndexAndNeedsADevice) {
  std::unique_ptr<runtime::Runtime> gpu = open_gpu_runtime();
  Graph refused = parse_graph(R"(graph "g" opset 13 {
  input %x : f32[1,4,6,6]
  const %w : f32[4,2,2,2] = random(1)
  %y = Conv[dilations=[1,1], group=2, pads=[0,0,1,1], strides=[2,2]](%x, %w) : f32[1,4,3,3]
  output %y
})");
  std::string conv = serialize_onnx(model("conv_relu"));
  try {
    gpu->time_models({conv, serialize_onnx(refused)}, {});
    FAIL() << "the grouped Conv padded at one end only was timed";
  } catch (const runtime::ModelRejected& rejected) {
    EXPECT_EQ(rejected.index(), 1u);
  }
  if (has_device()) return;
  try {
    gpu->time_models({conv}, {});
    FAIL() << "timed without a device";
  } catch (const UserError& error) {
    EXPECT_EQ(std::string(error.what()).rfind("no CUDA device: ", 0), 0u) << error.what();
  }
}

TEST(GpuRuntime, TimesModelsInterleavedAndNamesEveryStep) {
  if (!has_device()) GTEST_SKIP() << "no CUDA device here";
  ExecutorOptions tf32;
  tf32.math = MathMode::tf32;
  std::unique_ptr<runtime::Runtime> gpu = open_gpu_runtime(tf32);
  runtime::TimingOptions options;
  options.runs = 4;
  options.per_node = true;
  std::vector<runtime::Timing> timings =
      gpu->time_models({serialize_onnx(model("conv_relu")), serialize_onnx(model("mlp"))}, options);
  ASSERT_EQ(timings.size(), 2u);
  for (const runtime::Timing& timing : timings) {
    EXPECT_EQ(timing.runs_us.size(), 4u);
    EXPECT_FALSE(timing.nodes.empty());
  }
  EXPECT_EQ(timings[0].nodes.front().op, "Conv");
  EXPECT_EQ(gpu->activity().rfind("2 loads, mean ", 0), 0u) << gpu->activity();
}

// pet-opt --live sends its models to time weight-free: the runtime fills their weights before it
// loads them (here without a device: accepted, then refused for want of one), and times them like
// the same model with its weights.
TEST(GpuRuntime, TimesAWeightFreeModelWithItsWeightsFilled) {
  std::unique_ptr<runtime::Runtime> gpu = open_gpu_runtime();
  ASSERT_TRUE(gpu->export_options().weight_free);
  Graph graph = model("conv_relu");
  std::string weight_free = serialize_onnx(graph, gpu->export_options());
  ASSERT_LT(weight_free.size(), serialize_onnx(graph).size());
  runtime::TimingOptions options;
  options.runs = 3;
  if (!has_device()) {
    try {
      gpu->time_models({weight_free}, options);
      FAIL() << "timed without a device";
    } catch (const UserError& error) {  // not ModelRejected: the filled model was taken
      EXPECT_EQ(std::string(error.what()).rfind("no CUDA device: ", 0), 0u) << error.what();
    }
    return;
  }
  std::vector<runtime::Timing> timings = gpu->time_models({weight_free, serialize_onnx(graph)}, options);
  ASSERT_EQ(timings.size(), 2u);
  for (const runtime::Timing& timing : timings)
    for (double us : timing.runs_us) EXPECT_GT(us, 0);
  EXPECT_NE(gpu->activity().find("; weights filled: "), std::string::npos) << gpu->activity();
}

// The tiny conv + ReLU model through cuDNN's fused call, against pet's CPU executor.
TEST(GpuExecutor, TinyConvReluMatchesTheCpuInStrictFp32) {
  CheckReport report = check_model(model("conv_relu"), {});
  PET_SKIP_WITHOUT_DEVICE(report);
  EXPECT_TRUE(report.passed()) << format_check_report(model("conv_relu"), report, true);
}

class DeviceModel : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceModel, MatchesTheCpuInStrictFp32) {
  Graph graph = model(GetParam());
  CheckReport report = check_model(graph, {});
  PET_SKIP_WITHOUT_DEVICE(report);
  EXPECT_TRUE(report.passed()) << format_check_report(graph, report, true);
}

TEST_P(DeviceModel, StaysNearTheCpuWithTf32) {
  Graph graph = model(GetParam());
  CheckOptions options;
  options.executor.math = MathMode::tf32;
  CheckReport report = check_model(graph, options);
  PET_SKIP_WITHOUT_DEVICE(report);
  EXPECT_TRUE(report.passed()) << format_check_report(graph, report, true);
  // The long reductions' steps say whether a split K was kept (the unit tests' log comes back).
  std::cout << format_check_report(graph, report, GetParam() == "long_reduction");
}

INSTANTIATE_TEST_SUITE_P(TestModels, DeviceModel,
                         ::testing::Values("conv_block", "conv_nd", "conv_columns", "matmul_broadcast", "mlp",
                                           "attention", "correction", "layer_norm_ops", "long_reduction"));

// With no split candidates (--gemm-splits 0, the A/B's other side), the long reductions still
// match the CPU in TF32 and no step keeps a split K.
TEST(GpuExecutor, NoSplitCandidatesKeepEveryReductionWhole) {
  Graph graph = model("long_reduction");
  CheckOptions options;
  options.executor.math = MathMode::tf32;
  options.executor.gemm.split_bases = 0;
  CheckReport report = check_model(graph, options);
  PET_SKIP_WITHOUT_DEVICE(report);
  EXPECT_TRUE(report.passed()) << format_check_report(graph, report, true);
  GpuModelLoad loaded = load_gpu_model(graph, options.executor);
  ASSERT_TRUE(loaded.model) << loaded.status.message;
  for (const std::string& line : loaded.model->summary().steps)
    EXPECT_EQ(line.find("K split"), std::string::npos) << line;
}

// The convolution steps' load lines of `graph` loaded with `options`.
std::vector<std::string> conv_lines(const Graph& graph, const ExecutorOptions& options, GpuModelLoad& loaded) {
  loaded = load_gpu_model(graph, options);
  std::vector<std::string> lines;
  if (!loaded.model) return lines;
  for (const std::string& line : loaded.model->summary().steps)
    if (line.find(" cudnn-conv ") != std::string::npos) lines.push_back(line);
  return lines;
}

// In TF32, every convolution is timed against the graph API's plans at load: each line says the
// plan it runs or the graph API's best that lost, and the load needs no fallback.
TEST(GpuExecutor, Tf32ConvolutionsWeighTheGraphApisPlansWithoutFallingBack) {
  for (const char* name : {"conv_relu", "conv_block", "conv_nd"}) {
    ExecutorOptions options;
    options.math = MathMode::tf32;
    GpuModelLoad loaded;
    std::vector<std::string> lines = conv_lines(model(name), options, loaded);
    PET_SKIP_WITHOUT_DEVICE(loaded);
    ASSERT_TRUE(loaded.model) << loaded.status.message;
    EXPECT_EQ(loaded.model->summary().fallback, "") << name;
    ASSERT_FALSE(lines.empty()) << name;
    for (const std::string& line : lines) {
      std::cout << line << "\n";
      bool weighed = line.find("cuDNN graph API engine") != std::string::npos ||
                     line.find("the graph API's best of") != std::string::npos;
      EXPECT_TRUE(weighed) << line;
    }
  }
}

// A second load with the same decision file takes the first load's decisions and times nothing.
TEST(GpuExecutor, ASecondLoadReadsTheConvolutionDecisionsTheFirstRecorded) {
  fs::path file = fs::path(::testing::TempDir()) / "pet_gpu_conv_cache.tsv";
  fs::remove(file);
  ExecutorOptions options;
  options.math = MathMode::tf32;
  options.conv_cache = file.string();
  GpuModelLoad first;
  std::vector<std::string> first_lines = conv_lines(model("conv_block"), options, first);
  PET_SKIP_WITHOUT_DEVICE(first);
  ASSERT_TRUE(first.model) << first.status.message;
  ASSERT_TRUE(fs::exists(file));
  auto recorded = fs::file_size(file);
  EXPECT_GT(recorded, 0u);
  GpuModelLoad second;
  std::vector<std::string> second_lines = conv_lines(model("conv_block"), options, second);
  ASSERT_TRUE(second.model) << second.status.message;
  EXPECT_EQ(fs::file_size(file), recorded) << "the second load recorded decisions again";
  ASSERT_EQ(second_lines.size(), first_lines.size());
  for (const std::string& line : second_lines) {
    bool reused = line.find("cuDNN graph API engine") != std::string::npos ||
                  line.find("as an earlier load timed it") != std::string::npos;
    EXPECT_TRUE(reused) << line;
  }
}

// Loads in one session share what they can: a second load of a model compiles no kernel and runs
// no algorithm search, makes the same choices and computes the same outputs; a load in another
// math mode searches for itself.
TEST(GpuExecutor, ASessionsSecondLoadReusesEveryKernelAndSearch) {
  ExecutorOptions tf32;
  tf32.math = MathMode::tf32;
  auto session = std::make_shared<DeviceSession>(tf32.device);
  for (const char* name : {"conv_block", "mlp"}) {
    Graph graph = model(name);
    GpuModelLoad first = load_gpu_model(graph, prepare_host_program(graph), tf32, session);
    PET_SKIP_WITHOUT_DEVICE(first);
    ASSERT_TRUE(first.model) << first.status.message;
    GpuModelLoad second = load_gpu_model(graph, prepare_host_program(graph), tf32, session);
    ASSERT_TRUE(second.model) << second.status.message;
    const LoadSummary& before = first.model->summary();
    const LoadSummary& after = second.model->summary();
    std::cout << name << ", first load: " << before.timing_line() << "\n"
              << name << ", second load: " << after.timing_line() << "\n";
    EXPECT_GT(before.searches, 0) << name;
    EXPECT_EQ(after.kernels_reused, after.kernels) << name;
    EXPECT_EQ(after.searches, 0) << name;
    EXPECT_EQ(after.searches_reused, before.searches + before.searches_reused) << name;
    EXPECT_EQ(after.steps, before.steps) << name;
    std::vector<Tensor> inputs = random_inputs(graph, kDefaultSeed);
    std::vector<Tensor> first_outputs = first.model->run(inputs), second_outputs = second.model->run(inputs);
    ASSERT_EQ(first_outputs.size(), second_outputs.size());
    for (size_t i = 0; i < first_outputs.size(); ++i)
      EXPECT_LE(relative_l2_error(second_outputs[i], first_outputs[i]), 1e-6) << name << " output " << i;
  }
  Graph graph = model("conv_block");
  GpuModelLoad strict = load_gpu_model(graph, prepare_host_program(graph), ExecutorOptions{}, session);
  ASSERT_TRUE(strict.model) << strict.status.message;
  EXPECT_GT(strict.model->summary().searches, 0) << "a strict load took TF32's searches";
  EXPECT_GT(session->activity().loads, 4);
}

// The column path taken for every convolution it can run computes what cuDNN computes, in strict
// FP32 and in TF32; with it off, a convolution padded differently at the two ends refuses the load.
TEST(GpuExecutor, TheColumnPathAlwaysTakenMatchesTheCpuAndOffRefusesAsymmetricPads) {
  for (MathMode math : {MathMode::strict, MathMode::tf32}) {
    for (const char* name : {"conv_block", "conv_columns", "conv_relu"}) {
      Graph graph = model(name);
      CheckOptions options;
      options.executor.math = math;
      options.executor.conv_columns = ColumnPath::always;
      CheckReport report = check_model(graph, options);
      PET_SKIP_WITHOUT_DEVICE(report);
      EXPECT_TRUE(report.passed()) << name << "\n" << format_check_report(graph, report, true);
    }
  }
  ExecutorOptions always;
  always.conv_columns = ColumnPath::always;
  GpuModelLoad loaded;
  std::vector<std::string> lines = conv_lines(model("conv_columns"), always, loaded);
  ASSERT_TRUE(loaded.model) << loaded.status.message;
  // bias as C + RELU, plain, the epilogue kernel, residual as C + RELU, RELU; x as the columns + bias
  ASSERT_EQ(lines.size(), 6u);
  for (size_t i = 0; i < lines.size(); ++i)
    EXPECT_NE(lines[i].find(i < 5 ? "im2col + cuBLASLt" : "x as the columns + cuBLASLt"), std::string::npos)
        << lines[i];
  ExecutorOptions off;
  off.conv_columns = ColumnPath::off;
  try {
    load_gpu_model(model("conv_columns"), off);
    FAIL() << "loaded a convolution with asymmetric pads without the column path";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("with --conv-columns off: its pads differ at the two ends"),
              std::string::npos)
        << error.what();
  }
}

// Timed (the default), a small convolution says which path won and by how much.
TEST(GpuExecutor, TimedColumnPathSaysWhatItWasWeighedAgainst) {
  ExecutorOptions tf32;
  tf32.math = MathMode::tf32;
  GpuModelLoad loaded;
  std::vector<std::string> lines = conv_lines(model("conv_block"), tf32, loaded);
  PET_SKIP_WITHOUT_DEVICE(loaded);
  ASSERT_TRUE(loaded.model) << loaded.status.message;
  for (const std::string& line : lines) {
    std::cout << line << "\n";
    bool grouped = line.find("'c3'") != std::string::npos;  // grouped: cuDNN alone
    bool weighed = line.find("against cuDNN's") != std::string::npos ||
                   line.find("the column path took") != std::string::npos;
    EXPECT_EQ(weighed, !grouped) << line;
  }
}

// Strict FP32, or conv_engines 0, keeps every convolution on the legacy API.
TEST(GpuExecutor, StrictOrEnginesOffKeepTheLegacyApi) {
  ExecutorOptions strict;
  ExecutorOptions off;
  off.math = MathMode::tf32;
  off.conv_engines = 0;
  for (const ExecutorOptions& options : {strict, off}) {
    GpuModelLoad loaded;
    std::vector<std::string> lines = conv_lines(model("conv_block"), options, loaded);
    PET_SKIP_WITHOUT_DEVICE(loaded);
    ASSERT_FALSE(lines.empty());
    for (const std::string& line : lines) EXPECT_EQ(line.find("graph API"), std::string::npos) << line;
  }
}

TEST(GpuExecutor, ProfileNamesEveryStepAndTimeCountsItsRuns) {
  Graph graph = model("conv_block");
  GpuModelLoad loaded = load_gpu_model(graph);
  PET_SKIP_WITHOUT_DEVICE(loaded);
  std::vector<Tensor> inputs = random_inputs(graph, 3);
  std::vector<StepTime> steps = loaded.model->profile(inputs, 1, 3);
  ASSERT_EQ(steps.size(), loaded.model->summary().steps.size());
  for (const StepTime& step : steps) {
    EXPECT_FALSE(step.nodes.empty());
    EXPECT_EQ(step.ms.runs, 3);
  }
  EXPECT_EQ(steps.front().nodes.front(), "c1");
  RunSummary timed = loaded.model->time(inputs, 2, 5);
  EXPECT_EQ(timed.runs, 5);
  EXPECT_GT(timed.median, 0.0);
}

}  // namespace
}  // namespace pet::gpu
