// The differential check's tolerance: scaled by the output's magnitude, so summation-order
// rounding in a large output passes while the same error in a small one does not.
#include <gtest/gtest.h>

#include <cmath>

#include "core/text_ir.h"
#include "verifier/differential.h"

namespace pet::testing {
namespace {

// An output of `size` elements of magnitude `magnitude`, one of them cancelled to zero.
Tensor output_with_zero(float magnitude, int64_t size) {
  std::vector<float> values(static_cast<size_t>(size));
  for (size_t i = 0; i < values.size(); ++i) values[i] = (i % 2 ? -1.0f : 1.0f) * magnitude;
  values[0] = 0;
  return Tensor::f32(Shape({size}), values);
}

TEST(DifferentialTolerance, RoundingNearZeroInALargeOutputPasses) {
  Tensor expected = output_with_zero(4096, 64), actual = expected;
  actual.mutable_f32()[0] = 0.001953125f;  // one float32 ulp of 4096 (a different summation order)
  OutputDifference difference = compare_outputs("y", expected, actual, Tolerance{});
  EXPECT_TRUE(difference.passed);
  EXPECT_EQ(difference.max_abs_error, 0.001953125);
}

TEST(DifferentialTolerance, TheSameErrorInASmallOutputFails) {
  Tensor expected = output_with_zero(0.5f, 64), actual = expected;
  actual.mutable_f32()[0] = 0.001953125f;
  OutputDifference difference = compare_outputs("y", expected, actual, Tolerance{});
  EXPECT_FALSE(difference.passed);
  EXPECT_EQ(difference.elements_outside, 1);
}

TEST(DifferentialTolerance, AWrongElementInALargeOutputFails) {
  Tensor expected = output_with_zero(4096, 64), actual = expected;
  actual.mutable_f32()[3] += 8;  // far beyond the rounding of terms of this size
  EXPECT_FALSE(compare_outputs("y", expected, actual, Tolerance{}).passed);
}

Tensor values(std::vector<float> list) { return Tensor::f32(Shape({static_cast<int64_t>(list.size())}), list); }

// Before: a +-Inf original accepted anything (the relative tolerance of |Inf| is Inf), and NaN
// positions were skipped. After: non-finite elements must match in kind, and are counted.
TEST(DifferentialNonFinite, KindsMustMatchExactly) {
  const float inf = INFINITY, nan = NAN;
  struct Case {
    std::vector<float> expected, actual;
    bool passed;
    int64_t nonfinite, mismatches;
  };
  for (const Case& c : std::vector<Case>{{{inf, 1}, {inf, 1}, true, 1, 0},
                                         {{-inf, 1}, {-inf, 1}, true, 1, 0},
                                         {{nan, 1}, {nan, 1}, true, 1, 0},
                                         {{inf, 1}, {5, 1}, false, 1, 1},
                                         {{inf, 1}, {-inf, 1}, false, 1, 1},
                                         {{inf, 1}, {nan, 1}, false, 1, 1},
                                         {{nan, 1}, {0, 1}, false, 1, 1},
                                         {{2, 1}, {nan, 1}, false, 0, 1},
                                         {{2, 1}, {inf, 1}, false, 0, 1},
                                         {{nan, inf, -inf}, {nan, inf, -inf}, true, 3, 0}}) {
    OutputDifference difference = compare_outputs("y", values(c.expected), values(c.actual), Tolerance{});
    SCOPED_TRACE(::testing::PrintToString(c.expected) + " vs " + ::testing::PrintToString(c.actual));
    EXPECT_EQ(difference.passed, c.passed);
    EXPECT_EQ(difference.nonfinite_expected, c.nonfinite);
    EXPECT_EQ(difference.nonfinite_mismatches, c.mismatches);
    EXPECT_EQ(difference.elements_outside, c.mismatches);
    if (c.passed) {
      EXPECT_EQ(difference.max_abs_error, 0);
    }
  }
}

// y = x / 0 is +-Inf (or NaN) at every element on any inputs: agreeing on it proves nothing.
TEST(DifferentialNonFinite, AnOriginalNonFiniteEverywhereIsInconclusive) {
  Graph original = parse_graph(R"(graph "div0" opset 13 {
    input %x : f32[2,8]
    const %zero : f32[8] = [0,0,0,0,0,0,0,0]
    %y = Div(%x, %zero)
    output %y
  })");
  DifferentialReport report = differential(original, original, 7);  // before: passed with error 0
  EXPECT_FALSE(report.passed);
  EXPECT_TRUE(report.inconclusive);
  EXPECT_EQ(report.input_range, kRedrawInputRange);
  EXPECT_EQ(report.outputs[0].nonfinite_expected, 16);
  EXPECT_EQ(report.failure_reason(),
            "check inconclusive: the original's output 'y' is NaN or infinite at every element, even on inputs drawn "
            "from [-0.015625, 0.015625), so comparing it proves nothing");
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.summary().find("check FAILED (seed 7): check inconclusive"), std::string::npos) << report.summary();
}

// exp(100 x) summed over 64 draws from [-1, 1) overflows; from [-1/64, 1/64) it does not.
TEST(DifferentialNonFinite, SmallerInputsRescueACheckThatOverflowedEverywhere) {
  Graph original = parse_graph(R"(graph "exp" opset 13 {
    input %x : f32[1,64]
    const %hundred : f32[1] = [100]
    const %ones : f32[64,1] = [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]
    %s = Mul(%x, %hundred)
    %e = Exp(%s)
    %y = MatMul(%e, %ones)
    output %y
  })");
  DifferentialReport report = differential(original, original, 3);
  EXPECT_TRUE(report.passed) << report.summary();
  EXPECT_FALSE(report.inconclusive);
  EXPECT_EQ(report.input_range, kRedrawInputRange);
  EXPECT_EQ(report.outputs[0].nonfinite_expected, 0);
  EXPECT_EQ(report.summary(),
            "check passed (max abs error 0, seed 3); the same graph as the original, so not run again; warning: the "
            "original's output 'y' was NaN or infinite at every "
            "element on inputs drawn from [-1, 1); redrawn from [-0.015625, 0.015625)");
}

// A wrong optimized program is still caught after the redraw.
TEST(DifferentialNonFinite, ARedrawnCheckStillCatchesAWrongProgram) {
  const char* text = R"(graph "exp" opset 13 {
    input %x : f32[1,64]
    const %k : f32[1] = [K]
    %s = Mul(%x, %k)
    %e = Exp(%s)
    %y = ReduceSum[axes=[1], keepdims=1](%e)
    output %y
  })";
  auto with = [&](const std::string& k) {
    std::string ir = text;
    ir.replace(ir.find("[K]"), 3, "[" + k + "]");
    return parse_graph(ir);
  };
  DifferentialReport report = differential(with("100"), with("200"), 3);
  EXPECT_FALSE(report.passed);
  EXPECT_FALSE(report.inconclusive);
  EXPECT_EQ(report.warnings.size(), 1u);
  EXPECT_EQ(report.failure_reason().rfind("the optimized model computes different values", 0), 0u) << report.failure_reason();
}

const char* kScaledConv = R"(graph "scaled" opset 13 {
    input %x : f32[1,2,5,5]
    const %w : f32[3,2,3,3] = random(7)
    const %s : f32[1] = [0.5]
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %y = Mul(%c, %s)
    output %y
  })";

// The same graph: a copy (or a parse of the same text) is it; a changed attribute, a changed weight
// or a changed small constant is not.
TEST(SameGraph, ACopyIsTheSameGraphAndAnyChangeOfOpAttributeOrWeightIsNot) {
  Graph original = parse_graph(kScaledConv);
  Graph copy = original;
  EXPECT_TRUE(same_graph(original, copy));
  EXPECT_TRUE(same_graph(original, parse_graph(kScaledConv)));

  std::string padded = kScaledConv;
  padded.replace(padded.find("pads=[1,1,1,1]"), 14, "pads=[1,1,1,0]");
  EXPECT_FALSE(same_graph(original, parse_graph(padded)));

  std::string scale = kScaledConv;
  scale.replace(scale.find("[0.5]"), 5, "[0.25]");
  EXPECT_FALSE(same_graph(original, parse_graph(scale)));

  Graph reweighted = original;
  reweighted.mutable_value(*reweighted.find_value("w")).constant->mutable_f32()[5] += 1e-3f;  // copy on write
  EXPECT_FALSE(same_graph(original, reweighted));
  EXPECT_TRUE(same_graph(original, Graph(original))) << "the original's weights were not touched";
}

// Before: pet-opt ran the written graph on every draw even when it was the input unchanged. After:
// the input's own graph is reported as the same graph, with the original's outputs (error 0);
// anything else is compared. (That the executor is not called a second time is not observable here:
// the executor keeps no count of its runs.)
TEST(SameGraph, TheOriginalsOwnGraphIsReportedAsSuchAndAChangedOneIsCompared) {
  Graph original = parse_graph(kScaledConv);
  ReferenceOutputs reference(original);
  DifferentialReport same = differential(original, Graph(original), 11, {}, &reference);
  EXPECT_TRUE(same.passed);
  EXPECT_TRUE(same.same_graph);
  EXPECT_EQ(same.max_abs_error(), 0);
  EXPECT_EQ(same.summary(), "check passed (max abs error 0, seed 11); the same graph as the original, so not run again");
  EXPECT_EQ(reference.runs(), 1) << "the original runs once on the draw";

  std::string scale = kScaledConv;
  scale.replace(scale.find("[0.5]"), 5, "[0.25]");
  DifferentialReport changed = differential(original, parse_graph(scale), 11, {}, &reference);
  EXPECT_FALSE(changed.same_graph);
  EXPECT_FALSE(changed.passed) << "a changed scale computes other values";
  EXPECT_EQ(reference.runs(), 1) << "the draw's original outputs are reused";
}

}  // namespace
}  // namespace pet::testing
