// Elementwise axioms: Add and Mul of same-shape tensors are associative and commutative, and Mul
// distributes over Add.
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

// One {"shape"} per same-shape f32 Add or Mul in the goal.
std::vector<AxiomParams> same_shape_operands(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const char* op : {"Add", "Mul"})
    for (const NodeSignature& signature : index.of(op))
      if (signature.inputs.size() == 2 && same_types(signature.inputs) && signature.inputs[0].dtype == DType::f32)
        result.push_back({{"shape", signature.inputs[0].shape.dims()}});
  return result;
}

using SameShapeBody = std::function<void(AxiomSides&, const std::vector<ValueId>&)>;

// An axiom over `arity` inputs of one shape.
AxiomSchema same_shape_axiom(std::string name, std::string statement, int arity, SameShapeBody body) {
  AxiomSchema schema;
  schema.name = std::move(name);
  schema.family = "elementwise";
  schema.statement = std::move(statement);
  schema.propose = same_shape_operands;
  schema.guard = [](const AxiomParams& params) { return all_positive(params.get_ints("shape")); };
  schema.build = [arity, body](const AxiomParams& params) {
    AxiomSides sides;
    body(sides, inputs(sides, "x", std::vector<Shape>(static_cast<size_t>(arity), shape_param(params, "shape"))));
    return sides;
  };
  schema.examples = {{{"shape", std::vector<int64_t>{5}}},
                     {{"shape", std::vector<int64_t>{2, 3}}},
                     {{"shape", std::vector<int64_t>{1, 2, 3, 2}}}};
  return schema;
}

AxiomSchema commutative(const std::string& op, const std::string& name) {
  return same_shape_axiom(name, op + "(x, y) = " + op + "(y, x)", 2, [op](AxiomSides& s, const auto& x) {
    s.set_outputs({node(s.lhs, op, {}, {x[0], x[1]})}, {node(s.rhs, op, {}, {x[1], x[0]})});
  });
}

AxiomSchema associative(const std::string& op, const std::string& name) {
  return same_shape_axiom(name, op + "(" + op + "(x, y), z) = " + op + "(x, " + op + "(y, z))", 3,
                          [op](AxiomSides& s, const auto& x) {
                            ValueId left = node(s.lhs, op, {}, {node(s.lhs, op, {}, {x[0], x[1]}), x[2]});
                            ValueId right = node(s.rhs, op, {}, {x[0], node(s.rhs, op, {}, {x[1], x[2]})});
                            s.set_outputs({left}, {right});
                          });
}

AxiomSchema mul_distributes_over_add() {
  return same_shape_axiom("ewmul-distributes-over-ewadd", "Mul(Add(x, y), z) = Add(Mul(x, z), Mul(y, z))", 3,
                          [](AxiomSides& s, const auto& x) {
                            ValueId left = node(s.lhs, "Mul", {}, {node(s.lhs, "Add", {}, {x[0], x[1]}), x[2]});
                            ValueId right =
                                node(s.rhs, "Add", {},
                                     {node(s.rhs, "Mul", {}, {x[0], x[2]}), node(s.rhs, "Mul", {}, {x[1], x[2]})});
                            s.set_outputs({left}, {right});
                          });
}

}  // namespace

std::vector<AxiomSchema> elementwise_axioms() {
  return {commutative("Add", "ewadd-commutative"), associative("Add", "ewadd-associative"),
          commutative("Mul", "ewmul-commutative"), associative("Mul", "ewmul-associative"), mul_distributes_over_add()};
}

}  // namespace pet::axioms
