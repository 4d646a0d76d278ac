// A temporary folder private to this test process and removed when it exits, so tests that ctest
// runs in parallel (or two test runs on one machine) never read each other's half-written files.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace pet::testing {

class PrivateTempDir {
 public:
  PrivateTempDir()
      : path_(std::filesystem::temp_directory_path() / ("pet-tests-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~PrivateTempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline const std::filesystem::path& private_temp_dir() {
  static const PrivateTempDir dir;
  return dir.path();
}

}  // namespace pet::testing
