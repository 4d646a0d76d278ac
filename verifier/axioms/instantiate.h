// Instantiates axiom schemas for the signatures a goal contains, then for the signatures those
// instances add, for a bounded number of rounds: the finite set of ground-shaped axioms a proof uses.
#pragma once

#include <string>
#include <vector>

#include "verifier/axioms/axiom.h"

namespace pet::axioms {

struct AxiomInstance {
  const AxiomSchema* schema = nullptr;
  AxiomParams params;
  std::string label;  // instance_label(schema, params)
  AxiomSides sides;
};

struct InstantiationLimits {
  int rounds = 3;              // round 1 reads the goal, round r the instances of round r - 1
  size_t max_instances = 600;  // beyond this the instantiation stops (and says so)
};

struct Instantiation {
  std::vector<AxiomInstance> instances;  // in the order found: deterministic for a goal
  int rounds_run = 0;
  bool truncated = false;  // stopped at max_instances
};

Instantiation instantiate_axioms(const std::vector<const Graph*>& goal, const std::vector<AxiomSchema>& schemas,
                                 const InstantiationLimits& limits);

}  // namespace pet::axioms
