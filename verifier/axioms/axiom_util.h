// Small helpers the axiom families share: shape arithmetic on parameters and op attribute sets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verifier/axioms/axiom.h"

namespace pet::axioms {

inline Shape shape_param(const AxiomParams& params, const std::string& name) { return Shape(params.get_ints(name)); }

// `shape` with dimension `axis` set to `size`.
Shape with_dim(Shape shape, int axis, int64_t size);

// Pieces of `shape` along `axis` with the listed sizes.
std::vector<Shape> pieces(const Shape& shape, int axis, const std::vector<int64_t>& sizes);

// Sizes along `axis` of the inputs of a signature.
std::vector<int64_t> axis_sizes(const std::vector<TensorType>& types, int axis);

bool all_positive(const std::vector<int64_t>& values);
bool same_types(const std::vector<TensorType>& types);

// Conv attributes copied from parameters named like them.
Attributes conv_attrs(const AxiomParams& params);
// The conv attribute entries of a signature as parameters.
void copy_conv_attrs(const Attributes& conv, AxiomParams& params);

// Inputs named `prefix`0, `prefix`1, ... of the given shapes.
std::vector<ValueId> inputs(AxiomSides& sides, const std::string& prefix, const std::vector<Shape>& shapes);

// The outputs of a node on one side. The schema's guard admitted the parameters, so a shape rule
// that refuses them is an internal error, not a user's.
std::vector<ValueId> node_outputs(Graph& side, const std::string& op, const Attributes& attrs,
                                  std::vector<ValueId> inputs);
// A node with one output on one side (node_outputs).
ValueId node(Graph& side, const std::string& op, Attributes attrs, std::vector<ValueId> inputs);

// The same op applied to each list of inputs (one node per list).
std::vector<ValueId> map_nodes(Graph& side, const std::string& op, const Attributes& attrs,
                               const std::vector<std::vector<ValueId>>& inputs);

Attributes concat_attrs(int64_t axis);
Attributes split_attrs(int64_t axis, const std::vector<int64_t>& sizes);

}  // namespace pet::axioms

namespace pet::axioms {

// {"x", "w", strides, pads, dilations, group} of a bias-free f32 Conv signature.
AxiomParams conv_params(const NodeSignature& conv);
bool is_plain_conv(const NodeSignature& signature);
// Parameters of a 2-D conv example with square stride/pad and dilation 1.
AxiomParams conv_example(std::vector<int64_t> x, std::vector<int64_t> w, int64_t stride, int64_t pad, int64_t group);

// `params` with one more entry (for examples).
inline AxiomParams with_param(AxiomParams params, const std::string& name, AttrValue value) {
  params.set(name, std::move(value));
  return params;
}

// Whether the goal multiplies some tensor by a scalar (Mul with a rank-0 second input).
bool has_scalar_mul(const SignatureIndex& index);

}  // namespace pet::axioms

namespace pet::axioms {

// The attributes `op` declares, taken from parameters of the same names (absent ones left out).
Attributes op_attrs_from(const AxiomParams& params, const std::string& op);
// Copies every attribute of a signature into the parameters.
void copy_attrs(const Attributes& attrs, AxiomParams& params);

}  // namespace pet::axioms
