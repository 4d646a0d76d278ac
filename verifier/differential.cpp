// Elementwise comparison of two graphs' outputs on the same seeded inputs.
#include "verifier/differential.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/executor.h"

namespace pet {

double DifferentialReport::max_abs_error() const {
  double worst = 0;
  for (const OutputDifference& output : outputs) worst = std::max(worst, output.max_abs_error);
  return worst;
}

OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance) {
  OutputDifference difference{name};
  if (expected.type() != actual.type()) {
    difference.passed = false;
    difference.elements_outside = expected.numel();
    difference.max_abs_error = INFINITY;
    return difference;
  }
  double squares = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double a = expected.as_double(i);
    if (std::isfinite(a)) squares += a * a, ++finite;
  }
  double scale = std::max(1.0, finite ? std::sqrt(squares / static_cast<double>(finite)) : 1.0);
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double a = expected.as_double(i), b = actual.as_double(i);
    if (std::isnan(a) && std::isnan(b)) continue;
    double error = std::abs(a - b);
    if (std::isnan(error)) error = INFINITY;
    difference.max_abs_error = std::max(difference.max_abs_error, error);
    difference.max_rel_error = std::max(difference.max_rel_error, error / std::max(std::abs(a), 1e-6));
    if (!(error <= tolerance.absolute * scale + tolerance.relative * std::abs(a))) ++difference.elements_outside;
  }
  difference.passed = difference.elements_outside == 0;
  return difference;
}

static void require_same_interface(const Graph& original, const Graph& optimized) {
  auto types = [](const Graph& graph, const std::vector<ValueId>& ids) {
    std::vector<TensorType> result;
    for (ValueId id : ids) result.push_back(graph.value(id).type);
    return result;
  };
  if (types(original, original.inputs()) != types(optimized, optimized.inputs()) ||
      types(original, original.outputs()) != types(optimized, optimized.outputs()))
    throw UserError(fmt::format("graphs '{}' and '{}' differ in their input or output types; the differential check "
                                "compares graphs with the same interface",
                                original.name, optimized.name));
}

DifferentialReport differential(const Graph& original, const Graph& optimized, uint64_t seed,
                                const Tolerance& tolerance) {
  require_same_interface(original, optimized);
  std::vector<Tensor> inputs = random_inputs(original, seed);
  std::vector<Tensor> expected = execute(original, inputs);
  std::vector<Tensor> actual = execute(optimized, inputs);
  DifferentialReport report;
  report.seed = seed;
  for (size_t i = 0; i < expected.size(); ++i) {
    report.outputs.push_back(compare_outputs(original.value(original.outputs()[i]).name, expected[i], actual[i], tolerance));
    report.passed = report.passed && report.outputs.back().passed;
  }
  return report;
}

}  // namespace pet
