// Transpose axioms: two transposes compose into one, the identity permutation is neutral, and a
// transpose moves a Concat's axis to where the permutation sends it.
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

bool is_permutation_of_rank(const Dims& perm, size_t rank) {
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank) return false;
  for (int64_t axis : perm) {
    if (axis < 0 || axis >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(axis)]) return false;
    seen[static_cast<size_t>(axis)] = true;
  }
  return true;
}

Attributes perm_attrs(const Dims& perm) { return {{"perm", perm}}; }

AxiomSchema composes() {
  return {"transpose-composes",
          "transpose",
          "Transpose[q](Transpose[p](x)) = Transpose[r](x) with r[i] = p[q[i]]",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& first : index.of("Transpose"))
              for (const NodeSignature& second : index.of("Transpose"))
                if (second.inputs[0] == first.outputs[0])
                  result.push_back({{"shape", first.inputs[0].shape.dims()},
                                    {"p", first.attrs.get_ints("perm")},
                                    {"q", second.attrs.get_ints("perm")}});
            return result;
          },
          [](const AxiomParams& p) {
            size_t rank = p.get_ints("shape").size();
            return all_positive(p.get_ints("shape")) && is_permutation_of_rank(p.get_ints("p"), rank) &&
                   is_permutation_of_rank(p.get_ints("q"), rank);
          },
          [](const AxiomParams& params) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(params, "shape"));
            Dims p = params.get_ints("p"), q = params.get_ints("q"), r;
            for (int64_t axis : q) r.push_back(p[static_cast<size_t>(axis)]);
            ValueId twice = node(s.lhs, "Transpose", perm_attrs(q), {node(s.lhs, "Transpose", perm_attrs(p), {x})});
            s.set_outputs({twice}, {node(s.rhs, "Transpose", perm_attrs(r), {x})});
            return s;
          },
          {{{"shape", Dims{2, 3}}, {"p", Dims{1, 0}}, {"q", Dims{1, 0}}},
           {{"shape", Dims{2, 3, 4}}, {"p", Dims{2, 0, 1}}, {"q", Dims{0, 2, 1}}},
           {{"shape", Dims{1, 2, 3, 2}}, {"p", Dims{0, 2, 3, 1}}, {"q", Dims{0, 3, 1, 2}}}}};
}

AxiomSchema identity_neutral() {
  return {"transpose-identity-neutral",
          "transpose",
          "Transpose[0, 1, ..](x) = x",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& t : index.of("Transpose"))
              result.push_back({{"shape", t.inputs[0].shape.dims()}});
            return result;
          },
          [](const AxiomParams& p) { return all_positive(p.get_ints("shape")); },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape shape = shape_param(p, "shape");
            ValueId x = s.input("x", shape);
            Dims identity;
            for (int axis = 0; axis < shape.rank(); ++axis) identity.push_back(axis);
            s.set_outputs({node(s.lhs, "Transpose", perm_attrs(identity), {x})}, {x});
            return s;
          },
          {{{"shape", Dims{2, 3}}}, {{"shape", Dims{1, 2, 3}}}}};
}

AxiomSchema swaps_concat_axis() {
  return {"transpose-swaps-concat-axis",
          "transpose",
          "Transpose[p](Concat[a](x1, x2)) = Concat[b](Transpose[p](x1), Transpose[p](x2)) where p[b] = a",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& t : index.of("Transpose"))
              for (const NodeSignature& concat : index.of("Concat"))
                if (concat.outputs[0] == t.inputs[0]) {
                  int axis = static_cast<int>(concat.attrs.get_int("axis"));
                  result.push_back({{"shape", concat.outputs[0].shape.dims()},
                                    {"axis", int64_t{axis}},
                                    {"sizes", axis_sizes(concat.inputs, axis)},
                                    {"perm", t.attrs.get_ints("perm")}});
                }
            return result;
          },
          [](const AxiomParams& p) {
            Dims shape = p.get_ints("shape"), sizes = p.get_ints("sizes");
            int64_t axis = p.get_int("axis"), total = 0;
            for (int64_t size : sizes) total += size;
            return all_positive(shape) && all_positive(sizes) &&
                   is_permutation_of_rank(p.get_ints("perm"), shape.size()) && axis >= 0 &&
                   axis < static_cast<int64_t>(shape.size()) && total == shape[static_cast<size_t>(axis)];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            int64_t axis = p.get_int("axis");
            Dims perm = p.get_ints("perm");
            std::vector<ValueId> x =
                inputs(s, "x", pieces(shape_param(p, "shape"), static_cast<int>(axis), p.get_ints("sizes")));
            int64_t moved = std::find(perm.begin(), perm.end(), axis) - perm.begin();
            std::vector<std::vector<ValueId>> each;
            for (ValueId piece : x) each.push_back({piece});
            ValueId left = node(s.lhs, "Transpose", perm_attrs(perm), {node(s.lhs, "Concat", concat_attrs(axis), x)});
            s.set_outputs({left}, {node(s.rhs, "Concat", concat_attrs(moved),
                                        map_nodes(s.rhs, "Transpose", perm_attrs(perm), each))});
            return s;
          },
          {{{"shape", Dims{2, 5}}, {"axis", int64_t{1}}, {"sizes", Dims{2, 3}}, {"perm", Dims{1, 0}}},
           {{"shape", Dims{2, 3, 4}}, {"axis", int64_t{2}}, {"sizes", Dims{1, 3}}, {"perm", Dims{2, 0, 1}}}}};
}

}  // namespace

std::vector<AxiomSchema> transpose_axioms() { return {composes(), identity_neutral(), swaps_concat_axis()}; }

}  // namespace pet::axioms
