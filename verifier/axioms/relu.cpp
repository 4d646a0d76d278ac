// Relu axioms: Relu is elementwise, so it commutes with data movement (Transpose, Concat, Layout).
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

// Relu(Op(x)) = Op(Relu(x)) for a one-input data-movement op, its attributes in the parameters.
AxiomSchema commutes_with_mover(const std::string& op, const std::string& name, std::vector<AxiomParams> examples) {
  return {name,
          "relu",
          "Relu(" + op + "(x)) = " + op + "(Relu(x))",
          [op](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (index.of("Relu").empty()) return result;
            for (const NodeSignature& mover : index.of(op)) {
              AxiomParams params{{"shape", mover.inputs[0].shape.dims()}};
              copy_attrs(mover.attrs, params);
              result.push_back(params);
            }
            return result;
          },
          [](const AxiomParams& p) { return all_positive(p.get_ints("shape")); },
          [op](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "shape"));
            Attributes attrs = op_attrs_from(p, op);
            s.set_outputs({node(s.lhs, "Relu", {}, {node(s.lhs, op, attrs, {x})})},
                          {node(s.rhs, op, attrs, {node(s.rhs, "Relu", {}, {x})})});
            return s;
          },
          std::move(examples)};
}

AxiomSchema commutes_with_concat() {
  return {"relu-commutes-with-concat",
          "relu",
          "Relu(Concat(x1, x2)) = Concat(Relu(x1), Relu(x2))",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            if (index.of("Relu").empty()) return result;
            for (const NodeSignature& concat : index.of("Concat")) {
              int axis = static_cast<int>(concat.attrs.get_int("axis"));
              result.push_back({{"shape", concat.outputs[0].shape.dims()},
                                {"axis", int64_t{axis}},
                                {"sizes", axis_sizes(concat.inputs, axis)}});
            }
            return result;
          },
          [](const AxiomParams& p) {
            Dims shape = p.get_ints("shape"), sizes = p.get_ints("sizes");
            int64_t axis = p.get_int("axis"), total = 0;
            for (int64_t size : sizes) total += size;
            return all_positive(shape) && all_positive(sizes) && axis >= 0 &&
                   axis < static_cast<int64_t>(shape.size()) && total == shape[static_cast<size_t>(axis)];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            int64_t axis = p.get_int("axis");
            std::vector<ValueId> x =
                inputs(s, "x", pieces(shape_param(p, "shape"), static_cast<int>(axis), p.get_ints("sizes")));
            std::vector<std::vector<ValueId>> each;
            for (ValueId piece : x) each.push_back({piece});
            s.set_outputs({node(s.lhs, "Relu", {}, {node(s.lhs, "Concat", concat_attrs(axis), x)})},
                          {node(s.rhs, "Concat", concat_attrs(axis), map_nodes(s.rhs, "Relu", {}, each))});
            return s;
          },
          {{{"shape", Dims{2, 5}}, {"axis", int64_t{1}}, {"sizes", Dims{2, 3}}},
           {{"shape", Dims{3, 2, 2}}, {"axis", int64_t{0}}, {"sizes", Dims{1, 1, 1}}}}};
}

}  // namespace

std::vector<AxiomSchema> relu_axioms() {
  return {commutes_with_mover(
              "Transpose", "relu-commutes-with-transpose",
              {{{"shape", Dims{2, 3}}, {"perm", Dims{1, 0}}}, {{"shape", Dims{2, 3, 4}}, {"perm", Dims{1, 2, 0}}}}),
          commutes_with_concat(),
          commutes_with_mover(
              "Layout", "relu-commutes-with-layout",
              {{{"shape", Dims{2, 6}}, {"expanded", Dims{2, 2, 3}}, {"perm", Dims{1, 0, 2}}, {"groups", Dims{2, 1}}},
               {{"shape", Dims{4, 3}}, {"expanded", Dims{2, 2, 3}}, {"perm", Dims{2, 1, 0}}, {"groups", Dims{1, 2}}}})};
}

}  // namespace pet::axioms
