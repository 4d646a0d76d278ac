// Loads an ONNX test folder, runs it on the executor and compares with the expected outputs.
#include "tests/conformance/conformance_case.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <regex>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_import.h"
#include "core/onnx_tensor.h"

namespace pet::testing {

namespace fs = std::filesystem;

static const char* kDataRoot = "/usr/share/libonnx-testdata/data";

std::vector<std::string> conformance_cases(const std::string& suite) {
  std::vector<std::string> folders;
  fs::path root = fs::path(kDataRoot) / suite;
  if (!fs::exists(root)) return folders;
  const char* filter = std::getenv("PET_CONFORMANCE_FILTER");
  std::regex pattern(filter ? filter : ".*", std::regex::icase);
  for (const auto& entry : fs::directory_iterator(root))
    if (fs::exists(entry.path() / "model.onnx") && std::regex_search(entry.path().filename().string(), pattern))
      folders.push_back(entry.path().string());
  std::sort(folders.begin(), folders.end());
  return folders;
}

static bool is_unsupported(const std::string& message) {
  return message.find("is not supported") != std::string::npos || message.find("pet supports") != std::string::npos;
}

static std::vector<Tensor> load_numbered(const fs::path& dir, const std::string& prefix) {
  std::vector<Tensor> tensors;
  for (int i = 0;; ++i) {
    fs::path file = dir / fmt::format("{}_{}.pb", prefix, i);
    if (!fs::exists(file)) break;
    tensors.push_back(read_tensor_file(file.string()));
  }
  return tensors;
}

static std::string compare(const Tensor& expected, const Tensor& got, size_t index) {
  if (expected.type() != got.type())
    return fmt::format("output {}: expected {}, got {}", index, expected.type().to_string(), got.type().to_string());
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double want = expected.as_double(i), have = got.as_double(i);
    bool same = expected.dtype() == DType::f32
                    ? (std::isnan(want) && std::isnan(have)) || want == have ||
                          std::abs(want - have) <= 1e-5 + 1e-3 * std::abs(want)
                    : want == have;
    if (!same) return fmt::format("output {} element {}: expected {}, got {}", index, i, want, have);
  }
  return "";
}

static CaseResult run_data_sets(const Graph& graph, const fs::path& folder) {
  int sets = 0;
  for (int s = 0;; ++s) {
    fs::path dir = folder / fmt::format("test_data_set_{}", s);
    if (!fs::exists(dir)) break;
    ++sets;
    std::vector<Tensor> inputs = load_numbered(dir, "input");
    std::vector<Tensor> expected = load_numbered(dir, "output");
    std::vector<Tensor> outputs = execute(graph, inputs);
    if (outputs.size() != expected.size())
      return {CaseStatus::Failed, fmt::format("{} outputs, expected {}", outputs.size(), expected.size())};
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string difference = compare(expected[i], outputs[i], i);
      if (!difference.empty()) return {CaseStatus::Failed, fmt::format("data set {}: {}", s, difference)};
    }
  }
  if (sets == 0) return {CaseStatus::Failed, "no test_data_set_* folder"};
  return {CaseStatus::Passed, ""};
}

CaseResult run_conformance_case(const std::string& folder) {
  try {
    Graph graph = import_onnx((fs::path(folder) / "model.onnx").string());
    return run_data_sets(graph, folder);
  } catch (const UserError& error) {
    return {is_unsupported(error.what()) ? CaseStatus::Unsupported : CaseStatus::Failed, error.what()};
  } catch (const std::exception& error) {
    return {CaseStatus::Failed, error.what()};
  }
}

}  // namespace pet::testing
