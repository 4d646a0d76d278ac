// Template lookup and assembly of the hand-written kernels.
#include "kernels/gpu/codegen/handwritten.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu::codegen {

std::string_view handwritten_source(std::string_view name) {
  for (size_t k = 0; k < kHandwrittenSourceCount; ++k)
    if (name == kHandwrittenSources[k].name) return kHandwrittenSources[k].text;
  PET_CHECK(false, fmt::format("no hand-written kernel template {}.cu", name));
  return {};
}

GeneratedKernel template_kernel(const TemplateKernel& kernel) {
  std::string text = fmt::format("// pet-gpu {}: {}\nusing index = {};\n", kernel.family, kernel.summary,
                                 index_type(kernel.largest, kernel.launch));
  for (const std::string& constant : kernel.constants) text += constant + "\n";
  for (const std::string& name : kernel.libraries) text += "\n" + std::string(handwritten_source(name));
  text += "\n" + kernel.functions;
  text += "\n" + std::string(handwritten_source(kernel.kernel_template));
  return name_kernel(kernel.family, std::move(text), kernel.arguments, kernel.launch);
}

std::string index_constant(const std::string& name, int64_t value) {
  return fmt::format("constexpr index {} = {};", name, value);
}

std::string bool_constant(const std::string& name, bool value) {
  return fmt::format("constexpr bool {} = {};", name, value);
}

std::string float_constant(const std::string& name, double value) {
  PET_CHECK(std::isfinite(static_cast<float>(value)),
            "a float constant must be finite (its literal is then constexpr)");
  return fmt::format("constexpr float {} = {};", name, float_literal(value));
}

LaunchShape block_per_item_launch(int64_t items, int64_t block) {
  return {std::clamp<int64_t>(items, 1, kMaxGridBlocks), block};
}

}  // namespace pet::gpu::codegen
