// The proof store's entries: an answer remembered then found whole; none for another key, another
// prover, a torn file or an empty store; a store that cannot be written says so and throws nothing.
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/temporary_folder.h"
#include "verifier/z3/proof_store.h"

namespace pet {
namespace {

ProofResult a_proof() {
  ProofResult proof;
  proof.status = ProofStatus::Proved;
  proof.reason = "proved from 1 of 2 axiom instances";
  proof.seconds = 0.25;
  proof.axioms_used = {"relu-idempotent{shape=[3]}"};
  proof.axioms_available = {"relu-idempotent{shape=[3]}", "add-commutes{shape=[3]}"};
  proof.resource_units = 1234;
  proof.numerically_checked = true;
  return proof;
}

void rewrite_entry(const std::filesystem::path& path, const std::function<void(nlohmann::json&)>& change) {
  nlohmann::json entry = nlohmann::json::parse(std::ifstream(path));
  change(entry);
  std::ofstream(path) << entry.dump();
}

TEST(ProofStore, AnAnswerRememberedIsFoundWhole) {
  TemporaryFolder folder("pet-proof-store", "a test's proof store");
  ProofStore store(folder.path());
  EXPECT_FALSE(store.find("lhs -- rhs").has_value());  // before: an empty store
  ASSERT_TRUE(store.remember("lhs -- rhs", a_proof()));
  std::optional<ProofResult> found = store.find("lhs -- rhs");  // after: the same answer
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->status, ProofStatus::Proved);
  EXPECT_EQ(found->reason, a_proof().reason);
  EXPECT_EQ(found->seconds, 0.25);
  EXPECT_EQ(found->axioms_used, a_proof().axioms_used);
  EXPECT_EQ(found->axioms_available, a_proof().axioms_available);
  EXPECT_EQ(found->resource_units, 1234u);
  EXPECT_TRUE(found->numerically_checked);
  EXPECT_FALSE(store.find("lhs -- other rhs").has_value());
  EXPECT_EQ(store.entry_path("lhs -- rhs").parent_path(), folder.path() / prover_version());
}

TEST(ProofStore, AnEntryOfAnotherKeyOrProverOrTornReadsAsNone) {
  TemporaryFolder folder("pet-proof-store", "a test's proof store");
  ProofStore store(folder.path());
  ASSERT_TRUE(store.remember("key", a_proof()));
  std::filesystem::path path = store.entry_path("key");
  rewrite_entry(path, [](nlohmann::json& entry) { entry["key"] = "another key with the same hash"; });
  EXPECT_FALSE(store.find("key").has_value());
  ASSERT_TRUE(store.remember("key", a_proof()));
  rewrite_entry(path, [](nlohmann::json& entry) { entry["prover"] = "0000000000000000"; });
  EXPECT_FALSE(store.find("key").has_value());
  ASSERT_TRUE(store.remember("key", a_proof()));
  rewrite_entry(path, [](nlohmann::json& entry) { entry["status"] = "maybe"; });
  EXPECT_FALSE(store.find("key").has_value());
  std::ofstream(path) << "{\"format\": 1, \"key\": ";
  EXPECT_FALSE(store.find("key").has_value());
  ASSERT_TRUE(store.remember("key", a_proof()));  // written whole again
  EXPECT_TRUE(store.find("key").has_value());
}

TEST(ProofStore, AStoreThatCannotBeWrittenSaysSoAndThrowsNothing) {
  TemporaryFolder folder("pet-proof-store", "a test's proof store");
  std::ofstream(folder.path() / "a file") << "not a folder";
  ProofStore store(folder.path() / "a file" / "proofs");
  EXPECT_FALSE(store.remember("key", a_proof()));
  EXPECT_FALSE(store.find("key").has_value());
}

TEST(ProofStore, TheEnvironmentNamesTheFolderOrTurnsItOff) {
  setenv("PET_PROOF_CACHE", "off", 1);
  EXPECT_FALSE(ProofStore::from_environment().has_value());
  setenv("PET_PROOF_CACHE", "/somewhere/proofs", 1);
  EXPECT_EQ(ProofStore::from_environment()->folder(), "/somewhere/proofs");
  unsetenv("PET_PROOF_CACHE");
  const char* given = std::getenv("XDG_CACHE_HOME");  // test_main's folder for this process: restored
  std::string before = given ? given : "";
  setenv("XDG_CACHE_HOME", "/cache", 1);
  EXPECT_EQ(ProofStore::from_environment()->folder(), "/cache/pet/proofs");
  if (before.empty()) unsetenv("XDG_CACHE_HOME");
  else setenv("XDG_CACHE_HOME", before.c_str(), 1);
}

}  // namespace
}  // namespace pet
