// The proof store's entries: one JSON payload per instance answer in a ContentStore.
#include "verifier/z3/proof_store.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <z3.h>

#include "core/hash.h"

namespace pet {
namespace {

constexpr int kEntryFormat = 1;

std::optional<ProofStatus> status_named(const std::string& name) {
  for (ProofStatus status : {ProofStatus::Proved, ProofStatus::Refuted, ProofStatus::Unknown})
    if (proof_status_name(status) == name) return status;
  return std::nullopt;
}

nlohmann::json entry_of(const ProofResult& proof) {
  return {{"format", kEntryFormat},
          {"status", std::string(proof_status_name(proof.status))},
          {"reason", proof.reason},
          {"seconds", proof.seconds},
          {"axioms_used", proof.axioms_used},
          {"axioms_available", proof.axioms_available},
          {"resource_units", proof.resource_units},
          {"numerically_checked", proof.numerically_checked}};
}

std::optional<ProofResult> proof_of(const nlohmann::json& entry) {
  if (!entry.is_object() || entry.value("format", 0) != kEntryFormat) return std::nullopt;
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
  std::optional<std::filesystem::path> folder = store_folder_from_environment("PET_PROOF_CACHE", "proofs");
  if (!folder) return std::nullopt;
  return ProofStore(*folder);
}

std::optional<ProofResult> ProofStore::find(const std::string& key) const {
  std::optional<std::string> payload = store_.find(key);
  if (!payload) return std::nullopt;
  try {
    return proof_of(nlohmann::json::parse(*payload));
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a malformed entry reads as none; remember() writes it again
  }
}

bool ProofStore::remember(const std::string& key, const ProofResult& proof) const {
  std::string payload;
  try {
    payload = entry_of(proof).dump(1);
  } catch (const nlohmann::json::exception&) {
    return false;  // text that is not UTF-8 in the reason
  }
  return store_.remember(key, payload);
}

}  // namespace pet
