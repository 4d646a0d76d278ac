// Runs axiom and rule sides on the reference executor and compares their outputs.
#include "verifier/axioms/numeric_check.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "core/error.h"
#include "core/executor.h"

namespace pet::axioms {
namespace {

// Every input of either side by name: left inputs first, then those only the right side reads.
std::vector<std::pair<std::string, TensorType>> union_inputs(const Graph& lhs, const Graph& rhs) {
  std::vector<std::pair<std::string, TensorType>> inputs;
  std::map<std::string, bool> seen;
  for (const Graph* graph : {&lhs, &rhs})
    for (ValueId input : graph->inputs())
      if (!seen[graph->value(input).name]) {
        seen[graph->value(input).name] = true;
        inputs.emplace_back(graph->value(input).name, graph->value(input).type);
      }
  return inputs;
}

// Uniform floats in [-1, 1), or integers in [-3, 3] when `integers`; input i uses seed + i.
std::map<std::string, Tensor> random_named_inputs(const std::vector<std::pair<std::string, TensorType>>& inputs,
                                                  uint64_t seed, bool integers) {
  std::map<std::string, Tensor> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& type = inputs[i].second;
    PET_CHECK(type.dtype == DType::f32, "numeric checks draw f32 inputs only, got " + type.to_string());
    Tensor tensor = Tensor::random_f32(type.shape, seed + i);
    if (integers)
      for (float& value : tensor.mutable_f32()) value = std::round(value * 3.0f);
    values[inputs[i].first] = tensor;
  }
  return values;
}

std::map<std::string, Tensor> inputs_of(const Graph& graph, const std::map<std::string, Tensor>& all) {
  std::map<std::string, Tensor> mine;
  for (ValueId input : graph.inputs()) mine[graph.value(input).name] = all.at(graph.value(input).name);
  return mine;
}

// Adds one run's differences to the comparison.
void compare_run(const Graph& lhs, const Graph& rhs, const std::map<std::string, Tensor>& inputs,
                 const std::string& kind, const Tolerance& tolerance, SidesComparison& comparison) {
  std::vector<Tensor> left = execute_named(lhs, inputs_of(lhs, inputs));
  std::vector<Tensor> right = execute_named(rhs, inputs_of(rhs, inputs));
  PET_CHECK(left.size() == right.size(), "compared sides have as many outputs");
  for (size_t k = 0; k < left.size(); ++k) {
    OutputDifference difference = compare_outputs("output " + std::to_string(k), left[k], right[k], tolerance);
    comparison.max_abs_error = std::max(comparison.max_abs_error, difference.max_abs_error);
    if (!difference.passed && comparison.equal) {
      comparison.equal = false;
      comparison.detail =
          fmt::format("output {} differs by up to {:.3g} on {} inputs", k, difference.max_abs_error, kind);
    }
  }
}

}  // namespace

SidesComparison compare_sides(const Graph& lhs, const Graph& rhs, uint64_t seed) {
  SidesComparison comparison;
  auto inputs = union_inputs(lhs, rhs);
  compare_run(lhs, rhs, random_named_inputs(inputs, seed, false), fmt::format("float (seed {})", seed),
              Tolerance{1e-4, 1e-4}, comparison);
  compare_run(lhs, rhs, random_named_inputs(inputs, seed + 1, true), fmt::format("integer (seed {})", seed + 1),
              Tolerance{1e-4, 1e-5}, comparison);
  return comparison;
}

std::vector<AxiomCheck> check_axiom(const AxiomSchema& schema, uint64_t seed) {
  std::vector<AxiomCheck> checks;
  for (const AxiomParams& params : schema.examples) {
    AxiomCheck check{instance_label(schema, params), seed, true, 0, ""};
    if (!schema.guard(params)) {
      check.passed = false;
      check.failure = "the guard rejects this example";
    } else {
      AxiomSides sides = build_instance(schema, params);
      SidesComparison comparison = compare_sides(sides.lhs, sides.rhs, seed);
      check.passed = comparison.equal;
      check.max_abs_error = comparison.max_abs_error;
      check.failure = comparison.detail;
    }
    checks.push_back(check);
    seed += 2;
  }
  return checks;
}

}  // namespace pet::axioms
