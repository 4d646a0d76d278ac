// Lists the CUDA libraries in this process through the dynamic loader's own list of objects.
#include "kernels/loaded_libraries.h"

#include <link.h>

#include <array>
#include <string_view>

namespace pet {
namespace {

bool is_cuda_library(std::string_view file_name) {
  static constexpr std::array<std::string_view, 5> kPrefixes = {"libcudart", "libcublas", "libcudnn", "libnvrtc",
                                                                "libcuda."};
  for (std::string_view prefix : kPrefixes) {
    if (file_name.starts_with(prefix)) return true;
  }
  return false;
}

int collect(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  auto* libraries = static_cast<std::vector<LoadedLibrary>*>(data);
  std::string_view path = info->dlpi_name == nullptr ? "" : info->dlpi_name;
  std::size_t slash = path.rfind('/');
  std::string_view file_name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (is_cuda_library(file_name)) libraries->push_back({std::string(file_name), std::string(path)});
  return 0;
}

}  // namespace

std::vector<LoadedLibrary> loaded_cuda_libraries() {
  std::vector<LoadedLibrary> libraries;
  dl_iterate_phdr(collect, &libraries);
  return libraries;
}

std::string format_loaded_libraries(const std::vector<LoadedLibrary>& libraries) {
  std::string text;
  for (const LoadedLibrary& library : libraries) text += library.name + " " + library.path + "\n";
  return text;
}

}  // namespace pet
