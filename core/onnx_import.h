// ONNX -> Graph: checker, shape inference, initializers, per-op mapping and constant folding.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

struct ImportOptions {
  // Static shapes for inputs with symbolic or unknown dimensions (`--input-shape x=1x3x224x224`).
  std::map<std::string, Shape> input_shapes;
  // A weight-free model's weights (ExportOptions::weight_free) filled with their noise before the
  // import; off, such a model's weights have no values and it is refused as any model would be.
  bool fill_random_weights = false;

  // What a runtime that times models imports them with: weights filled, shapes as written.
  static ImportOptions weights_filled() { return {.input_shapes = {}, .fill_random_weights = true}; }
};

// Imports a model file. Every problem with the model is a UserError that names the file and,
// where one is at fault, the node, its op type and the opset, and says what to do.
Graph import_onnx(const std::string& path, const ImportOptions& options = {});
// The same from serialized bytes in memory (a runtime's model, every weight inside), `name` taking
// the file's place in messages ("model 2"). A model that names external data is a UserError.
Graph import_onnx_bytes(const std::string& bytes, const std::string& name, const ImportOptions& options = {});

// How many weights this process's imports filled by drawing them, and how many it found drawn before
// (each weight is drawn once per seed, scale and shape, while a bounded memo holds it).
struct RandomWeightDraws {
  int64_t drawn = 0;
  int64_t reused = 0;
};
RandomWeightDraws random_weight_draws();
// "weights filled: N drawn, M reused": how a runtime's activity line says them.
std::string describe(const RandomWeightDraws& draws);

// The external data files the model at `path` names, each checked to lie inside the model's folder
// tree (UserError otherwise), without reading them: the inputs a tool must never overwrite.
std::vector<std::string> model_data_files(const std::string& path);

// Parses "name=1x3x224x224" as given to --input-shape; UserError on bad syntax.
std::pair<std::string, Shape> parse_input_shape(const std::string& text);

// Oldest and newest default-domain opsets the importer understands.
inline constexpr int kMinOpset = 6;  // opset 6 for the legacy pytorch-converted tests
inline constexpr int kMaxOpset = 21;
// Newest opset and IR version the linked ONNX library (Debian's 1.12) can check and shape-infer.
inline constexpr int kMaxLibraryOpset = 17;
inline constexpr int64_t kMaxLibraryIrVersion = 8;

}  // namespace pet
