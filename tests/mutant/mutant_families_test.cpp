// The generator finds PET's transformation families (REFERENCE.md) on small shapes, each with
// the expected verdict and, for partial ones, exactly the expected incorrect boxes. Every template
// is a declared attribute domain (mutant/template_set.cpp); no family has a function of its own.
// REFERENCE.md's rows and their tests: conv 1x1 -> GEMM (PointwiseConvBecomesAMatmul); dilated
// conv (DilatedConvBecomesRegularConvOnDeinterleavedInput, ...OnRowsStackedByResidue...); odd H/W
// (OddHeightPadsConvolvesAndSlices); r != s (NonSquareKernelTransposesHeightAndWidth); batch <->
// spatial (BatchToHeightStacking...); C2H (ChannelsToRowsWithARowStridedConv); split grouped conv
// (GroupedConvSplitsIntoTwoConvs); merges with a shared input (ParallelConvsOnASharedInputMerge,
// EqualMatmulsOnASharedInput...) and different inputs (...MergeWithAZeroPaddedKernel); 1xk with kx1
// siblings (OneByKAndKByOneSiblings...); batched GEMM merge (EqualShapeMatmulsOnDifferentInputs...);
// matmul layouts (MatmulAsTransposedProduct); spatial tiling (SpatialTilingIntoTheBatch...). New:
// channels padded to the target's multiple (ChannelsPaddedToTheTargetsMultiple).
#include <gtest/gtest.h>

#include <iostream>

#include <fmt/format.h>

#include "core/text_ir.h"
#include "mutant/generator.h"

namespace pet::mutant {
namespace {

std::string conv_graph(const std::string& x, const std::string& w, const std::string& attrs) {
  return fmt::format(R"(graph "g" opset 13 {{
    input %x : f32[{}]
    input %w : f32[{}]
    %y = Conv[{}](%x, %w)
    output %y
  }})",
                     x, w, attrs);
}

std::string conv_attrs(const std::string& pads, const std::string& dilations = "1,1", const std::string& strides = "1,1",
                       int group = 1) {
  return fmt::format("dilations=[{}], group={}, pads=[{}], strides=[{}]", dilations, group, pads, strides);
}

// Two unit-stride Convs on [1,4,8,8] inputs: %a of (%x1, %w1) padded `pads_a` and %b of
// (%x1 or, unless `shared_input`, %x2, %w2) padded `pads_b`.
std::string two_convs_graph(bool shared_input, const std::string& w1, const std::string& w2, const std::string& pads_a,
                            const std::string& pads_b) {
  return fmt::format(R"(graph "g" opset 13 {{
    input %x1 : f32[1,4,8,8]
    {}input %w1 : f32[{}]
    input %w2 : f32[{}]
    %a = Conv[{}](%x1, %w1)
    %b = Conv[{}](%{}, %w2)
    output %a
    output %b
  }})",
                     shared_input ? "" : "input %x2 : f32[1,4,8,8]\n    ", w1, w2, conv_attrs(pads_a),
                     conv_attrs(pads_b), shared_input ? "x1" : "x2");
}

const Mutant* find_family(const Generation& result, const std::string& family) {
  for (const Mutant& mutant : result.mutants)
    if (mutant.family == family) return &mutant;
  return nullptr;
}

std::string families(const Generation& result) {
  std::string text = result.stats.summary() + "\n";
  for (const Mutant& mutant : result.mutants) text += "  " + mutant.family + ": " + mutant.verdict.summary() + "\n";
  return text;
}

std::vector<std::string> boxes(const Mutant& mutant, int output = 0) {
  std::vector<std::string> result;
  for (const Box& box : mutant.verdict.incorrect_boxes.at(static_cast<size_t>(output))) result.push_back(box.to_string());
  return result;
}

const Mutant& expect_family(const Generation& result, const std::string& family, VerdictKind kind) {
  const Mutant* mutant = find_family(result, family);
  if (!mutant) {
    ADD_FAILURE() << "no mutant of family " << family << "\n" << families(result);
    static const Mutant none{};
    return none;
  }
  EXPECT_EQ(mutant->verdict.kind, kind) << mutant->verdict.summary();
  return *mutant;
}

TEST(Families, BatchToHeightStackingIsPartialOnTheSeamRows) {
  Generation result = generate_mutants(parse_graph(conv_graph("2,4,16,8", "4,4,3,3", conv_attrs("1,1,1,1"))));
  const Mutant& mutant = expect_family(result, "batch-to-axis+conv+axis-to-batch-back", VerdictKind::Partial);
  if (mutant.verdict.kind == VerdictKind::Partial) {
    std::vector<std::string> got = boxes(mutant);
    // H stacking: the rows next to the seam; W stacking: the columns next to it.
    bool height = got == std::vector<std::string>{"[0:1, 0:4, 15:16, 0:8]", "[1:2, 0:4, 0:1, 0:8]"};
    bool width = got == std::vector<std::string>{"[0:1, 0:4, 0:16, 7:8]", "[1:2, 0:4, 0:16, 0:1]"};
    EXPECT_TRUE(height || width) << mutant.verdict.summary();
  }
}

TEST(Families, DilatedConvBecomesRegularConvOnDeinterleavedInput) {
  for (int dilation : {2, 4}) {
    std::string d = std::to_string(dilation);
    Generation result = generate_mutants(parse_graph(
        conv_graph("1,4,16,16", "4,4,3,3", conv_attrs(fmt::format("{0},{0},{0},{0}", dilation), d + "," + d))));
    expect_family(result, "dilation-deinterleave+conv+dilation-interleave", VerdictKind::Full);
  }
}

TEST(Families, DilatedConvOnRowsStackedByResidueIsPartialAtTheSeams) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,2,32,8", "2,2,3,1", conv_attrs("2,0,2,0", "2,1"))));
  const Mutant& mutant = expect_family(result, "rows-deinterleave-stacked+conv+rows-interleave-stacked", VerdictKind::Partial);
  if (mutant.verdict.kind == VerdictKind::Partial) {
    // the first odd row and the last even row read across the seam between the two stacks
    EXPECT_EQ(boxes(mutant), (std::vector<std::string>{"[0:1, 0:2, 1:2, 0:8]", "[0:1, 0:2, 30:31, 0:8]"}));
  }
}

TEST(Families, OddHeightPadsConvolvesAndSlices) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,4,15,16", "4,4,3,3", conv_attrs("1,1,1,1"))));
  expect_family(result, "pad-odd-side+conv+slice-to-output", VerdictKind::Full);
}

TEST(Families, NonSquareKernelTransposesHeightAndWidth) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,4,8,12", "4,4,1,3", conv_attrs("0,1,0,1"))));
  expect_family(result, "swap-height-width+swap-height-width+conv+swap-height-width-back", VerdictKind::Full);
}

TEST(Families, ChannelsToRowsWithARowStridedConv) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,4,8,8", "4,4,3,3", conv_attrs("1,1,1,1"))));
  expect_family(result, "channels-to-rows+channels-to-rows+conv", VerdictKind::Full);
}

TEST(Families, GroupedConvSplitsIntoTwoConvs) {
  Generation result =
      generate_mutants(parse_graph(conv_graph("1,8,6,6", "8,2,3,3", conv_attrs("1,1,1,1", "1,1", "1,1", 4))));
  expect_family(result, "split-operand+split-operand+conv+conv+concat-results", VerdictKind::Full);
}

TEST(Families, ParallelConvsOnASharedInputMerge) {
  Generation result = generate_mutants(parse_graph(two_convs_graph(true, "4,4,3,3", "2,4,3,3", "1,1,1,1", "1,1,1,1")));
  expect_family(result, "concat-operands+conv+split-to-outputs", VerdictKind::Full);
}

// BERT's Q, K and V projections of one activation, at small sizes.
const char* kProjections = R"(graph "g" opset 13 {
  input %x : f32[1,8,12]
  input %wq : f32[12,12]
  input %wk : f32[12,12]
  input %wv : f32[12,12]
  %q = MatMul(%x, %wq)
  %k = MatMul(%x, %wk)
  %v = MatMul(%x, %wv)
  output %q
  output %k
  output %v
})";

TEST(Families, EqualMatmulsOnASharedInputBecomeOneGemm) {  // BERT's Q, K and V projections
  GeneratorOptions options;
  options.max_pre_ops = 1;  // one concat of the weights; four inputs make deeper searches slow
  Generation result = generate_mutants(parse_graph(kProjections), options);
  expect_family(result, "concat-operands+matmul+split-to-outputs", VerdictKind::Full);
}

TEST(Families, TheMergeTemplatesBuildTheQkvGemmOnceNotOncePerOperandOrder) {
  GeneratorOptions options;
  options.templates = merge_templates();
  Generation result = generate_mutants(parse_graph(kProjections), options);
  const Mutant& merged = expect_family(result, "concat-operands+matmul+split-to-outputs", VerdictKind::Full);
  int count = 0;
  for (const Mutant& mutant : result.mutants) count += mutant.family == merged.family;
  // The whole set also concatenates the weights in the five other orders (each split back to
  // match); the merge templates take the operands in ascending order only.
  EXPECT_EQ(count, 1) << families(result);
  ASSERT_EQ(merged.program.nodes().size(), 3u);
  EXPECT_EQ(merged.program.nodes()[0].inputs, (std::vector<ValueId>{1, 2, 3}));
}

TEST(Families, MatmulAsTransposedProduct) {
  Generation result = generate_mutants(parse_graph(R"(graph "g" opset 13 {
    input %a : f32[2,6,4]
    input %b : f32[2,4,5]
    %y = MatMul(%a, %b)
    output %y
  })"));
  expect_family(result, "transpose-operand+transpose-operand+matmul+transpose-result", VerdictKind::Full);
}

TEST(Families, SpatialTilingIntoTheBatchIsPartialOnTheHalo) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,2,64,8", "2,2,5,5", conv_attrs("2,2,2,2"))));
  const Mutant& mutant = expect_family(result, "axis-to-batch+conv+batch-to-axis-back", VerdictKind::Partial);
  if (mutant.verdict.kind == VerdictKind::Partial) {
    EXPECT_EQ(boxes(mutant), (std::vector<std::string>{"[0:1, 0:2, 30:34, 0:8]"}));  // two halo rows each side
  }
}

// New with the attribute domains: input channels zero-padded to the target's multiple, in the
// activation and the weight alike, leave the conv's output unchanged.
TEST(Families, ChannelsPaddedToTheTargetsMultiple) {
  GeneratorOptions options;
  options.channel_multiples = {8};
  Generation result = generate_mutants(parse_graph(conv_graph("1,6,8,8", "4,6,3,3", conv_attrs("1,1,1,1"))), options);
  const Mutant& mutant = expect_family(result, "pad-channels+pad-channels+conv", VerdictKind::Full);
  ASSERT_EQ(mutant.program.nodes().size(), 3u);
  EXPECT_EQ(mutant.program.value(mutant.program.nodes()[2].inputs[0]).type.shape.to_string(), "1x8x8x8");
  EXPECT_EQ(find_family(generate_mutants(parse_graph(conv_graph("1,8,8,8", "4,8,3,3", conv_attrs("1,1,1,1"))), options),
                        "pad-channels+pad-channels+conv"),
            nullptr);  // 8 channels are a multiple already
}

TEST(Families, PointwiseConvBecomesAMatmul) {
  Generation result = generate_mutants(parse_graph(conv_graph("1,8,6,6", "4,8,1,1", conv_attrs("0,0,0,0"))));
  expect_family(result, "flatten-spatial+flatten-spatial+matmul+reshape-to-output", VerdictKind::Full);
}

}  // namespace
}  // namespace pet::mutant

namespace pet::mutant {
namespace {

// Keeps only the named templates (the deeper searches these families need are slow with the
// whole set; the default set still contains every template named here).
GeneratorOptions with_templates(std::vector<std::string> names, int depth, int max_pre_ops, int max_ops) {
  GeneratorOptions options;
  options.templates.clear();
  for (const MutantTemplate& tmpl : default_templates())
    if (std::find(names.begin(), names.end(), tmpl.name) != names.end()) options.templates.push_back(tmpl);
  options.depth = depth;
  options.max_pre_ops = max_pre_ops;
  options.max_ops = max_ops;
  return options;
}

TEST(Families, ParallelConvsOnDifferentInputsMergeWithAZeroPaddedKernel) {
  Generation result = generate_mutants(parse_graph(two_convs_graph(false, "4,4,3,3", "4,4,1,1", "1,1,1,1", "0,0,0,0")),
                                       with_templates({"enlarge-kernel", "concat-operands", "conv", "split-to-outputs"}, 4, 3, 6));
  expect_family(result, "concat-operands+enlarge-kernel+concat-operands+conv+split-to-outputs", VerdictKind::Full);
}

TEST(Families, OneByKAndKByOneSiblingsMergeAfterATranspose) {
  Generation result = generate_mutants(parse_graph(two_convs_graph(false, "4,4,1,3", "4,4,3,1", "0,1,0,1", "1,0,1,0")),
                                       with_templates({"swap-height-width", "concat-operands", "conv", "split-to-outputs",
                                                       "swap-height-width-back"},
                                                      5, 4, 8));
  expect_family(result,
                "swap-height-width+swap-height-width+concat-operands+concat-operands+conv+split-to-outputs+"
                "swap-height-width-back",
                VerdictKind::Full);
}

TEST(Families, EqualShapeMatmulsOnDifferentInputsBecomeOneBatchedMatmul) {
  Generation result = generate_mutants(parse_graph(R"(graph "g" opset 13 {
    input %a1 : f32[2,6,4]
    input %b1 : f32[2,4,5]
    input %a2 : f32[2,6,4]
    input %b2 : f32[2,4,5]
    %y1 = MatMul(%a1, %b1)
    %y2 = MatMul(%a2, %b2)
    output %y1
    output %y2
  })"), with_templates({"concat-operands", "matmul", "split-to-outputs"}, 3, 2, 4));
  const Mutant& merged = expect_family(result, "concat-operands+concat-operands+matmul+split-to-outputs", VerdictKind::Full);
  ASSERT_EQ(merged.program.nodes().size(), 4u);
  EXPECT_EQ(merged.program.nodes()[0].attrs.get_int("axis"), 0);  // both operand pairs stacked on the batch
  EXPECT_EQ(merged.program.nodes()[1].attrs.get_int("axis"), 0);
}

// New with the attribute domains: both kernels zero-grown to 3x3 (r != s -> max(r, s), an opt-in
// template) merge into one grouped conv whose pads grew with the kernels, transposing neither.
TEST(Families, OneByKAndKByOneSiblingsMergeAsSquareKernels) {
  GeneratorOptions options = with_templates({"concat-operands", "conv", "split-to-outputs"}, 4, 4, 6);
  options.templates.insert(options.templates.end(), square_kernel_templates().begin(), square_kernel_templates().end());
  Generation result = generate_mutants(parse_graph(two_convs_graph(false, "4,4,1,3", "4,4,3,1", "0,1,0,1", "1,0,1,0")), options);
  const Mutant& merged = expect_family(
      result, "concat-operands+square-kernel+square-kernel+concat-operands+conv+split-to-outputs", VerdictKind::Full);
  ASSERT_EQ(merged.program.nodes().size(), 6u);
  EXPECT_EQ(merged.program.nodes()[4].attrs.get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(merged.program.nodes()[4].attrs.get_int("group"), 2);
}

}  // namespace
}  // namespace pet::mutant
