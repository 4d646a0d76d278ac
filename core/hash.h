// A small, stable 64-bit hasher (FNV-1a with a final mix) for content and structural hashes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace pet {

class Hasher {
 public:
  void add(uint64_t value) { add_bytes(&value, sizeof value); }
  void add(std::string_view text) {
    add(static_cast<uint64_t>(text.size()));
    add_bytes(text.data(), text.size());
  }
  void add_bytes(const void* data, size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    size_t i = 0;
    for (; i + 8 <= size; i += 8) {  // word at a time: weights run to hundreds of megabytes
      uint64_t word;
      std::memcpy(&word, bytes + i, 8);
      state_ = (state_ ^ word) * 0x100000001b3ULL;
      state_ ^= state_ >> 29;
    }
    for (; i < size; ++i) state_ = (state_ ^ bytes[i]) * 0x100000001b3ULL;
  }
  uint64_t value() const {
    uint64_t x = state_;  // splitmix64 finalizer spreads FNV's weak low bits
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

 private:
  uint64_t state_ = 0xcbf29ce484222325ULL;
};

}  // namespace pet
