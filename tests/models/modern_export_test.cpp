// A model written by a current PyTorch's default ONNX exporter (models/export_modern.py) on the
// executor against torch's output, then through pet-opt --target h100 and run again, and its
// self-attention fused into ONNX Runtime's Attention.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/test_temp_dir.h"
#include "core/executor.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"
#include "core/text_ir.h"
#include "search/passes/fuse_attention.h"
#include "tools/commands.h"
#include "verifier/differential.h"

namespace pet {
namespace {

namespace fs = std::filesystem;

// float32 through a different kernel order than torch's (BN folded or not, attention matmuls).
const Tolerance kTorchTolerance{1e-4, 1e-3};
const char* const kModelFolder = "modern_cnn_b1";
const char* const kExportCommand = "python3 models/export_modern.py --out ";

struct ExportedModel {
  fs::path model;
  Tensor input;
  Tensor torch_output;
};

class ModernExport : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* root = std::getenv("PET_MODERN_MODELS_DIR");
    if (!root) GTEST_SKIP() << "PET_MODERN_MODELS_DIR is not set; ctest sets it to the build's models-modern folder";
    fs::path folder = fs::path(root) / kModelFolder;
    fs::path data = folder / "test_data_set_0";
    for (const fs::path& file : {folder / "model.onnx", data / "input_0.pb", data / "output_0.pb"})
      if (!fs::exists(file))
        GTEST_SKIP() << file << " is missing: export it with a current torch and onnxscript installed for python3 ("
                     << "`python3 -m pip install torch onnxscript`), then `" << kExportCommand << root
                     << "` (scripts/test.sh does this when they are installed)";
    model_ = {folder / "model.onnx", read_tensor_file((data / "input_0.pb").string()),
              read_tensor_file((data / "output_0.pb").string())};
  }

  void expect_matches_torch(const Graph& graph, const char* what) {
    std::vector<Tensor> outputs = execute(graph, {model_.input});
    ASSERT_EQ(outputs.size(), 1u) << what;
    OutputDifference difference = compare_outputs("output", model_.torch_output, outputs[0], kTorchTolerance);
    EXPECT_TRUE(difference.passed) << what << ": max abs error " << difference.max_abs_error << ", "
                                   << difference.elements_outside << " elements outside tolerance";
  }

  ExportedModel model_;
};

TEST_F(ModernExport, ExecutorMatchesTorch) {
  Graph graph = import_onnx(model_.model.string());
  expect_matches_torch(graph, "executor on the exported model");
}

TEST_F(ModernExport, PetOptForH100KeepsTorchsOutput) {
  fs::path optimized = pet::testing::private_temp_dir() / "modern_cnn.h100.onnx";
  std::ostringstream out, err;
  // h100 is an estimated target: nothing is timed, so the run only depends on the seed.
  ASSERT_EQ(pet_opt_main({model_.model.string(), "-o", optimized.string(), "--target", "h100", "--time-limit", "20"},
                         out, err),
            0)
      << err.str();
  Graph graph = import_onnx(optimized.string());
  expect_matches_torch(graph, "executor after pet-opt --target h100");
}

// torch's packed projection, its chunk into Q, K and V and its decomposed
// scaled_dot_product_attention (the scale on Q and K, moved above their layout chains by
// sink-layouts): after pet's cleanup and finalize passes one attention site, fused without changing
// the output.
TEST_F(ModernExport, ItsSelfAttentionIsOneSiteOfOnnxRuntimesAttention) {
  fs::path cleaned = pet::testing::private_temp_dir() / "modern_cnn.cleaned.pet";
  std::ostringstream out, err;
  ASSERT_EQ(pet_opt_main({model_.model.string(), "--passes", "cleanup,finalize", "-o", cleaned.string()}, out, err), 0)
      << err.str();
  std::ifstream in(cleaned);
  Graph graph = parse_graph(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1);
  graph.validate();
  expect_matches_torch(graph, "executor after fusing the attention");
}

}  // namespace
}  // namespace pet
