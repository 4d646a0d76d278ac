// Quantified axiom formulas with explicit patterns (built through Z3's C API, which z3++ wraps
// only without patterns).
#include "verifier/z3/axiom_formula.h"

#include <map>
#include <set>

#include "core/error.h"

namespace pet {
namespace {

// Graph inputs that `value` depends on.
std::set<ValueId> inputs_read(const Graph& graph, ValueId value) {
  std::set<ValueId> found, visited;
  std::vector<ValueId> stack{value};
  while (!stack.empty()) {
    ValueId current = stack.back();
    stack.pop_back();
    if (!visited.insert(current).second) continue;
    NodeId producer = graph.value(current).producer;
    if (producer < 0) {
      if (!graph.is_constant(current)) found.insert(current);
      continue;
    }
    for (ValueId input : graph.node(producer).inputs)
      if (input != kNoValue) stack.push_back(input);
  }
  return found;
}

z3::expr forall_with_trigger(z3::context& context, const std::vector<z3::expr>& variables, const z3::expr& body,
                             const std::vector<z3::expr>& trigger) {
  std::vector<Z3_app> bound;
  for (const z3::expr& variable : variables) bound.push_back(Z3_to_app(context, variable));
  std::vector<Z3_ast> terms(trigger.begin(), trigger.end());
  Z3_pattern pattern = Z3_mk_pattern(context, static_cast<unsigned>(terms.size()), terms.data());
  context.check_error();
  Z3_ast quantified =
      Z3_mk_forall_const(context, 0, static_cast<unsigned>(bound.size()), bound.data(), 1, &pattern, body);
  context.check_error();
  return z3::expr(context, quantified);
}

bool covers(const std::set<ValueId>& outer, const std::set<ValueId>& inner) {
  for (ValueId id : inner)
    if (!outer.count(id)) return false;
  return true;
}

}  // namespace

z3::expr axiom_formula(Z3Encoding& encoding, const axioms::AxiomSides& sides) {
  z3::context& context = encoding.context();
  std::vector<z3::expr> variables;
  std::map<ValueId, z3::expr> variable_of;
  for (ValueId input : sides.lhs.inputs()) {
    const Value& value = sides.lhs.value(input);
    variables.push_back(context.constant(("?" + value.name).c_str(), encoding.sort_of(value.type)));
    variable_of.emplace(input, variables.back());
  }
  std::vector<z3::expr> left = encoding.translate(sides.lhs, variables);
  std::vector<z3::expr> right = encoding.translate(sides.rhs, variables);
  std::set<ValueId> all_left;
  for (ValueId output : sides.lhs.outputs()) all_left.merge(inputs_read(sides.lhs, output));
  z3::expr_vector formulas(context);
  for (size_t k = 0; k < left.size(); ++k) {
    std::set<ValueId> read = inputs_read(sides.lhs, sides.lhs.outputs()[k]),
                      read_right = inputs_read(sides.rhs, sides.rhs.outputs()[k]);
    bool own_trigger = covers(read, read_right) && sides.lhs.value(sides.lhs.outputs()[k]).producer >= 0;
    std::set<ValueId> bound = own_trigger ? read : all_left;
    PET_CHECK(covers(bound, read_right) && covers(all_left, read_right),
              "axiom right side reads inputs its left side lacks");
    std::vector<z3::expr> bound_terms;
    for (ValueId id : bound) bound_terms.push_back(variable_of.at(id));
    z3::expr body = left[k] == right[k];
    if (bound_terms.empty()) {
      formulas.push_back(body);
      continue;
    }
    formulas.push_back(
        forall_with_trigger(context, bound_terms, body, own_trigger ? std::vector<z3::expr>{left[k]} : left));
  }
  return z3::mk_and(formulas);
}

}  // namespace pet
