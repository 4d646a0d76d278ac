// prove(): interface check, numeric refutation, axiom instantiation, and one Z3 query.
#include "verifier/z3/prover.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "core/error.h"
#include "verifier/axioms/numeric_check.h"
#include "verifier/z3/axiom_formula.h"
#include "verifier/z3/z3_encoding.h"

namespace pet {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<z3::expr> goal_inputs(Z3Encoding& encoding, const Graph& graph) {
  std::vector<z3::expr> terms;
  for (ValueId input : graph.inputs())
    terms.push_back(encoding.input_term(graph.value(input).name, graph.value(input).type));
  return terms;
}

// Some output differs: the negation of the goal.
z3::expr some_output_differs(Z3Encoding& encoding, const Graph& lhs, const Graph& rhs) {
  std::vector<z3::expr> left = encoding.translate(lhs, goal_inputs(encoding, lhs));
  std::vector<z3::expr> right = encoding.translate(rhs, goal_inputs(encoding, rhs));
  z3::expr_vector differences(encoding.context());
  for (size_t k = 0; k < left.size(); ++k) differences.push_back(left[k] != right[k]);
  return z3::mk_or(differences);
}

// Adds each instance as a tracked assertion named by its index; returns the labels by index.
void assert_axioms(z3::solver& solver, Z3Encoding& encoding, const axioms::Instantiation& instantiation) {
  for (size_t i = 0; i < instantiation.instances.size(); ++i)
    solver.add(axiom_formula(encoding, instantiation.instances[i].sides), ("axiom " + std::to_string(i)).c_str());
}

std::vector<std::string> used_axioms(z3::solver& solver, const axioms::Instantiation& instantiation) {
  std::set<size_t> used;
  z3::expr_vector core = solver.unsat_core();
  for (unsigned i = 0; i < core.size(); ++i) used.insert(std::stoul(core[i].decl().name().str().substr(6)));
  std::vector<std::string> labels;
  for (size_t index : used) labels.push_back(instantiation.instances.at(index).label);
  return labels;
}

uint64_t resource_units(z3::solver& solver) {
  z3::stats statistics = solver.statistics();
  for (unsigned i = 0; i < statistics.size(); ++i)
    if (statistics.key(i) == "rlimit count")
      return statistics.is_uint(i) ? statistics.uint_value(i) : static_cast<uint64_t>(statistics.double_value(i));
  return 0;
}

void run_z3(const Graph& lhs, const Graph& rhs, const ProveOptions& options, const axioms::Instantiation& instantiation,
            ProofResult& result) {
  z3::context context;
  Z3Encoding encoding(context);
  z3::solver solver(context);
  z3::params params(context);
  params.set("timeout", static_cast<unsigned>(options.timeout.count()));
  if (options.rlimit > 0) params.set("rlimit", static_cast<unsigned>(options.rlimit));
  params.set("mbqi", false);  // E-matching only: stops with "incomplete quantifiers" instead of searching models
  params.set("unsat_core", true);
  solver.set(params);
  assert_axioms(solver, encoding, instantiation);
  solver.add(some_output_differs(encoding, lhs, rhs));
  z3::check_result answer = solver.check();
  result.resource_units = resource_units(solver);
  switch (answer) {
    case z3::unsat:
      result.status = ProofStatus::Proved;
      result.axioms_used = used_axioms(solver, instantiation);
      result.reason = fmt::format("proved from {} of {} axiom instances", result.axioms_used.size(),
                                  instantiation.instances.size());
      return;
    case z3::sat:
      // The instances are a finite part of the axiom theory: a model of them is no counterexample.
      result.status = ProofStatus::Unknown;
      result.reason = fmt::format("not implied by the {} axiom instances (Z3 found a model where the sides differ)",
                                  instantiation.instances.size());
      return;
    case z3::unknown:
      result.status = ProofStatus::Unknown;
      result.reason =
          "Z3: " + solver.reason_unknown() + (instantiation.truncated ? " (axiom instances truncated)" : "");
      return;
  }
}

int64_t input_elements(const Graph& side) {
  int64_t elements = 0;
  for (ValueId input : side.inputs()) elements += side.value(input).type.shape.numel();
  return elements;
}

ProofResult prove_checked(const Graph& lhs, const Graph& rhs, const ProveOptions& options) {
  ProofResult result;
  if (options.numeric_refutation && input_elements(lhs) <= options.numeric_refutation_max_elements) {
    result.numerically_checked = true;
    axioms::SidesComparison comparison = axioms::compare_sides(lhs, rhs, options.seed);
    if (!comparison.equal) {
      result.status = ProofStatus::Refuted;
      result.reason = "counterexample: " + comparison.detail;
      return result;
    }
  }
  const auto& schemas = options.axioms ? *options.axioms : axioms::all_axioms();
  axioms::Instantiation instantiation = axioms::instantiate_axioms({&lhs, &rhs}, schemas, options.limits);
  for (const auto& instance : instantiation.instances) result.axioms_available.push_back(instance.label);
  try {
    run_z3(lhs, rhs, options, instantiation, result);
  } catch (const z3::exception& error) {
    result.status = ProofStatus::Unknown;
    result.reason = std::string("Z3 error: ") + error.msg();
  }
  return result;
}

}  // namespace

std::string interface_mismatch(const Graph& lhs, const Graph& rhs) {
  for (ValueId input : lhs.inputs()) {
    const Value& left = lhs.value(input);
    std::optional<ValueId> right = rhs.find_value(left.name);
    if (right && rhs.value(*right).producer < 0 && !rhs.is_constant(*right) && rhs.value(*right).type != left.type)
      return fmt::format("rule sides differ: input %{} is {} on the left and {} on the right", left.name,
                         left.type.to_string(), rhs.value(*right).type.to_string());
  }
  if (lhs.outputs().size() != rhs.outputs().size())
    return fmt::format("rule sides differ: {} outputs on the left, {} on the right", lhs.outputs().size(),
                       rhs.outputs().size());
  for (size_t k = 0; k < lhs.outputs().size(); ++k)
    if (lhs.value(lhs.outputs()[k]).type != rhs.value(rhs.outputs()[k]).type)
      return fmt::format("rule sides differ: output {} is {} on the left and {} on the right", k,
                         lhs.value(lhs.outputs()[k]).type.to_string(), rhs.value(rhs.outputs()[k]).type.to_string());
  return "";
}

std::string_view proof_status_name(ProofStatus status) {
  switch (status) {
    case ProofStatus::Proved:
      return "proved";
    case ProofStatus::Refuted:
      return "refuted";
    case ProofStatus::Unknown:
      return "unknown";
  }
  return "?";
}

ProofResult prove(const Graph& lhs, const Graph& rhs, const ProveOptions& options) {
  auto start = Clock::now();
  if (std::string mismatch = interface_mismatch(lhs, rhs); !mismatch.empty()) throw UserError(mismatch);
  ProofResult result = prove_checked(lhs, rhs, options);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

ProofResult prove(const Graph& lhs, const Graph& rhs, std::chrono::milliseconds timeout) {
  ProveOptions options;
  options.timeout = timeout;
  return prove(lhs, rhs, options);
}

}  // namespace pet
