// Causal transformers as torch's legacy exporter writes them (models/export_decoder.py: a GPT
// masking with masked_fill, one masking with Where and projecting with addmm, torch's
// TransformerEncoder given a square subsequent mask), and HF transformers' GPT-2 as a current
// torch exports it, without and with an attention_mask (where one is installed): on the executor
// against torch's output, then
// after pet's cleanup and finalize passes each layer's attention one causal site of ONNX Runtime's
// Attention, fused without changing the output.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/onnx_import.h"
#include "search/passes/fuse_attention.h"
#include "tests/models/exported_model.h"

namespace pet {
namespace {

using pet::testing::ExportedModel;

class DecoderExport : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string command = std::string(GetParam()).starts_with("hf_gpt2")
                              ? "python3 models/export_decoder.py --models hf_gpt2,hf_gpt2_padding (a current torch and "
                                "transformers) --out "
                              : "/usr/bin/python3 models/export_decoder.py --out ";
    std::string skip = pet::testing::read_exported_model("PET_DECODER_MODELS_DIR", GetParam(), command, model_);
    if (!skip.empty()) GTEST_SKIP() << skip;
  }

  ExportedModel model_;
};

TEST_P(DecoderExport, ExecutorMatchesTorch) {
  pet::testing::expect_matches_torch(model_, import_onnx((model_.folder / "model.onnx").string()),
                                     std::string(GetParam()) + " on the executor");
}

TEST_P(DecoderExport, EachLayersAttentionIsOneCausalSiteFusedWithoutChangingTheOutput) {
  Graph graph = pet::testing::cleaned_and_finalized(model_, GetParam());
  std::vector<AttentionSite> sites = find_attention_sites(graph);
  ASSERT_EQ(sites.size(), 2u) << GetParam() << ": one site per layer";
  bool encoder = std::string(GetParam()) == "encoder_causal";
  // HF's attention_mask and its causal mask made into one additive mask from the inputs: the op's
  // attention bias (finite values, so scaled_dot_product_attention's NaN guard joins the site).
  bool padded = std::string(GetParam()) == "hf_gpt2_padding";
  for (const AttentionSite& site : sites) {
    EXPECT_EQ(site.causal, !padded) << GetParam();
    EXPECT_EQ(site.attention_bias != kNoValue, padded) << GetParam() << ": the mask is the op's own, or its bias";
    EXPECT_EQ(site.heads, 4);
    EXPECT_EQ(site.sequence_first, encoder) << GetParam();
  }
  EXPECT_EQ(fuse_attention(graph, sites), 2);
  graph.validate();
  for (const Node& node : graph.nodes()) {
    EXPECT_NE(node.op(), "Softmax") << "every Softmax inside a fused site";
    if (node.op() == "Attention") {
      EXPECT_EQ(node.attrs.get_int("unidirectional"), padded ? 0 : 1);
    }
  }
  pet::testing::expect_matches_torch(model_, graph, std::string(GetParam()) + " after fusing both attentions");
}

INSTANTIATE_TEST_SUITE_P(Forms, DecoderExport,
                         ::testing::Values("gpt_masked_fill", "gpt_where", "encoder_causal", "hf_gpt2", "hf_gpt2_padding"));

}  // namespace
}  // namespace pet
