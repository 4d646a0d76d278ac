// ContentStore entries: a header line, a line of the key's and the payload's lengths, the key's text,
// then the payload's bytes.
#include "core/content_store.h"

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

bool ContentStore::remember(const std::string& key, std::string_view payload) const {
  std::filesystem::path path = entry_path(key);
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;
  std::string bytes = fmt::format("{}{} {}\n{}", kHeader, key.size(), payload.size(), key);
  bytes.append(payload);
  try {
    write_file_atomically(path.string(), bytes, "a store entry");
  } catch (const std::exception&) {
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
