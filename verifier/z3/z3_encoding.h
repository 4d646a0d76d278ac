// Translates pet graphs into Z3 terms: one uninterpreted sort per tensor type and one
// uninterpreted function per node signature (op, canonical attributes, input types) and output,
// so integer parameters and shapes are part of each symbol and axioms are instantiated per symbol.
// A node with a fused activation is its own op's symbol with the activation op's symbol around it.
#pragma once

#include <z3++.h>

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "verifier/axioms/signature_index.h"

namespace pet {

class Z3Encoding {
 public:
  explicit Z3Encoding(z3::context& context) : context_(context) {}

  z3::context& context() { return context_; }
  z3::sort sort_of(const TensorType& type);
  // The ground term standing for the graph input `name` (shared by both sides of a goal).
  z3::expr input_term(const std::string& name, const TensorType& type);
  // A constant tensor: equal contents give the same term.
  z3::expr constant_term(const Tensor& value);
  // Terms of every value of the graph, graph inputs replaced by `inputs` (in graph-input order).
  std::vector<z3::expr> translate_values(const Graph& graph, const std::vector<z3::expr>& inputs);
  // Terms of the graph outputs.
  std::vector<z3::expr> translate(const Graph& graph, const std::vector<z3::expr>& inputs);
  size_t function_count() const { return functions_.size(); }

 private:
  z3::func_decl function_of(const axioms::NodeSignature& signature, size_t output);
  z3::context& context_;
  std::map<std::string, z3::sort> sorts_;
  std::map<std::string, z3::func_decl> functions_;
};

}  // namespace pet
