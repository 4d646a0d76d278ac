// correct() before -> after on PET's N2H conv mutant, its report, and its error messages.
#include <gtest/gtest.h>

#include <functional>

#include <fmt/format.h>

#include "tests/corrector/correction_cases.h"
#include "core/error.h"
#include "core/executor.h"
#include "core/ops/layout.h"
#include "core/text_ir.h"
#include "corrector/correct.h"
#include "verifier/differential.h"
#include "tests/user_error_message.h"

namespace pet::corrector {
namespace {


TEST(Correct, StackedConvBecomesFullyEquivalent) {
  Graph original = correction_cases::seam_example_original();
  Graph mutant = correction_cases::seam_example_mutant();
  Verdict verdict = examine(original, mutant);
  ASSERT_EQ(verdict.kind, VerdictKind::Partial) << verdict.summary();
  CorrectedProgram corrected = correct(original, mutant, verdict);
  Verdict after = examine(original, corrected.program);
  EXPECT_EQ(after.kind, VerdictKind::Full) << after.summary() << "\n" << print_graph(corrected.program);
  EXPECT_TRUE(differential(original, corrected.program, 7, {1e-5, 1e-5}).passed);
  EXPECT_FALSE(differential(original, mutant, 7, {1e-5, 1e-5}).passed);
}

TEST(Correct, StackedConvBeforeAfter) {
  Graph original = correction_cases::seam_example_original();
  Graph mutant = correction_cases::seam_example_mutant();
  CorrectedProgram corrected = correct(original, mutant, examine(original, mutant));
  // Each seam row is recomputed by a conv on the three input rows it reads; the image edge
  // becomes the sliced conv's own padding (pads [1,1,0,1] and [0,1,1,1]).
  EXPECT_EQ(print_graph(corrected.program), R"(graph "graph" opset 13 {
  input %x : f32[2,4,16,8]
  input %w : f32[4,4,3,3]
  %stack = Layout[expanded=[2,1,4,16,8], groups=[1,1,2,1], perm=[1,2,0,3,4]](%x) : f32[1,4,32,8]
  %conv = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%stack, %w) : f32[1,4,32,8]
  %y_uncorrected = Layout[expanded=[1,4,2,16,8], groups=[2,1,1,1], perm=[2,0,1,3,4]](%conv) : f32[2,4,16,8]
  %correction0/slice_x_0 = Slice[ends=[1,4,16,8], starts=[0,0,14,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %correction0/y_1 = Conv[dilations=[1,1], group=1, pads=[0,1,1,1], strides=[1,1]](%correction0/slice_x_0, %w) : f32[1,4,1,8]
  %correction0/overwrite = Overwrite[offsets=[0,0,15,0]](%y_uncorrected, %correction0/y_1) : f32[2,4,16,8]
  %correction1/slice_x_0 = Slice[ends=[2,4,2,8], starts=[1,0,0,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %correction1/y_1 = Conv[dilations=[1,1], group=1, pads=[1,1,0,1], strides=[1,1]](%correction1/slice_x_0, %w) : f32[1,4,1,8]
  %y = Overwrite[offsets=[1,0,0,0]](%correction0/overwrite, %correction1/y_1) : f32[2,4,16,8]
  output %y
}
)");
  ASSERT_EQ(corrected.corrections.size(), 2u);
  EXPECT_EQ(corrected.summary(),
            "output 0 box [0:1, 0:4, 15:16, 0:8] (1 incorrect boxes) reads %x[0:1, 0:4, 14:16, 0:8] "
            "%w[0:4, 0:4, 0:3, 0:3]: 2304 flops, 5568 bytes, overhead 0.0796\n"
            "output 0 box [1:2, 0:4, 0:1, 0:8] (1 incorrect boxes) reads %x[1:2, 0:4, 0:2, 0:8] "
            "%w[0:4, 0:4, 0:3, 0:3]: 2304 flops, 5568 bytes, overhead 0.0796\n"
            "2 corrections, overhead 0.1592 of the mutant's flops+bytes\n");
}

TEST(Correct, NeighbouringBoxesMergeWhenOneLaunchIsCheaper) {
  Graph original = correction_cases::seam_example_original();
  Graph mutant = correction_cases::seam_example_mutant();
  Verdict verdict = examine(original, mutant);
  CorrectOptions options;
  options.per_correction_overhead = 4096;  // launches dear: one conv over both images' rows
  CorrectedProgram corrected = correct(original, mutant, verdict, options);
  ASSERT_EQ(corrected.corrections.size(), 1u);
  EXPECT_EQ(corrected.corrections[0].box.to_string(), "[0:2, 0:4, 0:16, 0:8]");
  EXPECT_EQ(examine(original, corrected.program).kind, VerdictKind::Full);
}

TEST(Correct, FullVerdictLeavesTheCandidateAlone) {
  Graph original = correction_cases::seam_example_original();
  Verdict verdict = examine(original, original);
  ASSERT_EQ(verdict.kind, VerdictKind::Full);
  CorrectedProgram corrected = correct(original, original, verdict);
  EXPECT_TRUE(corrected.corrections.empty());
  EXPECT_EQ(print_graph(corrected.program), print_graph(original));
}

TEST(CorrectErrors, RejectedVerdict) {
  Graph original = correction_cases::seam_example_original();
  Verdict verdict;
  verdict.kind = VerdictKind::Rejected;
  verdict.reason = "wrong at every screening point";
  EXPECT_EQ(testing::user_error_message([&] { correct(original, correction_cases::seam_example_mutant(), verdict); }),
            "correct(): the candidate was rejected (wrong at every screening point); only a Partial verdict has boxes "
            "to correct");
}

TEST(CorrectErrors, BoxesForTheWrongNumberOfOutputs) {
  Graph original = correction_cases::seam_example_original();
  Verdict verdict;
  verdict.kind = VerdictKind::Partial;
  verdict.incorrect_boxes = {{}, {}};
  EXPECT_EQ(testing::user_error_message([&] { correct(original, correction_cases::seam_example_mutant(), verdict); }),
            "correct(): the verdict lists incorrect boxes for 2 outputs, the program has 1; pass the verdict examine() "
            "gave for this candidate");
}

TEST(CorrectErrors, BoxOutsideTheOutput) {
  Graph original = correction_cases::seam_example_original();
  Verdict verdict;
  verdict.kind = VerdictKind::Partial;
  verdict.incorrect_boxes = {{Box{{0, 0, 15, 0}, {1, 4, 17, 8}}}};
  EXPECT_EQ(testing::user_error_message([&] { correct(original, correction_cases::seam_example_mutant(), verdict); }),
            "correct(): incorrect box [0:1, 0:4, 15:17, 0:8] of output 0 is empty or does not fit its shape 2x4x16x8; "
            "pass the verdict examine() gave for this candidate");
}

TEST(CorrectErrors, CandidateWithAnotherInterface) {
  Graph original = correction_cases::seam_example_original();
  Graph other = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[2,4,16,8]
    %y = Relu(%x)
    output %y
  })");
  Verdict verdict;
  verdict.kind = VerdictKind::Partial;
  verdict.incorrect_boxes = {{}};
  EXPECT_EQ(testing::user_error_message([&] { correct(original, other, verdict); }),
            "correct(): the candidate's inputs (f32[2,4,16,8]) differ from the original's (f32[2,4,16,8], "
            "f32[4,4,3,3]); a mutant must have the original's input and output types, in order");
}

TEST(CorrectErrors, ConvBoxThatReadsOnlyPadding) {
  Graph original = parse_graph(R"(graph "g" opset 13 {
    input %x : f32[1,1,2,2]
    input %w : f32[1,1,1,1]
    %y = Conv[dilations=[1,1], group=1, pads=[2,0,0,0], strides=[1,1]](%x, %w)
    output %y
  })");
  Verdict verdict;
  verdict.kind = VerdictKind::Partial;
  verdict.incorrect_boxes = {{Box{{0, 0, 0, 0}, {1, 1, 1, 2}}}};
  EXPECT_EQ(testing::user_error_message([&] { correct(original, original, verdict); }),
            "node 'y' (Conv): output box [0:1, 0:1, 0:1, 0:2] reads only padding on axis 2; such boxes cannot "
            "be recomputed from a slice of the input");
}

}  // namespace
}  // namespace pet::corrector
