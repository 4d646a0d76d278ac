// The proof store: answers of instance proofs kept on disk between runs, by the instance's content
// and the version of the prover that gave them, so a later run (or the device's copy of a kit)
// recalls what an earlier run proved instead of running the numeric check and Z3 again.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/content_store.h"
#include "verifier/z3/prover.h"

namespace pet {

// The SHA-256 (16 hex digits) of pet's core/ and verifier/ sources, taken at build time: the
// executor, shape rules, axioms and Z3 encoding that decide an answer.
std::string prover_sources_version();
// prover_sources_version() and the loaded Z3's version, hashed: 16 hex digits.
std::string prover_version();

// Answers as JSON payloads of a ContentStore under prover_version().
class ProofStore {
 public:
  explicit ProofStore(std::filesystem::path folder) : store_(std::move(folder), "proofs of " + prover_version()) {}
  // $PET_PROOF_CACHE (a folder, or "off" for none), else proofs/ in pet's user cache folder.
  static std::optional<ProofStore> from_environment();

  const std::filesystem::path& folder() const { return store_.folder(); }
  // The answer this prover version recorded for `key`; none when there is none, or the entry is
  // unreadable, malformed or another key's.
  std::optional<ProofResult> find(const std::string& key) const;
  // Records the answer; false, throwing nothing, when the store cannot be written.
  bool remember(const std::string& key, const ProofResult& proof) const;
  std::filesystem::path entry_path(const std::string& key) const { return store_.entry_path(key); }

 private:
  ContentStore store_;
};

}  // namespace pet
