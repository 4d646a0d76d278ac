// ContentStore: byte payloads kept on disk between processes (instance proofs, compiled GPU
// kernels), each under its full key text and in a folder named by the version of what made it, so
// a process recalls another's work and never an answer of another version.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pet {

class ContentStore {
 public:
  // Entries under <folder>/<a hash of `version`>/; the folders are made on the first write. They
  // hold about `budget` bytes at most: remember() trims the least recently used (see trim).
  ContentStore(std::filesystem::path folder, std::string version, uint64_t budget = kDefaultBudget);
  static constexpr uint64_t kDefaultBudget = uint64_t{256} << 20;

  const std::filesystem::path& folder() const { return folder_; }
  // The payload remembered under `key`; none when there is none, or the entry is torn, malformed,
  // changed in place (its payload's hash differs) or another key's (a hash collision). An entry
  // found counts as used now (its file's time is set), so trimming keeps it longest.
  std::optional<std::string> find(const std::string& key) const;
  // Writes the entry to a temporary file, then renames it: a reader, in this process or another,
  // sees the whole entry or none (unsynced: after a crash an entry may be missing or cut short,
  // which reads as none). False, throwing nothing, when it cannot be written: a store is a cache,
  // and the caller goes on without it. The process's first write, and every kTrimEvery-th after,
  // trims this version's entries when they hold more than the budget, to three quarters of it.
  bool remember(const std::string& key, std::string_view payload) const;
  static constexpr uint64_t kTrimEvery = 64;
  // Removes this version's least recently used entries (found or written longest ago) until the
  // rest hold at most `bytes`, and temporary files a writer left more than an hour ago. Throws
  // nothing; an entry removed is made again when next needed.
  void trim(uint64_t bytes) const;
  // Where `key`'s entry lies: <folder>/<version hash>/<key hash>.entry.
  std::filesystem::path entry_path(const std::string& key) const;
  // Removes the folders of other versions that nothing has written to for `age` (a rebuilt
  // prover or compiler leaves its predecessor's folder behind). remember() does it with
  // kStaleVersionAge when it makes this version's folder.
  void forget_stale_versions(std::chrono::hours age) const;
  static constexpr std::chrono::hours kStaleVersionAge{24 * 30};

 private:
  struct EntryFile {
    std::filesystem::file_time_type used;
    uint64_t size = 0;
    std::filesystem::path path;
  };
  struct Entries {
    std::vector<EntryFile> files;  // the least recently used first
    uint64_t bytes = 0;
  };
  Entries entries() const;
  static void remove_oldest(const Entries& held, uint64_t bytes);
  void trim_over_budget() const;

  std::filesystem::path folder_;
  std::string version_folder_;
  uint64_t budget_;
};

// The folder a store's environment variable names, "off" for none, else `name` in pet's user
// cache folder (core/user_cache.h).
std::optional<std::filesystem::path> store_folder_from_environment(const char* variable, const char* name);

}  // namespace pet
