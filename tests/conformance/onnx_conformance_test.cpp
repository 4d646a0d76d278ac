// ONNX's own operator conformance tests (Debian's libonnx-testdata, and ONNX 1.16's node tests
// when scripts/onnx-testdata.sh generated them) on the reference executor.
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
INSTANTIATE_TEST_SUITE_P(NodeOnnx116, Conformance, ::testing::ValuesIn(conformance_cases(kNodeSuite116)), case_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);

struct Counts {
  int passed = 0, failed = 0, unsupported = 0;
  void add(CaseStatus status) {
    passed += status == CaseStatus::Passed;
    failed += status == CaseStatus::Failed;
    unsupported += status == CaseStatus::Unsupported;
  }
  std::string line(const std::string& label) const {
    return fmt::format("conformance {}: {} ran, {} passed, {} failed, {} skipped as unsupported\n", label,
                       passed + failed, passed, failed, unsupported);
  }
};

// One line of counts per suite, as the closing note and CI log report them; the ONNX 1.16
// suite adds its opset 18-21 and float16 cases on lines of their own.
TEST(ConformanceSummary, CountsRunPassedAndUnsupported) {
  int failed_total = 0;
  for (const char* suite : {"node", "pytorch-converted", kNodeSuite116}) {
    Counts all, modern, float16;
    for (const std::string& folder : conformance_cases(suite)) {
      CaseResult result = run_conformance_case(folder);
      all.add(result.status);
      if (result.status == CaseStatus::Failed) ADD_FAILURE() << folder << ": " << result.message;
      if (suite != std::string(kNodeSuite116)) continue;
      CaseInfo info = describe_case(folder);
      if (info.opset >= 18) modern.add(result.status);
      if (info.float16) float16.add(result.status);
    }
    std::cout << all.line(suite);
    if (suite == std::string(kNodeSuite116)) {
      std::cout << modern.line(std::string(suite) + " opset 18-21");
      std::cout << float16.line(std::string(suite) + " float16");
    }
    failed_total += all.failed;
  }
  EXPECT_EQ(failed_total, 0);
}

}  // namespace
}  // namespace pet::testing
