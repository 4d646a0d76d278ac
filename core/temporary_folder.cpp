// mkdtemp under $TMPDIR, and the folder removed with everything in it when its owner goes.
#include "core/temporary_folder.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

TemporaryFolder::TemporaryFolder(const std::string& prefix, const std::string& what) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    throw UserError(fmt::format("cannot create a temporary folder '{}' for {} ({}); set TMPDIR to a writable folder",
                                pattern, what, std::strerror(errno)));
  path_ = pattern;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace pet
