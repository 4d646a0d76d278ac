// Scalar-multiplication axioms (Mul by a rank-0 tensor): it associates, distributes over Add, and
// commutes with elementwise Mul, Transpose, MatMul, Concat and Conv (input and weight).
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

const Shape kScalar{};

bool guard_shape(const AxiomParams& params) { return all_positive(params.get_ints("shape")); }

// One {"shape"} per scalar Mul of the goal.
std::vector<AxiomParams> scaled_shapes(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& signature : index.of("Mul"))
    if (signature.inputs.size() == 2 && signature.inputs[1].shape.rank() == 0 && signature.inputs[0].shape.rank() > 0)
      result.push_back({{"shape", signature.inputs[0].shape.dims()}});
  return result;
}

std::vector<AxiomParams> shape_examples() {
  return {{{"shape", std::vector<int64_t>{4}}}, {{"shape", std::vector<int64_t>{2, 3}}}};
}

ValueId scale(Graph& side, ValueId x, ValueId s) { return node(side, "Mul", {}, {x, s}); }

AxiomSchema associative() {
  return {"scalar-mul-associative",
          "scalar",
          "Mul(Mul(x, s), t) = Mul(x, Mul(s, t)) for scalars s, t",
          scaled_shapes,
          guard_shape,
          [](const AxiomParams& p) {
            AxiomSides sides;
            ValueId x = sides.input("x", shape_param(p, "shape"));
            ValueId s = sides.input("s", kScalar), t = sides.input("t", kScalar);
            sides.set_outputs({scale(sides.lhs, scale(sides.lhs, x, s), t)},
                              {scale(sides.rhs, x, scale(sides.rhs, s, t))});
            return sides;
          },
          shape_examples()};
}

// Mul(Add(x, y), s) = Add(Mul(x, s), Mul(y, s)), or for `op` Mul: Mul(Mul(x, y), s) = Mul(Mul(x, s), y).
AxiomSchema through_ewbinary(const std::string& op) {
  bool add = op == "Add";
  return {add ? "scalar-mul-distributes-over-ewadd" : "scalar-mul-commutes-with-ewmul",
          "scalar",
          add ? "Mul(Add(x, y), s) = Add(Mul(x, s), Mul(y, s))" : "Mul(Mul(x, y), s) = Mul(Mul(x, s), y)",
          scaled_shapes,
          guard_shape,
          [op, add](const AxiomParams& p) {
            AxiomSides sides;
            ValueId x = sides.input("x", shape_param(p, "shape")), y = sides.input("y", shape_param(p, "shape"));
            ValueId s = sides.input("s", kScalar);
            ValueId left = scale(sides.lhs, node(sides.lhs, op, {}, {x, y}), s);
            ValueId right = node(sides.rhs, op, {}, {scale(sides.rhs, x, s), add ? scale(sides.rhs, y, s) : y});
            sides.set_outputs({left}, {right});
            return sides;
          },
          shape_examples()};
}

AxiomSchema commutes_with_transpose() {
  return {"scalar-mul-commutes-with-transpose",
          "scalar",
          "Transpose(Mul(x, s)) = Mul(Transpose(x), s)",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (!has_scalar_mul(index)) return result;
            for (const NodeSignature& t : index.of("Transpose"))
              result.push_back({{"shape", t.inputs[0].shape.dims()}, {"perm", t.attrs.get_ints("perm")}});
            return result;
          },
          guard_shape,
          [](const AxiomParams& p) {
            AxiomSides sides;
            ValueId x = sides.input("x", shape_param(p, "shape")), s = sides.input("s", kScalar);
            Attributes perm{{"perm", p.get_ints("perm")}};
            sides.set_outputs({node(sides.lhs, "Transpose", perm, {scale(sides.lhs, x, s)})},
                              {scale(sides.rhs, node(sides.rhs, "Transpose", perm, {x}), s)});
            return sides;
          },
          {{{"shape", std::vector<int64_t>{2, 3}}, {"perm", std::vector<int64_t>{1, 0}}},
           {{"shape", std::vector<int64_t>{2, 3, 4}}, {"perm", std::vector<int64_t>{2, 0, 1}}}}};
}

AxiomSchema commutes_with_matmul() {
  return {"scalar-mul-commutes-with-matmul",
          "scalar",
          "MatMul(Mul(a, s), b) = Mul(MatMul(a, b), s)",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (!has_scalar_mul(index)) return result;
            for (const NodeSignature& m : index.of("MatMul"))
              result.push_back({{"a", m.inputs[0].shape.dims()}, {"b", m.inputs[1].shape.dims()}});
            return result;
          },
          [](const AxiomParams& p) { return all_positive(p.get_ints("a")) && all_positive(p.get_ints("b")); },
          [](const AxiomParams& p) {
            AxiomSides sides;
            ValueId a = sides.input("a", shape_param(p, "a")), b = sides.input("b", shape_param(p, "b"));
            ValueId s = sides.input("s", kScalar);
            sides.set_outputs({node(sides.lhs, "MatMul", {}, {scale(sides.lhs, a, s), b})},
                              {scale(sides.rhs, node(sides.rhs, "MatMul", {}, {a, b}), s)});
            return sides;
          },
          {{{"a", std::vector<int64_t>{2, 3}}, {"b", std::vector<int64_t>{3, 4}}},
           {{"a", std::vector<int64_t>{2, 2, 3}}, {"b", std::vector<int64_t>{2, 3, 2}}}}};
}

AxiomSchema commutes_with_concat() {
  return {
      "scalar-mul-commutes-with-concat",
      "scalar",
      "Concat(Mul(x, s), Mul(y, s)) = Mul(Concat(x, y), s)",
      [](const SignatureIndex& index) {
        std::vector<AxiomParams> result;
        if (!has_scalar_mul(index)) return result;
        for (const NodeSignature& c : index.of("Concat")) {
          int axis = static_cast<int>(c.attrs.get_int("axis"));
          result.push_back(
              {{"shape", c.outputs[0].shape.dims()}, {"axis", int64_t{axis}}, {"sizes", axis_sizes(c.inputs, axis)}});
        }
        return result;
      },
      [](const AxiomParams& p) { return all_positive(p.get_ints("shape")) && all_positive(p.get_ints("sizes")); },
      [](const AxiomParams& p) {
        AxiomSides sides;
        int axis = static_cast<int>(p.get_int("axis"));
        std::vector<ValueId> x = inputs(sides, "x", pieces(shape_param(p, "shape"), axis, p.get_ints("sizes")));
        ValueId s = sides.input("s", kScalar);
        std::vector<std::vector<ValueId>> scaled;
        for (ValueId piece : x) scaled.push_back({piece, s});
        ValueId left = node(sides.lhs, "Concat", concat_attrs(axis), map_nodes(sides.lhs, "Mul", {}, scaled));
        ValueId right = scale(sides.rhs, node(sides.rhs, "Concat", concat_attrs(axis), x), s);
        sides.set_outputs({left}, {right});
        return sides;
      },
      {{{"shape", std::vector<int64_t>{2, 5}}, {"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{2, 3}}},
       {{"shape", std::vector<int64_t>{6, 2}}, {"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{1, 2, 3}}}}};
}

// Conv(Mul(x, s), w) = Mul(Conv(x, w), s), or the same with the scalar on the weight.
AxiomSchema commutes_with_conv(bool on_weight) {
  std::string name = on_weight ? "scalar-mul-commutes-with-conv-weight" : "scalar-mul-commutes-with-conv-input";
  std::string statement =
      on_weight ? "Conv(x, Mul(w, s)) = Mul(Conv(x, w), s)" : "Conv(Mul(x, s), w) = Mul(Conv(x, w), s)";
  return {name,
          "scalar",
          statement,
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (!has_scalar_mul(index)) return result;
            for (const NodeSignature& c : index.of("Conv"))
              if (is_plain_conv(c)) result.push_back(conv_params(c));
            return result;
          },
          [](const AxiomParams&) { return true; },
          [on_weight](const AxiomParams& p) {
            AxiomSides sides;
            ValueId x = sides.input("x", shape_param(p, "x")), w = sides.input("w", shape_param(p, "w"));
            ValueId s = sides.input("s", kScalar);
            Attributes attrs = conv_attrs(p);
            ValueId left = on_weight ? node(sides.lhs, "Conv", attrs, {x, scale(sides.lhs, w, s)})
                                     : node(sides.lhs, "Conv", attrs, {scale(sides.lhs, x, s), w});
            sides.set_outputs({left}, {scale(sides.rhs, node(sides.rhs, "Conv", attrs, {x, w}), s)});
            return sides;
          },
          {conv_example({1, 2, 5, 5}, {3, 2, 3, 3}, 1, 1, 1), conv_example({2, 4, 6, 6}, {4, 2, 3, 3}, 2, 0, 2)}};
}

}  // namespace

std::vector<AxiomSchema> scalar_axioms() {
  return {associative(),           through_ewbinary("Add"), through_ewbinary("Mul"),   commutes_with_transpose(),
          commutes_with_matmul(),  commutes_with_concat(),  commutes_with_conv(false), commutes_with_conv(true)};
}

}  // namespace pet::axioms
