// pet's per-user cache folder, where measured times and instance proofs are kept between runs.
#pragma once

#include <filesystem>

namespace pet {

// $XDG_CACHE_HOME/pet, else ~/.cache/pet, else pet/ in the temporary folder (not created here).
std::filesystem::path user_cache_folder();

}  // namespace pet
