// The proof store: answers of instance proofs kept on disk between runs, by the instance's content
// and the version of the prover that gave them, so a later run (or the device's copy of a kit)
// recalls what an earlier run proved instead of running the numeric check and Z3 again.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "verifier/z3/prover.h"

namespace pet {

// The SHA-256 (16 hex digits) of pet's core/ and verifier/ sources, taken at build time: the
// executor, shape rules, axioms and Z3 encoding that decide an answer.
std::string prover_sources_version();
// prover_sources_version() and the loaded Z3's version, hashed: 16 hex digits.
std::string prover_version();

class ProofStore {
 public:
  explicit ProofStore(std::filesystem::path folder) : folder_(std::move(folder)) {}
  // $PET_PROOF_CACHE (a folder, or "off" for none), else proofs/ in pet's user cache folder.
  static std::optional<ProofStore> from_environment();

  const std::filesystem::path& folder() const { return folder_; }
  // The answer this prover version recorded for `key`; none when there is none, or the entry is
  // unreadable, malformed or another key's (a hash collision).
  std::optional<ProofResult> find(const std::string& key) const;
  // Records the answer (written to a temporary file, then renamed: readers and other processes see
  // the whole entry or none). False, throwing nothing, when the store cannot be written: a store is
  // a cache, and a run goes on without it.
  bool remember(const std::string& key, const ProofResult& proof) const;
  // Where `key`'s entry lies: <folder>/<prover_version()>/<hash of key>.json.
  std::filesystem::path entry_path(const std::string& key) const;

 private:
  std::filesystem::path folder_;
};

}  // namespace pet
