// The textual IR is chosen by the file name alone, so what pet-opt does never depends on content.
#include "tools/model_format.h"

#include <cstdint>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_safety.h"
#include "core/text_ir.h"

namespace pet {

bool is_textual_ir_path(const std::string& path) {
  std::string extension = std::filesystem::path(path).extension().string();
  return extension == ".pet" || extension == ".ir";
}

Graph read_model(const std::string& path, const ImportOptions& options) {
  if (!is_textual_ir_path(path)) return import_onnx(path, options);
  if (!options.input_shapes.empty())
    throw UserError(fmt::format("--input-shape: '{}' is textual IR, whose inputs have static shapes already; "
                                "drop the flag or edit the input's type in the file",
                                path));
  std::string text = read_whole_file(path, "model file");
  try {
    return parse_graph(text);
  } catch (const UserError& error) {  // the parser knows the line, the edge knows the file
    throw UserError(fmt::format("{}: {}", path, error.what()));
  }
}

std::string textual_ir(const Graph& graph) {
  return print_graph(graph, PrintOptions{std::numeric_limits<int64_t>::max(), false});
}

}  // namespace pet
