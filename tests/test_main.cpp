// The main of every test binary: each test process gets a cache folder of its own, so no test reads
// or writes the user's profile DB, proof store or kernel store (~/.cache/pet) or one the caller
// names in PET_PROFILE_DB, PET_PROOF_CACHE or PET_GPU_KERNEL_CACHE.
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/temporary_folder.h"

int main(int argc, char** argv) {
  pet::TemporaryFolder cache("pet-test-cache", "this test process's cache");
  setenv("XDG_CACHE_HOME", cache.path().c_str(), 1);
  unsetenv("PET_PROFILE_DB");
  unsetenv("PET_PROOF_CACHE");
  unsetenv("PET_GPU_KERNEL_CACHE");
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
