// What one pet-opt run is asked to do: the model and outputs, the import options and the
// pipeline's options, as the flags (tools/opt_flags.h) set them.
#pragma once

#include <string>
#include <vector>

#include "core/onnx_import.h"
#include "search/pipeline.h"
#include "tools/model_format.h"

namespace pet {

struct OptRequest {
  std::string model;
  std::string output;                   // -o; empty until parse_request fills the default
  std::string report;                   // --report; likewise
  std::vector<std::string> data_files;  // the model's external data files (model_data_files), read once
  ImportOptions import;
  OptimizeOptions optimize;
  bool report_times = false;            // wall-clock times make the report differ from run to run
  std::vector<std::string> passes;      // --passes: run only these, in order (no search, no report)
  bool emit_ir = false;                 // --emit-ir: write textual IR whatever the output's name
  std::string emit_kernels;             // --emit-kernels DIR: the corrections as CUDA sources (GPU targets)

  bool writes_ir() const { return emit_ir || is_textual_ir_path(output); }
};

}  // namespace pet
