// Graph -> ONNX: standard ops only, the graph's opset kept, checked by the ONNX checker.
#pragma once

#include <string>

#include "core/graph.h"

namespace onnx {
class ModelProto;
}

namespace pet {

// Builds the model; an exported model that fails the ONNX checker is an InternalError.
void export_onnx_proto(const Graph& graph, onnx::ModelProto& model);
// The model as serialized ONNX bytes (every weight inside), as runtimes read it from memory.
std::string serialize_onnx(const Graph& graph);
// Writes the model to `path` atomically (file_safety.h); UserError when the file cannot be written.
void export_onnx(const Graph& graph, const std::string& path);

}  // namespace pet
