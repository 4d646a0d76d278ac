// MatMul axioms (equal-rank operands with equal batch dims, or a 2-D right operand broadcast over the
// left's batch dims): associative, linear in each operand, transposing reverses it (equal ranks), and
// concatenated operands split into concatenated or summed products.
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

// Matching inner dims, and either the same rank >= 2 with equal batch dims, or a right operand of
// rank 2 that every matrix of the left one multiplies (activations times a weight matrix).
bool multipliable(const Dims& a, const Dims& b) {
  if (a.size() < 2 || b.size() < 2 || !all_positive(a) || !all_positive(b)) return false;
  if (a[a.size() - 1] != b[b.size() - 2]) return false;
  if (b.size() == 2) return true;
  return a.size() == b.size() && std::equal(a.begin(), a.end() - 2, b.begin());
}

// The same with equal ranks: transposing swaps the last two axes of both operands alike.
bool multipliable_same_rank(const Dims& a, const Dims& b) { return a.size() == b.size() && multipliable(a, b); }

std::vector<AxiomParams> matmuls(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& m : index.of("MatMul"))
    result.push_back({{"a", m.inputs[0].shape.dims()}, {"b", m.inputs[1].shape.dims()}});
  return result;
}

bool guard_ab(const AxiomParams& p) { return multipliable(p.get_ints("a"), p.get_ints("b")); }

ValueId matmul(Graph& side, ValueId a, ValueId b) { return node(side, "MatMul", {}, {a, b}); }

Attributes swap_last_two(size_t rank) {
  std::vector<int64_t> perm(rank);
  for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return {{"perm", perm}};
}

AxiomSchema associative() {
  return {"matmul-associative",
          "matmul",
          "MatMul(MatMul(a, b), c) = MatMul(a, MatMul(b, c))",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& first : index.of("MatMul"))
              for (const NodeSignature& second : index.of("MatMul"))
                if (second.inputs[0] == first.outputs[0])
                  result.push_back({{"a", first.inputs[0].shape.dims()},
                                    {"b", first.inputs[1].shape.dims()},
                                    {"c", second.inputs[1].shape.dims()}});
            return result;
          },
          [](const AxiomParams& p) {
            Dims a = p.get_ints("a"), b = p.get_ints("b"), c = p.get_ints("c");
            Dims ab = a;
            if (!multipliable(a, b)) return false;
            ab.back() = b.back();
            return multipliable(ab, c);
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId a = s.input("a", shape_param(p, "a")), b = s.input("b", shape_param(p, "b"));
            ValueId c = s.input("c", shape_param(p, "c"));
            s.set_outputs({matmul(s.lhs, matmul(s.lhs, a, b), c)}, {matmul(s.rhs, a, matmul(s.rhs, b, c))});
            return s;
          },
          {{{"a", Dims{2, 3}}, {"b", Dims{3, 4}}, {"c", Dims{4, 2}}},
           {{"a", Dims{2, 1, 3}}, {"b", Dims{2, 3, 2}}, {"c", Dims{2, 2, 5}}},
           {{"a", Dims{2, 2, 3}}, {"b", Dims{3, 4}}, {"c", Dims{4, 2}}},
           {{"a", Dims{2, 2, 3}}, {"b", Dims{2, 3, 4}}, {"c", Dims{4, 2}}}}};
}

AxiomSchema linear(bool right) {
  return {right ? "matmul-linear-right" : "matmul-linear-left",
          "matmul",
          right ? "MatMul(a, Add(b, c)) = Add(MatMul(a, b), MatMul(a, c))"
                : "MatMul(Add(a, c), b) = Add(MatMul(a, b), MatMul(c, b))",
          matmuls,
          guard_ab,
          [right](const AxiomParams& p) {
            AxiomSides s;
            ValueId a = s.input("a", shape_param(p, "a")), b = s.input("b", shape_param(p, "b"));
            ValueId c = s.input("c", shape_param(p, right ? "b" : "a"));
            ValueId left = right ? matmul(s.lhs, a, node(s.lhs, "Add", {}, {b, c}))
                                 : matmul(s.lhs, node(s.lhs, "Add", {}, {a, c}), b);
            ValueId other = right ? matmul(s.rhs, a, c) : matmul(s.rhs, c, b);
            s.set_outputs({left}, {node(s.rhs, "Add", {}, {matmul(s.rhs, a, b), other})});
            return s;
          },
          {{{"a", Dims{2, 3}}, {"b", Dims{3, 4}}}, {{"a", Dims{3, 2, 2}}, {"b", Dims{3, 2, 1}}},
           {{"a", Dims{3, 2, 2}}, {"b", Dims{2, 4}}}}};
}

AxiomSchema transpose_reverses() {
  return {"matmul-transpose-reverses",
          "matmul",
          "Transpose(MatMul(a, b)) = MatMul(Transpose(b), Transpose(a))",
          matmuls,
          [](const AxiomParams& p) { return multipliable_same_rank(p.get_ints("a"), p.get_ints("b")); },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId a = s.input("a", shape_param(p, "a")), b = s.input("b", shape_param(p, "b"));
            Attributes swap = swap_last_two(p.get_ints("a").size());
            // One statement per node: the order nodes are made in orders the next round's instances,
            // and a function's arguments are evaluated in an order each compiler chooses.
            ValueId a_swapped = node(s.rhs, "Transpose", swap, {a});
            ValueId b_swapped = node(s.rhs, "Transpose", swap, {b});
            ValueId right = matmul(s.rhs, b_swapped, a_swapped);
            s.set_outputs({node(s.lhs, "Transpose", swap, {matmul(s.lhs, a, b)})}, {right});
            return s;
          },
          {{{"a", Dims{2, 3}}, {"b", Dims{3, 4}}}, {{"a", Dims{2, 3, 2}}, {"b", Dims{2, 2, 5}}}}};
}

// MatMul parameters plus "sizes": the pieces a Concat on `axis_from_end` of operand `operand` has.
std::vector<AxiomParams> matmuls_of_concat(const SignatureIndex& index, int operand, int axis_from_end) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& m : index.of("MatMul"))
    for (const NodeSignature& concat : index.of("Concat")) {
      const TensorType& target = m.inputs[static_cast<size_t>(operand)];
      int axis = target.shape.rank() - axis_from_end;
      if (concat.outputs[0] == target && concat.attrs.get_int("axis") == axis)
        result.push_back({{"a", m.inputs[0].shape.dims()},
                          {"b", m.inputs[1].shape.dims()},
                          {"sizes", axis_sizes(concat.inputs, axis)}});
    }
  return result;
}

bool sizes_fill(const AxiomParams& p, const char* operand, int axis_from_end) {
  Dims dims = p.get_ints(operand), sizes = p.get_ints("sizes");
  int64_t total = 0;
  for (int64_t size : sizes) total += size;
  return guard_ab(p) && all_positive(sizes) && total == dims[dims.size() - static_cast<size_t>(axis_from_end)];
}

AxiomSchema concat_columns() {
  return {"matmul-concat-columns",
          "matmul",
          "MatMul(a, Concat[-1](b1, b2)) = Concat[-1](MatMul(a, b1), MatMul(a, b2))",
          [](const SignatureIndex& index) { return matmuls_of_concat(index, 1, 1); },
          [](const AxiomParams& p) { return sizes_fill(p, "b", 1); },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape b = shape_param(p, "b");
            Shape a_shape = shape_param(p, "a");
            int axis = b.rank() - 1;
            int product_axis = a_shape.rank() - 1;  // the product has the left operand's rank
            ValueId a = s.input("a", a_shape);
            std::vector<ValueId> bs = inputs(s, "b", pieces(b, axis, p.get_ints("sizes")));
            std::vector<ValueId> products;
            for (ValueId piece : bs) products.push_back(matmul(s.rhs, a, piece));
            s.set_outputs({matmul(s.lhs, a, node(s.lhs, "Concat", concat_attrs(axis), bs))},
                          {node(s.rhs, "Concat", concat_attrs(product_axis), products)});
            return s;
          },
          {{{"a", Dims{2, 3}}, {"b", Dims{3, 5}}, {"sizes", Dims{2, 3}}},
           {{"a", Dims{2, 2, 3}}, {"b", Dims{2, 3, 4}}, {"sizes", Dims{1, 1, 2}}},
           {{"a", Dims{2, 2, 3}}, {"b", Dims{3, 5}}, {"sizes", Dims{2, 1, 2}}}}};
}

AxiomSchema concat_inner() {
  return {"matmul-concat-inner",
          "matmul",
          "MatMul(Concat[-1](a1, a2), Concat[-2](b1, b2)) = Add(MatMul(a1, b1), MatMul(a2, b2))",
          [](const SignatureIndex& index) { return matmuls_of_concat(index, 0, 1); },
          [](const AxiomParams& p) { return sizes_fill(p, "a", 1) && p.get_ints("sizes").size() >= 2; },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape a = shape_param(p, "a"), b = shape_param(p, "b");
            std::vector<ValueId> as = inputs(s, "a", pieces(a, a.rank() - 1, p.get_ints("sizes")));
            std::vector<ValueId> bs = inputs(s, "b", pieces(b, b.rank() - 2, p.get_ints("sizes")));
            ValueId b_joined = node(s.lhs, "Concat", concat_attrs(b.rank() - 2), bs);  // one node per statement
            ValueId a_joined = node(s.lhs, "Concat", concat_attrs(a.rank() - 1), as);
            ValueId left = matmul(s.lhs, a_joined, b_joined);
            ValueId sum = matmul(s.rhs, as[0], bs[0]);
            for (size_t i = 1; i < as.size(); ++i) sum = node(s.rhs, "Add", {}, {sum, matmul(s.rhs, as[i], bs[i])});
            s.set_outputs({left}, {sum});
            return s;
          },
          {{{"a", Dims{2, 5}}, {"b", Dims{5, 3}}, {"sizes", Dims{2, 3}}},
           {{"a", Dims{2, 2, 4}}, {"b", Dims{2, 4, 3}}, {"sizes", Dims{1, 1, 2}}},
           {{"a", Dims{2, 2, 4}}, {"b", Dims{4, 3}}, {"sizes", Dims{3, 1}}}}};
}

}  // namespace

std::vector<AxiomSchema> matmul_axioms() {
  return {associative(), linear(false), linear(true), transpose_reverses(), concat_columns(), concat_inner()};
}

}  // namespace pet::axioms
