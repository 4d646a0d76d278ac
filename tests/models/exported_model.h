// A model a torch script exported (OUT/<name>/model.onnx with test_data_set_0/input_N.pb and
// output_0.pb: its seeded inputs and torch's output): read, run on pet's executor against torch's
// output, and put through pet-opt's cleanup and finalize passes (what the measured pick starts from).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "tests/test_temp_dir.h"
#include "core/executor.h"
#include "core/onnx_tensor.h"
#include "core/text_ir.h"
#include "tools/commands.h"
#include "verifier/differential.h"

namespace pet::testing {

struct ExportedModel {
  std::filesystem::path folder;
  std::vector<Tensor> inputs;
  Tensor torch_output;
};

// The model `name` under the folder the environment variable `root_variable` names; an empty
// string, or why the test skips and the command that writes the model.
inline std::string read_exported_model(const char* root_variable, const std::string& name,
                                       const std::string& export_command, ExportedModel& model) {
  namespace fs = std::filesystem;
  const char* root = std::getenv(root_variable);
  if (!root) return std::string(root_variable) + " is not set; ctest sets it to the build's folder of these models";
  model.folder = fs::path(root) / name;
  fs::path data = model.folder / "test_data_set_0";
  for (const fs::path& file : {model.folder / "model.onnx", data / "input_0.pb", data / "output_0.pb"})
    if (!fs::exists(file)) return file.string() + " is missing: export it with `" + export_command + root + "` (scripts/test.sh does)";
  for (int index = 0; fs::exists(data / ("input_" + std::to_string(index) + ".pb")); ++index)
    model.inputs.push_back(read_tensor_file((data / ("input_" + std::to_string(index) + ".pb")).string()));
  model.torch_output = read_tensor_file((data / "output_0.pb").string());
  return "";
}

// float32 through another kernel order than torch's (the three projections as one GEMM, say).
inline const Tolerance kTorchTolerance{1e-4, 1e-3};

inline void expect_matches_torch(const ExportedModel& model, const Graph& graph, const std::string& what) {
  std::vector<Tensor> outputs = execute(graph, model.inputs);
  ASSERT_EQ(outputs.size(), 1u) << what;
  OutputDifference difference = compare_outputs("output", model.torch_output, outputs[0], kTorchTolerance);
  EXPECT_TRUE(difference.passed) << what << ": max abs error " << difference.max_abs_error << ", "
                                 << difference.elements_outside << " elements outside tolerance";
}

// The model after pet-opt's cleanup and finalize passes.
inline Graph cleaned_and_finalized(const ExportedModel& model, const std::string& name) {
  std::filesystem::path written = private_temp_dir() / (name + ".cleaned.pet");
  std::ostringstream out, err;
  EXPECT_EQ(pet_opt_main({(model.folder / "model.onnx").string(), "--passes", "cleanup,finalize", "-o", written.string()},
                         out, err),
            0)
      << err.str();
  std::ifstream in(written);
  return parse_graph(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

}  // namespace pet::testing
