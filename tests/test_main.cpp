// The main of every test binary: each test process gets a cache folder of its own, so no test reads
// or writes the user's profile DB or proof store (~/.cache/pet) or one the caller names in
// PET_PROFILE_DB or PET_PROOF_CACHE.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/temporary_folder.h"

int main(int argc, char** argv) {
  pet::TemporaryFolder cache("pet-test-cache", "this test process's cache");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  unsetenv("PET_PROFILE_DB");
  unsetenv("PET_PROOF_CACHE");
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
