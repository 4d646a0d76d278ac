// Small example rules in textual IR, true and false, shared by the prover's tests and benchmark.
#pragma once

#include <string>
#include <vector>

namespace pet {

struct ExampleRule {
  std::string name;  // kebab-case
  std::string lhs;   // textual IR
  std::string rhs;
  bool holds;  // whether the rule is a true equivalence
};

// Two-to-three-op rules: conv merging, matmul association, relu/transpose, scalar factoring,
// split of concat, transposes and layouts that cancel, linearity, reordering, and TASO's unsound
// conv-mul rule.
const std::vector<ExampleRule>& example_rules();

const ExampleRule& example_rule(const std::string& name);

}  // namespace pet
