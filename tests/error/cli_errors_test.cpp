// Command-line mistakes: exact messages and exit status 2.
#include <gtest/gtest.h>

#include <sstream>

#include "core/onnx_tensor.h"
#include "tests/error/onnx_model_builder.h"
#include "tools/commands.h"

namespace pet::testing {
namespace {

struct ToolRun {
  int status;
  std::string out;
  std::string err;
};

ToolRun run_opt(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_opt_main(args, out, err);
  return {status, out.str(), err.str()};
}

ToolRun run_run(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int status = pet_run_main(args, out, err);
  return {status, out.str(), err.str()};
}

std::string small_model() {
  OnnxModelBuilder builder;
  builder.input("x", onnx::TensorProto::FLOAT, {2, 3}).output("y", onnx::TensorProto::FLOAT, {2, 3});
  builder.node("Relu", {"x"}, {"y"}, "relu");
  return builder.save("cli_small.onnx");
}

void expect_user_error(const ToolRun& run, const std::string& message) {
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, message + "\n");
}

TEST(CliErrors, OptWithoutModel) {
  expect_user_error(run_opt({}), "pet-opt: error: expected one model file, got 0; see pet-opt --help");
}

TEST(CliErrors, OptUnknownFlag) {
  expect_user_error(run_opt({"--bem", "8", "m.onnx"}), "pet-opt: error: unknown flag '--bem'; see pet-opt --help");
}

TEST(CliErrors, OptFlagWithoutValue) {
  expect_user_error(run_opt({"m.onnx", "--beam"}), "pet-opt: error: --beam needs a value; see pet-opt --help");
}

TEST(CliErrors, OptBeamOutOfRange) {
  expect_user_error(run_opt({"--beam", "0", small_model()}), "pet-opt: error: --beam '0' must be an integer from 1 to 1024");
}

TEST(CliErrors, OptUnknownMode) {
  expect_user_error(run_opt({"--mode", "fast", small_model()}),
                    "pet-opt: error: --mode 'fast' is not one of none, taso, pet, pet-eq-only, pet-neq-only");
}

TEST(CliErrors, OptUnknownTasoSearch) {
  expect_user_error(run_opt({"--taso-search", "greedy", small_model()}),
                    "pet-opt: error: --taso-search 'greedy' is not one of beam, alpha");
}

TEST(CliErrors, OptAlphaBelowOne) {
  expect_user_error(run_opt({"--alpha", "0.9", small_model()}), "pet-opt: error: --alpha 0.9 must be at least 1.0");
}

TEST(CliErrors, OptAlphaNotANumber) {
  expect_user_error(run_opt({"--alpha", "fast", small_model()}), "pet-opt: error: --alpha 'fast' must be a number");
}

TEST(CliErrors, OptTimeLimitNotPositive) {
  expect_user_error(run_opt({"--time-limit", "0", small_model()}),
                    "pet-opt: error: --time-limit 0 must be a positive number of seconds");
}

TEST(CliErrors, OptRefusesToOverwriteItsInput) {
  std::string model = small_model();
  expect_user_error(run_opt({model, "-o", model}), "pet-opt: error: the output '" + model +
                                                       "' would overwrite the input model; choose another -o");
}

TEST(CliErrors, OptHelpExitsZero) {
  ToolRun run = run_opt({"--help"});
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("usage: pet-opt [options] model.onnx"), std::string::npos);
}

TEST(CliErrors, RunUnknownInputName) {
  std::string tensor = temp_file("cli_input.pb");
  write_tensor_file(tensor, Tensor::f32({2, 3}, {1, 2, 3, 4, 5, 6}), "x");
  expect_user_error(run_run({small_model(), "--input", "nope=" + tensor}),
                    "pet-run: error: --input names 'nope', which is not an input of the model");
}

TEST(CliErrors, RunInputOfTheWrongShape) {
  std::string tensor = temp_file("cli_wrong_shape.pb");
  write_tensor_file(tensor, Tensor::f32({3}, {1, 2, 3}), "x");
  expect_user_error(run_run({small_model(), "--input", "x=" + tensor}),
                    "pet-run: error: input 'x' must be f32[2,3], got f32[3]; pass a tensor of that type and shape");
}

TEST(CliErrors, RunRepeatNotANumber) {
  expect_user_error(run_run({small_model(), "--repeat", "many"}),
                    "pet-run: error: --repeat 'many' must be an integer from 1 to 100000");
}

TEST(CliErrors, RunInputWithoutFile) {
  expect_user_error(run_run({small_model(), "--input", "x"}), "pet-run: error: --input 'x' is not NAME=FILE.pb");
}

}  // namespace
}  // namespace pet::testing
