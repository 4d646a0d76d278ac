// The evaluation models (exported by models/export_models.py) on the executor against torch,
// and through a pet-opt round trip.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/test_temp_dir.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/structural_hash.h"
#include "core/onnx_tensor.h"
#include "tools/commands.h"
#include "verifier/differential.h"

namespace pet {
namespace {

namespace fs = std::filesystem;

const Tolerance kTorchTolerance{1e-4, 1e-3};

std::vector<std::string> model_names() {
  return {"resnet18",         "resnet50",  "inception_v3_299", "inception_v3_330", "csrnet",
          "csrnet_backend",   "bert_s128", "bert_s512",        "r3d_18"};
}

struct ModelCase {
  fs::path folder;
  std::vector<Tensor> inputs;
  std::vector<Tensor> expected;
};

ModelCase load_case(const std::string& name) {
  const char* root = std::getenv("PET_MODELS_DIR");
  ModelCase result{fs::path(root) / (name + "_b1"), {}, {}};
  for (const char* kind : {"input", "output"})
    for (int i = 0;; ++i) {
      fs::path file = result.folder / "test_data_set_0" / (std::string(kind) + "_" + std::to_string(i) + ".pb");
      if (!fs::exists(file)) break;
      (std::string(kind) == "input" ? result.inputs : result.expected).push_back(read_tensor_file(file.string()));
    }
  return result;
}

void expect_matches_torch(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual, const char* what) {
  ASSERT_EQ(expected.size(), actual.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    OutputDifference difference = compare_outputs("output", expected[i], actual[i], kTorchTolerance);
    EXPECT_TRUE(difference.passed) << what << ": output " << i << " max abs error " << difference.max_abs_error
                                   << ", " << difference.elements_outside << " elements outside tolerance";
  }
}

class Model : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!std::getenv("PET_MODELS_DIR"))
      GTEST_SKIP() << "PET_MODELS_DIR is not set; ctest sets it after exporting the models (models.export)";
  }
};

TEST_P(Model, ExecutorMatchesTorch) {
  ModelCase model = load_case(GetParam());
  ASSERT_TRUE(fs::exists(model.folder / "model.onnx")) << model.folder << " is missing: run models/export_models.py";
  Graph graph = import_onnx((model.folder / "model.onnx").string());
  expect_matches_torch(model.expected, execute(graph, model.inputs), "executor");
}

TEST_P(Model, SurvivesPetOptRoundTrip) {
  ModelCase model = load_case(GetParam());
  ASSERT_TRUE(fs::exists(model.folder / "model.onnx")) << model.folder << " is missing: run models/export_models.py";
  fs::path out_dir = pet::testing::private_temp_dir() / "pet-model-tests";
  fs::create_directories(out_dir);
  std::string optimized = (out_dir / (GetParam() + ".opt.onnx")).string();
  std::ostringstream out, err;
  // The full pet search with smaller budgets than the defaults (a fifth of the generator's work,
  // which the time limit does not bound): the point here is that whatever it applies keeps
  // torch's values.
  ASSERT_EQ(pet_opt_main({(model.folder / "model.onnx").string(), "-o", optimized, "--time-limit", "20", "--mutant-work",
                          "500000000", "--target", "h100"},
                         out, err),
            0)
      << err.str();
  Graph graph = import_onnx(optimized);
  expect_matches_torch(model.expected, execute(graph, model.inputs), "after pet-opt");
}

TEST_P(Model, ExportThenImportKeepsHashAndWeights) {
  ModelCase model = load_case(GetParam());
  ASSERT_TRUE(fs::exists(model.folder / "model.onnx")) << model.folder << " is missing: run models/export_models.py";
  Graph graph = import_onnx((model.folder / "model.onnx").string());
  fs::path out_dir = pet::testing::private_temp_dir() / "pet-model-tests";
  fs::create_directories(out_dir);
  std::string exported = (out_dir / (GetParam() + ".reexported.onnx")).string();
  export_onnx(graph, exported);
  Graph back = import_onnx(exported);
  EXPECT_EQ(structural_hash(back), structural_hash(graph));
  size_t weights = 0;
  for (const Value& value : graph.values()) {
    if (!value.constant) continue;
    auto found = back.find_value(value.name);
    ASSERT_TRUE(found.has_value()) << "weight '" << value.name << "' lost in the round trip";
    EXPECT_TRUE(back.value(*found).constant->same_content(*value.constant)) << value.name;
    ++weights;
  }
  EXPECT_GT(weights, 0u);
}

INSTANTIATE_TEST_SUITE_P(Batch1, Model, ::testing::ValuesIn(model_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

}  // namespace
}  // namespace pet
