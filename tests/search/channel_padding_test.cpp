// Channel padding, before -> after on the textual IR: a conv's odd channel count grows with zero
// filters to the runtime's vector block and its reader ignores the new channels; sites that would
// not stay exact are left alone.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/generate/channel_padding.h"
#include "search/passes/finalize.h"
#include "search/search_space.h"
#include "verifier/differential.h"

namespace pet::testing {
namespace {

const char* kOddChannels = R"(graph "odd" opset 13 {
  input %x : f32[1,4,6,6]
  const %w0 : f32[6,4,3,3] = random(1)
  const %b0 : f32[6] = random(2)
  const %w1 : f32[8,6,3,3] = random(3)
  %c0 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w0, %b0) : f32[1,6,6,6]
  %r0 = Relu(%c0) : f32[1,6,6,6]
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%r0, %w1) : f32[1,8,6,6]
  output %c1
}
)";

TEST(ChannelPadding, SixChannelsGrowToEightWithZeroFiltersTheReaderIgnores) {
  Graph graph = parse_graph(kOddChannels);
  std::vector<search::PaddingSite> sites = search::channel_padding_sites(graph, 8);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].channels, 6);
  Graph padded = search::pad_channels(graph, sites[0], 8);
  EXPECT_EQ(print_graph(padded).substr(print_graph(padded).find("  %c0_padded")),
            R"(  %c0_padded_weights = Pad[mode="constant", pads=[0,0,0,0,2,0,0,0], value=0](%w0) : f32[8,4,3,3]
  %c0_padded_bias = Pad[mode="constant", pads=[0,2], value=0](%b0) : f32[8]
  %c0 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %c0_padded_weights, %c0_padded_bias) : f32[1,8,6,6]
  %r0 = Relu(%c0) : f32[1,8,6,6]
  %c1_padded_weights = Pad[mode="constant", pads=[0,0,0,0,0,2,0,0], value=0](%w1) : f32[8,8,3,3]
  %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%r0, %c1_padded_weights) : f32[1,8,6,6]
  output %c1
}
)");
  EXPECT_TRUE(differential(graph, padded, 7).passed);
  finalize(padded);
  EXPECT_TRUE(differential(graph, padded, 8).passed) << "the Pads fold into the weights";
}

// Found by the measured ranking, which finalizes every program a beam round keeps: a conv whose bias
// the search had split off into an Add was padded without its bias, a program with mismatched shapes.
TEST(ChannelPadding, APerChannelOperandBetweenTheConvsGrowsWithTheChannels) {
  Graph graph = parse_graph(R"(graph "split_bias" opset 13 {
    input %x : f32[1,4,6,6]
    const %w0 : f32[6,4,3,3] = random(1)
    const %b0 : f32[1,6,1,1] = random(2)
    const %s0 : f32[6,1,1] = random(3)
    const %w1 : f32[8,6,3,3] = random(4)
    %c0 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w0) : f32[1,6,6,6]
    %a0 = Add(%c0, %b0) : f32[1,6,6,6]
    %m0 = Mul(%a0, %s0) : f32[1,6,6,6]
    %r0 = Relu(%m0) : f32[1,6,6,6]
    %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%r0, %w1) : f32[1,8,6,6]
    output %c1
  })");
  std::vector<search::PaddingSite> sites = search::channel_padding_sites(graph, 8);
  ASSERT_EQ(sites.size(), 1u);
  Graph padded = search::pad_channels(graph, sites[0], 8);
  std::string printed = print_graph(padded);
  EXPECT_NE(printed.find(R"(%a0_padded_operand = Pad[mode="constant", pads=[0,0,0,0,0,2,0,0], value=0](%b0) : f32[1,8,1,1])"),
            std::string::npos) << printed;
  EXPECT_NE(printed.find(R"(%m0_padded_operand = Pad[mode="constant", pads=[0,0,0,2,0,0], value=0](%s0) : f32[8,1,1])"),
            std::string::npos) << printed;
  EXPECT_NE(printed.find("%m0 = Mul(%a0, %m0_padded_operand) : f32[1,8,6,6]"), std::string::npos) << printed;
  EXPECT_TRUE(differential(graph, padded, 7).passed);
  finalize(padded);  // reruns every shape rule
  EXPECT_TRUE(differential(graph, padded, 8).passed);
}

TEST(ChannelPadding, APerChannelDivisorIsNoSiteSinceItsZeroPaddingWouldMakeInfinities) {
  Graph graph = parse_graph(R"(graph "divided" opset 13 {
    input %x : f32[1,4,6,6]
    const %w0 : f32[6,4,3,3] = random(1)
    const %d0 : f32[1,6,1,1] = random(2)
    const %w1 : f32[8,6,3,3] = random(4)
    %c0 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w0) : f32[1,6,6,6]
    %q0 = Div(%c0, %d0) : f32[1,6,6,6]
    %c1 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%q0, %w1) : f32[1,8,6,6]
    output %c1
  })");
  EXPECT_TRUE(search::channel_padding_sites(graph, 8).empty());
}

TEST(ChannelPadding, AMultipleAlreadyMetIsNoSite) {
  EXPECT_TRUE(search::channel_padding_sites(parse_graph(kOddChannels), 2).empty());
  EXPECT_TRUE(search::channel_padding_sites(parse_graph(kOddChannels), 3).empty());
}

TEST(ChannelPadding, AChannelCountReadByAnythingButAConvsDataInputIsNoSite) {
  // The padded channels would reach the graph output, or an Add that does not ignore them.
  std::string exported = kOddChannels;
  exported.replace(exported.find("  output %c1"), 0, "  output %r0\n");
  EXPECT_TRUE(search::channel_padding_sites(parse_graph(exported), 8).empty());
  Graph added = parse_graph(R"(graph "add" opset 13 {
    input %x : f32[1,4,6,6]
    input %y : f32[1,6,6,6]
    const %w0 : f32[6,4,3,3] = random(1)
    %c0 = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w0) : f32[1,6,6,6]
    %s = Add(%c0, %y) : f32[1,6,6,6]
    output %s
  })");
  EXPECT_TRUE(search::channel_padding_sites(added, 8).empty());
}

TEST(ChannelPadding, AGroupedConvIsNoSite) {
  std::string grouped = kOddChannels;
  grouped.replace(grouped.find("group=1, pads=[1,1,1,1], strides=[1,1]](%r0"), 7, "group=2");
  grouped.replace(grouped.find("const %w1 : f32[8,6,3,3]"), 24, "const %w1 : f32[8,3,3,3]");
  EXPECT_TRUE(search::channel_padding_sites(parse_graph(grouped), 8).empty());
}

TEST(ChannelPadding, AMeasuredTargetsSearchOffersItAsAnExactMove) {
  // A replayed, empty DB: nothing is timed (the costs are the CPU fallback's estimates).
  cost::Measurement measurement;
  measurement.target = {"ort-cpu", true, 1, "onnxruntime 0.0.0", "a test CPU"};
  measurement.picks_correction_lowering = true;
  cost::CostModel cost(cost::load_cpu_fallback(), {}, measurement);
  search::SearchSpace space(cost, nullptr, {});
  Graph graph = parse_graph(kOddChannels);
  SearchStats stats;
  search::Program start = space.make_program(graph, {});
  std::vector<search::Program> moves =
      space.expand(start, {false, true, false}, stats, [](uint64_t) { return true; }, search::SearchBudget{});
  std::vector<std::string> padding;
  for (const search::Program& move : moves)
    if (move.history.back().kind == TransformationKind::padding) {
      padding.push_back(move.history.back().name + " " + move.history.back().location);
      EXPECT_EQ(move.history.back().evidence_kind, EvidenceKind::construction);
      EXPECT_TRUE(differential(graph, move.graph, 5).passed);
    }
  EXPECT_EQ(padding, (std::vector<std::string>{"pad-channels-to-8 c0 -> c1", "pad-channels-to-16 c0 -> c1"}));
}

}  // namespace
}  // namespace pet::testing
