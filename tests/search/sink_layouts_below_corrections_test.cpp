// sink_layouts_below_corrections, before → after: a corrected batch-stacked conv's output stays
// stacked where the next conv stacks it again and its correction reads slices of it; anything else
// keeps the fused correction as it was.
#include <gtest/gtest.h>

#include "core/text_ir.h"
#include "search/passes/finalize.h"
#include "search/passes/sink_layouts_below_corrections.h"
#include "tests/search/node_lines.h"
#include "verifier/differential.h"

namespace pet {
namespace {

using pet::testing::node_lines;

// A mutant's output %m: 4 images of 2x6x5 stacked in pairs along H. The fused correction %r puts
// them back in the batch, overwrites the seam rows (row 5 of images 0-1, row 0 of images 2-3) and
// applies a Relu; the next stacked conv's entry layout %z and its correction's slices %s0 and %s1
// read it.
std::string stacked_stage(const std::string& offsets, const std::string& slice1, const std::string& extra_output) {
  return R"(graph "g" opset 13 {
  input %m : f32[2,2,12,5]
  input %p0 : f32[2,2,1,5]
  input %p1 : f32[2,2,1,5]
  %r = LayoutOverwrite[activation="relu", expanded=[2,2,2,6,5], groups=[2,1,1,1], offsets=)" + offsets +
         R"(, perm=[2,0,1,3,4]](%m, %p0, %p1) : f32[4,2,6,5]
  %z = Layout[expanded=[2,2,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,2,12,5]
  %s0 = Slice[ends=[2,2,6,5], starts=[0,0,4,0], steps=[1,1,1,1]](%r) : f32[2,2,2,5]
  %s1 = )" + slice1 + R"((%r) : f32[2,2,2,5]
  output %z
  output %s0
  output %s1
)" + extra_output + "}\n";
}

const std::string kSeamOffsets = "[0,0,5,0,2,0,0,0]";
const std::string kSecondSlice = "Slice[ends=[4,2,2,5], starts=[2,0,0,0], steps=[1,1,1,1]]";

TEST(SinkLayoutsBelowCorrections, TheCorrectedOutputStaysStackedForTheNextConvAndItsSlices) {
  Graph original = parse_graph(stacked_stage(kSeamOffsets, kSecondSlice, ""));
  Graph graph = original;
  EXPECT_EQ(sink_layouts_below_corrections(graph), 1);
  // After: the Relu moves onto the mutant and the patches, the seam rows are written in the
  // stacked layout (rows 5 and 6 of each pair), the slices read the stacked rows, and %r is the
  // layout of the result that %z undoes.
  EXPECT_EQ(node_lines(graph),
            "%r_base_relu = Relu(%m) : f32[2,2,12,5]\n"
            "%r_patch0_relu = Relu(%p0) : f32[2,2,1,5]\n"
            "%r_patch1_relu = Relu(%p1) : f32[2,2,1,5]\n"
            "%r_in_layout = LayoutOverwrite[expanded=[2,2,12,5], groups=[1,1,1,1], offsets=[0,0,5,0,0,0,6,0], "
            "perm=[0,1,2,3]](%r_base_relu, %r_patch0_relu, %r_patch1_relu) : f32[2,2,12,5]\n"
            "%r = Layout[expanded=[2,2,2,6,5], groups=[2,1,1,1], perm=[2,0,1,3,4]](%r_in_layout) : f32[4,2,6,5]\n"
            "%z = Layout[expanded=[2,2,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,2,12,5]\n"
            "%s0 = Slice[ends=[2,2,6,5], starts=[0,0,4,0], steps=[1,1,1,1]](%r_in_layout) : f32[2,2,2,5]\n"
            "%s1 = Slice[ends=[2,2,8,5], starts=[0,0,6,0], steps=[1,1,1,1]](%r_in_layout) : f32[2,2,2,5]\n"
            "output %z\noutput %s0\noutput %s1\n");
  EXPECT_TRUE(differential(original, graph, 5).passed);
  // Finalize then cancels the layout pair: the next conv reads the stacked result itself.
  finalize(graph);
  int layouts = 0;
  for (const Node& node : graph.nodes()) layouts += node.op() == "Layout";
  EXPECT_EQ(layouts, 0) << print_graph(graph);
  EXPECT_TRUE(differential(original, graph, 6).passed);
}

TEST(SinkLayoutsBelowCorrections, KeepsTheFusedCorrectionWhereItsLayoutWouldStay) {
  struct Case {
    const char* why;
    std::string text;
  };
  const Case cases[] = {
      {"a graph output reads the corrected value", stacked_stage(kSeamOffsets, kSecondSlice, "  output %r\n")},
      {"a slice with step 2", stacked_stage(kSeamOffsets, "Slice[ends=[4,2,4,5], starts=[2,0,0,0], steps=[1,1,2,1]]", "")},
      {"a reader that does not undo the layout",
       R"(graph "g" opset 13 {
  input %m : f32[2,2,12,5]
  input %p0 : f32[2,2,1,5]
  %r = LayoutOverwrite[expanded=[2,2,2,6,5], groups=[2,1,1,1], offsets=[0,0,5,0], perm=[2,0,1,3,4]](%m, %p0) : f32[4,2,6,5]
  %y = Relu(%r) : f32[4,2,6,5]
  output %y
}
)"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.why);
    Graph graph = parse_graph(c.text);
    EXPECT_EQ(sink_layouts_below_corrections(graph), 0);
    EXPECT_EQ(print_graph(graph), print_graph(parse_graph(c.text)));
  }
}

// A slice or a patch over images 1 and 2 is no box in the stacked layout (image 1 is the second
// of stack 0, image 2 the first of stack 1): it is cut into one piece per stack.
TEST(SinkLayoutsBelowCorrections, ABoxAcrossTwoStacksIsCutIntoOnePiecePerStack) {
  Graph original = parse_graph(stacked_stage(kSeamOffsets, "Slice[ends=[3,2,2,5], starts=[1,0,0,0], steps=[1,1,1,1]]", ""));
  Graph graph = original;
  EXPECT_EQ(sink_layouts_below_corrections(graph), 1);
  std::string lines = node_lines(graph);
  EXPECT_NE(lines.find("%s1_piece0 = Slice[ends=[2,2,2,5], starts=[1,0,0,0], steps=[1,1,1,1]](%r_in_layout) : f32[1,2,2,5]\n"
                       "%s1_piece1 = Slice[ends=[1,2,8,5], starts=[0,0,6,0], steps=[1,1,1,1]](%r_in_layout) : f32[1,2,2,5]\n"
                       "%s1 = Concat[axis=0](%s1_piece0, %s1_piece1) : f32[2,2,2,5]\n"),
            std::string::npos)
      << lines;
  EXPECT_TRUE(differential(original, graph, 5).passed);

  Graph patched_original = parse_graph(R"(graph "g" opset 13 {
  input %m : f32[2,2,12,5]
  input %p0 : f32[2,2,1,5]
  %r = LayoutOverwrite[expanded=[2,2,2,6,5], groups=[2,1,1,1], offsets=[1,0,5,0], perm=[2,0,1,3,4]](%m, %p0) : f32[4,2,6,5]
  %z = Layout[expanded=[2,2,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,2,12,5]
  output %z
}
)");
  Graph patched = patched_original;
  EXPECT_EQ(sink_layouts_below_corrections(patched), 1);
  lines = node_lines(patched);
  EXPECT_NE(lines.find("LayoutOverwrite[expanded=[2,2,12,5], groups=[1,1,1,1], offsets=[1,0,5,0,0,0,11,0], "
                       "perm=[0,1,2,3]](%m, %r_patch0_piece0, %r_patch0_piece1)"),
            std::string::npos)
      << lines;
  EXPECT_TRUE(differential(patched_original, patched, 5).passed);
}

// Before: a fully equivalent stacked conv's exit layout %r, read by the next conv's entry and by
// that conv's correction. After: the correction slices the stacked rows; %r only feeds %z.
TEST(SinkLayoutsBelowCorrections, ASliceOfAPlainExitLayoutReadsTheStackedRows) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
  input %m : f32[2,2,12,5]
  %r = Layout[expanded=[2,2,2,6,5], groups=[2,1,1,1], perm=[2,0,1,3,4]](%m) : f32[4,2,6,5]
  %z = Layout[expanded=[2,2,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,2,12,5]
  %s = Slice[ends=[4,2,2,5], starts=[2,0,0,0], steps=[1,1,1,1]](%r) : f32[2,2,2,5]
  output %z
  output %s
}
)");
  Graph graph = original;
  EXPECT_EQ(sink_layouts_below_corrections(graph), 1);
  EXPECT_EQ(node_lines(graph),
            "%r = Layout[expanded=[2,2,2,6,5], groups=[2,1,1,1], perm=[2,0,1,3,4]](%m) : f32[4,2,6,5]\n"
            "%z = Layout[expanded=[2,2,2,6,5], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,2,12,5]\n"
            "%s = Slice[ends=[2,2,8,5], starts=[0,0,6,0], steps=[1,1,1,1]](%m) : f32[2,2,2,5]\n"
            "output %z\noutput %s\n");
  EXPECT_TRUE(differential(original, graph, 5).passed);
  EXPECT_EQ(sink_layouts_below_corrections(graph), 0) << "only the readers that undo it are left";
}

// A patch that is a whole image of the batch (one ScatterND index) becomes, in the stacked layout,
// 4096 x 342 rows of one stack: more index entries than the scatter lowering allows. The rewrite
// is made with the default lowering (Slices and Concats) and not made with the scatter one, whose
// export would refuse it.
TEST(SinkLayoutsBelowCorrections, APatchTheScatterLoweringCouldNotWriteInTheStackedLayoutStaysFused) {
  auto stage = [](const std::string& lowering) {
    return R"(graph "g" opset 18 {
  input %m : f32[2,4096,684,1]
  input %p0 : f32[1,4096,342,1]
  %r = LayoutOverwrite[expanded=[2,4096,2,342,1], groups=[2,1,1,1], )" + lowering +
           R"(offsets=[1,0,0,0], perm=[2,0,1,3,4]](%m, %p0) : f32[4,4096,342,1]
  %z = Layout[expanded=[2,2,4096,342,1], groups=[1,1,2,1], perm=[1,2,0,3,4]](%r) : f32[2,4096,684,1]
  output %z
}
)";
  };
  Graph slices = parse_graph(stage(""));
  EXPECT_EQ(sink_layouts_below_corrections(slices), 1);
  EXPECT_NE(node_lines(slices).find("LayoutOverwrite[expanded=[2,4096,684,1], groups=[1,1,1,1], offsets=[1,0,0,0], "
                                    "perm=[0,1,2,3]](%m, %p0)"),
            std::string::npos)
      << node_lines(slices);

  const std::string scattered = stage("lowering=\"scatter\", ");
  Graph graph = parse_graph(scattered);
  EXPECT_EQ(sink_layouts_below_corrections(graph), 0);
  EXPECT_EQ(print_graph(graph), print_graph(parse_graph(scattered)));
}

}  // namespace
}  // namespace pet
