// Concat and Split axioms with explicit piece sizes: Split undoes Concat (and back), Concat
// distributes over Add and Mul, and a Concat nested on the same axis flattens into its parent.
#include <numeric>

#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

AxiomParams concat_params(const NodeSignature& concat) {
  int axis = static_cast<int>(concat.attrs.get_int("axis"));
  return {
      {"shape", concat.outputs[0].shape.dims()}, {"axis", int64_t{axis}}, {"sizes", axis_sizes(concat.inputs, axis)}};
}

std::vector<AxiomParams> concats(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& concat : index.of("Concat")) result.push_back(concat_params(concat));
  return result;
}

// The pieces fill the axis of a positive shape.
bool pieces_fill(const AxiomParams& p) {
  Dims shape = p.get_ints("shape"), sizes = p.get_ints("sizes");
  int64_t axis = p.get_int("axis");
  return all_positive(shape) && all_positive(sizes) && axis >= 0 && axis < static_cast<int64_t>(shape.size()) &&
         std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) == shape[static_cast<size_t>(axis)];
}

std::vector<ValueId> piece_inputs(AxiomSides& s, const std::string& prefix, const AxiomParams& p) {
  return inputs(s, prefix, pieces(shape_param(p, "shape"), static_cast<int>(p.get_int("axis")), p.get_ints("sizes")));
}

std::vector<AxiomParams> concat_examples() {
  return {{{"shape", Dims{2, 5}}, {"axis", int64_t{1}}, {"sizes", Dims{2, 3}}},
          {{"shape", Dims{6, 2, 2}}, {"axis", int64_t{0}}, {"sizes", Dims{1, 2, 3}}},
          {{"shape", Dims{1, 4, 3, 3}}, {"axis", int64_t{1}}, {"sizes", Dims{2, 2}}}};
}

AxiomSchema split_undoes_concat() {
  return {"split-undoes-concat",
          "concat_split",
          "Split[sizes of x1, x2](Concat(x1, x2)) = (x1, x2)",
          concats,
          pieces_fill,
          [](const AxiomParams& p) {
            AxiomSides s;
            std::vector<ValueId> x = piece_inputs(s, "x", p);
            int64_t axis = p.get_int("axis");
            ValueId joined = node(s.lhs, "Concat", concat_attrs(axis), x);
            s.set_outputs(node_outputs(s.lhs, "Split", split_attrs(axis, p.get_ints("sizes")), {joined}), x);
            return s;
          },
          concat_examples()};
}

AxiomSchema concat_undoes_split() {
  return {"concat-undoes-split",
          "concat_split",
          "Concat(Split(x)) = x",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& split : index.of("Split"))
              result.push_back({{"shape", split.inputs[0].shape.dims()},
                                {"axis", split.attrs.get_int("axis")},
                                {"sizes", split.attrs.get_ints("split")}});
            return result;
          },
          pieces_fill,
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "shape"));
            int64_t axis = p.get_int("axis");
            std::vector<ValueId> parts = node_outputs(s.lhs, "Split", split_attrs(axis, p.get_ints("sizes")), {x});
            s.set_outputs({node(s.lhs, "Concat", concat_attrs(axis), parts)}, {x});
            return s;
          },
          concat_examples()};
}

// Add(Concat(x1, x2), Concat(y1, y2)) = Concat(Add(x1, y1), Add(x2, y2)), or with Mul.
AxiomSchema distributes_over(const std::string& op, const std::string& name) {
  return {name,
          "concat_split",
          op + "(Concat(x1, x2), Concat(y1, y2)) = Concat(" + op + "(x1, y1), " + op + "(x2, y2))",
          [op](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& concat : index.of("Concat"))
              for (const NodeSignature& user : index.of(op))
                if (user.inputs.size() == 2 && user.inputs[0] == concat.outputs[0] && same_types(user.inputs))
                  result.push_back(concat_params(concat));
            return result;
          },
          pieces_fill,
          [op](const AxiomParams& p) {
            AxiomSides s;
            std::vector<ValueId> x = piece_inputs(s, "x", p), y = piece_inputs(s, "y", p);
            Attributes concat = concat_attrs(p.get_int("axis"));
            ValueId left = node(s.lhs, op, {}, {node(s.lhs, "Concat", concat, x), node(s.lhs, "Concat", concat, y)});
            std::vector<std::vector<ValueId>> pairs;
            for (size_t i = 0; i < x.size(); ++i) pairs.push_back({x[i], y[i]});
            s.set_outputs({left}, {node(s.rhs, "Concat", concat, map_nodes(s.rhs, op, {}, pairs))});
            return s;
          },
          concat_examples()};
}

// Outer Concat whose input `position` is an inner Concat on the same axis.
std::vector<AxiomParams> nested_concats(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& outer : index.of("Concat"))
    for (const NodeSignature& inner : index.of("Concat"))
      for (size_t position = 0; position < outer.inputs.size(); ++position)
        if (inner.attrs == outer.attrs && inner.outputs[0] == outer.inputs[position]) {
          int axis = static_cast<int>(outer.attrs.get_int("axis"));
          Dims sizes = axis_sizes(outer.inputs, axis), inner_sizes = axis_sizes(inner.inputs, axis);
          sizes.erase(sizes.begin() + static_cast<std::ptrdiff_t>(position));
          sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(position), inner_sizes.begin(), inner_sizes.end());
          result.push_back(
              {{"shape", outer.outputs[0].shape.dims()},
               {"axis", int64_t{axis}},
               {"sizes", sizes},
               {"nested", Dims{static_cast<int64_t>(position), static_cast<int64_t>(inner_sizes.size())}}});
        }
  return result;
}

AxiomSchema flattens_nested() {
  return {"concat-flattens-nested",
          "concat_split",
          "Concat(x1, Concat(x2, x3), x4) = Concat(x1, x2, x3, x4) on one axis, piece sizes kept",
          nested_concats,
          [](const AxiomParams& p) {
            Dims nested = p.get_ints("nested");
            return pieces_fill(p) && nested.size() == 2 && nested[0] >= 0 && nested[1] >= 1 &&
                   nested[0] + nested[1] <= static_cast<int64_t>(p.get_ints("sizes").size());
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            std::vector<ValueId> x = piece_inputs(s, "x", p);
            Attributes concat = concat_attrs(p.get_int("axis"));
            Dims nested = p.get_ints("nested");
            auto first = x.begin() + nested[0], last = first + nested[1];
            std::vector<ValueId> outer(x.begin(), first);
            outer.push_back(node(s.lhs, "Concat", concat, std::vector<ValueId>(first, last)));
            outer.insert(outer.end(), last, x.end());
            s.set_outputs({node(s.lhs, "Concat", concat, outer)}, {node(s.rhs, "Concat", concat, x)});
            return s;
          },
          {{{"shape", Dims{2, 6}}, {"axis", int64_t{1}}, {"sizes", Dims{1, 2, 3}}, {"nested", Dims{1, 2}}},
           {{"shape", Dims{6, 2}}, {"axis", int64_t{0}}, {"sizes", Dims{1, 2, 3}}, {"nested", Dims{0, 2}}},
           {{"shape", Dims{2, 7, 1}}, {"axis", int64_t{1}}, {"sizes", Dims{1, 2, 3, 1}}, {"nested", Dims{1, 2}}}}};
}

}  // namespace

std::vector<AxiomSchema> concat_split_axioms() {
  return {split_undoes_concat(), concat_undoes_split(), distributes_over("Add", "concat-distributes-over-ewadd"),
          distributes_over("Mul", "concat-distributes-over-ewmul"), flattens_nested()};
}

}  // namespace pet::axioms
