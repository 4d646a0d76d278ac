// torch's nn.TransformerEncoder as its legacy exporter writes nn.MultiheadAttention
// (models/export_multihead.py; batch first, sequence first, with a padding mask): on the executor
// against torch's output, then after pet's cleanup and finalize passes each layer's attention one
// site of ONNX Runtime's Attention, fused without changing the output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

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

// float32 through another kernel order than torch's (the three projections as one GEMM).
const Tolerance kTorchTolerance{1e-4, 1e-3};
const char* const kExportCommand = "/usr/bin/python3 models/export_multihead.py --out ";

class MultiheadExport : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const char* root = std::getenv("PET_MULTIHEAD_MODELS_DIR");
    if (!root) GTEST_SKIP() << "PET_MULTIHEAD_MODELS_DIR is not set; ctest sets it to the build's models-multihead folder";
    folder_ = fs::path(root) / GetParam();
    fs::path data = folder_ / "test_data_set_0";
    for (const fs::path& file : {folder_ / "model.onnx", data / "input_0.pb", data / "output_0.pb"})
      if (!fs::exists(file))
        GTEST_SKIP() << file << " is missing: export it with Debian's torch, `" << kExportCommand << root
                     << "` (scripts/test.sh does)";
    inputs_ = {read_tensor_file((data / "input_0.pb").string())};
    if (fs::exists(data / "input_1.pb")) inputs_.push_back(read_tensor_file((data / "input_1.pb").string()));
    torch_output_ = read_tensor_file((data / "output_0.pb").string());
  }

  void expect_matches_torch(const Graph& graph, const std::string& what) {
    std::vector<Tensor> outputs = execute(graph, inputs_);
    ASSERT_EQ(outputs.size(), 1u) << what;
    OutputDifference difference = compare_outputs("y", torch_output_, outputs[0], kTorchTolerance);
    EXPECT_TRUE(difference.passed) << what << ": max abs error " << difference.max_abs_error << ", "
                                   << difference.elements_outside << " elements outside tolerance";
  }

  // The model after pet-opt's cleanup and finalize passes (what the measured pick starts from).
  Graph cleaned() {
    fs::path written = pet::testing::private_temp_dir() / (std::string(GetParam()) + ".cleaned.pet");
    std::ostringstream out, err;
    EXPECT_EQ(pet_opt_main({(folder_ / "model.onnx").string(), "--passes", "cleanup,finalize", "-o", written.string()},
                           out, err),
              0)
        << err.str();
    std::ifstream in(written);
    return parse_graph(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  }

  fs::path folder_;
  std::vector<Tensor> inputs_;
  Tensor torch_output_;
};

TEST_P(MultiheadExport, ExecutorMatchesTorch) {
  expect_matches_torch(import_onnx((folder_ / "model.onnx").string()), std::string(GetParam()) + " on the executor");
}

TEST_P(MultiheadExport, EachLayersAttentionIsOneSiteFusedWithoutChangingTheOutput) {
  Graph graph = cleaned();
  std::vector<AttentionSite> sites = find_attention_sites(graph);
  ASSERT_EQ(sites.size(), 2u) << GetParam() << ": one site per layer";
  bool masked = std::string(GetParam()) == "encoder_padding_mask";
  for (const AttentionSite& site : sites) {
    EXPECT_TRUE(site.sequence_first);
    EXPECT_EQ(site.heads, 4);
    // The padding mask [B*N,1,S] read as [B,N,S,S].
    EXPECT_EQ(site.attention_bias != kNoValue, masked);
    // A batch_first layer's output projection (a Gemm) takes the fused op's rows, no Transposes.
    EXPECT_EQ(site.row_projection >= 0, std::string(GetParam()) != "encoder_sequence_first");
    if (masked) {
      EXPECT_EQ(site.attention_bias_shape, (Shape{2, 4, 6, 6}));
    }
  }
  EXPECT_EQ(fuse_attention(graph, sites), 2);
  graph.validate();
  for (const Node& node : graph.nodes()) EXPECT_NE(node.op(), "Softmax") << "every Softmax inside a fused site";
  expect_matches_torch(graph, std::string(GetParam()) + " after fusing both attentions");
}

INSTANTIATE_TEST_SUITE_P(Layouts, MultiheadExport,
                         ::testing::Values("encoder_batch_first", "encoder_sequence_first", "encoder_padding_mask"));

}  // namespace
}  // namespace pet
