// How a GPU runtime's version names pet's kernels (the version itself is generated at build time).
#include "kernels/runtime/gpu_kernels_version.h"

namespace pet::runtime {

std::string gpu_kernels_tag() { return "kernels " + gpu_kernels_version(); }

}  // namespace pet::runtime
