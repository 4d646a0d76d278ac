// Region rules through correct(): against a candidate that is zero everywhere, every random box
// the corrections cover must come back equal to the original, for each op family with a rule
// (1-3-D grouped/strided/dilated/padded Conv with bias, broadcasting MatMul, Gemm, elementwise)
// and for the whole-tensor fallback (Transpose).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/executor.h"
#include "core/text_ir.h"
#include "corrector/correct.h"

namespace pet::corrector {
namespace {

// The original with its output multiplied by zero: wrong wherever the original is not zero.
Graph zeroed(const Graph& original) {
  Graph candidate = original;
  ValueId zero = candidate.add_constant("zero", Tensor::scalar_f32(0));
  candidate.set_outputs({candidate.add_node1("Mul", {}, {original.outputs()[0], zero}, "zeroing")});
  return candidate;
}

Box random_box(const Shape& shape, std::mt19937_64& rng) {
  Box box;
  for (int d = 0; d < shape.rank(); ++d) {
    int64_t a = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[d]));
    int64_t b = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[d]));
    box.lo.push_back(std::min(a, b));
    box.hi.push_back(std::max(a, b) + 1);
  }
  return box;
}

void expect_boxes_recomputed(const std::string& text) {
  Graph original = parse_graph(text);
  Graph candidate = zeroed(original);
  const Shape& shape = original.value(original.outputs()[0]).type.shape;
  std::mt19937_64 rng(7);
  std::vector<Tensor> inputs = random_inputs(original, 3);
  Tensor want = execute(original, inputs)[0];
  for (int round = 0; round < 20; ++round) {
    Verdict verdict;
    verdict.kind = VerdictKind::Partial;
    verdict.incorrect_boxes = {{random_box(shape, rng), random_box(shape, rng)}};
    CorrectedProgram corrected = correct(original, candidate, verdict);
    Tensor got = execute(corrected.program, inputs)[0];
    std::vector<int64_t> index(static_cast<size_t>(shape.rank()));
    for (int64_t i = 0; i < want.numel(); ++i) {
      int64_t rest = i;
      for (int d = shape.rank() - 1; d >= 0; --d) index[static_cast<size_t>(d)] = rest % shape[d], rest /= shape[d];
      bool inside = verdict.incorrect_boxes[0][0].contains(index) || verdict.incorrect_boxes[0][1].contains(index);
      auto at = static_cast<size_t>(i);
      if (inside && std::abs(want.f32()[at] - got.f32()[at]) > 1e-5f * std::max(1.0f, std::abs(want.f32()[at]))) {
        ADD_FAILURE() << "flat index " << i << ": " << want.f32()[at] << " vs " << got.f32()[at] << "\n"
                      << print_graph(corrected.program);
        return;
      }
    }
  }
}

TEST(ReadRegion, Conv1dGroupedStridedDilated) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %x : f32[2,4,13]
    input %w : f32[6,2,3]
    %y = Conv[dilations=[2], group=2, pads=[1,2], strides=[2]](%x, %w)
    output %y
  })");
}

TEST(ReadRegion, Conv2dWithBias) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %x : f32[2,6,9,7]
    input %w : f32[6,3,3,2]
    input %b : f32[6]
    %y = Conv[dilations=[1,2], group=2, pads=[2,0,1,1], strides=[2,1]](%x, %w, %b)
    output %y
  })");
}

TEST(ReadRegion, Conv3d) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %x : f32[1,2,5,6,4]
    input %w : f32[4,2,3,3,1]
    %y = Conv[dilations=[1,1,1], group=1, pads=[1,1,0,1,1,0], strides=[1,2,1]](%x, %w)
    output %y
  })");
}

TEST(ReadRegion, MatMulBroadcastingBatches) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %a : f32[2,1,5,4]
    input %b : f32[3,4,6]
    %y = MatMul(%a, %b)
    output %y
  })");
}

TEST(ReadRegion, MatMulWithVectors) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %a : f32[4]
    input %b : f32[2,4,3]
    %y = MatMul(%a, %b)
    output %y
  })");
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %a : f32[2,5,4]
    input %b : f32[4]
    %y = MatMul(%a, %b)
    output %y
  })");
}

TEST(ReadRegion, GemmTransposed) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %a : f32[4,5]
    input %b : f32[6,4]
    input %c : f32[6]
    %y = Gemm[alpha=0.5, beta=2, transA=1, transB=1](%a, %b, %c)
    output %y
  })");
}

TEST(ReadRegion, ElementwiseChainAndWholeTensorFallback) {
  expect_boxes_recomputed(R"(graph "g" opset 13 {
    input %x : f32[2,3,6,5]
    input %w : f32[3,3,3,3]
    input %s : f32[3,1,1]
    %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w)
    %a = Add(%c, %s)
    %r = Relu(%a)
    %t = Transpose[perm=[0,1,3,2]](%r)
    %y = Mul(%t, %t)
    output %y
  })");
}

}  // namespace
}  // namespace pet::corrector
