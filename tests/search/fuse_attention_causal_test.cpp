// Causal self-attentions and a current torch's packed Q/K/V: before, a written-out attention whose
// keys after each query are masked (a Where of a triangular condition, masked_fill, an additive
// square subsequent mask) or whose Q, K and V are taken apart from one stacked projection (Gather,
// Slice and Squeeze); after, one unidirectional Attention computing the same values. Conditions
// that are not causal, fills that do not mask, and stacks that interleave the parts are no sites.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "search/passes/fuse_attention.h"
#include "tests/search/small_values.h"
#include "verifier/differential.h"

namespace pet {
namespace {

const Tolerance kSame{1e-5, 1e-5};

std::string values(int count, int seed) { return pet::testing::small_values(count, seed); }

// The [3,3] pattern true (1) where `keep(query, key)`, as a bool or float constant's values.
template <typename Keep>
std::string triangle(Keep keep, const std::string& on, const std::string& off) {
  std::string text = "[";
  for (int query = 0; query < 3; ++query)
    for (int key = 0; key < 3; ++key) text += fmt::format("{}{}", query + key ? ", " : "", keep(query, key) ? on : off);
  return text + "]";
}

const auto kOnOrBelow = [](int query, int key) { return key <= query; };
const auto kAbove = [](int query, int key) { return key > query; };

// How a GPT-style attention masks its scores %t [2,2,3,3] into %masked.
struct Mask {
  std::string name;
  std::string text;
};

std::vector<Mask> causal_masks() {
  return {
      {"Where(keep, scores, lowest), a bool buffer [1,1,3,3]",
       "  const %keep : bool[1,1,3,3] = " + triangle(kOnOrBelow, "1", "0") +
           "\n  const %fill : f32[] = [-3.4028235e38]\n  %masked = Where(%keep, %t, %fill)\n"},
      {"masked_fill(-inf) where a float buffer, sliced, equals 0",
       "  const %tril : f32[1,1,4,4] = [1,0,0,0, 1,1,0,0, 1,1,1,0, 1,1,1,1]\n"
       "  %tril3 = Slice[starts=[0,0,0,0],ends=[1,1,3,3],steps=[1,1,1,1]](%tril)\n"
       "  const %zero : f32[] = [0]\n  %above = Equal(%tril3, %zero)\n"
       "  const %fill : f32[] = [-inf]\n  %masked = Where(%above, %fill, %t)\n"},
      {"masked_fill(-1e9) where a [3,3] bool is true", "  const %above : bool[3,3] = " + triangle(kAbove, "1", "0") +
                                                           "\n  const %fill : f32[] = [-1e9]\n  %masked = Where(%above, %fill, %t)\n"},
      {"an additive square subsequent mask of -inf", "  const %causal : f32[3,3] = " + triangle(kAbove, "-inf", "0") +
                                                          "\n  %masked = Add(%t, %causal)\n"},
      {"an additive [1,1,3,3] mask of the lowest float", "  const %causal : f32[1,1,3,3] = " +
                                                              triangle(kAbove, "-3.4028235e38", "0") +
                                                              "\n  %masked = Add(%causal, %t)\n"},
  };
}

// A GPT-style attention (B=2, S=3, H=4, two heads of 2): one packed projection Split into Q, K and
// V, the heads [B,N,S,d], the scores scaled, `mask` into %masked, and `after_mask` (a padding mask
// input %pad added) before the Softmax.
std::string gpt_program(const std::string& mask, bool padding = false) {
  std::string text = "graph \"gpt\" opset 13 {\n  input %x : f32[2,3,4]\n";
  if (padding) text += "  input %pad : f32[2,1,1,3]\n";
  text += fmt::format("  const %w : f32[4,12] = {}\n  const %b : f32[12] = {}\n", values(48, 3), values(12, 4));
  text += "  const %root : f32[] = [1.4142135]\n  const %wo : f32[4,4] = " + values(16, 5) + "\n";
  text += R"(  %p = MatMul(%x, %w)
  %a = Add(%p, %b)
  %sq, %sk, %sv = Split[axis=2, split=[4,4,4]](%a) : f32[2,3,4], f32[2,3,4], f32[2,3,4]
  %rq = Reshape[shape=[2,3,2,2]](%sq)
  %q = Transpose[perm=[0,2,1,3]](%rq)
  %rk = Reshape[shape=[2,3,2,2]](%sk)
  %k = Transpose[perm=[0,2,3,1]](%rk)
  %rv = Reshape[shape=[2,3,2,2]](%sv)
  %v = Transpose[perm=[0,2,1,3]](%rv)
  %s = MatMul(%q, %k)
  %t = Div(%s, %root)
)";
  text += mask;
  text += padding ? "  %padded = Add(%masked, %pad)\n  %sm = Softmax[axis=-1](%padded)\n" : "  %sm = Softmax[axis=-1](%masked)\n";
  text += R"(  %c = MatMul(%sm, %v)
  %ct = Transpose[perm=[0,2,1,3]](%c)
  %y = Reshape[shape=[2,3,4]](%ct)
  %z = MatMul(%y, %wo)
  output %z
}
)";
  return text;
}

const Node* attention_node(const Graph& graph) {
  for (const Node& node : graph.nodes())
    if (node.op() == "Attention") return &node;
  return nullptr;
}

// `before` fused: one Attention; the same values, also read back from ONNX Runtime's form and from
// the standard ops every other runtime reads.
Graph expect_fuses_to_the_same_values(const Graph& before, const std::string& form, int seed) {
  Graph graph = before;
  EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1) << form;
  graph.validate();
  DifferentialReport report = differential(before, graph, seed, kSame);
  EXPECT_TRUE(report.passed) << form << ": seed " << seed << ", max abs error " << report.max_abs_error();
  for (bool onnx_runtime_ops : {true, false}) {
    Graph back = import_onnx_bytes(serialize_onnx(graph, {.onnx_runtime_ops = onnx_runtime_ops}), "causal.onnx");
    report = differential(before, back, seed + 1, kSame);
    EXPECT_TRUE(report.passed) << form << (onnx_runtime_ops ? ", ONNX Runtime's form" : ", standard ops") << ": seed "
                               << seed + 1 << ", max abs error " << report.max_abs_error();
  }
  return graph;
}

TEST(FuseAttentionCausal, EachWayOfWritingACausalMaskBecomesAUnidirectionalAttention) {
  for (const Mask& mask : causal_masks()) {
    Graph before = parse_graph(gpt_program(mask.text));
    std::vector<AttentionSite> sites = find_attention_sites(before);
    ASSERT_EQ(sites.size(), 1u) << mask.name;
    EXPECT_TRUE(sites[0].causal) << mask.name;
    EXPECT_EQ(sites[0].attention_bias, kNoValue) << mask.name << ": the mask is the op's own, no bias input";
    Graph graph = expect_fuses_to_the_same_values(before, mask.name, 71);
    const Node* fused = attention_node(graph);
    ASSERT_NE(fused, nullptr) << mask.name;
    EXPECT_EQ(fused->attrs.get_int("unidirectional"), 1) << mask.name;
    double filter = fused->attrs.get_float("mask_filter_value");
    EXPECT_TRUE(filter == -1e9 || filter == std::numeric_limits<float>::lowest()) << mask.name << ": " << filter;
    EXPECT_EQ(graph.nodes().size(), 2u) << mask.name << ": Attention and the output projection, nothing of the mask";
  }
}

TEST(FuseAttentionCausal, ACausalMaskAndAPaddingMaskAfterItAreTheOpsMaskAndItsAttentionBias) {
  Graph before = parse_graph(gpt_program(causal_masks()[0].text, true));
  std::vector<AttentionSite> sites = find_attention_sites(before);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_TRUE(sites[0].causal);
  EXPECT_EQ(before.value(sites[0].attention_bias).name, "pad");
  Graph graph = expect_fuses_to_the_same_values(before, "causal Where, then the padding mask", 73);
  ASSERT_NE(attention_node(graph), nullptr);
  EXPECT_EQ(attention_node(graph)->attrs.get_int("unidirectional"), 1);
}

TEST(FuseAttentionCausal, AConditionOrFillThatDoesNotMaskEveryLaterKeyIsNoSite) {
  std::string fill = "\n  const %fill : f32[] = [-3.4028235e38]\n  %masked = Where(%keep, %t, %fill)\n";
  auto not_quite = [](int query, int key) { return key <= query && !(query == 2 && key == 0); };
  EXPECT_TRUE(find_attention_sites(parse_graph(gpt_program("  const %keep : bool[1,1,3,3] = " +
                                                           triangle(not_quite, "1", "0") + fill)))
                  .empty())
      << "a key before its query masked too";
  EXPECT_TRUE(find_attention_sites(parse_graph(gpt_program("  const %keep : bool[1,1,3,3] = " +
                                                           triangle(kAbove, "1", "0") + fill)))
                  .empty())
      << "the condition kept the wrong way round";
  EXPECT_TRUE(find_attention_sites(parse_graph(gpt_program("  const %keep : bool[1,1,3,3] = " +
                                                           triangle(kOnOrBelow, "1", "0") +
                                                           "\n  const %fill : f32[] = [-1]\n  %masked = Where(%keep, %t, %fill)\n")))
                  .empty())
      << "a fill of -1 leaves the later keys a weight";
}

// An additive constant that is not the causal pattern stays an attention bias the op adds.
TEST(FuseAttentionCausal, AnAdditiveConstantThatIsNotCausalStaysTheAttentionBias) {
  auto almost = [](int query, int key) { return key > query || (query == 1 && key == 0); };
  Graph before = parse_graph(gpt_program("  const %causal : f32[3,3] = " + triangle(almost, "-1e9", "0") +
                                         "\n  %masked = Add(%t, %causal)\n"));
  std::vector<AttentionSite> sites = find_attention_sites(before);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_FALSE(sites[0].causal);
  EXPECT_NE(sites[0].attention_bias, kNoValue);
  Graph graph = expect_fuses_to_the_same_values(before, "a constant bias", 79);
  ASSERT_NE(attention_node(graph), nullptr);
  EXPECT_EQ(attention_node(graph)->attrs.get_int("unidirectional"), 0);
}

// The packed projection on the tokens' rows (Reshape, Gemm, Reshape back), its weight [3H,Hin]
// read transposed (transB, as torch's Linear on rows) or as it is (HF's Conv1D), with and without a
// bias: each the same values fused.
TEST(FuseAttentionCausal, AProjectionOnTheTokensRowsIsTheSitesProjection) {
  const std::string packed = "  %p = MatMul(%x, %w)\n  %a = Add(%p, %b)\n";
  for (bool transposed : {false, true})
    for (bool biased : {false, true}) {
      std::string text = gpt_program(causal_masks()[0].text);
      std::string rows = fmt::format(R"(  const %wr : f32[{}] = {}
  %flat = Reshape[shape=[6,4]](%x)
  %g = Gemm[transB={}](%flat, %wr{})
  %a = Reshape[shape=[2,3,12]](%g)
)", transposed ? "12,4" : "4,12", values(48, 9), transposed ? 1 : 0, biased ? ", %b" : "");
      text.replace(text.find(packed), packed.size(), rows);
      std::string form = fmt::format("Gemm on rows, transB {}, bias {}", transposed, biased);
      Graph before = parse_graph(text);
      ASSERT_EQ(find_attention_sites(before).size(), 1u) << form;
      Graph graph = expect_fuses_to_the_same_values(before, form, 103);
      EXPECT_EQ(graph.nodes().size(), 2u) << form << ": Attention and the output projection";
    }
}

// `text` with torch's NaN guard between the probabilities and the context: Where(IsNaN(p), 0, p).
std::string nan_guarded(std::string text) {
  const std::string context = "  %c = MatMul(%sm, %v)\n";
  size_t at = text.find(context);
  EXPECT_NE(at, std::string::npos);
  text.replace(at, context.size(), R"(  const %zero : f32[] = [0]
  %nan = IsNaN(%sm)
  %guarded = Where(%nan, %zero, %sm)
  %c = MatMul(%guarded, %v)
)");
  return text;
}

// The guard passes every value where no row has its every key masked by -inf: under a causal mask
// (each query keeps its own key) it joins the site, and under one plus a padding mask made of finite
// values (HF's: 0 or the float's lowest, chosen by the inputs' attention_mask); under a padding mask
// given as an input, which may mask a whole row by -inf, the attention stays written out.
TEST(FuseAttentionCausal, TorchsNanGuardJoinsACausalSiteButNotOneWhoseInputMaskMayMaskAWholeRow) {
  Graph before = parse_graph(nan_guarded(gpt_program(causal_masks()[3].text)));
  std::vector<AttentionSite> sites = find_attention_sites(before);
  ASSERT_EQ(sites.size(), 1u);
  Graph graph = expect_fuses_to_the_same_values(before, "causal, NaN-guarded", 97);
  EXPECT_EQ(graph.nodes().size(), 2u) << "Attention and the output projection: the guard inside the site";
  ASSERT_EQ(find_attention_sites(parse_graph(gpt_program(causal_masks()[0].text, true))).size(), 1u) << "unguarded";
  EXPECT_TRUE(find_attention_sites(parse_graph(nan_guarded(gpt_program(causal_masks()[0].text, true)))).empty())
      << "a padding mask from the inputs";
  std::string chosen = nan_guarded(gpt_program(causal_masks()[0].text, true));
  const std::string input = "  input %pad : f32[2,1,1,3]\n";
  chosen.replace(chosen.find(input), input.size(), R"(  input %kept : bool[2,1,1,3]
  const %nothing : f32[] = [0]
  const %lowest : f32[] = [-3.4028235e38]
  %pad = Where(%kept, %nothing, %lowest)
)");
  Graph padded = parse_graph(chosen);
  std::vector<AttentionSite> padded_sites = find_attention_sites(padded);
  ASSERT_EQ(padded_sites.size(), 1u) << "a padding mask of finite values chosen by the inputs";
  EXPECT_EQ(padded.value(padded_sites[0].attention_bias).name, "pad");
  expect_fuses_to_the_same_values(padded, "causal, a finite padding mask, NaN-guarded", 101);
}

// A current torch's nn.MultiheadAttention (batch_first, S=3, B=2, E=4, two heads of 2): x [B,S,E]
// transposed to [S,B,E], one packed projection reshaped to [S,B,3,E], stacked as [3,S,B,E]
// (Unsqueeze, Transpose, Squeeze) and taken apart by Gather, the heads [B,N,S,d], Q and K each
// scaled by the root of 1/sqrt(d), the square subsequent mask added (is_causal), the context back
// to rows [S*B,E] for the output projection's Gemm. `interleaved`: the stack read as [S,B,E,3], so
// each part takes every third column. `scale_on_pieces`: Q and K scaled right after their Gathers,
// where sink-layouts moves the scale.
std::string current_torch_program(bool interleaved = false, bool scale_on_pieces = false) {
  std::string text = "graph \"mha\" opset 18 {\n  input %x : f32[2,3,4]\n";
  text += fmt::format("  const %w : f32[4,12] = {}\n  const %b : f32[12] = {}\n", values(48, 3), values(12, 4));
  text += "  const %root : f32[] = [0.8408964]\n  const %wo : f32[4,4] = " + values(16, 5) + "\n";
  text += "  const %bo : f32[4] = " + values(4, 6) + "\n";
  text += "  const %causal : f32[3,3] = " + triangle(kAbove, "-3.4028235e38", "0") + "\n";
  text += "  const %i0 : i64[] = [0]\n  const %i1 : i64[] = [1]\n  const %i2 : i64[] = [2]\n";
  text += R"(  %t = Transpose[perm=[1,0,2]](%x)
  %p = MatMul(%t, %w)
  %a = Add(%p, %b)
)";
  text += interleaved ? R"(  %v4 = Reshape[shape=[3,2,4,3]](%a)
  %stacked = Transpose[perm=[3,0,1,2]](%v4)
)"
                      : R"(  %v4 = Reshape[shape=[3,2,3,4]](%a)
  %u = Unsqueeze[axes=[0]](%v4)
  %ut = Transpose[perm=[3,1,2,0,4]](%u)
  %stacked = Squeeze[axes=[3]](%ut)
)";
  text += scale_on_pieces ? R"(  %gq = Gather[axis=0](%stacked, %i0)
  %gk = Gather[axis=0](%stacked, %i1)
  %sq = Mul(%gq, %root)
  %sk = Mul(%root, %gk)
)"
                         : R"(  %sq = Gather[axis=0](%stacked, %i0)
  %sk = Gather[axis=0](%stacked, %i1)
)";
  text += R"(  %sv = Gather[axis=0](%stacked, %i2)
  %rq = Reshape[shape=[3,4,2]](%sq)
  %tq = Transpose[perm=[1,0,2]](%rq)
  %q = Reshape[shape=[2,2,3,2]](%tq)
  %rk = Reshape[shape=[3,4,2]](%sk)
  %tk = Transpose[perm=[1,0,2]](%rk)
  %tkt = Transpose[perm=[0,2,1]](%tk)
  %k = Reshape[shape=[2,2,2,3]](%tkt)
  %rv = Reshape[shape=[3,4,2]](%sv)
  %tv = Transpose[perm=[1,0,2]](%rv)
  %v = Reshape[shape=[2,2,3,2]](%tv)
)";
  text += scale_on_pieces ? "  %s = MatMul(%q, %k)\n" : "  %qs = Mul(%q, %root)\n  %ks = Mul(%k, %root)\n  %s = MatMul(%qs, %ks)\n";
  text += R"(  %masked = Add(%s, %causal)
  %sm = Softmax[axis=-1](%masked)
  %c = MatMul(%sm, %v)
  %ct = Transpose[perm=[2,0,1,3]](%c)
  %rows = Reshape[shape=[6,4]](%ct)
  %proj = Gemm[transB=1](%rows, %wo, %bo)
  %zr = Reshape[shape=[3,2,4]](%proj)
  %out = Transpose[perm=[1,0,2]](%zr)
  output %out
}
)";
  return text;
}

TEST(FuseAttentionCausal, ACurrentTorchsMultiheadAttentionTakenApartByGatherBecomesOneAttentionNode) {
  for (bool scale_on_pieces : {false, true}) {
    std::string form = scale_on_pieces ? "Gather-split, Q and K scaled after their Gathers" : "Gather-split";
    Graph before = parse_graph(current_torch_program(false, scale_on_pieces));
    std::vector<AttentionSite> sites = find_attention_sites(before);
    ASSERT_EQ(sites.size(), 1u) << form;
    EXPECT_TRUE(sites[0].sequence_first) << form;
    EXPECT_TRUE(sites[0].causal) << form;
    EXPECT_GE(sites[0].row_projection, 0) << form << ": the batch_first layer's Gemm takes the fused op's rows";
    Graph graph = expect_fuses_to_the_same_values(before, form, 83);
    std::vector<std::string> ops;
    for (const Node& node : graph.nodes()) ops.push_back(node.op());
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Gather") + std::count(ops.begin(), ops.end(), "Transpose"), 0)
        << form << ": x read as it is, no Transposes left";
    ASSERT_NE(attention_node(graph), nullptr) << form;
    EXPECT_NEAR(attention_node(graph)->attrs.get_float("scale"), 0.8408964 * 0.8408964, 1e-6) << form;
  }
}

TEST(FuseAttentionCausal, AStackThatInterleavesQKAndVIsNoSite) {
  EXPECT_TRUE(find_attention_sites(parse_graph(current_torch_program(true))).empty());
}

// torch's packed projection reshaped to [B,S,3,N,d], permuted to [3,B,N,S,d] and each part a Slice
// of it Squeezed (as a current torch exports scaled_dot_product_attention on a view of one Linear),
// causal.
TEST(FuseAttentionCausal, PartsSlicedAndSqueezedFromAStackOfHeadsBecomeOneAttentionNode) {
  std::string text = "graph \"sdpa\" opset 18 {\n  input %x : f32[2,3,4]\n";
  text += fmt::format("  const %w : f32[4,12] = {}\n  const %b : f32[12] = {}\n", values(48, 3), values(12, 4));
  text += "  const %root : f32[] = [0.8408964]\n  const %wo : f32[4,4] = " + values(16, 5) + "\n";
  text += "  const %causal : f32[3,3] = " + triangle(kAbove, "-3.4028235e38", "0") + "\n";
  text += R"(  %p = MatMul(%x, %w)
  %a = Add(%p, %b)
  %r = Reshape[shape=[2,3,3,2,2]](%a)
  %stacked = Transpose[perm=[2,0,3,1,4]](%r)
  %pq = Slice[starts=[0,0,0,0,0],ends=[1,2,2,3,2],steps=[1,1,1,1,1]](%stacked)
  %pk = Slice[starts=[1,0,0,0,0],ends=[2,2,2,3,2],steps=[1,1,1,1,1]](%stacked)
  %pv = Slice[starts=[2,0,0,0,0],ends=[3,2,2,3,2],steps=[1,1,1,1,1]](%stacked)
  %q = Squeeze[axes=[0]](%pq)
  %k4 = Squeeze[axes=[0]](%pk)
  %v = Squeeze[axes=[0]](%pv)
  %k = Transpose[perm=[0,1,3,2]](%k4)
  %qs = Mul(%q, %root)
  %ks = Mul(%k, %root)
  %s = MatMul(%qs, %ks)
  %masked = Add(%s, %causal)
  %sm = Softmax[axis=-1](%masked)
  %c = MatMul(%sm, %v)
  %ct = Transpose[perm=[0,2,1,3]](%c)
  %y = Reshape[shape=[2,3,4]](%ct)
  %z = MatMul(%y, %wo)
  output %z
}
)";
  Graph before = parse_graph(text);
  std::vector<AttentionSite> sites = find_attention_sites(before);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_TRUE(sites[0].causal);
  Graph graph = expect_fuses_to_the_same_values(before, "Slice and Squeeze", 89);
  EXPECT_EQ(graph.nodes().size(), 2u) << "Attention and the output projection";
}

}  // namespace
}  // namespace pet
