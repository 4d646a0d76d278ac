// Identity axioms: a MatMul by an identity matrix and a Conv with an identity kernel change nothing.
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

Tensor identity_matrix(int64_t size) {
  Tensor eye(DType::f32, Shape{size, size});
  for (int64_t i = 0; i < size; ++i) eye.mutable_f32()[static_cast<size_t>(i * size + i)] = 1.0f;
  return eye;
}

// [c, c, k, k...] with 1 at the kernel center of channel pairs (i, i): a SAME conv copies x.
Tensor identity_kernel(int64_t channels, int64_t kernel, int spatial) {
  Dims dims = {channels, channels};
  for (int s = 0; s < spatial; ++s) dims.push_back(kernel);
  Tensor weight(DType::f32, Shape(dims));
  int64_t window = 1;
  for (int s = 0; s < spatial; ++s) window *= kernel;
  int64_t center = 0;
  for (int s = 0; s < spatial; ++s) center = center * kernel + kernel / 2;
  for (int64_t c = 0; c < channels; ++c) weight.mutable_f32()[static_cast<size_t>((c * channels + c) * window + center)] = 1.0f;
  return weight;
}

AxiomSchema matmul_identity() {
  return {"matmul-identity-neutral",
          "identity",
          "MatMul(x, I) = x for the identity matrix I",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& matmul : index.of("MatMul")) {
              const Shape& b = matmul.inputs[1].shape;
              if (b.rank() == 2 && b[0] == b[1]) result.push_back({{"shape", matmul.inputs[0].shape.dims()}});
            }
            return result;
          },
          [](const AxiomParams& p) {
            Dims shape = p.get_ints("shape");
            return shape.size() >= 2 && all_positive(shape);
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape shape = shape_param(p, "shape");
            ValueId x = s.input("x", shape);
            ValueId eye = s.constant("identity", identity_matrix(shape[shape.rank() - 1]));
            s.set_outputs({node(s.lhs, "MatMul", {}, {x, eye})}, {x});
            return s;
          },
          {{{"shape", Dims{3, 4}}}, {{"shape", Dims{2, 3, 5}}}}};
}

AxiomSchema conv_identity() {
  return {"conv-identity-kernel-neutral",
          "identity",
          "Conv(x, I) = x for a SAME, stride-1, undilated conv whose kernel is the identity",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& conv : index.of("Conv")) {
              const Shape& w = conv.inputs[1].shape;
              if (conv.inputs.size() == 2 && w[0] == w[1] && conv.outputs[0].shape == conv.inputs[0].shape)
                result.push_back({{"shape", conv.inputs[0].shape.dims()}, {"kernel", w[2]}});
            }
            return result;
          },
          [](const AxiomParams& p) {
            Dims shape = p.get_ints("shape");
            int64_t kernel = p.get_int("kernel");
            return shape.size() >= 3 && all_positive(shape) && kernel >= 1 && kernel % 2 == 1;
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            Shape shape = shape_param(p, "shape");
            int64_t kernel = p.get_int("kernel");
            int spatial = shape.rank() - 2;
            ValueId x = s.input("x", shape);
            ValueId eye = s.constant("identity", identity_kernel(shape[1], kernel, spatial));
            Dims ones(static_cast<size_t>(spatial), 1), pads(static_cast<size_t>(2 * spatial), kernel / 2);
            Attributes attrs = {{"strides", ones}, {"pads", pads}, {"dilations", ones}, {"group", int64_t{1}}};
            s.set_outputs({node(s.lhs, "Conv", attrs, {x, eye})}, {x});
            return s;
          },
          {{{"shape", Dims{1, 2, 4, 4}}, {"kernel", int64_t{1}}},
           {{"shape", Dims{2, 3, 5, 4}}, {"kernel", int64_t{3}}},
           {{"shape", Dims{1, 2, 6}}, {"kernel", int64_t{3}}}}};
}

}  // namespace

std::vector<AxiomSchema> identity_axioms() { return {matmul_identity(), conv_identity()}; }

}  // namespace pet::axioms
