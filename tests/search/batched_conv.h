// A model the search's corrected-mutant tests share: its partial mutants need seam corrections.
#pragma once

namespace pet::testing {

// A batch-2 3x3 conv with bias at 56x56 (ResNet's first stage), then a ReLU: stacking the images
// along H (N2H) is wrong only on the seam rows, which the corrections recompute.
inline constexpr const char* kBatchedConv = R"(graph "batched" opset 13 {
  input %x : f32[2,64,56,56]
  const %w : f32[64,64,3,3] = random(1)
  const %b : f32[64] = random(2)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w, %b) : f32[2,64,56,56]
  %r = Relu(%c) : f32[2,64,56,56]
  output %r
}
)";

}  // namespace pet::testing
