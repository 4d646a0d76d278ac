// Elementwise axioms over broadcast operands (a per-channel bias [1,C,1,1] added to a feature map
// [N,C,H,W], a bias [C] to [N,T,C], a constant to a tensor): Add and Mul stay commutative and
// associative under numpy broadcasting, and Mul distributes over such an Add. A Mul by a rank-0
// tensor is left to the scalar family.
#include <algorithm>
#include <map>
#include <set>

#include "core/ops/op_util.h"
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

// The numpy broadcast of several shapes; nullopt when they do not broadcast.
std::optional<Shape> broadcast_all(const std::vector<Shape>& shapes) {
  std::optional<Shape> result = shapes.front();
  for (const Shape& shape : shapes) {
    if (!result) return std::nullopt;
    result = ops::broadcast_shapes(*result, shape);
  }
  return result;
}

// Per broadcast output shape, the operand shapes of the goal's f32 `op` nodes whose operands
// differ (the output shape included): what associativity may regroup. A Mul with a rank-0
// operand is a scalar multiplication, which the scalar family states.
std::map<Dims, std::set<Dims>> operand_shapes(const SignatureIndex& index, const std::string& op) {
  std::map<Dims, std::set<Dims>> result;
  for (const NodeSignature& signature : index.of(op)) {
    if (signature.inputs.size() != 2 || same_types(signature.inputs) || signature.inputs[0].dtype != DType::f32) continue;
    const Shape& a = signature.inputs[0].shape;
    const Shape& b = signature.inputs[1].shape;
    if ((op == "Mul" && (a.rank() == 0 || b.rank() == 0)) || !broadcast_all({a, b})) continue;
    std::set<Dims>& shapes = result[signature.outputs[0].shape.dims()];
    shapes.insert({a.dims(), b.dims(), signature.outputs[0].shape.dims()});
  }
  return result;
}

constexpr size_t kMaxShapesPerOutput = 4;  // 4^3 associativity triples at most per output shape

// Every tuple of `arity` operand shapes of one output shape that broadcasts to it, not all equal
// (the same-shape axioms cover those). For "Mul over Add" the shapes are the Adds' operands.
std::vector<AxiomParams> broadcast_tuples(const SignatureIndex& index, const std::string& op, size_t arity) {
  static const char* names[] = {"x", "y", "z"};
  std::vector<AxiomParams> result;
  for (const auto& [out, shape_set] : operand_shapes(index, op == "Mul over Add" ? "Add" : op)) {
    std::vector<Dims> shapes(shape_set.begin(), shape_set.end());
    shapes.resize(std::min(shapes.size(), kMaxShapesPerOutput));
    size_t count = 1;
    for (size_t k = 0; k < arity; ++k) count *= shapes.size();
    for (size_t code = 0; code < count; ++code) {
      std::vector<Shape> picked;
      AxiomParams params;
      for (size_t k = 0, rest = code; k < arity; ++k, rest /= shapes.size()) {
        picked.push_back(Shape(shapes[rest % shapes.size()]));
        params.set(names[k], picked.back().dims());
      }
      bool all_equal = std::all_of(picked.begin(), picked.end(), [&](const Shape& s) { return s == picked[0]; });
      std::optional<Shape> joint = broadcast_all(picked);
      if (!all_equal && joint && joint->dims() == out) result.push_back(params);
    }
  }
  return result;
}

bool broadcasts(const AxiomParams& params, const std::vector<std::string>& names) {
  std::vector<Shape> shapes;
  for (const std::string& name : names) {
    if (!all_positive(params.get_ints(name))) return false;
    shapes.push_back(shape_param(params, name));
  }
  bool all_scalars = std::all_of(shapes.begin(), shapes.end(), [](const Shape& s) { return s.rank() == 0; });
  return !all_scalars && broadcast_all(shapes).has_value();
}

AxiomSchema commutative(const std::string& op, const std::string& name) {
  AxiomSchema schema;
  schema.name = name;
  schema.family = "elementwise";
  schema.statement = op + "(x, y) = " + op + "(y, x) for x and y of one rank that broadcast";
  schema.propose = [op](const SignatureIndex& index) { return broadcast_tuples(index, op, 2); };
  schema.guard = [](const AxiomParams& params) { return broadcasts(params, {"x", "y"}); };
  schema.build = [op](const AxiomParams& params) {
    AxiomSides s;
    ValueId x = s.input("x", shape_param(params, "x")), y = s.input("y", shape_param(params, "y"));
    s.set_outputs({node(s.lhs, op, {}, {x, y})}, {node(s.rhs, op, {}, {y, x})});
    return s;
  };
  schema.examples = {{{"x", Dims{2, 3}}, {"y", Dims{1, 3}}},
                     {{"x", Dims{1, 2, 1, 1}}, {"y", Dims{1, 2, 3, 2}}},
                     {{"x", Dims{3}}, {"y", Dims{2, 2, 3}}}};
  return schema;
}

AxiomSchema associative(const std::string& op, const std::string& name) {
  AxiomSchema schema;
  schema.name = name;
  schema.family = "elementwise";
  schema.statement = op + "(" + op + "(x, y), z) = " + op + "(x, " + op + "(y, z)) for x, y, z of one rank that broadcast";
  schema.propose = [op](const SignatureIndex& index) { return broadcast_tuples(index, op, 3); };
  schema.guard = [](const AxiomParams& params) { return broadcasts(params, {"x", "y", "z"}); };
  schema.build = [op](const AxiomParams& params) {
    AxiomSides s;
    ValueId x = s.input("x", shape_param(params, "x")), y = s.input("y", shape_param(params, "y"));
    ValueId z = s.input("z", shape_param(params, "z"));
    s.set_outputs({node(s.lhs, op, {}, {node(s.lhs, op, {}, {x, y}), z})},
                  {node(s.rhs, op, {}, {x, node(s.rhs, op, {}, {y, z})})});
    return s;
  };
  schema.examples = {{{"x", Dims{2, 3}}, {"y", Dims{2, 3}}, {"z", Dims{1, 3}}},
                     {{"x", Dims{1, 2, 1, 1}}, {"y", Dims{1, 2, 3, 2}}, {"z", Dims{1, 2, 3, 2}}},
                     {{"x", Dims{2, 4, 3}}, {"y", Dims{3}}, {"z", Dims{}}}};
  return schema;
}

// {"x", "y"} for each pair of Add operand shapes (broadcast, one rank) whose sum a scalar Mul of
// the goal scales.
std::vector<AxiomParams> scaled_broadcast_sums(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  std::set<Dims> scaled;
  for (const NodeSignature& mul : index.of("Mul"))
    if (mul.inputs.size() == 2 && mul.inputs[1].shape.rank() == 0) scaled.insert(mul.inputs[0].shape.dims());
  for (const AxiomParams& params : broadcast_tuples(index, "Add", 2)) {
    std::optional<Shape> sum = broadcast_all({shape_param(params, "x"), shape_param(params, "y")});
    if (sum && scaled.count(sum->dims())) result.push_back(params);
  }
  return result;
}

AxiomSchema scalar_distributes() {
  AxiomSchema schema;
  schema.name = "scalar-mul-distributes-over-ewadd-broadcast";
  schema.family = "elementwise";
  schema.statement = "Mul(Add(x, y), s) = Add(Mul(x, s), Mul(y, s)) for a scalar s and x, y of one rank that broadcast";
  schema.propose = scaled_broadcast_sums;
  schema.guard = [](const AxiomParams& params) { return broadcasts(params, {"x", "y"}); };
  schema.build = [](const AxiomParams& params) {
    AxiomSides s;
    ValueId x = s.input("x", shape_param(params, "x")), y = s.input("y", shape_param(params, "y"));
    ValueId scalar = s.input("s", Shape{});
    ValueId left = node(s.lhs, "Mul", {}, {node(s.lhs, "Add", {}, {x, y}), scalar});
    ValueId right = node(s.rhs, "Add", {}, {node(s.rhs, "Mul", {}, {x, scalar}), node(s.rhs, "Mul", {}, {y, scalar})});
    s.set_outputs({left}, {right});
    return s;
  };
  schema.examples = {{{"x", Dims{2, 3}}, {"y", Dims{1, 3}}}, {{"x", Dims{1, 2, 3, 2}}, {"y", Dims{1, 2, 1, 1}}}};
  return schema;
}

AxiomSchema mul_distributes() {
  AxiomSchema schema;
  schema.name = "ewmul-distributes-over-ewadd-broadcast";
  schema.family = "elementwise";
  schema.statement = "Mul(x, Add(y, z)) = Add(Mul(x, y), Mul(x, z)) for x, y, z that broadcast";
  schema.propose = [](const SignatureIndex& index) { return broadcast_tuples(index, "Mul over Add", 3); };
  schema.guard = [](const AxiomParams& params) { return broadcasts(params, {"x", "y", "z"}); };
  schema.build = [](const AxiomParams& params) {
    AxiomSides s;
    ValueId x = s.input("x", shape_param(params, "x")), y = s.input("y", shape_param(params, "y"));
    ValueId z = s.input("z", shape_param(params, "z"));
    s.set_outputs({node(s.lhs, "Mul", {}, {x, node(s.lhs, "Add", {}, {y, z})})},
                  {node(s.rhs, "Add", {}, {node(s.rhs, "Mul", {}, {x, y}), node(s.rhs, "Mul", {}, {x, z})})});
    return s;
  };
  schema.examples = {{{"x", Dims{2, 3}}, {"y", Dims{2, 3}}, {"z", Dims{}}},
                     {{"x", Dims{1, 2, 3, 2}}, {"y", Dims{1, 2, 1, 1}}, {"z", Dims{2}}}};
  return schema;
}

}  // namespace

std::vector<AxiomSchema> elementwise_broadcast_axioms() {
  return {commutative("Add", "ewadd-commutative-broadcast"), associative("Add", "ewadd-associative-broadcast"),
          commutative("Mul", "ewmul-commutative-broadcast"), associative("Mul", "ewmul-associative-broadcast"),
          scalar_distributes(), mul_distributes()};
}

}  // namespace pet::axioms
