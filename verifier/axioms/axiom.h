// Axiom schemas: a kebab-case name, a family, a guard on integer parameters, and the two sides as
// pet graphs over the same inputs, so that Z3 and the reference executor read the same statement.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "verifier/axioms/signature_index.h"

namespace pet::axioms {

// Shapes, axes, sizes and op attributes of one instance, printed in the instance's label.
using AxiomParams = Attributes;

// The left and right side of an instance. Inputs are universally quantified tensors shared by
// both sides; the prover uses the left side's outputs as E-matching triggers, so it holds the
// form a goal is expected to contain.
struct AxiomSides {
  Graph lhs;
  Graph rhs;
  // An f32 input of both sides (same value id in each).
  ValueId input(const std::string& name, const Shape& shape);
  // A constant of both sides (same value id in each).
  ValueId constant(const std::string& name, const Tensor& value);
  void set_outputs(std::vector<ValueId> left, std::vector<ValueId> right);
};

struct AxiomSchema {
  std::string name;       // kebab-case, appears in proofs and reports
  std::string family;     // the file under verifier/axioms/ that states it
  std::string statement;  // one sentence in words
  // Parameters for the signatures a goal contains (may include ones the guard rejects).
  std::function<std::vector<AxiomParams>(const SignatureIndex&)> propose;
  std::function<bool(const AxiomParams&)> guard;
  // Both sides for guarded parameters; a shape error here is a bug in the guard.
  std::function<AxiomSides(const AxiomParams&)> build;
  // Small concrete parameters on which the numeric check runs both sides.
  std::vector<AxiomParams> examples;
};

// "name{key=value, ...}".
std::string instance_label(const AxiomSchema& schema, const AxiomParams& params);

// Builds both sides; their nodes must fit (node_outputs), and their outputs' types must agree.
AxiomSides build_instance(const AxiomSchema& schema, const AxiomParams& params);

std::vector<AxiomSchema> elementwise_axioms();
std::vector<AxiomSchema> elementwise_broadcast_axioms();  // same family, operands of one rank that broadcast
std::vector<AxiomSchema> scalar_axioms();
std::vector<AxiomSchema> conv_axioms();
std::vector<AxiomSchema> matmul_axioms();
std::vector<AxiomSchema> concat_split_axioms();
std::vector<AxiomSchema> transpose_axioms();
std::vector<AxiomSchema> relu_axioms();
std::vector<AxiomSchema> pooling_axioms();
std::vector<AxiomSchema> layout_axioms();
std::vector<AxiomSchema> identity_axioms();

// Every family's axioms, in family order.
const std::vector<AxiomSchema>& all_axioms();

}  // namespace pet::axioms
