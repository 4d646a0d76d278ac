// ContentStore entries: a header line, a line of the key's and the payload's lengths, the key's text,
// then the payload's bytes.
#include "core/content_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "core/file_safety.h"
#include "core/hash.h"
#include "core/user_cache.h"

namespace pet {
namespace {

constexpr std::string_view kHeader = "pet store entry 1\n";
std::atomic<uint64_t> entries_written{0};  // names this process's temporary files apart

std::string hex_hash(std::string_view text) {
  Hasher hasher;
  hasher.add(text);
  return fmt::format("{:016x}", hasher.value());
}

}  // namespace

ContentStore::ContentStore(std::filesystem::path folder, std::string version)
    : folder_(std::move(folder)), version_folder_(hex_hash(version)) {}

std::filesystem::path ContentStore::entry_path(const std::string& key) const {
  return folder_ / version_folder_ / (hex_hash(key) + ".entry");
}

std::optional<std::string> ContentStore::find(const std::string& key) const {
  std::ifstream file(entry_path(key), std::ios::binary);
  if (!file) return std::nullopt;
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (!bytes.starts_with(kHeader)) return std::nullopt;
  size_t line_end = bytes.find('\n', kHeader.size());
  if (line_end == std::string::npos) return std::nullopt;
  std::string lengths = bytes.substr(kHeader.size(), line_end - kHeader.size());
  size_t key_start = line_end + 1;
  if (bytes.size() < key_start + key.size()) return std::nullopt;
  size_t payload_size = bytes.size() - key_start - key.size();
  if (lengths != fmt::format("{} {}", key.size(), payload_size)) return std::nullopt;  // another key, or torn
  if (bytes.compare(key_start, key.size(), key) != 0) return std::nullopt;
  return bytes.substr(key_start + key.size());
}

void ContentStore::forget_stale_versions(std::chrono::hours age) const {
  std::error_code error;
  auto now = std::filesystem::file_time_type::clock::now();
  for (const std::filesystem::directory_entry& entry : std::filesystem::directory_iterator(folder_, error)) {
    std::string name = entry.path().filename().string();
    if (name == version_folder_ || name.size() != 16 || !entry.is_directory(error)) continue;
    if (name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;  // not a version folder
    auto written = entry.last_write_time(error);
    if (!error && now - written > age) std::filesystem::remove_all(entry.path(), error);
  }
}

bool ContentStore::remember(const std::string& key, std::string_view payload) const {
  std::filesystem::path path = entry_path(key);
  std::error_code error;
  if (!std::filesystem::exists(path.parent_path(), error)) forget_stale_versions(kStaleVersionAge);
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;
  std::string bytes = fmt::format("{}{} {}\n{}", kHeader, key.size(), payload.size(), key);
  bytes.append(payload);
  // A temporary file of this process and write, renamed into place; no fsync (a cache entry lost
  // or cut short by a crash reads as none, by its lengths, and is made again).
  std::filesystem::path temporary = path;
  temporary += fmt::format(".tmp-{}-{}", ::getpid(), entries_written++);
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
