// pet's per-user cache folder from the environment.
#include "core/user_cache.h"

#include <cstdlib>

namespace pet {

std::filesystem::path user_cache_folder() {
  std::filesystem::path folder;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    folder = cache;
  else if (const char* home = std::getenv("HOME"); home && *home)
    folder = std::filesystem::path(home) / ".cache";
  else
    folder = std::filesystem::temp_directory_path();
  return folder / "pet";
}

}  // namespace pet
