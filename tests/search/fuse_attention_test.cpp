// ONNX Runtime's fused Attention: before, an exporter's written-out self-attention; after, one
// Attention node computing the same values; chains that move an element elsewhere, and values read
// outside the site, are no sites; the measured choice fuses only where the profile DB prices it cheaper.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/onnx_import.h"
#include "core/text_ir.h"
#include "search/cost/cost_model.h"
#include "search/cost/kernel_groups.h"
#include "search/passes/finalize.h"
#include "search/passes/fuse_attention.h"
#include "tests/search/small_values.h"
#include "verifier/differential.h"

namespace pet {
namespace {

std::string values(int count, int seed) { return pet::testing::small_values(count, seed); }

struct Variant {
  std::string key_reshape;                    // [B,S,N,d] K goes through; empty: Q's, heads side by side
  std::string key_perm = "[0,2,3,1]";         // K to [B,N,d,S]
  std::string extra_output;                   // a value also listed as a graph output
  std::string mask;                           // the type of a mask input added to the scaled scores
};

// Softmax of `scores` over the keys, the context by V, the heads put back side by side, and an
// output projection to %<prefix>z: the end every attention here shares.
std::string softmax_to_projection(const std::string& scores, const std::string& prefix = "") {
  return fmt::format(R"(  %{0}p = Softmax[axis=-1]({1})
  %{0}c = MatMul(%{0}p, %{0}v)
  %{0}ct = Transpose[perm=[0,2,1,3]](%{0}c)
  %{0}y = Reshape[shape=[2,3,4]](%{0}ct)
  %{0}z = MatMul(%{0}y, %{0}wo)
)", prefix, scores);
}

std::string softmax_to_output(const std::string& scores) { return softmax_to_projection(scores) + "  output %z\n"; }

// One self-attention of %<input> [2,3,4] in `heads` heads, its values named %<prefix>...; the
// exporter's order of bias and projection in K's Add. Ends in %<prefix>z.
std::string attention_layer(const Variant& variant, const std::string& prefix = "", const std::string& input = "%x",
                            int heads = 2) {
  std::string text, split = fmt::format("[2,3,{},{}]", heads, 4 / heads);
  for (const char* part : {"q", "k", "v"}) {
    int seed = part[0] + (prefix.empty() ? 0 : prefix[0]);  // each layer its own weights
    text += fmt::format("  const %{0}w{1} : f32[4,4] = {2}\n  const %{0}b{1} : f32[4] = {3}\n", prefix, part,
                        values(16, seed), values(4, seed + 1));
  }
  text += fmt::format("  const %{0}root : f32[] = [1.4142135]\n  const %{0}wo : f32[4,4] = {1}\n", prefix, values(16, 5));
  text += fmt::format(R"(  %{0}pq = MatMul({1}, %{0}wq)
  %{0}aq = Add(%{0}pq, %{0}bq)
  %{0}rq = Reshape[shape={2}](%{0}aq)
  %{0}q = Transpose[perm=[0,2,1,3]](%{0}rq)
  %{0}pk = MatMul({1}, %{0}wk)
  %{0}ak = Add(%{0}bk, %{0}pk)
  %{0}rk = Reshape[shape={3}](%{0}ak)
  %{0}k = Transpose[perm={4}](%{0}rk)
  %{0}pv = MatMul({1}, %{0}wv)
  %{0}av = Add(%{0}pv, %{0}bv)
  %{0}rv = Reshape[shape={2}](%{0}av)
  %{0}v = Transpose[perm=[0,2,1,3]](%{0}rv)
  %{0}s = MatMul(%{0}q, %{0}k)
  %{0}t = Div(%{0}s, %{0}root)
)", prefix, input, split, variant.key_reshape.empty() ? split : variant.key_reshape, variant.key_perm);
  if (variant.mask.empty()) return text + softmax_to_projection("%" + prefix + "t", prefix);
  return text + fmt::format("  %{0}tm = Add(%m, %{0}t)\n", prefix) + softmax_to_projection("%" + prefix + "tm", prefix);
}

// B=2, S=3, H=4, two heads of 2.
std::string attention_program(const Variant& variant = {}) {
  std::string text = "graph \"attention\" opset 13 {\n  input %x : f32[2,3,4]\n";
  if (!variant.mask.empty()) text += "  input %m : " + variant.mask + "\n";
  text += attention_layer(variant) + "  output %z\n";
  if (!variant.extra_output.empty()) text += "  output %" + variant.extra_output + "\n";
  return text + "}\n";
}

std::vector<std::string> ops_of(const Graph& graph) {
  std::vector<std::string> ops;
  for (const Node& node : graph.nodes()) ops.push_back(node.op());
  return ops;
}

TEST(FuseAttention, TheExportersSelfAttentionBecomesOneAttentionNode) {
  Graph before = parse_graph(attention_program());
  Graph graph = before;
  EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1);
  graph.validate();
  EXPECT_EQ(ops_of(graph), (std::vector<std::string>{"Attention", "MatMul"}));
  const Node& fused = graph.node(0);
  EXPECT_EQ(fused.attrs.get_int("num_heads"), 2);
  EXPECT_NEAR(fused.attrs.get_float("scale"), 1.0 / 1.4142135, 1e-7);
  EXPECT_EQ(graph.value(fused.outputs[0]).name, "y") << "the fused op takes over the site's output name";
  EXPECT_EQ(graph.value(fused.inputs[1]).type.shape, (Shape{4, 12}));
  DifferentialReport report = differential(before, graph, 23, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "seed 23, max abs error " << report.max_abs_error();
}

TEST(FuseAttention, TheFusedNodeWritesForOnnxRuntimeAsItselfAndElseAsStandardOps) {
  Graph graph = parse_graph(attention_program());
  fuse_attention(graph, find_attention_sites(graph));
  std::string contrib = serialize_onnx(graph, {.onnx_runtime_ops = true});
  std::string standard = serialize_onnx(graph);
  EXPECT_NE(contrib.find("com.microsoft"), std::string::npos);
  EXPECT_EQ(standard.find("com.microsoft"), std::string::npos);
  // Both read back (the contrib op as pet's Attention) and compute the program's values.
  Graph original = parse_graph(attention_program());
  for (const std::string* bytes : {&contrib, &standard}) {
    Graph back = import_onnx_bytes(*bytes, "attention.onnx");
    DifferentialReport report = differential(original, back, 7, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(report.passed) << "seed 7, max abs error " << report.max_abs_error();
  }
}

Variant masked(const std::string& mask) {
  return {.key_reshape = "[2,3,2,2]", .key_perm = "[0,2,3,1]", .extra_output = "", .mask = mask};
}

// Fuses the masked program and returns the fused graph's ops; the values must not change.
std::vector<std::string> fused_masked_ops(const std::string& mask) {
  Graph before = parse_graph(attention_program(masked(mask)));
  Graph graph = before;
  EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1) << mask;
  graph.validate();
  DifferentialReport report = differential(before, graph, 29, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << mask << ": seed 29, max abs error " << report.max_abs_error();
  return ops_of(graph);
}

TEST(FuseAttention, AMaskAddedToTheScoresBecomesTheAttentionBiasReadAsFourDimensions) {
  EXPECT_EQ(fused_masked_ops("f32[2,2,3,3]"), (std::vector<std::string>{"Attention", "MatMul"}));
  EXPECT_EQ(fused_masked_ops("f32[2,1,1,3]"), (std::vector<std::string>{"Expand", "Attention", "MatMul"}));
  EXPECT_EQ(fused_masked_ops("f32[3]"), (std::vector<std::string>{"Expand", "Attention", "MatMul"}));
  Graph graph = parse_graph(attention_program(masked("f32[2,1,1,3]")));
  fuse_attention(graph, find_attention_sites(graph));
  EXPECT_EQ(graph.value(graph.node(1).inputs[5]).type.shape, (Shape{2, 1, 3, 3}));
  EXPECT_EQ(graph.node(1).inputs[3], kNoValue) << "mask_index stays absent";
}

TEST(FuseAttention, AMaskThatBroadcastsOverTheKeysIsNoSite) {
  EXPECT_TRUE(find_attention_sites(parse_graph(attention_program(masked("f32[2,1,3,1]")))).empty());
}

TEST(FuseAttention, TheMaskedFusedNodeWritesForOnnxRuntimeWithItsBiasAsInputFive) {
  Graph graph = parse_graph(attention_program(masked("f32[2,1,1,3]")));
  fuse_attention(graph, find_attention_sites(graph));
  Graph back = import_onnx_bytes(serialize_onnx(graph, {.onnx_runtime_ops = true}), "masked.onnx");
  DifferentialReport report = differential(parse_graph(attention_program(masked("f32[2,1,1,3]"))), back, 31,
                                           Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "seed 31, max abs error " << report.max_abs_error();
}

// torch's default exporter on x -> Linear(4, 12).chunk(3) -> scaled_dot_product_attention: one
// packed projection split along the last axis (its outputs in `split_outputs`' order, `extra` a
// fourth piece read elsewhere), K transposed through a 3-D batch of heads, and Q and K each scaled
// by the root of 1/sqrt(d).
// `scaled_first`: Q and K scaled before their layout chains, where sink-layouts moves the scale.
std::string torch_sdpa_program(const std::string& split_outputs = "%sq, %sk, %sv", bool extra = false,
                               bool scaled_first = false) {
  std::string text = "graph \"sdpa\" opset 18 {\n  input %x : f32[2,3,4]\n";
  int width = extra ? 14 : 12;
  text += fmt::format("  const %w : f32[4,{}] = {}\n  const %b : f32[{}] = {}\n", width, values(4 * width, 3), width,
                      values(width, 4));
  text += "  const %root : f32[] = [0.8408964]\n  const %wo : f32[4,4] = " + values(16, 5) + "\n";
  text += "  %packed = MatMul(%x, %w)\n  %a = Add(%packed, %b)\n";
  text += extra ? fmt::format("  {}, %e = Split[axis=2, split=[4,4,4,2]](%a) : f32[2,3,4], f32[2,3,4], f32[2,3,4], "
                              "f32[2,3,2]\n", split_outputs)
                : fmt::format("  {} = Split[axis=2, split=[4,4,4]](%a) : f32[2,3,4], f32[2,3,4], f32[2,3,4]\n",
                              split_outputs);
  text += scaled_first ? "  %sqs = Mul(%sq, %root)\n  %sks = Mul(%root, %sk)\n" : "";
  text += fmt::format(R"(  %rq = Reshape[shape=[2,3,2,2]]({})
  %q = Transpose[perm=[0,2,1,3]](%rq)
  %rk = Reshape[shape=[2,3,2,2]]({})
  %k4 = Transpose[perm=[0,2,1,3]](%rk)
  %k3 = Reshape[shape=[4,3,2]](%k4)
  %k3t = Transpose[perm=[0,2,1]](%k3)
  %k = Reshape[shape=[2,2,2,3]](%k3t)
  %rv = Reshape[shape=[2,3,2,2]](%sv)
  %v = Transpose[perm=[0,2,1,3]](%rv)
)", scaled_first ? "%sqs" : "%sq", scaled_first ? "%sks" : "%sk");
  text += scaled_first ? "  %s = MatMul(%q, %k)\n" : "  %qs = Mul(%q, %root)\n  %ks = Mul(%k, %root)\n  %s = MatMul(%qs, %ks)\n";
  text += softmax_to_output("%s");
  if (extra) text += "  output %e\n";
  return text + "}\n";
}

TEST(FuseAttention, TorchsPackedProjectionWithTheScaleSplitOverQAndKBecomesOneAttentionNode) {
  for (const char* order : {"%sq, %sk, %sv", "%sv, %sq, %sk", "scaled first"}) {
    bool scaled_first = std::string(order) == "scaled first";
    Graph before = parse_graph(scaled_first ? torch_sdpa_program("%sq, %sk, %sv", false, true) : torch_sdpa_program(order));
    Graph graph = before;
    EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1) << order;
    graph.validate();
    EXPECT_EQ(ops_of(graph), (std::vector<std::string>{"Attention", "MatMul"})) << order;
    EXPECT_NEAR(graph.node(0).attrs.get_float("scale"), 1.0 / 1.4142135, 1e-6) << "0.8408964 squared";
    EXPECT_EQ(graph.value(graph.node(0).inputs[1]).type.shape, (Shape{4, 12}));
    DifferentialReport report = differential(before, graph, 37, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(report.passed) << order << ": seed 37, max abs error " << report.max_abs_error();
  }
}

TEST(FuseAttention, APackedProjectionWithAPieceReadElsewhereIsNoSite) {
  EXPECT_TRUE(find_attention_sites(parse_graph(torch_sdpa_program("%sq, %sk, %sv", true))).empty());
}

TEST(FuseAttention, AKeyChainThatInterleavesTheHeadsIsNoSite) {
  // Reshape to [B,S,d,N] then [0,3,1,2]: the same [B,N,d,S] shape, each head made of every other lane.
  Graph graph = parse_graph(attention_program({.key_reshape = "[2,3,2,2]", .key_perm = "[0,3,2,1]", .extra_output = "", .mask = ""}));
  EXPECT_TRUE(find_attention_sites(graph).empty());
}

TEST(FuseAttention, AValueReadOutsideTheSiteKeepsItWrittenOut) {
  for (const char* read_elsewhere : {"p", "q", "aq", "s", "c"}) {
    Graph graph = parse_graph(attention_program({.key_reshape = "[2,3,2,2]", .key_perm = "[0,2,3,1]", .extra_output = read_elsewhere, .mask = ""}));
    EXPECT_TRUE(find_attention_sites(graph).empty()) << "%" << read_elsewhere << " is also a graph output";
  }
}

// torch's MultiheadAttention (S=3, B=2, E=4, two heads of 2): the tokens sequence first [S,B,E]
// (`batch_first`: x [B,S,E] transposed to them), one packed projection Sliced into Q, K and V, the
// heads [B*N,S,d] with B and N as one axis, Q divided by the root of d (`scale_on_packed`: moved
// above Q's Slice onto the packed projection, as sink-layouts leaves it), K transposed straight to
// [B*N,d,S], and the context back to the tokens' rows [S*B,E] for the output projection.
// `mask`: the type of an input %m added to the scaled scores [B*N,S,S] (torch's key_padding_mask or
// attn_mask, as baddbmm adds it).
std::string multihead_program(bool batch_first, bool scale_on_packed = false, const std::string& extra_output = "",
                              int sequence = 3, int batch = 2, const std::string& mask = "") {
  const int s = sequence, b = batch;
  std::string text = fmt::format("graph \"mha\" opset 13 {{\n  input %x : f32[{},{},4]\n", batch_first ? b : s, batch_first ? s : b);
  if (!mask.empty()) text += "  input %m : " + mask + "\n";
  text += fmt::format("  const %w : f32[4,12] = {}\n  const %b : f32[12] = {}\n", values(48, 3), values(12, 4));
  text += "  const %root : f32[] = [1.4142135]\n  const %wo : f32[4,4] = " + values(16, 5) + "\n";
  text += batch_first ? "  %t = Transpose[perm=[1,0,2]](%x)\n" : "  %t = Identity(%x)\n";
  text += "  %p = MatMul(%t, %w)\n  %a = Add(%b, %p)\n";
  text += scale_on_packed ? "  %as = Div(%a, %root)\n" : "";
  text += fmt::format(R"(  %sq = Slice[starts=[0,0,0],ends=[{0},{1},4],steps=[1,1,1]]({2})
  %sk = Slice[starts=[0,0,4],ends=[{0},{1},8],steps=[1,1,1]](%a)
  %sv = Slice[starts=[0,0,8],ends=[{0},{1},12],steps=[1,1,1]](%a)
  %rq = Reshape[shape=[{0},{3},2]](%sq)
  %q = Transpose[perm=[1,0,2]](%rq)
  %rk = Reshape[shape=[{0},{3},2]](%sk)
  %k = Transpose[perm=[1,2,0]](%rk)
  %rv = Reshape[shape=[{0},{3},2]](%sv)
  %v = Transpose[perm=[1,0,2]](%rv)
)", s, b, scale_on_packed ? "%as" : "%a", 2 * b);
  text += scale_on_packed ? "  %s = MatMul(%q, %k)\n" : "  %qs = Div(%q, %root)\n  %s = MatMul(%qs, %k)\n";
  text += mask.empty() ? "" : "  %sa = Add(%s, %m)\n";
  text += fmt::format(R"(  %sm = Softmax[axis=-1]({3})
  %c = MatMul(%sm, %v)
  %ct = Transpose[perm=[1,0,2]](%c)
  %y = Reshape[shape=[{2},4]](%ct)
  %z = MatMul(%y, %wo)
  %zr = Reshape[shape=[{0},{1},4]](%z)
)", s, b, s * b, mask.empty() ? "%s" : "%sa");
  text += batch_first ? "  %out = Transpose[perm=[1,0,2]](%zr)\n  output %out\n" : "  output %zr\n";
  if (!extra_output.empty()) text += "  output %" + extra_output + "\n";
  return text + "}\n";
}

TEST(FuseAttention, TorchsMultiheadAttentionSequenceFirstWithSlicedPiecesBecomesOneAttentionNode) {
  for (bool batch_first : {false, true})
    for (bool scale_on_packed : {false, true}) {
      std::string form = fmt::format("batch_first {}, scale on the packed projection {}", batch_first, scale_on_packed);
      Graph before = parse_graph(multihead_program(batch_first, scale_on_packed));
      Graph graph = before;
      std::vector<AttentionSite> sites = find_attention_sites(graph);
      ASSERT_EQ(sites.size(), 1u) << form;
      EXPECT_TRUE(sites[0].sequence_first) << form;
      EXPECT_EQ(fuse_attention(graph, sites), 1) << form;
      graph.validate();
      std::vector<std::string> ops = ops_of(graph);
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "Attention"), 1) << form;
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "Slice") + std::count(ops.begin(), ops.end(), "Softmax"), 0) << form;
      for (const Node& node : graph.nodes())
        if (node.op() == "Attention") {
          EXPECT_NEAR(node.attrs.get_float("scale"), 1.0 / 1.4142135, 1e-6) << form;
          std::string reads = graph.value(node.inputs[0]).name;
          EXPECT_EQ(reads == "x", batch_first) << form << ": reads %" << reads << " (x's own Transpose undone)";
        }
      // batch_first: x read as it is and the rows [B*S,E] projected, so no Transpose at all; else one
      // each way.
      EXPECT_EQ(std::count(ops.begin(), ops.end(), "Transpose"), batch_first ? 0 : 2) << form;
      EXPECT_EQ(sites[0].row_projection >= 0, batch_first) << form;
      DifferentialReport report = differential(before, graph, 43, Tolerance{1e-5, 1e-5});
      EXPECT_TRUE(report.passed) << form << ": seed 43, max abs error " << report.max_abs_error();
      // ONNX Runtime's form reads back as the same values.
      Graph back = import_onnx_bytes(serialize_onnx(graph, {.onnx_runtime_ops = true}), "mha.onnx");
      report = differential(before, back, 47, Tolerance{1e-5, 1e-5});
      EXPECT_TRUE(report.passed) << form << ": seed 47, max abs error " << report.max_abs_error();
    }
}

// With as many tokens as batch rows ([S,B] and [B,S] the same shape) only the layout proof tells
// the tokens' order; with one token the heads' chains move nothing.
TEST(FuseAttention, AMultiheadAttentionOfEverySequenceAndBatchFusesWithoutChangingItsValues) {
  for (auto [sequence, batch] : {std::pair{2, 2}, std::pair{1, 3}, std::pair{4, 1}, std::pair{5, 3}})
    for (bool batch_first : {false, true}) {
      std::string form = fmt::format("S {} B {} batch_first {}", sequence, batch, batch_first);
      Graph before = parse_graph(multihead_program(batch_first, false, "", sequence, batch));
      Graph graph = before;
      EXPECT_EQ(fuse_attention(graph, find_attention_sites(graph)), 1) << form;
      graph.validate();
      DifferentialReport report = differential(before, graph, 53, Tolerance{1e-5, 1e-5});
      EXPECT_TRUE(report.passed) << form << ": seed 53, max abs error " << report.max_abs_error();
    }
}

// The mask on scores [B*N,S,S] is read as the fused op's attention bias [B or 1, N or 1, S, S]:
// reshaped where B and N are one of its axes, expanded where it broadcasts.
TEST(FuseAttention, AMaskOnMultiheadScoresBecomesTheAttentionBiasThroughAReshape) {
  for (const char* mask : {"f32[4,1,3]", "f32[4,3,3]", "f32[1,3,3]", "f32[3,3]", "f32[1,3]"}) {
    Graph before = parse_graph(multihead_program(true, false, "", 3, 2, mask));
    Graph graph = before;
    std::vector<AttentionSite> sites = find_attention_sites(graph);
    ASSERT_EQ(sites.size(), 1u) << mask;
    EXPECT_EQ(sites[0].attention_bias_shape, (sites[0].attention_bias_view[0] == 1 ? Shape{1, 1, 3, 3} : Shape{2, 2, 3, 3}))
        << mask;
    fuse_attention(graph, sites);
    graph.validate();
    DifferentialReport report = differential(before, graph, 59, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(report.passed) << mask << ": seed 59, max abs error " << report.max_abs_error();
    Graph back = import_onnx_bytes(serialize_onnx(graph, {.onnx_runtime_ops = true}), "mha.onnx");
    report = differential(before, back, 61, Tolerance{1e-5, 1e-5});
    EXPECT_TRUE(report.passed) << mask << ": ONNX Runtime's form, seed 61, max abs error " << report.max_abs_error();
  }
  EXPECT_TRUE(find_attention_sites(parse_graph(multihead_program(true, false, "", 3, 2, "f32[4,3,1]"))).empty())
      << "a mask broadcasting over the keys";
}

// The projected rows' [S,B,E] also read elsewhere: the site ends at the rows, the layer's own
// projection, Reshape and Transpose kept after a Transpose back to the tokens sequence first.
TEST(FuseAttention, ABatchFirstLayerWhoseProjectedTokensAreReadElsewhereKeepsItsTranspose) {
  Graph before = parse_graph(multihead_program(true, false, "zr"));
  Graph graph = before;
  std::vector<AttentionSite> sites = find_attention_sites(graph);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].row_projection, -1);
  fuse_attention(graph, sites);
  graph.validate();
  std::vector<std::string> ops = ops_of(graph);
  EXPECT_EQ(std::count(ops.begin(), ops.end(), "Transpose"), 2);
  DifferentialReport report = differential(before, graph, 67, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "seed 67, max abs error " << report.max_abs_error();
}

// Q's heads batched head-major ([N*B,S,d]) while K's and V's are batch-major: each query row meets
// another batch row's keys. The same shapes, so only the layout proof refuses it.
TEST(FuseAttention, AMultiheadQueryWhoseHeadsAreBatchedInAnotherOrderIsNoSite) {
  std::string text = multihead_program(true);
  const std::string batch_major = "  %rq = Reshape[shape=[3,4,2]](%sq)\n  %q = Transpose[perm=[1,0,2]](%rq)\n";
  const std::string head_major = R"(  %rq4 = Reshape[shape=[3,2,2,2]](%sq)
  %qt = Transpose[perm=[2,1,0,3]](%rq4)
  %q = Reshape[shape=[4,3,2]](%qt)
)";
  size_t at = text.find(batch_major);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, batch_major.size(), head_major);
  Graph graph = parse_graph(text);
  EXPECT_TRUE(find_attention_sites(graph).empty());
}

TEST(FuseAttention, AMultiheadAttentionWithAPieceOrItsScaleReadElsewhereIsNoSite) {
  EXPECT_TRUE(find_attention_sites(parse_graph(multihead_program(true, false, "sk"))).empty()) << "K's piece";
  EXPECT_TRUE(find_attention_sites(parse_graph(multihead_program(true, true, "as"))).empty()) << "Q's moved scale";
  EXPECT_TRUE(find_attention_sites(parse_graph(multihead_program(true, false, "a"))).empty()) << "the packed projection";
}

// ---- the measured choice ---------------------------------------------------------------------

cost::Measurement ort_replay(bool fuses) {
  return {.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"}, .fuses_onnx_runtime_ops = fuses};
}

// The program as finalize leaves it before the measured steps (their input).
Graph finalized(const std::string& text) {
  Graph graph = parse_graph(text);
  finalize(graph);
  return graph;
}

Graph finalized_program() { return finalized(attention_program()); }

// A replayed DB pricing every kernel group of the `programs` at 10 us but their Attention groups,
// each at the price given with the first program that has it.
cost::CostModel replayed_programs(const std::vector<std::pair<Graph, double>>& programs, const cost::Measurement& measurement) {
  cost::ProfileDb db;
  std::set<std::string> priced;
  for (const auto& [program, attention_us] : programs)
    for (const cost::KernelGroup& group : cost::kernel_groups(program).groups) {
      if (!priced.insert(group.key).second) continue;
      double us = group.key.find("Attention") != std::string::npos ? attention_us : 10;
      db.add({group.key, measurement.target.db_device(), us, "test", "onnxruntime 0.0.0", "2026-12-01"});
    }
  return cost::CostModel(cost::load_cpu_fallback(), db, measurement);
}

// The single-site program written out, and fused with its Attention group at `fused_us`.
cost::CostModel replayed(double fused_us, const cost::Measurement& measurement) {
  Graph written_out = finalized_program();
  Graph fused = written_out;
  fuse_attention(fused, find_attention_sites(fused));
  return replayed_programs({{written_out, 0}, {fused, fused_us}}, measurement);
}

int fused_after_pick(const cost::CostModel& cost) {
  Graph graph = finalized_program();
  return pick_attention_fusion(graph, cost);
}

TEST(FuseAttentionPick, FusesWhereThePricedProgramIsCheaper) {
  EXPECT_EQ(fused_after_pick(replayed(5, ort_replay(true))), 1);
  EXPECT_EQ(fused_after_pick(replayed(1000, ort_replay(true))), 0);
}

TEST(FuseAttentionPick, ATargetWithoutOnnxRuntimesOpsOrPortableNeverFuses) {
  EXPECT_EQ(fused_after_pick(replayed(5, ort_replay(false))), 0);
  EXPECT_EQ(fused_after_pick(cost::CostModel(cost::load_cpu_fallback())), 0);
}

// Two attentions in a row, the first in two heads, the second in one (another Attention group).
std::string two_attentions_program() {
  return "graph \"two\" opset 13 {\n  input %x : f32[2,3,4]\n" + attention_layer({}, "a", "%x", 2) +
         attention_layer({}, "b", "%az", 1) + "  output %bz\n}\n";
}

// The two-attention program after the pick, with the first site's Attention group priced
// `first_us` and the second's `second_us`: each site's fused op's head count, in graph order.
std::vector<int64_t> picked_heads(double first_us, double second_us) {
  Graph graph = finalized(two_attentions_program());
  std::vector<AttentionSite> sites = find_attention_sites(graph);
  EXPECT_EQ(sites.size(), 2u);
  Graph first = graph, second = graph;
  fuse_attention(first, {sites.at(0)});
  fuse_attention(second, {sites.at(1)});
  cost::CostModel cost = replayed_programs({{graph, 0}, {first, first_us}, {second, second_us}}, ort_replay(true));
  Graph picked = graph;
  int fused = pick_attention_fusion(picked, cost);
  std::vector<int64_t> heads;
  for (const Node& node : picked.nodes())
    if (node.op() == "Attention") heads.push_back(node.attrs.get_int("num_heads"));
  EXPECT_EQ(fused, static_cast<int>(heads.size()));
  DifferentialReport report = differential(graph, picked, 41, Tolerance{1e-5, 1e-5});
  EXPECT_TRUE(report.passed) << "seed 41, max abs error " << report.max_abs_error();
  return heads;
}

TEST(FuseAttentionPick, EachSiteFusesWhereItAlonePricesCheaper) {
  EXPECT_EQ(picked_heads(5, 1000), (std::vector<int64_t>{2}));
  EXPECT_EQ(picked_heads(1000, 5), (std::vector<int64_t>{1}));
  EXPECT_EQ(picked_heads(5, 5), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(picked_heads(1000, 1000), (std::vector<int64_t>{}));
}

TEST(FuseAttentionPick, FinalizeReportsTheFusion) {
  cost::CostModel cost = replayed(5, ort_replay(true));
  Graph graph = finalized_program();
  std::vector<PassResult> results = finalize(graph, FinalizeOptions{.lowerings_for = &cost});
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results.back().pass, "fuse-attention");
  EXPECT_EQ(results.back().changes, 1);
}

}  // namespace
}  // namespace pet
