// The hand-written kernels' CUDA C templates (handwritten/*.cu, embedded into the library at build
// time) and the kernel one makes once a step's constants and offset functions are put before it:
// NVRTC compiles them like every generated kernel, so one path produces CUBIN for all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/gpu/codegen/kernel_text.h"

namespace pet::gpu::codegen {

// One template file: its name without ".cu" and its text. Defined in the file embed_sources.cmake
// writes into the build folder.
struct HandwrittenSource {
  const char* name;
  const char* text;
};
extern const HandwrittenSource kHandwrittenSources[];
extern const size_t kHandwrittenSourceCount;

// The text of handwritten/<name>.cu (an internal check when there is none).
std::string_view handwritten_source(std::string_view name);

struct TemplateKernel {
  std::string family;                     // the name's middle part: "softmax", "layer_norm", "pool", "reduce"
  std::string summary;                    // the first comment line, after "pet-gpu <family>: "
  std::vector<std::string> constants;     // declarations after "using index = ...;", one per line
  std::vector<std::string> libraries;     // handwritten sources the functions and kernel use ("block_reduce")
  std::string functions;                  // what the template calls: offset functions, the fold's types
  std::string kernel_template;            // the handwritten source with the __global__ function
  std::vector<KernelArgument> arguments;  // one per template parameter
  LaunchShape launch;
  int64_t largest = 0;  // the most elements of any tensor the kernel touches
};

// "// pet-gpu <family>: <summary>", `using index`, the constants, the libraries, the functions,
// the kernel template; named by the hash of that text.
GeneratedKernel template_kernel(const TemplateKernel& kernel);

// "constexpr index kName = 12;", "constexpr bool kName = true;", "constexpr float kName = (...);"
std::string index_constant(const std::string& name, int64_t value);
std::string bool_constant(const std::string& name, bool value);
std::string float_constant(const std::string& name, double value);

// One block of `block` threads per item (line, row, slot), at most kMaxGridBlocks blocks; each
// block loops over the items gridDim.x apart.
LaunchShape block_per_item_launch(int64_t items, int64_t block);

}  // namespace pet::gpu::codegen
