// A temporary folder only its owner writes to, removed with it (the models a runtime times, a test
// process's cache): one mkdtemp under $TMPDIR, else /tmp.
#pragma once

#include <filesystem>
#include <string>

namespace pet {

class TemporaryFolder {
 public:
  // Makes <TMPDIR>/<prefix>-XXXXXX; UserError naming `what` and TMPDIR when it cannot.
  TemporaryFolder(const std::string& prefix, const std::string& what);
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pet
