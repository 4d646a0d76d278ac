// The profile DB: measured kernel times, read and written as sorted, stable JSON.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/file_lock.h"
#include "core/file_safety.h"
#include "search/cost/cost_model.h"

namespace pet::cost {
namespace {

// The DB's folder, made on first save (the per-user cache folder may not exist yet).
void create_parent_folder(const std::string& path) {
  std::filesystem::path target(path);
  if (!target.has_parent_path()) return;
  std::error_code ignored;
  std::filesystem::create_directories(target.parent_path(), ignored);
}

constexpr const char* kTextFields[] = {"device", "key", "method", "libraries", "date"};

std::string entry_text(const nlohmann::json& entry, const char* field, size_t index, const std::string& source) {
  auto found = entry.find(field);
  if (found == entry.end() || !found->is_string() || found->get<std::string>().empty())
    throw UserError(fmt::format("profile DB '{}': entry {} needs a non-empty string \"{}\"", source, index, field));
  return found->get<std::string>();
}

ProfileEntry read_entry(const nlohmann::json& entry, size_t index, const std::string& source) {
  if (!entry.is_object()) throw UserError(fmt::format("profile DB '{}': entry {} is not an object", source, index));
  for (const auto& [name, value] : entry.items()) {
    bool known = name == "microseconds" || name == "spread_us" || name == "runs";
    for (const char* field : kTextFields) known = known || name == field;
    if (!known) throw UserError(fmt::format("profile DB '{}': entry {} has an unknown field \"{}\"", source, index, name));
  }
  ProfileEntry result;
  result.device = entry_text(entry, "device", index, source);
  result.key = entry_text(entry, "key", index, source);
  result.method = entry_text(entry, "method", index, source);
  result.libraries = entry_text(entry, "libraries", index, source);
  result.date = entry_text(entry, "date", index, source);
  auto time = entry.find("microseconds");
  if (time == entry.end() || !time->is_number() || time->get<double>() <= 0)
    throw UserError(fmt::format("profile DB '{}': entry {} needs \"microseconds\" > 0", source, index));
  result.microseconds = time->get<double>();
  if (auto spread = entry.find("spread_us"); spread != entry.end()) {
    if (!spread->is_number() || spread->get<double>() < 0)
      throw UserError(fmt::format("profile DB '{}': entry {} needs \"spread_us\" >= 0", source, index));
    result.spread_us = spread->get<double>();
  }
  if (auto runs = entry.find("runs"); runs != entry.end()) {
    if (!runs->is_number_integer() || runs->get<int64_t>() < 1)
      throw UserError(fmt::format("profile DB '{}': entry {} needs \"runs\" >= 1", source, index));
    result.runs = runs->get<int>();
  }
  return result;
}

}  // namespace

ProfileDb ProfileDb::parse(const std::string& json_text, const std::string& source) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& error) {
    throw UserError(fmt::format("profile DB '{}' is not valid JSON at byte {}; fix it or write it again with pet-profile",
                                source, error.byte));
  }
  if (!root.is_object() || !root.contains("entries") || !root["entries"].is_array() || root.size() != 1)
    throw UserError(fmt::format("profile DB '{}': expected {{\"entries\": [...]}} and nothing else", source));
  ProfileDb db;
  std::map<std::pair<std::string, std::string>, size_t> seen;
  const nlohmann::json& entries = root["entries"];
  for (size_t i = 0; i < entries.size(); ++i) {
    ProfileEntry entry = read_entry(entries[i], i, source);
    auto [where, fresh] = seen.emplace(std::pair{entry.device, entry.key}, i);
    if (!fresh)
      throw UserError(fmt::format("profile DB '{}': entries {} and {} both measure device '{}' key '{}'", source,
                                  where->second, i, entry.device, entry.key));
    // A DB written before keys were canonical may time one kernel under both spellings: the
    // first in file order is kept.
    if (db.find(entry.device, entry.key) == nullptr) db.add(std::move(entry));
  }
  return db;
}

ProfileDb ProfileDb::load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file.is_open())
    throw UserError(fmt::format("profile DB '{}' cannot be opened; pass an existing file (an empty DB is "
                                "{{\"entries\": []}})",
                                path));
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), path);
}

std::string ProfileDb::to_json_text() const {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [where, entry] : entries_) {
    nlohmann::json item = {{"device", entry.device},       {"key", entry.key},
                           {"microseconds", entry.microseconds}, {"method", entry.method},
                           {"libraries", entry.libraries}, {"date", entry.date}};
    if (entry.runs > 0) item["runs"] = entry.runs;
    if (entry.runs > 0) item["spread_us"] = entry.spread_us;
    entries.push_back(std::move(item));
  }
  nlohmann::json root = {{"entries", entries}};
  return root.dump(2) + "\n";
}

// Written to a temporary file beside it, then renamed: an interrupted write never leaves half a DB.
void ProfileDb::save(const std::string& path) const {
  create_parent_folder(path);
  write_file_atomically(path, to_json_text(), "profile DB");
}

void ProfileDb::save_merged(const std::string& path, const ProfileDb& loaded) const {
  create_parent_folder(path);
  FileLock lock(path + ".lock", fmt::format("profile DB '{}'", path));  // one read-merge-write at a time
  ProfileDb merged = std::filesystem::exists(path) ? load(path) : ProfileDb{};
  for (const auto& [where, entry] : entries_) {
    auto before = loaded.entries_.find(where);
    if (before == loaded.entries_.end() || !(before->second == entry)) merged.add(entry);
  }
  write_file_atomically(path, merged.to_json_text(), "profile DB");
}

const ProfileEntry* ProfileDb::find(const std::string& device, const std::string& key) const {
  auto found = entries_.find({device, canonical_key(key)});
  return found == entries_.end() ? nullptr : &found->second;
}

std::vector<Target> ProfileDb::measured_targets(const std::string& target_name, int threads) const {
  std::vector<Target> targets;
  for (const auto& [where, entry] : entries_) {
    Target target = parse_db_device(entry.device);
    if (target.name != target_name || target.threads != threads) continue;
    if (targets.empty() || targets.back().db_device() != entry.device) targets.push_back(target);
  }
  return targets;
}

std::optional<double> ProfileDb::lookup(const std::string& device, const std::string& key) const {
  const ProfileEntry* entry = find(device, key);
  if (!entry) return std::nullopt;
  return entry->microseconds;
}

void ProfileDb::add(ProfileEntry entry) {
  entry.key = canonical_key(entry.key);
  std::pair<std::string, std::string> where{entry.device, entry.key};
  entries_.insert_or_assign(std::move(where), std::move(entry));
}

std::vector<ProfileEntry> ProfileDb::entries() const {
  std::vector<ProfileEntry> result;
  for (const auto& [where, entry] : entries_) result.push_back(entry);
  return result;
}

}  // namespace pet::cost
