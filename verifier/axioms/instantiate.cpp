// Bounded closure of axiom instances over the goal's signatures.
#include "verifier/axioms/instantiate.h"

#include <set>

namespace pet::axioms {

Instantiation instantiate_axioms(const std::vector<const Graph*>& goal, const std::vector<AxiomSchema>& schemas,
                                 const InstantiationLimits& limits) {
  Instantiation result;
  SignatureIndex index;
  for (const Graph* graph : goal) index.add_graph(*graph);
  std::set<std::string> seen;
  for (int round = 1; round <= limits.rounds; ++round) {
    result.rounds_run = round;
    size_t first_new = result.instances.size();
    for (const AxiomSchema& schema : schemas)
      for (const AxiomParams& params : schema.propose(index)) {
        std::string label = instance_label(schema, params);
        if (!seen.insert(label).second || !schema.guard(params)) continue;
        if (result.instances.size() >= limits.max_instances) {
          result.truncated = true;
          return result;
        }
        result.instances.push_back({&schema, params, label, build_instance(schema, params)});
      }
    int added = 0;
    for (size_t i = first_new; i < result.instances.size(); ++i) {
      // Two statements: the operands of one + may be evaluated in either order, and the index's
      // order decides the next round's instances, so Z3's work and unsat core.
      added += index.add_graph(result.instances[i].sides.lhs);
      added += index.add_graph(result.instances[i].sides.rhs);
    }
    if (added == 0) break;  // closed: another round would propose the same instances
  }
  return result;
}

}  // namespace pet::axioms
