// Which CUDA libraries this process actually loaded, and from where: the device's own copies differ
// from the ones pet was compiled against, so a measurement names what ran.
#pragma once

#include <string>
#include <vector>

namespace pet {

struct LoadedLibrary {
  std::string name;  // the file name, e.g. "libcudnn.so.9"
  std::string path;  // as the dynamic loader resolved it
};

// The loaded shared objects whose file names start with libcudart, libcublas, libcublasLt,
// libcudnn, libnvrtc or libcuda, in load order. cuDNN and NVRTC open parts of themselves lazily, so
// call this after the work whose libraries it should name.
std::vector<LoadedLibrary> loaded_cuda_libraries();

// One "name path" line per library.
std::string format_loaded_libraries(const std::vector<LoadedLibrary>& libraries);

}  // namespace pet
