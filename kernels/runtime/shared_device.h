// One device shared by several processes (a GPU under the pet-gpu workers of concurrent pet-opt
// --live runs): an exclusive lock on a file, held around device work only, so that one process's
// host work (reading, importing and preparing models) runs while another's times.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "core/file_lock.h"

namespace pet::runtime {

class SharedDevice {
 public:
  // The device held while it is in scope; nothing where there is no lock file.
  class Hold {
   public:
    Hold(Hold&&) = delete;
    ~Hold();

   private:
    friend class SharedDevice;
    explicit Hold(SharedDevice* device);
    SharedDevice* device_;
    std::optional<FileLock> lock_;
    std::chrono::steady_clock::time_point taken_;
  };

  SharedDevice() = default;  // not shared: hold() takes nothing
  explicit SharedDevice(std::string lock_path) : lock_path_(std::move(lock_path)) {}

  bool shared() const { return !lock_path_.empty(); }
  // Waits for the lock (UserError naming the file where it cannot be taken), counted in the waits.
  Hold hold() { return Hold(this); }
  // "GPU lock: N holds, waited W s, held H s" (empty where not shared), for a worker's activity line.
  std::string describe() const;

 private:
  std::string lock_path_;
  int holds_ = 0;
  double waited_s_ = 0, held_s_ = 0;
};

}  // namespace pet::runtime
