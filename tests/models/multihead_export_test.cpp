// torch's nn.TransformerEncoder as its legacy exporter writes nn.MultiheadAttention
// (models/export_multihead.py; batch first, sequence first, with a padding mask): on the executor
// against torch's output, then after pet's cleanup and finalize passes each layer's attention one
// site of ONNX Runtime's Attention, fused without changing the output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/onnx_import.h"
#include "search/passes/fuse_attention.h"
#include "tests/models/exported_model.h"

namespace pet {
namespace {

using pet::testing::cleaned_and_finalized;
using pet::testing::ExportedModel;

class MultiheadExport : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string skip = pet::testing::read_exported_model(
        "PET_MULTIHEAD_MODELS_DIR", GetParam(), "/usr/bin/python3 models/export_multihead.py --out ", model_);
    if (!skip.empty()) GTEST_SKIP() << skip;
  }

  void expect_matches_torch(const Graph& graph, const std::string& what) {
    pet::testing::expect_matches_torch(model_, graph, what);
  }

  ExportedModel model_;
};

TEST_P(MultiheadExport, ExecutorMatchesTorch) {
  expect_matches_torch(import_onnx((model_.folder / "model.onnx").string()), std::string(GetParam()) + " on the executor");
}

TEST_P(MultiheadExport, EachLayersAttentionIsOneSiteFusedWithoutChangingTheOutput) {
  Graph graph = cleaned_and_finalized(model_, GetParam());
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
