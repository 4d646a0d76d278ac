// The small models the runtime tests time and run, and their serialized ONNX form.
#pragma once

#include <string>

#include "core/onnx_export.h"
#include "core/text_ir.h"

namespace pet::runtime {

// An Add of a constant and its Relu over 64 floats: two nodes, one weight.
inline const char* kAddRelu = R"(graph "add_relu" opset 13 {
  input %x : f32[1,64]
  const %b : f32[64] = random(3)
  %y = Add(%x, %b) : f32[1,64]
  %z = Relu(%y) : f32[1,64]
  output %z
})";

// Textual IR as the ONNX bytes a runtime is given.
inline std::string serialized(const std::string& ir) { return serialize_onnx(parse_graph(ir), {}); }

}  // namespace pet::runtime
