// The typed vocabulary: every value prints as the string reports always used and parses back;
// a misspelling is a user error naming the flag and the valid spellings.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "core/error.h"
#include "search/vocabulary.h"
#include "tests/user_error_message.h"

namespace pet {
namespace {

TEST(Vocabulary, ModesPrintAsTheirFlagValuesAndParseBack) {
  std::vector<std::string> printed;
  for (Mode mode : all_modes()) {
    printed.push_back(to_string(mode));
    EXPECT_EQ(parse_mode(printed.back()), mode);
  }
  EXPECT_EQ(printed, (std::vector<std::string>{"none", "taso", "pet", "pet-eq-only", "pet-neq-only"}));
}

TEST(Vocabulary, StopReasonsPrintAsTheReportsSpellThem) {
  std::vector<std::string> printed;
  for (StopReason reason : all_stop_reasons()) {
    printed.push_back(to_string(reason));
    EXPECT_EQ(parse_stop_reason(printed.back()), reason);
  }
  EXPECT_EQ(printed,
            (std::vector<std::string>{"converged", "candidate-limit", "work-limit", "expansion-limit", "time-limit", "no-search"}));
}

TEST(Vocabulary, SubprogramAndEvidenceKindsPrintAsTheReportsSpellThem) {
  EXPECT_EQ(to_string(SubprogramKind::linear), "linear");
  EXPECT_EQ(to_string(SubprogramKind::group), "group");
  for (SubprogramKind kind : all_subprogram_kinds()) EXPECT_EQ(parse_subprogram_kind(to_string(kind)), kind);
  std::vector<std::string> printed;
  for (EvidenceKind kind : all_evidence_kinds()) {
    printed.push_back(to_string(kind));
    EXPECT_EQ(parse_evidence_kind(printed.back()), kind);
  }
  EXPECT_EQ(printed, (std::vector<std::string>{"z3-proof", "random-test", "partial+correction", "construction"}));
}

TEST(Vocabulary, MisspellingsNameTheFlagAndTheValidValues) {
  EXPECT_EQ(testing::user_error_message([] { parse_mode("fast"); }),
            "--mode 'fast' is not one of none, taso, pet, pet-eq-only, pet-neq-only");
  EXPECT_EQ(testing::user_error_message([] { parse_mode("Pet", "--modes:"); }),
            "--modes: 'Pet' is not one of none, taso, pet, pet-eq-only, pet-neq-only");
  EXPECT_EQ(testing::user_error_message([] { parse_stop_reason("done"); }),
            "stop reason 'done' is not one of converged, candidate-limit, work-limit, expansion-limit, time-limit, no-search");
  EXPECT_EQ(testing::user_error_message([] { parse_subprogram_kind("region"); }), "subprogram kind 'region' is not one of linear, group");
  EXPECT_EQ(testing::user_error_message([] { parse_evidence_kind("proof"); }),
            "evidence kind 'proof' is not one of z3-proof, random-test, partial+correction, construction");
}

TEST(Vocabulary, StreamsPrintTheSpelling) {
  std::ostringstream out;
  out << Mode::pet_eq_only << " " << StopReason::time_limit << " " << SubprogramKind::group << " "
      << EvidenceKind::partial_correction;
  EXPECT_EQ(out.str(), "pet-eq-only time-limit group partial+correction");
}

}  // namespace
}  // namespace pet
