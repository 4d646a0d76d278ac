// The corrected seam conv the runtime tests run: a batch-to-height mutant of a conv whose two seam
// rows are recomputed and written back while the stack is laid out into a batch, then a ReLU.
#pragma once

#include <string>

namespace pet::runtime {

// What fuse_corrections makes of a batch-to-height mutant (tests/corrector/fuse_corrections_test),
// its correction written in `lowering` (core/ops/patch_lowering.h; empty: the default).
inline std::string corrected_conv_ir(const std::string& lowering = "") {
  std::string attribute = lowering.empty() ? "" : "lowering=\"" + lowering + "\", ";
  return R"(graph "corrected" opset 13 {
  input %x : f32[2,4,16,8]
  const %w : f32[4,4,3,3] = random(3)
  %stack = Layout[expanded=[2,1,4,16,8], groups=[1,1,2,1], perm=[1,2,0,3,4]](%x) : f32[1,4,32,8]
  %conv = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%stack, %w) : f32[1,4,32,8]
  %slice0 = Slice[ends=[1,4,16,8], starts=[0,0,14,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %row0 = Conv[dilations=[1,1], group=1, pads=[0,1,1,1], strides=[1,1]](%slice0, %w) : f32[1,4,1,8]
  %slice1 = Slice[ends=[2,4,2,8], starts=[1,0,0,0], steps=[1,1,1,1]](%x) : f32[1,4,2,8]
  %row1 = Conv[dilations=[1,1], group=1, pads=[1,1,0,1], strides=[1,1]](%slice1, %w) : f32[1,4,1,8]
  %y = LayoutOverwrite[activation="relu", expanded=[1,4,2,16,8], groups=[2,1,1,1], )" +
         attribute + R"(offsets=[0,0,15,0,1,0,0,0], perm=[2,0,1,3,4]](%conv, %row0, %row1) : f32[2,4,16,8]
  output %y
}
)";
}

// The original: the plain conv on each image, then the ReLU.
inline constexpr const char* kOriginalConv = R"(graph "original" opset 13 {
  input %x : f32[2,4,16,8]
  const %w : f32[4,4,3,3] = random(3)
  %c = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w) : f32[2,4,16,8]
  %y = Relu(%c) : f32[2,4,16,8]
  output %y
}
)";

}  // namespace pet::runtime
