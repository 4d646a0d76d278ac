// ContentStore entries: a header line, a line of the key's and the payload's lengths and the
// payload's hash, the key's text, then the payload's bytes.
#include "core/content_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "core/file_safety.h"
#include "core/hash.h"
#include "core/user_cache.h"

namespace pet {
namespace {

constexpr std::string_view kHeader = "pet store entry 2\n";
std::atomic<uint64_t> entries_written{0};  // names this process's temporary files apart

std::string hex_hash(std::string_view text) {
  Hasher hasher;
  hasher.add(text);
  return fmt::format("{:016x}", hasher.value());
}

// The entry's second line: the key's and the payload's lengths and the payload's hash.
std::string sizes_and_hash(std::string_view key, std::string_view payload) {
  return fmt::format("{} {} {}", key.size(), payload.size(), hex_hash(payload));
}

}  // namespace

ContentStore::ContentStore(std::filesystem::path folder, std::string version, uint64_t budget)
    : folder_(std::move(folder)), version_folder_(hex_hash(version)), budget_(budget) {}

std::filesystem::path ContentStore::entry_path(const std::string& key) const {
  return folder_ / version_folder_ / (hex_hash(key) + ".entry");
}

std::optional<std::string> ContentStore::find(const std::string& key) const {
  std::filesystem::path path = entry_path(key);
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!bytes.starts_with(kHeader)) return std::nullopt;
  size_t line_end = bytes.find('\n', kHeader.size());
  if (line_end == std::string::npos) return std::nullopt;
  std::string_view sizes_line(bytes.data() + kHeader.size(), line_end - kHeader.size());
  size_t key_start = line_end + 1;
  if (bytes.size() < key_start + key.size()) return std::nullopt;
  size_t payload_size = bytes.size() - key_start - key.size();
  std::string_view payload(bytes.data() + key_start + key.size(), payload_size);
  // Another key's, cut short, or changed in place (its lengths intact): none.
  if (sizes_line != sizes_and_hash(key, payload)) return std::nullopt;
  if (bytes.compare(key_start, key.size(), key) != 0) return std::nullopt;
  std::error_code ignored;  // a store on a read-only disk is read all the same
  std::filesystem::last_write_time(path, std::filesystem::file_time_type::clock::now(), ignored);
  return std::string(payload);
}

// This version's entries, the least recently used first, and what they hold; temporary files a
// writer left more than an hour ago are removed on the way.
ContentStore::Entries ContentStore::entries() const {
  Entries found;
  std::error_code error;
  auto stale_temporary = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  std::filesystem::directory_iterator entry(folder_ / version_folder_, error);
  for (; !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    std::error_code ignored;
    std::string name = entry->path().filename().string();
    auto used = entry->last_write_time(ignored);
    uint64_t size = entry->file_size(ignored);
    if (ignored) continue;  // gone meanwhile
    if (name.find(".entry.tmp-") != std::string::npos) {
      if (used < stale_temporary) std::filesystem::remove(entry->path(), ignored);
    } else if (name.ends_with(".entry")) {
      found.files.push_back({used, size, entry->path()});
      found.bytes += size;
    }
  }
  std::sort(found.files.begin(), found.files.end(), [](const EntryFile& a, const EntryFile& b) {
    return a.used != b.used ? a.used < b.used : a.path < b.path;
  });
  return found;
}

void ContentStore::trim(uint64_t bytes) const { remove_oldest(entries(), bytes); }

void ContentStore::remove_oldest(const Entries& held, uint64_t bytes) {
  uint64_t left = held.bytes;
  for (const EntryFile& oldest : held.files) {
    if (left <= bytes) break;
    std::error_code ignored;
    if (std::filesystem::remove(oldest.path, ignored)) left -= oldest.size;
  }
}

void ContentStore::trim_over_budget() const {
  Entries held = entries();
  if (held.bytes > budget_) remove_oldest(held, budget_ / 4 * 3);
}

void ContentStore::forget_stale_versions(std::chrono::hours age) const {
  // Every step takes an error_code (a folder removed meanwhile by another process ends the walk
  // quietly): a store throws nothing.
  std::error_code error;
  auto now = std::filesystem::file_time_type::clock::now();
  std::filesystem::directory_iterator entry(folder_, error);
  for (; !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    std::string name = entry->path().filename().string();
    std::error_code ignored;
    if (name == version_folder_ || name.size() != 16 || !entry->is_directory(ignored)) continue;
    if (name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;  // not a version folder
    auto written = entry->last_write_time(ignored);
    if (!ignored && now - written > age) std::filesystem::remove_all(entry->path(), ignored);
  }
}

bool ContentStore::remember(const std::string& key, std::string_view payload) const {
  std::filesystem::path path = entry_path(key);
  std::error_code error;
  if (!std::filesystem::exists(path.parent_path(), error)) forget_stale_versions(kStaleVersionAge);
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;
  std::string bytes = fmt::format("{}{}\n{}", kHeader, sizes_and_hash(key, payload), key);
  bytes.append(payload);
  // A temporary file of this process and write, renamed into place; no fsync (a cache entry lost
  // or cut short by a crash reads as none, by its lengths, and is made again).
  std::filesystem::path temporary = path;
  uint64_t written_before = entries_written++;
  if (written_before % kTrimEvery == 0) trim_over_budget();
  temporary += fmt::format(".tmp-{}-{}", ::getpid(), written_before);
  int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  bool written = write_all_bytes(fd, bytes) == 0;
  written = ::close(fd) == 0 && written;
  if (!written || ::rename(temporary.c_str(), path.c_str()) != 0) {
    ::unlink(temporary.c_str());
    return false;
  }
  return true;
}

std::optional<std::filesystem::path> store_folder_from_environment(const char* variable, const char* name) {
  const char* given = std::getenv(variable);
  if (given && std::string_view(given) == "off") return std::nullopt;
  if (given && *given) return std::filesystem::path(given);
  return user_cache_folder() / name;
}

}  // namespace pet
