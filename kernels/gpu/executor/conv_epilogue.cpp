// The conv epilogue's text: the channel of element i of an N x C x spatial tensor is
// (i / spatial) % C, with every extent a literal.
#include "kernels/gpu/executor/conv_epilogue.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace pet::gpu {

codegen::GeneratedKernel conv_epilogue_kernel(const ConvConfig& config) {
  PET_CHECK(config.bias != kNoValue || config.residual != kNoValue || config.relu,
            "a conv epilogue with nothing to do");
  int64_t spatial = 1;
  for (size_t d = 2; d < config.output.size(); ++d) spatial *= config.output[d];
  codegen::GridStrideKernel kernel{
      "conv_epilogue", "", "", {}, {}, config.output_elements(), config.output_elements(), "    float v = out0[i];\n"};
  std::vector<std::string> terms;
  auto add_input = [&](ValueId value, const std::string& use, const std::string& term) {
    std::string name = fmt::format("in{}", kernel.parameters.size());
    kernel.parameters.push_back(codegen::pointer_parameter(DType::f32, name, codegen::ArgumentAccess::read));
    kernel.arguments.push_back({value, codegen::ArgumentAccess::read});
    kernel.body += fmt::format("    v += {}[{}];\n", name, use);
    terms.push_back(term);
  };
  if (config.bias != kNoValue) add_input(config.bias, fmt::format("(i / {}) % {}", spatial, config.channels()), "bias");
  if (config.residual != kNoValue) add_input(config.residual, "i", "residual");
  if (config.relu) {
    kernel.body += "    v = fmaxf(v, 0.0f);\n";
    terms.push_back("relu");
  }
  kernel.body += "    out0[i] = v;\n";
  kernel.parameters.push_back(codegen::pointer_parameter(DType::f32, "out0", codegen::ArgumentAccess::write));
  kernel.arguments.push_back({config.y, codegen::ArgumentAccess::write});
  kernel.summary = fmt::format("{} on f32[{}] in place", fmt::join(terms, " + "), fmt::join(config.output, ","));
  return codegen::grid_stride_kernel(kernel);
}

}  // namespace pet::gpu
