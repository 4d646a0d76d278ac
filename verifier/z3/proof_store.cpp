// The proof store's entries: one JSON file per instance answer under the prover version's folder.
#include "verifier/z3/proof_store.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <z3.h>

#include "core/file_safety.h"
#include "core/hash.h"
#include "core/user_cache.h"

namespace pet {
namespace {

constexpr int kEntryFormat = 1;

std::optional<ProofStatus> status_named(const std::string& name) {
  for (ProofStatus status : {ProofStatus::Proved, ProofStatus::Refuted, ProofStatus::Unknown})
    if (proof_status_name(status) == name) return status;
  return std::nullopt;
}

nlohmann::json entry_of(const std::string& key, const ProofResult& proof) {
  return {{"format", kEntryFormat},
          {"prover", prover_version()},
          {"key", key},
          {"status", std::string(proof_status_name(proof.status))},
          {"reason", proof.reason},
          {"seconds", proof.seconds},
          {"axioms_used", proof.axioms_used},
          {"axioms_available", proof.axioms_available},
          {"resource_units", proof.resource_units},
          {"numerically_checked", proof.numerically_checked}};
}

std::optional<ProofResult> proof_of(const nlohmann::json& entry, const std::string& key) {
  if (!entry.is_object() || entry.value("format", 0) != kEntryFormat || entry.value("prover", "") != prover_version() ||
      entry.value("key", "") != key)
    return std::nullopt;
  std::optional<ProofStatus> status = status_named(entry.at("status").get<std::string>());
  if (!status) return std::nullopt;
  ProofResult proof;
  proof.status = *status;
  proof.reason = entry.at("reason").get<std::string>();
  proof.seconds = entry.at("seconds").get<double>();
  proof.axioms_used = entry.at("axioms_used").get<std::vector<std::string>>();
  proof.axioms_available = entry.at("axioms_available").get<std::vector<std::string>>();
  proof.resource_units = entry.at("resource_units").get<uint64_t>();
  proof.numerically_checked = entry.at("numerically_checked").get<bool>();
  return proof;
}

}  // namespace

std::string prover_version() {
  static const std::string version = [] {
    unsigned major = 0, minor = 0, build = 0, revision = 0;
    Z3_get_version(&major, &minor, &build, &revision);
    Hasher hasher;
    hasher.add(prover_sources_version());
    hasher.add(fmt::format("z3 {}.{}.{}.{}", major, minor, build, revision));
    return fmt::format("{:016x}", hasher.value());
  }();
  return version;
}

std::optional<ProofStore> ProofStore::from_environment() {
  const char* given = std::getenv("PET_PROOF_CACHE");
  if (given && std::string(given) == "off") return std::nullopt;
  if (given && *given) return ProofStore(given);
  return ProofStore(user_cache_folder() / "proofs");
}

std::filesystem::path ProofStore::entry_path(const std::string& key) const {
  Hasher hasher;
  hasher.add(key);
  return folder_ / prover_version() / fmt::format("{:016x}.json", hasher.value());
}

std::optional<ProofResult> ProofStore::find(const std::string& key) const {
  std::ifstream file(entry_path(key));
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  try {
    return proof_of(nlohmann::json::parse(text.str()), key);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a torn or foreign file reads as no entry; remember() writes it again
  }
}

bool ProofStore::remember(const std::string& key, const ProofResult& proof) const {
  std::filesystem::path path = entry_path(key);
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  if (error) return false;
  try {
    write_file_atomically(path.string(), entry_of(key, proof).dump(1), "a proof store entry");
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace pet
