// The shared shape of pet-gpu's own kernels: one extern "C" __global__ CUDA C function with every
// shape baked in, named by a hash of its text, with its arguments and launch shape; and the
// printing helpers (literals, element types, the grid-stride frame) every kernel family uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/graph.h"

namespace pet::gpu::codegen {

enum class ArgumentAccess : uint8_t { read, write };

// One kernel parameter: a device pointer to a value's bytes (its storage root plus offset).
struct KernelArgument {
  ValueId value = kNoValue;  // kNoValue: an absent optional input, passed as a null pointer
  ArgumentAccess access = ArgumentAccess::read;
  bool operator==(const KernelArgument&) const = default;
};

struct LaunchShape {
  int64_t grid = 1;               // blocks (at least 1, also for empty tensors); the kernels loop over the rest
  int64_t block = 256;            // threads per block: the kernel's __launch_bounds__
  std::string to_string() const;  // "grid 3, block 256"
  bool operator==(const LaunchShape&) const = default;
};

struct GeneratedKernel {
  std::string name;                       // pet_gpu_<family>_<16 hex digits of the text's hash>: equal text, equal name
  std::string source;                     // one translation unit for NVRTC: helpers, then the one __global__ function
  std::vector<KernelArgument> arguments;  // one per parameter, in parameter order
  LaunchShape launch;
};

// More blocks than an H100 keeps resident several times over; grid-stride loops do the rest.
inline constexpr int64_t kMaxGridBlocks = 4096;
// The token a kernel's text carries where its name goes (the name hashes the rest of the text).
inline constexpr const char* kKernelNameToken = "PET_KERNEL_NAME";

// One thread per element in blocks of `block`, at most kMaxGridBlocks blocks.
LaunchShape elementwise_launch(int64_t elements, int64_t block = 256);

// Threads for one block that reduces `count` elements: a whole number of warps, 32 to `limit`.
int64_t reduction_block(int64_t count, int64_t limit = 256);

// The C type a kernel keeps an element in ("float", "long long", "bool") and the one it reads
// and writes in memory ("float", "long long", "unsigned char": pet stores bool as one byte).
std::string register_type(DType type);
std::string memory_type(DType type);

// A value read from memory as its register type, and a register value as its memory type.
std::string load_as_register(DType type, const std::string& memory_expression);
std::string store_as_memory(DType type, const std::string& register_expression);

// A float literal that round-trips through float ("(1.500000000e+00f)"); infinities and NaN as
// bit patterns, which need no header.
std::string float_literal(double value);
// An element of `type` as a literal of its register type.
std::string typed_literal(DType type, double value);

// "const float* __restrict__ in0" / "float* __restrict__ out0".
std::string pointer_parameter(DType type, const std::string& name, ArgumentAccess access);

// Whether `index` may be a 32-bit int: every offset below `largest` and the loop's last step
// (`largest` plus one grid's worth of threads) stays below 2^31.
bool fits_int32(int64_t largest, const LaunchShape& launch);
std::string index_type(int64_t largest, const LaunchShape& launch);

// Replaces kKernelNameToken in `text` by pet_gpu_<family>_<hash of text>.
GeneratedKernel name_kernel(const std::string& family, std::string text, std::vector<KernelArgument> arguments,
                            LaunchShape launch);

// What a grid-stride kernel needs: one loop over `elements` with the body using `i`.
struct GridStrideKernel {
  std::string family;                     // "elementwise", "transpose", ...: the name's middle part
  std::string summary;                    // the first comment line, after "pet-gpu <family>: "
  std::string helpers;                    // __device__ functions placed before the kernel
  std::vector<std::string> parameters;    // from pointer_parameter, in order
  std::vector<KernelArgument> arguments;  // one per parameter
  int64_t elements = 0;                   // loop iterations, one per output element
  int64_t largest = 0;                    // the most elements any tensor it touches holds
  std::string body;                       // statements, indented by four spaces, using `index i`
};

// extern "C" __global__ void __launch_bounds__(block) NAME(parameters) { grid-stride loop }.
GeneratedKernel grid_stride_kernel(const GridStrideKernel& kernel);

}  // namespace pet::gpu::codegen
