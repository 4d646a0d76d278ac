// pet-opt's two file formats: ONNX, and the textual IR (core/text_ir.h) for a file whose name
// ends in .pet or .ir, read and written with every constant's values so a written file reads back.
#pragma once

#include <string>

#include "core/graph.h"
#include "core/onnx_import.h"

namespace pet {

// Whether `path` names a textual IR file: its extension is .pet or .ir (the content is not sniffed).
bool is_textual_ir_path(const std::string& path);

// The model at `path`: parsed textual IR (UserError with the path and the line on bad text, or for
// --input-shape, which IR's static shapes do not take), else imported ONNX.
Graph read_model(const std::string& path, const ImportOptions& options);

// The graph as textual IR with every constant's values inline, so parsing it gives the same graph.
std::string textual_ir(const Graph& graph);

}  // namespace pet
