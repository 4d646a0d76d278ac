// Pooling axioms: pooling works per image and channel, so it commutes with Concat on the batch
// and channel axes; a depthwise conv with a constant 1/k kernel is average pooling counting pads.
#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

using Dims = std::vector<int64_t>;

// A pool on the concatenation of pieces along the batch or channel axis.
std::vector<AxiomParams> pools_of_concat(const SignatureIndex& index, const std::string& op) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& pool : index.of(op))
    for (const NodeSignature& concat : index.of("Concat")) {
      int axis = static_cast<int>(concat.attrs.get_int("axis"));
      if (concat.outputs[0] != pool.inputs[0] || axis > 1 || pool.outputs.size() != 1) continue;
      AxiomParams params{{"shape", concat.outputs[0].shape.dims()},
                         {"axis", int64_t{axis}},
                         {"sizes", axis_sizes(concat.inputs, axis)}};
      copy_attrs(pool.attrs, params);
      result.push_back(params);
    }
  return result;
}

AxiomSchema commutes_with_concat(const std::string& op, const std::string& name) {
  std::vector<AxiomParams> examples = {{{"shape", Dims{1, 5, 4, 4}},
                                        {"axis", int64_t{1}},
                                        {"sizes", Dims{2, 3}},
                                        {"kernel_shape", Dims{2, 2}},
                                        {"strides", Dims{2, 2}},
                                        {"pads", Dims{0, 0, 0, 0}}},
                                       {{"shape", Dims{3, 2, 5, 5}},
                                        {"axis", int64_t{0}},
                                        {"sizes", Dims{1, 2}},
                                        {"kernel_shape", Dims{3, 3}},
                                        {"strides", Dims{1, 1}},
                                        {"pads", Dims{1, 1, 1, 1}}}};
  if (op == "MaxPool")
    for (AxiomParams& p : examples) p.set("dilations", Dims{1, 1});
  return {name,
          "pooling",
          op + "(Concat[0 or 1](x1, x2)) = Concat(" + op + "(x1), " + op + "(x2))",
          [op](const SignatureIndex& index) { return pools_of_concat(index, op); },
          [](const AxiomParams& p) {
            Dims sizes = p.get_ints("sizes");
            int64_t total = 0, axis = p.get_int("axis");
            for (int64_t size : sizes) total += size;
            return all_positive(sizes) && (axis == 0 || axis == 1) &&
                   total == p.get_ints("shape")[static_cast<size_t>(axis)] &&
                   (!p.has("with_indices") || p.get_int("with_indices") == 0);
          },
          [op](const AxiomParams& p) {
            AxiomSides s;
            int64_t axis = p.get_int("axis");
            std::vector<ValueId> x =
                inputs(s, "x", pieces(shape_param(p, "shape"), static_cast<int>(axis), p.get_ints("sizes")));
            Attributes attrs = op_attrs_from(p, op);
            std::vector<std::vector<ValueId>> each;
            for (ValueId piece : x) each.push_back({piece});
            s.set_outputs({node(s.lhs, op, attrs, {node(s.lhs, "Concat", concat_attrs(axis), x)})},
                          {node(s.rhs, "Concat", concat_attrs(axis), map_nodes(s.rhs, op, attrs, each))});
            return s;
          },
          examples};
}

// The depthwise kernel [C, 1, k...] filled with 1 / prod(k).
Tensor averaging_kernel(int64_t channels, const Dims& kernel) {
  Dims dims = {channels, 1};
  int64_t taps = 1;
  for (int64_t k : kernel) {
    dims.push_back(k);
    taps *= k;
  }
  Shape shape(dims);
  return Tensor::f32(shape, std::vector<float>(static_cast<size_t>(shape.numel()), 1.0f / static_cast<float>(taps)));
}

AxiomSchema constant_kernel_is_average_pool() {
  return {"conv-constant-kernel-is-average-pool",
          "pooling",
          "Conv[group=C](x, 1/k everywhere) = AveragePool[k, count_include_pad=1](x) with equal strides and pads",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& conv : index.of("Conv"))
              if (is_plain_conv(conv)) result.push_back(conv_params(conv));
            return result;
          },
          [](const AxiomParams& p) {
            Dims x = p.get_ints("x"), w = p.get_ints("w"), dilations = p.get_ints("dilations");
            return x.size() >= 3 && w.size() == x.size() && w[0] == x[1] && w[1] == 1 && p.get_int("group") == x[1] &&
                   std::all_of(dilations.begin(), dilations.end(), [](int64_t d) { return d == 1; });
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            Dims w = p.get_ints("w");
            Dims kernel(w.begin() + 2, w.end());
            ValueId x = s.input("x", shape_param(p, "x"));
            ValueId k = s.constant("k", averaging_kernel(w[0], kernel));
            Attributes pool{{"kernel_shape", kernel},
                            {"strides", p.get_ints("strides")},
                            {"pads", p.get_ints("pads")},
                            {"ceil_mode", int64_t{0}},
                            {"count_include_pad", int64_t{1}}};
            s.set_outputs({node(s.lhs, "Conv", conv_attrs(p), {x, k})}, {node(s.rhs, "AveragePool", pool, {x})});
            return s;
          },
          {conv_example({1, 2, 5, 5}, {2, 1, 3, 3}, 1, 1, 2), conv_example({2, 3, 6, 6}, {3, 1, 2, 2}, 2, 0, 3)}};
}

}  // namespace

std::vector<AxiomSchema> pooling_axioms() {
  return {commutes_with_concat("AveragePool", "averagepool-commutes-with-concat"),
          commutes_with_concat("MaxPool", "maxpool-commutes-with-concat"), constant_kernel_is_average_pool()};
}

}  // namespace pet::axioms
