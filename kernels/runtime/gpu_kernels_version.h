// The version of pet's own GPU kernels: a hash of the plan, code generation and executor sources
// (kernels/gpu/), taken at build time, so times measured with other kernels stop matching.
#pragma once

#include <string>

namespace pet::runtime {

// 16 hex digits; equal in every tool built from the same kernels/gpu/ sources.
std::string gpu_kernels_version();
// How a GPU runtime's version names it: "kernels 0123456789abcdef".
std::string gpu_kernels_tag();

}  // namespace pet::runtime
