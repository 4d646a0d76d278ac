// The main of every test binary: each test process gets a cache folder of its own, so no test reads
// or writes the user's profile DB (~/.cache/pet) or a DB the caller names in PET_PROFILE_DB.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

int main(int argc, char** argv) {
  std::string folder = (std::filesystem::temp_directory_path() / "pet-test-cache-XXXXXX").string();
  if (mkdtemp(folder.data()) == nullptr) {
    std::perror("pet test main: mkdtemp");
    return 1;
  }
  setenv("XDG_CACHE_HOME", folder.c_str(), 1);
  unsetenv("PET_PROFILE_DB");
  testing::InitGoogleTest(&argc, argv);
  int status = RUN_ALL_TESTS();
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
  return status;
}
