// pet-opt --emit-kernels DIR: each correction of the written program's partial mutants as the
// CUDA source of one fused kernel (corrector/emit_cuda.h), with a manifest a GPU runtime reads:
// the node and patch it replaces in the written model, its launch shape, its parameters and the
// boxes it fixes.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/graph.h"
#include "search/pipeline.h"

namespace pet {

// The manifest of the kernels for `written` (the program pet-opt writes) from the corrected sites
// of `history` (its transformations): one entry per correction patch found in `written`, each
// naming its kernel. A correction the emitter cannot lower (its original is not one Conv, MatMul
// or Gemm with elementwise activations) is listed under "not_emitted" with the reason. `sources`
// receives each distinct kernel's name and CUDA source, once.
nlohmann::ordered_json correction_kernel_manifest(const Graph& written, const std::vector<Transformation>& history,
                                                  std::vector<std::pair<std::string, std::string>>& sources);

// Writes the manifest (manifest.json) and each kernel's source (<kernel name>.cu) into `folder`
// (prepare_output_folder: created, or a UserError), atomically per file. Returns the number of
// kernel entries.
int write_correction_kernels(const std::string& folder, const Graph& written, const std::vector<Transformation>& history);

}  // namespace pet
