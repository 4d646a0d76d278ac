// SharedDevice: the lock file taken around device work, and the time spent waiting for and holding it.
#include "kernels/runtime/shared_device.h"

#include <fmt/format.h>

namespace pet::runtime {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SharedDevice::Hold::Hold(SharedDevice* device) : device_(device) {
  if (!device_->shared()) return;
  auto asked = std::chrono::steady_clock::now();
  lock_.emplace(device_->lock_path_, "pet-gpu worker's GPU lock");
  device_->waited_s_ += seconds_since(asked);
  device_->holds_ += 1;
  taken_ = std::chrono::steady_clock::now();
}

SharedDevice::Hold::~Hold() {
  if (lock_) device_->held_s_ += seconds_since(taken_);
}

std::string SharedDevice::describe() const {
  if (!shared()) return "";
  return fmt::format("GPU lock: {} holds, waited {:.1f} s, held {:.1f} s", holds_, waited_s_, held_s_);
}

}  // namespace pet::runtime
