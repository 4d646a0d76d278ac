// ONNX's own operator conformance tests (Debian's libonnx-testdata) on the reference executor.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "tests/conformance/conformance_case.h"

namespace pet::testing {
namespace {

std::string case_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = std::filesystem::path(info.param).filename().string();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class Conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(Conformance, MatchesExpectedOutputs) {
  CaseResult result = run_conformance_case(GetParam());
  if (result.status == CaseStatus::Unsupported) GTEST_SKIP() << "unsupported: " << result.message;
  EXPECT_EQ(result.status, CaseStatus::Passed) << result.message;
}

INSTANTIATE_TEST_SUITE_P(Node, Conformance, ::testing::ValuesIn(conformance_cases("node")), case_name);
INSTANTIATE_TEST_SUITE_P(PytorchConverted, Conformance, ::testing::ValuesIn(conformance_cases("pytorch-converted")),
                         case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);

// One line of counts per suite, as the closing note and CI log report them.
TEST(ConformanceSummary, CountsRunPassedAndUnsupported) {
  int failed_total = 0;
  for (const char* suite : {"node", "pytorch-converted"}) {
    int passed = 0, failed = 0, unsupported = 0;
    for (const std::string& folder : conformance_cases(suite)) {
      CaseResult result = run_conformance_case(folder);
      passed += result.status == CaseStatus::Passed;
      unsupported += result.status == CaseStatus::Unsupported;
      if (result.status == CaseStatus::Failed) {
        ++failed;
        ADD_FAILURE() << folder << ": " << result.message;
      }
    }
    std::cout << fmt::format("conformance {}: {} ran, {} passed, {} failed, {} skipped as unsupported\n", suite,
                             passed + failed, passed, failed, unsupported);
    failed_total += failed;
  }
  EXPECT_EQ(failed_total, 0);
}

}  // namespace
}  // namespace pet::testing
