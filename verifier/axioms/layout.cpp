// Layout axioms: two layouts compose into one (when a single Layout exists), a layout followed by
// its inverse cancels, a layout that reads its input in order is neutral, and Transpose is a Layout.
#include "core/ops/layout.h"

#include "core/registry.h"
#include "verifier/axioms/axiom_util.h"
#include "verifier/axioms/layout_composition.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

// Layout attributes stored in parameters under `prefix`_expanded, `prefix`_perm, `prefix`_groups.
void set_layout(AxiomParams& params, const std::string& prefix, const Attributes& layout) {
  for (const char* part : {"expanded", "perm", "groups"}) params.set(prefix + "_" + part, layout.get_ints(part));
}

Attributes get_layout(const AxiomParams& params, const std::string& prefix) {
  return ops::layout_attrs(params.get_ints(prefix + "_expanded"), params.get_ints(prefix + "_perm"),
                           params.get_ints(prefix + "_groups"));
}

AxiomParams pair_params(const Shape& shape, const Attributes& first, const Attributes& second) {
  AxiomParams params{{"shape", shape.dims()}};
  set_layout(params, "a", first);
  set_layout(params, "b", second);
  return params;
}

// Whether the Layout attributes are valid for an input of this positive shape.
bool valid_layout(const Shape& shape, const Attributes& layout) {
  const TensorType input{DType::f32, shape};
  std::vector<const TensorType*> operands = {&input};
  return !infer_types(OpRegistry::global().get("Layout"), layout, operands, "axiom guard").refused() &&
         all_positive(shape.dims());
}

bool valid_pair(const AxiomParams& p) {
  Shape shape = shape_param(p, "shape");
  return valid_layout(shape, get_layout(p, "a")) &&
         valid_layout(ops::layout_output_shape(get_layout(p, "a")), get_layout(p, "b"));
}

// Pairs of goal layouts where the second reads the first's output.
std::vector<AxiomParams> chained_layouts(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& first : index.of("Layout"))
    for (const NodeSignature& second : index.of("Layout"))
      if (second.inputs[0] == first.outputs[0])
        result.push_back(pair_params(first.inputs[0].shape, first.attrs, second.attrs));
  return result;
}

ValueId layout(Graph& side, const Attributes& attrs, ValueId x) { return node(side, "Layout", attrs, {x}); }

std::vector<AxiomParams> pair_examples() {
  Shape nchw{4, 2, 3, 2}, matrix{2, 6};
  Attributes to_height = ops::layout_batch_to_height(nchw, 2);
  return {pair_params(nchw, to_height, ops::layout_height_to_batch(ops::layout_output_shape(to_height), 2)),
          pair_params(matrix, ops::layout_transpose(matrix, {1, 0}), ops::layout_transpose(Shape{6, 2}, {1, 0})),
          pair_params(nchw, ops::layout_transpose(nchw, {0, 2, 3, 1}),
                      ops::layout_transpose(Shape{4, 3, 2, 2}, {3, 0, 1, 2})),
          pair_params(Shape{2, 2, 4, 1}, ops::layout_dilation_deinterleave(Shape{2, 2, 4, 1}, 2, 2),
                      ops::layout_batch_to_height(Shape{4, 2, 2, 1}, 2))};
}

AxiomSchema composes() {
  return {"layout-composes",
          "layout",
          "Layout[b](Layout[a](x)) = Layout[a then b](x) when one Layout expresses both",
          chained_layouts,
          [](const AxiomParams& p) {
            return valid_pair(p) && compose_layouts(shape_param(p, "shape"), get_layout(p, "a"), get_layout(p, "b"));
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape shape = shape_param(p, "shape");
            ValueId x = s.input("x", shape);
            Attributes both = *compose_layouts(shape, get_layout(p, "a"), get_layout(p, "b"));
            s.set_outputs({layout(s.lhs, get_layout(p, "b"), layout(s.lhs, get_layout(p, "a"), x))},
                          {layout(s.rhs, both, x)});
            return s;
          },
          pair_examples()};
}

AxiomSchema inverse_cancels() {
  return {"layout-inverse-cancels",
          "layout",
          "Layout[inverse of a](Layout[a](x)) = x",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& first : index.of("Layout"))
              for (const NodeSignature& second : index.of("Layout"))
                if (second.inputs[0] == first.outputs[0] &&
                    second.attrs == ops::layout_inverse(first.inputs[0].shape, first.attrs))
                  result.push_back(pair_params(first.inputs[0].shape, first.attrs, second.attrs));
            return result;
          },
          [](const AxiomParams& p) {
            return valid_pair(p) &&
                   get_layout(p, "b") == ops::layout_inverse(shape_param(p, "shape"), get_layout(p, "a"));
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "shape"));
            s.set_outputs({layout(s.lhs, get_layout(p, "b"), layout(s.lhs, get_layout(p, "a"), x))}, {x});
            return s;
          },
          [] {
            std::vector<AxiomParams> examples;
            for (const auto& [shape, first] :
                 {std::pair{Shape{4, 2, 3, 2}, ops::layout_batch_to_height(Shape{4, 2, 3, 2}, 2)},
                  std::pair{Shape{2, 4, 3, 1}, ops::layout_channel_to_height(Shape{2, 4, 3, 1}, 2)},
                  std::pair{Shape{1, 2, 6, 2}, ops::layout_dilation_deinterleave(Shape{1, 2, 6, 2}, 2, 3)}})
              examples.push_back(pair_params(shape, first, ops::layout_inverse(shape, first)));
            return examples;
          }()};
}

AxiomSchema identity_neutral() {
  return {"layout-identity-neutral",
          "layout",
          "Layout[a](x) = x when a reads x in order into its own shape",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& l : index.of("Layout")) {
              AxiomParams params{{"shape", l.inputs[0].shape.dims()}};
              set_layout(params, "a", l.attrs);
              result.push_back(params);
            }
            return result;
          },
          [](const AxiomParams& p) {
            Shape shape = shape_param(p, "shape");
            return valid_layout(shape, get_layout(p, "a")) && is_identity_layout(shape, get_layout(p, "a"));
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "shape"));
            s.set_outputs({layout(s.lhs, get_layout(p, "a"), x)}, {x});
            return s;
          },
          [] {
            std::vector<AxiomParams> examples;
            for (const auto& [shape, attrs] : {std::pair{Shape{2, 6}, ops::layout_attrs({2, 2, 3}, {0, 1, 2}, {1, 2})},
                                               std::pair{Shape{1, 3, 1}, ops::layout_identity(Shape{1, 3, 1})}}) {
              AxiomParams params{{"shape", shape.dims()}};
              set_layout(params, "a", attrs);
              examples.push_back(params);
            }
            return examples;
          }()};
}

AxiomSchema transpose_is_layout() {
  return {"transpose-is-layout",
          "layout",
          "Transpose[p](x) = Layout[transpose p](x)",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& t : index.of("Transpose"))
              result.push_back({{"shape", t.inputs[0].shape.dims()}, {"perm", t.attrs.get_ints("perm")}});
            return result;
          },
          [](const AxiomParams& p) {
            return all_positive(p.get_ints("shape")) && p.get_ints("perm").size() == p.get_ints("shape").size();
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape shape = shape_param(p, "shape");
            ValueId x = s.input("x", shape);
            s.set_outputs({node(s.lhs, "Transpose", {{"perm", p.get_ints("perm")}}, {x})},
                          {layout(s.rhs, ops::layout_transpose(shape, p.get_ints("perm")), x)});
            return s;
          },
          {{{"shape", Dims{2, 3}}, {"perm", Dims{1, 0}}}, {{"shape", Dims{2, 1, 3, 2}}, {"perm", Dims{0, 3, 1, 2}}}}};
}

}  // namespace

std::vector<AxiomSchema> layout_axioms() {
  return {composes(), inverse_cancels(), identity_neutral(), transpose_is_layout()};
}

}  // namespace pet::axioms
