// pet-opt and pet-run on hostile inputs: empty and huge tensors, extreme budgets, repeated outputs, bad shapes.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/onnx_import.h"
#include "tests/error/onnx_model_builder.h"
#include "tests/error/tool_run.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

using onnx::TensorProto;

// pet-opt with the analytic target (nothing timed) and small budgets, writing next to `model`.
ToolRun optimize(const std::string& model, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {model, "--target", "h100", "--beam", "2", "-o", model + ".opt.onnx"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_opt(args);
}

std::vector<float> filled(int64_t count, float value) { return std::vector<float>(static_cast<size_t>(count), value); }

// Conv (+bias) -> Relu -> Conv -> Add -> GlobalAveragePool -> Flatten -> Gemm on an n x c x hw x hw
// input with `cout` conv channels: every op of a small CNN, so an empty dimension reaches them all.
std::string conv_net(const std::string& file, int64_t n, int64_t c, int64_t hw, int64_t cout) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {n, c, hw, hw}).output("y", TensorProto::FLOAT, {n, 10});
  builder.float_initializer("w1", {cout, c, 1, 1}, filled(cout * c, 0.5f));
  builder.float_initializer("b1", {cout}, filled(cout, 0.25f));
  builder.float_initializer("w2", {cout, cout, 3, 3}, filled(cout * cout * 9, -0.125f));
  builder.float_initializer("wf", {10, cout}, filled(10 * cout, 0.5f));
  builder.float_initializer("bf", {10}, filled(10, 1.0f));
  builder.node("Conv", {"x", "w1", "b1"}, {"c1"}, "conv1");
  builder.node("Relu", {"c1"}, {"r1"}, "relu1");
  auto& conv2 = builder.node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  auto* pads = conv2.add_attribute();
  pads->set_name("pads");
  pads->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) pads->add_ints(1);
  builder.node("Add", {"c2", "r1"}, {"a"}, "add");
  builder.node("GlobalAveragePool", {"a"}, {"g"}, "gap");
  builder.node("Flatten", {"g"}, {"f"}, "flatten");
  auto& gemm = builder.node("Gemm", {"f", "wf", "bf"}, {"y"}, "fc");
  auto* trans_b = gemm.add_attribute();
  trans_b->set_name("transB");
  trans_b->set_type(onnx::AttributeProto::INT);
  trans_b->set_i(1);
  return builder.save(file);
}

// Three MatMuls reading one input (a parallel group the generator merges), summed.
std::string matmul_group(const std::string& file, std::vector<int64_t> x_dims) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, x_dims);
  builder.output("y", TensorProto::FLOAT, x_dims);
  int64_t k = x_dims.back();
  // Distinct weights: equal ones would be merged by common-subexpression elimination instead.
  builder.float_initializer("wq", {k, k}, filled(k * k, 0.5f));
  builder.float_initializer("wk", {k, k}, filled(k * k, 0.25f));
  builder.float_initializer("wv", {k, k}, filled(k * k, -0.5f));
  builder.node("MatMul", {"x", "wq"}, {"q"}, "q");
  builder.node("MatMul", {"x", "wk"}, {"k"}, "k");
  builder.node("MatMul", {"x", "wv"}, {"v"}, "v");
  builder.node("Add", {"q", "k"}, {"qk"}, "add1");
  builder.node("Add", {"qk", "v"}, {"y"}, "add2");
  return builder.save(file);
}

std::string relu_model(const std::string& file, std::vector<int64_t> dims) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, dims).output("y", TensorProto::FLOAT, dims);
  builder.node("Relu", {"x"}, {"y"}, "relu");
  return builder.save(file);
}

// Before: SIGFPE in the mutant generator (a modulo by the empty batch). After: the subprograms
// with an empty tensor are not mutated; both tools run the model and pet-opt writes and checks it.
TEST(EmptyTensors, EveryToolRunsModelsWithAZeroDimension) {
  std::vector<std::string> models = {conv_net("empty_batch.onnx", 0, 3, 8, 8),
                                     conv_net("empty_channels.onnx", 1, 0, 8, 8),
                                     conv_net("empty_conv_channels.onnx", 1, 3, 8, 0),
                                     matmul_group("empty_rows.onnx", {0, 8, 16}),
                                     matmul_group("empty_sequence.onnx", {2, 0, 16}),
                                     matmul_group("empty_features.onnx", {2, 8, 0})};
  for (const std::string& model : models) {
    ToolRun ran = run_run({model});
    EXPECT_EQ(ran.status, 0) << model << ": " << ran.err;
    ToolRun optimized = optimize(model);
    ASSERT_EQ(optimized.status, 0) << model << ": " << optimized.err;
    EXPECT_NE(optimized.out.find("max abs error 0 (ok"), std::string::npos) << optimized.out;
    EXPECT_EQ(optimized.out.find("rule not proved"), std::string::npos)
        << "no rule instance over an empty tensor is tried: " << optimized.out;
    EXPECT_EQ(run_run({model + ".opt.onnx"}).status, 0) << model;
  }
}

TEST(EmptyTensors, AZeroBatchThroughInputShapeIsOptimized) {
  std::string model = conv_net("symbolic_batch.onnx", -1, 3, 8, 8);
  ToolRun optimized = optimize(model, {"--input-shape", "x=0x3x8x8"});
  ASSERT_EQ(optimized.status, 0) << optimized.err;
  Graph written = import_onnx(model + ".opt.onnx");
  EXPECT_EQ(written.value(written.outputs()[0]).type.to_string(), "f32[0,10]");
  EXPECT_EQ(run_run({model, "--input-shape", "x=0x3x8x8"}).status, 0);
}

TEST(EmptyTensors, ZeroSizedSpatialConvIsAUserErrorNotACrash) {
  std::string model = conv_net("empty_spatial.onnx", 1, 3, 0, 8);
  ToolRun optimized = optimize(model);
  EXPECT_EQ(optimized.status, 2);
  EXPECT_NE(optimized.err.find("node 'conv1' (Conv): kernel 1x1"), std::string::npos) << optimized.err;
  EXPECT_NE(optimized.err.find("input 1x3x0x0"), std::string::npos) << optimized.err;
}

// Before: bad_alloc, "internal error", exit 1. After: a user error naming the tensor and its size.
TEST(HugeTensors, AreRejectedAtImportWithTheBytesTheyWouldNeed) {
  struct Case {
    std::string model;
    std::vector<std::string> flags;
    std::string message;
  };
  std::vector<Case> cases = {
      {relu_model("huge_input.onnx", {1000000, 1000000}), {},
       "input 'x' (f32[1000000,1000000]) would need 4000000000000 bytes, more than this machine's "},
      {relu_model("overflowing_input.onnx", {4000000000, 4000000000, 4000000000}), {},
       "input 'x' (f32[4000000000,4000000000,4000000000]) would need more than 2^63 bytes"},
      {relu_model("huge_by_flag.onnx", {-1, 1000}), {"--input-shape", "x=999999999999x1000"},
       "input 'x' (f32[999999999999,1000]) would need 3999999999996000 bytes"},
      {relu_model("overflow_by_flag.onnx", {-1, -1, -1}), {"--input-shape", "x=999999999999x999999999999x999999999999"},
       "input 'x' (f32[999999999999,999999999999,999999999999]) would need more than 2^63 bytes"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> run_args = {c.model};
    run_args.insert(run_args.end(), c.flags.begin(), c.flags.end());
    for (const ToolRun& run : {optimize(c.model, c.flags), run_run(run_args)}) {
      EXPECT_EQ(run.status, 2) << c.model;
      EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
      EXPECT_NE(run.err.find("give it smaller dimensions"), std::string::npos) << run.err;
    }
  }
}

// Before: dimensions of more than 12 digits read as bad syntax ("is not NAME=D0xD1x...").
TEST(HugeTensors, InputShapeDimensionsAreReadUpToInt64) {
  std::string model = relu_model("long_dims.onnx", {-1, 3});
  ToolRun huge = run_run({model, "--input-shape", "x=1000000000000000x3"});
  EXPECT_EQ(huge.status, 2);
  EXPECT_NE(huge.err.find("input 'x' (f32[1000000000000000,3]) would need 12000000000000000 bytes"), std::string::npos)
      << huge.err;
  ToolRun too_long = run_run({model, "--input-shape", "x=99999999999999999999x3"});
  EXPECT_EQ(too_long.status, 2);
  EXPECT_EQ(too_long.err, "pet-run: error: --input-shape 'x=99999999999999999999x3': dimension 99999999999999999999 "
                          "does not fit in 64 bits\n");
}

TEST(HugeTensors, ANodeWhoseOutputWouldNotFitIsNamed) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1000000, 1}).output("y", TensorProto::FLOAT, {1000000, 1000000});
  builder.float_initializer("w", {1, 1000000}, filled(1000000, 1.0f));
  builder.node("MatMul", {"x", "w"}, {"y"}, "outer");
  std::string model = builder.save("huge_outer_product.onnx");
  ToolRun ran = run_run({model});
  EXPECT_EQ(ran.status, 2);
  EXPECT_NE(ran.err.find("node 'outer' (MatMul): output 0 (f32[1000000,1000000]) would need 4000000000000 bytes"),
            std::string::npos)
      << ran.err;
}

std::string flag_error(const std::vector<std::string>& flags) {
  std::vector<std::string> args = {relu_model("flags.onnx", {2, 3}), "--target", "h100"};
  args.insert(args.end(), flags.begin(), flags.end());
  ToolRun run = run_opt(args);
  EXPECT_EQ(run.status, 2) << run.err;
  return run.err;
}

// Before: "1e300" overflowed the deadline (no search, "converged"); "0x10" and " 5" were taken.
TEST(Budgets, NumberFlagsTakePlainFiniteDecimalsOnly) {
  EXPECT_EQ(flag_error({"--time-limit", "inf"}), "pet-opt: error: --time-limit 'inf' must be a finite number (not inf or nan)\n");
  EXPECT_EQ(flag_error({"--time-limit", "nan"}), "pet-opt: error: --time-limit 'nan' must be a finite number (not inf or nan)\n");
  EXPECT_EQ(flag_error({"--time-limit", "-inf"}), "pet-opt: error: --time-limit '-inf' must be a finite number (not inf or nan)\n");
  EXPECT_EQ(flag_error({"--time-limit", "1e999"}),
            "pet-opt: error: --time-limit '1e999' is out of the range of a double; give a smaller number\n");
  EXPECT_EQ(flag_error({"--time-limit", "-5"}), "pet-opt: error: --time-limit -5 must be a positive number of seconds\n");
  EXPECT_EQ(flag_error({"--time-limit", "0x10"}), "pet-opt: error: --time-limit '0x10' must be a number\n");
  EXPECT_EQ(flag_error({"--time-limit", "5s"}), "pet-opt: error: --time-limit '5s' must be a number\n");
  EXPECT_EQ(flag_error({"--time-limit", " 5"}), "pet-opt: error: --time-limit ' 5' must be a number\n");
  EXPECT_EQ(flag_error({"--alpha", "nan"}), "pet-opt: error: --alpha 'nan' must be a finite number (not inf or nan)\n");
}

TEST(Budgets, IntegerFlagsTakePlainDecimalsInRangeOnly) {
  const std::string range = " must be an integer from 1 to 9223372036854775807\n";
  EXPECT_EQ(flag_error({"--max-expansions", "99999999999999999999"}),
            "pet-opt: error: --max-expansions '99999999999999999999'" + range);
  EXPECT_EQ(flag_error({"--mutant-work", "+5"}), "pet-opt: error: --mutant-work '+5'" + range);
  EXPECT_EQ(flag_error({"--search-work", "0"}), "pet-opt: error: --search-work '0'" + range);
  EXPECT_EQ(flag_error({"--max-candidates", " 5"}), "pet-opt: error: --max-candidates ' 5'" + range);
  EXPECT_EQ(flag_error({"--max-candidates", "0x10"}), "pet-opt: error: --max-candidates '0x10'" + range);
  EXPECT_EQ(flag_error({"--select-runs", "1e3"}), "pet-opt: error: --select-runs '1e3' must be an integer from 1 to 10000\n");
}

nlohmann::json report_of(const std::string& model) {
  std::ifstream file(model + ".opt.json");
  return nlohmann::json::parse(file);
}

// Before: --time-limit 1e300 overflowed the deadline and the generator made no mutants.
TEST(Budgets, HugeLimitsSearchLikeTheDefaults) {
  std::string model = matmul_group("budgets.onnx", {2, 4, 8});
  ASSERT_EQ(optimize(model).status, 0);
  nlohmann::json defaults = report_of(model);
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"--time-limit", "1e300"}, {"--time-limit", "1.7976931348623157e308"},
        {"--max-expansions", "9223372036854775807", "--max-candidates", "9223372036854775807"},
        {"--mutant-work", "9223372036854775807"}, {"--search-work", "9223372036854775807"}}) {
    ToolRun run = optimize(model, flags);
    ASSERT_EQ(run.status, 0) << flags[0] << ": " << run.err;
    nlohmann::json report = report_of(model);
    EXPECT_GT(report["search"]["mutants_full"].get<int64_t>(), 0) << flags[0];
    if (flags[0] == "--time-limit") {
      EXPECT_EQ(report["search"], defaults["search"]) << flags[0];
    }
  }
}

// exp(100 x) summed over 64 inputs overflows on [-1, 1) at every output: before, the check passed
// with "error 0"; after, the summary warns that the inputs were redrawn on a smaller range.
TEST(FinalCheck, AnOverflowingModelIsCheckedOnSmallerInputsAndSaysSo) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 64}).output("y", TensorProto::FLOAT, {1, 1});
  builder.float_initializer("hundred", {1}, {100.0f});
  builder.float_initializer("ones", {64, 1}, filled(64, 1.0f));
  builder.node("Mul", {"x", "hundred"}, {"s"}, "scale");
  builder.node("Exp", {"s"}, {"e"}, "exp");
  builder.node("MatMul", {"e", "ones"}, {"y"}, "sum");
  std::string model = builder.save("overflowing.onnx");
  ToolRun run = optimize(model, {"--seed", "3"});
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("  check warning: the original's output 'y' was NaN or infinite at every element on inputs "
                         "drawn from [-1, 1); redrawn from [-0.015625, 0.015625)\n"),
            std::string::npos)
      << run.out;
  nlohmann::json check = report_of(model)["differential_check"];
  EXPECT_EQ(check["input_range"], 0.015625);
  EXPECT_EQ(check["inconclusive"], false);
  EXPECT_EQ(check["warnings"].size(), 1u);
}

// sqrt(-(x*x) - 1) is NaN on every input: before, the check passed with "error 0"; after, pet-opt
// writes the report only, exits 1 and says the check proved nothing (not that pet has a bug).
TEST(FinalCheck, AModelThatIsNaNEverywhereIsAnInconclusiveCheckNotAPass) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 8}).output("y", TensorProto::FLOAT, {1, 8});
  builder.float_initializer("minus_one", {1}, {-1.0f});
  builder.node("Mul", {"x", "x"}, {"square"}, "square");
  builder.node("Neg", {"square"}, {"negative"}, "negate");
  builder.node("Add", {"negative", "minus_one"}, {"below_zero"}, "shift");
  builder.node("Sqrt", {"below_zero"}, {"y"}, "root");
  std::string model = builder.save("always_nan.onnx");
  ToolRun run = optimize(model, {"--seed", "5"});
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("pet-opt: check inconclusive: the original's output 'y' is NaN or infinite at every "
                         "element, even on inputs drawn from [-0.015625, 0.015625)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("Check that the model computes finite values"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("This is a bug in pet"), std::string::npos) << run.err;
  EXPECT_FALSE(std::ifstream(model + ".opt.onnx").good());
  EXPECT_EQ(report_of(model)["differential_check"]["inconclusive"], true);
}

std::string file_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// --help promises that the output does not depend on --jobs; before, the generator's clock limit
// made one thread reach fewer subprograms than several.
TEST(Determinism, PetOptWritesTheSameBytesForAnyJobs) {
  std::string model = matmul_group("jobs.onnx", {2, 4, 8});
  std::string model_bytes, report;
  for (const char* jobs : {"1", "2", "3"}) {
    ToolRun run = optimize(model, {"--jobs", jobs});
    ASSERT_EQ(run.status, 0) << run.err;
    nlohmann::json written = report_of(model);
    EXPECT_GT(written["search"]["mutants_full"].get<int64_t>(), 0);
    // x wq + x wk + x wv becomes x (wq + wk + wv): two proved distributivity rules (the MatMul axioms
    // cover a weight matrix broadcast over x's batch), better than the merged-MatMul mutant.
    ASSERT_EQ(written["transformations"].size(), 2u) << written["transformations"].dump();
    for (const nlohmann::json& step : written["transformations"]) EXPECT_EQ(step["evidence_kind"], "z3-proof");
    if (model_bytes.empty()) {
      model_bytes = file_bytes(model + ".opt.onnx");
      report = file_bytes(model + ".opt.json");
      continue;
    }
    EXPECT_EQ(file_bytes(model + ".opt.onnx"), model_bytes) << "--jobs " << jobs;
    EXPECT_EQ(file_bytes(model + ".opt.json"), report) << "--jobs " << jobs;
  }
}

std::vector<std::string> output_names(const std::string& path) {
  Graph graph = import_onnx(path);
  std::vector<std::string> names;
  for (ValueId id : graph.outputs()) names.push_back(graph.value(id).name);
  return names;
}

// Before: the second 'y' was written as y_out, the input 'x' as x_out.
TEST(Interface, PetOptKeepsOutputNamesOrderAndRepeats) {
  struct Case {
    std::string file;
    std::vector<std::string> outputs;
  };
  for (const Case& c : std::vector<Case>{{"twice.onnx", {"y", "y"}},
                                         {"input_out.onnx", {"x", "y"}},
                                         {"only_input.onnx", {"x"}},
                                         {"mixed.onnx", {"y", "x", "y", "x"}}}) {
    OnnxModelBuilder builder;
    builder.input("x", TensorProto::FLOAT, {2, 3});
    for (const std::string& name : c.outputs) builder.output(name, TensorProto::FLOAT, {2, 3});
    builder.node("Relu", {"x"}, {"y"}, "relu");
    std::string model = builder.save(c.file);
    ToolRun run = optimize(model);
    ASSERT_EQ(run.status, 0) << c.file << ": " << run.err;
    EXPECT_EQ(output_names(model + ".opt.onnx"), c.outputs) << c.file;
    EXPECT_EQ(run_run({model + ".opt.onnx"}).status, 0) << c.file;
  }
}

// A shape mismatch at node k: the message names node k and its op, whatever comes before or after.
TEST(ShapeMessages, NameTheNodeWithTheMismatch) {
  struct Case {
    std::string op;
    std::vector<int64_t> weight_dims;
    std::string message;
  };
  std::vector<Case> cases = {
      {"Add", {4}, "node 'bad' (Add): cannot broadcast shapes 2x3 and 4"},
      {"MatMul", {4, 5}, "node 'bad' (MatMul): inner dimensions differ: 2x3 and 4x5 (3 vs 4)"},
      {"Gemm", {4, 5}, "node 'bad' (Gemm): inner dimensions differ: op(A) is 2x3 and op(B) is 4x5"},
      {"Mul", {3, 3}, "node 'bad' (Mul): cannot broadcast shapes 2x3 and 3x3"},
  };
  for (size_t k = 0; k < 3; ++k)
    for (const Case& c : cases) {
      OnnxModelBuilder builder;
      builder.input("x", TensorProto::FLOAT, {2, 3}).output("y", TensorProto::FLOAT, {2, 3});
      int64_t count = 1;
      for (int64_t d : c.weight_dims) count *= d;
      builder.float_initializer("w", c.weight_dims, filled(count, 1.0f));
      std::string current = "x";
      for (size_t i = 0; i < 4; ++i) {
        std::string next = i == 3 ? "y" : "t" + std::to_string(i);
        if (i == k) builder.node(c.op, {current, "w"}, {next}, "bad");
        else builder.node("Relu", {current}, {next}, "relu" + std::to_string(i));
        current = next;
      }
      std::string model = builder.save("mismatch.onnx");
      for (const ToolRun& run : {optimize(model), run_run({model})}) {
        EXPECT_EQ(run.status, 2);
        EXPECT_NE(run.err.find(c.message), std::string::npos) << "node " << k << ": " << run.err;
      }
    }
}

TEST(ShapeMessages, NameTheConvWhoseWeightDoesNotFit) {
  OnnxModelBuilder builder;
  builder.input("x", TensorProto::FLOAT, {1, 3, 8, 8}).output("y", TensorProto::FLOAT, {1, 4, 6, 6});
  builder.float_initializer("w", {4, 5, 3, 3}, filled(180, 1.0f));
  builder.node("Relu", {"x"}, {"r"}, "relu0");
  builder.node("Conv", {"r", "w"}, {"c"}, "conv1");
  builder.node("Relu", {"c"}, {"y"}, "relu2");
  ToolRun run = run_run({builder.save("conv_mismatch.onnx")});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("node 'conv1' (Conv): input has 3 channels, but weight 4x5x3x3 with group 1 expects 5"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace pet::testing
