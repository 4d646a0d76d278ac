// Literals, element types, names and the grid-stride frame shared by every generated kernel.
#include "kernels/gpu/codegen/kernel_text.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/hash.h"

namespace pet::gpu::codegen {

std::string LaunchShape::to_string() const { return fmt::format("grid {}, block {}", grid, block); }

LaunchShape elementwise_launch(int64_t elements, int64_t block) {
  PET_CHECK(block > 0, "a launch needs a positive block size");
  return {std::clamp<int64_t>((elements + block - 1) / block, 1, kMaxGridBlocks), block};
}

int64_t reduction_block(int64_t count, int64_t limit) {
  int64_t warps = std::max<int64_t>(1, (std::min(count, limit) + 31) / 32);
  return warps * 32;
}

std::string register_type(DType type) {
  switch (type) {
    case DType::f32:
      return "float";
    case DType::i64:
      return "long long";
    case DType::boolean:
      return "bool";
    default:
      break;  // the plan refuses other element types (op_support.cpp)
  }
  PET_CHECK(false, "no GPU register type for " + std::string(dtype_name(type)));
  return "";
}

std::string memory_type(DType type) { return type == DType::boolean ? "unsigned char" : register_type(type); }

std::string load_as_register(DType type, const std::string& memory_expression) {
  return type == DType::boolean ? fmt::format("({} != 0)", memory_expression) : memory_expression;
}

std::string store_as_memory(DType type, const std::string& register_expression) {
  return type == DType::boolean ? fmt::format("static_cast<unsigned char>({})", register_expression)
                                : register_expression;
}

std::string float_literal(double value) {
  auto single = static_cast<float>(value);
  if (std::isnan(single)) return "__int_as_float(0x7fc00000)";
  if (std::isinf(single)) return single > 0 ? "__int_as_float(0x7f800000)" : "__int_as_float(0xff800000)";
  return fmt::format("({:.9e}f)", single);
}

std::string typed_literal(DType type, double value) {
  switch (type) {
    case DType::f32:
      return float_literal(value);
    case DType::boolean:
      return value != 0.0 ? "true" : "false";
    case DType::i64: {
      PET_CHECK(std::abs(value) < 9.2e18, "an i64 literal out of range");
      auto integer = static_cast<int64_t>(value);
      return integer < 0 ? fmt::format("(-{}LL)", -integer) : fmt::format("{}LL", integer);
    }
    default:
      break;  // the plan refuses other element types (op_support.cpp)
  }
  PET_CHECK(false, "no GPU literal for " + std::string(dtype_name(type)));
  return "";
}

std::string pointer_parameter(DType type, const std::string& name, ArgumentAccess access) {
  return fmt::format("{}{}* __restrict__ {}", access == ArgumentAccess::read ? "const " : "", memory_type(type), name);
}

bool fits_int32(int64_t largest, const LaunchShape& launch) {
  return largest + launch.grid * launch.block < std::numeric_limits<int32_t>::max();
}

std::string index_type(int64_t largest, const LaunchShape& launch) {
  return fits_int32(largest, launch) ? "int" : "long long";
}

GeneratedKernel name_kernel(const std::string& family, std::string text, std::vector<KernelArgument> arguments,
                            LaunchShape launch) {
  Hasher hasher;
  hasher.add(family);
  hasher.add(text);
  std::string name = fmt::format("pet_gpu_{}_{:016x}", family, hasher.value());
  size_t at = text.find(kKernelNameToken);
  PET_CHECK(at != std::string::npos, "a kernel's text has no place for its name");
  text.replace(at, std::string(kKernelNameToken).size(), name);
  PET_CHECK(text.find(kKernelNameToken) == std::string::npos, "a kernel's text names two kernels");
  return {std::move(name), std::move(text), std::move(arguments), launch};
}

GeneratedKernel grid_stride_kernel(const GridStrideKernel& kernel) {
  PET_CHECK(kernel.parameters.size() == kernel.arguments.size(), "kernel parameters and arguments differ in number");
  LaunchShape launch = elementwise_launch(kernel.elements);
  std::string text = fmt::format(
      "// pet-gpu {}: {}\n"
      "{}extern \"C\" __global__ void __launch_bounds__({}) {}({}) {{\n"
      "  using index = {};\n"
      "  for (index i = static_cast<index>(blockIdx.x) * static_cast<index>(blockDim.x) + "
      "static_cast<index>(threadIdx.x);\n"
      "       i < {}; i += static_cast<index>(gridDim.x) * static_cast<index>(blockDim.x)) {{\n"
      "{}"
      "  }}\n"
      "}}\n",
      kernel.family, kernel.summary, kernel.helpers, launch.block, kKernelNameToken, fmt::join(kernel.parameters, ", "),
      index_type(std::max(kernel.largest, kernel.elements), launch), kernel.elements, kernel.body);
  return name_kernel(kernel.family, std::move(text), kernel.arguments, launch);
}

}  // namespace pet::gpu::codegen
