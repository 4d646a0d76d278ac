// Each standard-op lowering of a correction (core/ops/patch_lowering.h) run in ONNX Runtime gives
// pet's executor's values, and the lowerings a set of patches or an opset refuses are user errors.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_export.h"
#include "core/ops/patch_lowering.h"
#include "core/text_ir.h"
#include "kernels/runtime/ort_runtime.h"
#include "kernels/runtime/runtime.h"
#include "tests/kernels/runtime/corrected_conv.h"

namespace pet::runtime {
namespace {

// Two overlapping patches over a base (the second wins where they meet), at OPSET.
const char* kOverlapping = R"(graph "overlapping" opset OPSET {
  input %base : f32[2,3,5,6]
  input %p0 : f32[2,3,3,4]
  input %p1 : f32[1,3,2,3]
  %a = Overwrite[lowering=LOWERING, offsets=[0,0,1,1]](%base, %p0) : f32[2,3,5,6]
  %b = Overwrite[lowering=LOWERING, offsets=[1,0,2,3]](%a, %p1) : f32[2,3,5,6]
  output %b
}
)";

std::string with(std::string text, const std::string& placeholder, const std::string& value) {
  for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
  return text;
}

std::string quoted(ops::PatchLowering lowering) { return std::string("\"") + ops::to_string(lowering) + "\""; }

// The graph's values from ONNX Runtime (its standard-op export) against pet's executor running
// `reference`: within float rounding where a conv is computed, else exactly (a lowering only
// moves values).
void expect_runtime_matches(Runtime& ort, const Graph& graph, const Graph& reference, uint64_t seed) {
  std::vector<Tensor> inputs = random_inputs(graph, seed);
  std::vector<Tensor> got = ort.run_model(serialize_onnx(graph, ort.export_options()), inputs, 1);
  std::vector<Tensor> expected = execute(reference, inputs);
  ASSERT_EQ(got.size(), 1u);
  bool computes = print_graph(graph).find("Conv[") != std::string::npos;
  if (!computes) {
    EXPECT_TRUE(got[0].same_content(expected[0])) << "ONNX Runtime moved values elsewhere";
  }
  ASSERT_EQ(got[0].numel(), expected[0].numel());
  for (int64_t i = 0; i < expected[0].numel(); ++i) EXPECT_NEAR(got[0].f32()[i], expected[0].f32()[i], 1e-4) << i;
}

TEST(CorrectionLowering, EachLoweringOfASeamCorrectionRunsInOnnxRuntimeAsTheOriginal) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  const char* written_as[] = {"Concat", "ScatterND", "Where"};
  for (ops::PatchLowering lowering : ops::patch_lowerings()) {
    SCOPED_TRACE(ops::to_string(lowering));
    Graph corrected = parse_graph(corrected_conv_ir(ops::to_string(lowering)));
    std::string bytes = serialize_onnx(corrected);
    EXPECT_NE(bytes.find(written_as[static_cast<int>(lowering)]), std::string::npos);
    expect_runtime_matches(*ort, corrected, parse_graph(kOriginalConv), 17);
  }
}

TEST(CorrectionLowering, SlicesAndWhereWriteOverlappingPatchesInOrder) {
  std::unique_ptr<Runtime> ort = open_ort_runtime();
  for (ops::PatchLowering lowering : {ops::PatchLowering::slices, ops::PatchLowering::where}) {
    SCOPED_TRACE(ops::to_string(lowering));
    Graph graph = parse_graph(with(with(kOverlapping, "LOWERING", quoted(lowering)), "OPSET", "13"));
    expect_runtime_matches(*ort, graph, graph, 5);
  }
}

TEST(CorrectionLowering, ScatterRefusesOverlappingPatches) {
  try {
    parse_graph(R"(graph "overlap" opset 13 {
      input %m : f32[1,2,4,4]
      input %p0 : f32[1,2,2,4]
      input %p1 : f32[1,2,2,2]
      %y = LayoutOverwrite[expanded=[1,2,4,4], groups=[1,1,1,1], lowering="scatter", offsets=[0,0,1,0,0,0,2,1], perm=[0,1,2,3]](%m, %p0, %p1) : f32[1,2,4,4]
      output %y
    })");
    FAIL() << "overlapping patches were accepted for ScatterND";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("lowering \"scatter\" cannot write these patches: patches 0 and 1 "
                                             "overlap"),
              std::string::npos)
        << error.what();
  }
}

TEST(CorrectionLowering, AnUnknownLoweringNamesTheKnownOnes) {
  try {
    parse_graph(with(with(kOverlapping, "LOWERING", "\"gather\""), "OPSET", "13"));
    FAIL() << "an unknown lowering was accepted";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("lowering \"gather\" is not one of \"slices\", \"scatter\", \"where\""),
              std::string::npos)
        << error.what();
  }
}

TEST(CorrectionLowering, LoweringsOtherThanSlicesNeedOpset11) {
  Graph old = parse_graph(with(with(kOverlapping, "LOWERING", "\"where\""), "OPSET", "9"));
  try {
    serialize_onnx(old);
    FAIL() << "a Where lowering was written at opset 9";
  } catch (const UserError& error) {
    EXPECT_NE(std::string(error.what()).find("node 'a': lowering \"where\" needs opset 11 or later, and the model "
                                             "has opset 9; remove the attribute"),
              std::string::npos)
        << error.what();
  }
  EXPECT_NO_THROW(serialize_onnx(parse_graph(with(with(kOverlapping, "LOWERING", "\"slices\""), "OPSET", "9"))));
}

}  // namespace
}  // namespace pet::runtime
