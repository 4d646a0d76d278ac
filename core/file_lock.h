// An exclusive advisory lock (flock) on a file, held for a scope: the profile DB's read-merge-write,
// and one GPU shared by several pet-gpu workers (PET_GPU_LOCK).
#pragma once

#include <string>

namespace pet {

class FileLock {
 public:
  // Creates `path` when absent and waits for the lock. UserError beginning with `owner` ("profile DB
  // 'x.json'") when the file cannot be created or locked.
  FileLock(const std::string& path, const std::string& owner);
  ~FileLock();  // closing the file releases the lock
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace pet
