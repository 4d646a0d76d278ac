// The proof store: an answer remembered then found whole; none for a malformed payload; the
// environment names the folder or turns the store off.
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

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
}

TEST(ProofStore, AMalformedAnswerReadsAsNoneAndIsWrittenAgain) {
  TemporaryFolder folder("pet-proof-store", "a test's proof store");
  ContentStore raw(folder.path(), "proofs of " + prover_version());  // the proof store's own entries
  ProofStore store(folder.path());
  for (const char* payload : {"{\"format\": 1, \"status\": \"maybe\", \"reason\": \"\"}", "{\"format\": 1}", "[1, 2",
                              "{\"format\": 2, \"status\": \"proved\"}"}) {
    ASSERT_TRUE(raw.remember("key", payload));
    EXPECT_FALSE(store.find("key").has_value()) << payload;
  }
  ASSERT_TRUE(store.remember("key", a_proof()));
  EXPECT_TRUE(store.find("key").has_value());
}

TEST(ProofStore, AnotherProverVersionsAnswersAreNotRead) {
  TemporaryFolder folder("pet-proof-store", "a test's proof store");
  ProofStore store(folder.path());
  ASSERT_TRUE(store.remember("key", a_proof()));
  ContentStore other(folder.path(), "proofs of 0000000000000000");
  EXPECT_FALSE(other.find("key").has_value());
  EXPECT_NE(other.entry_path("key"), store.entry_path("key"));
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
