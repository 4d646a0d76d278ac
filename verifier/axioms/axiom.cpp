// Axiom sides, instance labels, the shared helpers, and the list of every family's axioms.
#include "verifier/axioms/axiom.h"

#include "core/error.h"
#include "core/registry.h"
#include "core/shape_fit.h"
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {

ValueId AxiomSides::input(const std::string& name, const Shape& shape) {
  ValueId left = lhs.add_input(name, {DType::f32, shape});
  ValueId right = rhs.add_input(name, {DType::f32, shape});
  PET_CHECK(left == right, "axiom sides must declare inputs before nodes");
  return left;
}

ValueId AxiomSides::constant(const std::string& name, const Tensor& value) {
  ValueId left = lhs.add_constant(name, value);
  ValueId right = rhs.add_constant(name, value);
  PET_CHECK(left == right, "axiom sides must declare constants before nodes");
  return left;
}

void AxiomSides::set_outputs(std::vector<ValueId> left, std::vector<ValueId> right) {
  PET_CHECK(left.size() == right.size(), "axiom sides need as many outputs on each side");
  lhs.set_outputs(std::move(left));
  rhs.set_outputs(std::move(right));
}

std::string instance_label(const AxiomSchema& schema, const AxiomParams& params) {
  std::string label = schema.name + "{";
  bool first = true;
  for (const auto& [key, value] : params.entries()) {
    label += (first ? "" : ", ") + key + "=" + attr_value_to_string(value);
    first = false;
  }
  return label + "}";
}

AxiomSides build_instance(const AxiomSchema& schema, const AxiomParams& params) {
  AxiomSides sides = schema.build(params);
  for (size_t i = 0; i < sides.lhs.outputs().size(); ++i)
    PET_CHECK(sides.lhs.value(sides.lhs.outputs()[i]).type == sides.rhs.value(sides.rhs.outputs()[i]).type,
              "axiom " + instance_label(schema, params) + ": output " + std::to_string(i) + " types differ");
  return sides;
}

Shape with_dim(Shape shape, int axis, int64_t size) {
  shape[axis] = size;
  return shape;
}

std::vector<Shape> pieces(const Shape& shape, int axis, const std::vector<int64_t>& sizes) {
  std::vector<Shape> result;
  for (int64_t size : sizes) result.push_back(with_dim(shape, axis, size));
  return result;
}

std::vector<int64_t> axis_sizes(const std::vector<TensorType>& types, int axis) {
  std::vector<int64_t> sizes;
  for (const TensorType& type : types) sizes.push_back(type.shape[axis]);
  return sizes;
}

bool all_positive(const std::vector<int64_t>& values) {
  for (int64_t value : values)
    if (value <= 0) return false;
  return true;
}

bool same_types(const std::vector<TensorType>& types) {
  for (const TensorType& type : types)
    if (type != types.front()) return false;
  return true;
}

Attributes conv_attrs(const AxiomParams& params) {
  return {{"strides", params.get_ints("strides")},
          {"pads", params.get_ints("pads")},
          {"dilations", params.get_ints("dilations")},
          {"group", params.get_int("group")}};
}

void copy_conv_attrs(const Attributes& conv, AxiomParams& params) {
  for (const char* name : {"strides", "pads", "dilations"}) params.set(name, conv.get_ints(name));
  params.set("group", conv.get_int("group"));
}

std::vector<ValueId> inputs(AxiomSides& sides, const std::string& prefix, const std::vector<Shape>& shapes) {
  std::vector<ValueId> ids;
  for (size_t i = 0; i < shapes.size(); ++i) ids.push_back(sides.input(prefix + std::to_string(i), shapes[i]));
  return ids;
}

std::vector<ValueId> node_outputs(Graph& side, const std::string& op, const Attributes& attrs,
                                  std::vector<ValueId> inputs) {
  std::string refusal;
  std::optional<std::vector<ValueId>> outputs = add_node_if_fits(side, op, attrs, std::move(inputs), "", {}, refusal);
  PET_CHECK(outputs, "an axiom's guard admitted parameters its sides do not fit: " + refusal);
  return *outputs;
}

ValueId node(Graph& side, const std::string& op, Attributes attrs, std::vector<ValueId> inputs) {
  return node_outputs(side, op, attrs, std::move(inputs)).at(0);
}

std::vector<ValueId> map_nodes(Graph& side, const std::string& op, const Attributes& attrs,
                               const std::vector<std::vector<ValueId>>& inputs) {
  std::vector<ValueId> outputs;
  for (const auto& operands : inputs) outputs.push_back(node(side, op, attrs, operands));
  return outputs;
}

Attributes concat_attrs(int64_t axis) { return {{"axis", axis}}; }

Attributes split_attrs(int64_t axis, const std::vector<int64_t>& sizes) { return {{"axis", axis}, {"split", sizes}}; }

bool is_plain_conv(const NodeSignature& signature) {
  return signature.op == "Conv" && signature.inputs.size() == 2 && signature.present.size() == 2;
}

AxiomParams conv_params(const NodeSignature& conv) {
  AxiomParams params{{"x", conv.inputs.at(0).shape.dims()}, {"w", conv.inputs.at(1).shape.dims()}};
  copy_conv_attrs(conv.attrs, params);
  return params;
}

AxiomParams conv_example(std::vector<int64_t> x, std::vector<int64_t> w, int64_t stride, int64_t pad, int64_t group) {
  return {{"x", std::move(x)},
          {"w", std::move(w)},
          {"strides", std::vector<int64_t>{stride, stride}},
          {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
          {"dilations", std::vector<int64_t>{1, 1}},
          {"group", group}};
}

bool has_scalar_mul(const SignatureIndex& index) {
  for (const NodeSignature& signature : index.of("Mul"))
    if (signature.inputs.size() == 2 && signature.inputs[1].shape.rank() == 0) return true;
  return false;
}

Attributes op_attrs_from(const AxiomParams& params, const std::string& op) {
  Attributes attrs;
  for (const AttrSpec& spec : OpRegistry::global().get(op).attrs)
    if (params.has(spec.name)) attrs.set(spec.name, params.entries().at(spec.name));
  return attrs;
}

void copy_attrs(const Attributes& attrs, AxiomParams& params) {
  for (const auto& [name, value] : attrs.entries()) params.set(name, value);
}

const std::vector<AxiomSchema>& all_axioms() {
  static const std::vector<AxiomSchema> kAll = [] {
    std::vector<AxiomSchema> all;
    for (auto family : {elementwise_axioms, scalar_axioms, conv_axioms, matmul_axioms, concat_split_axioms,
                        transpose_axioms, relu_axioms, pooling_axioms, layout_axioms,
                        identity_axioms, elementwise_broadcast_axioms}) {
      std::vector<AxiomSchema> more = family();
      all.insert(all.end(), more.begin(), more.end());
    }
    return all;
  }();
  return kAll;
}

}  // namespace pet::axioms
