// Runs one ONNX conformance test folder (model.onnx + test_data_set_*) on the reference executor.
#pragma once

#include <string>
#include <vector>

namespace pet::testing {

enum class CaseStatus { Passed, Failed, Unsupported };

struct CaseResult {
  CaseStatus status;
  std::string message;  // why it failed, or what is unsupported
};

// Test folders under the libonnx-testdata suites (`node`, `pytorch-converted`), sorted, keeping
// only names matching the PET_CONFORMANCE_FILTER regex when that variable is set.
std::vector<std::string> conformance_cases(const std::string& suite);

// Imports, runs every data set and compares (rtol 1e-3, atol 1e-5 for floats; exact otherwise).
// Inputs an op needs constant (pads, axes, ...) are baked in from the data set being run.
// Unsupported: the importer rejected an op, attribute, dtype or opset we deliberately do not
// support (a UserError saying so). Any other error is a failure.
CaseResult run_conformance_case(const std::string& folder);

}  // namespace pet::testing
