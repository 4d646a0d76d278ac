// Where the executor tests find the small models in executor_models/: under $PET_SOURCE_DIR when
// set, else under the source folder this binary was built from, else under the current folder
// (the GPU session runs the kit's test binaries from a copy of the repository's root).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pet::gpu::testing {

inline std::string executor_model_path(const std::string& name) {
  namespace fs = std::filesystem;
  fs::path relative = fs::path("tests/kernels/gpu/executor_models") / (name + ".pet");
  if (const char* root = std::getenv("PET_SOURCE_DIR"); root != nullptr && *root != '\0')
    return (fs::path(root) / relative).string();
  if (fs::exists(fs::path(PET_SOURCE_DIR) / relative)) return (fs::path(PET_SOURCE_DIR) / relative).string();
  return relative.string();
}

}  // namespace pet::gpu::testing
