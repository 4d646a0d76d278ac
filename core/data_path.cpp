// The data folder: $PET_DATA_DIR, else the source tree (PET_SOURCE_ROOT, set for this file alone).
#include "core/data_path.h"

#include <cstdlib>
#include <filesystem>

namespace pet {

std::string data_path(const std::string& relative) {
  const char* given = std::getenv("PET_DATA_DIR");
  std::filesystem::path root = given != nullptr && *given != '\0' ? given : PET_SOURCE_ROOT;
  return (root / relative).string();
}

}  // namespace pet
