// Conv axioms: linear in input and weight; concatenated weights give concatenated outputs;
// concatenated inputs and weights on the channels sum; batch concat commutes; a kernel enlarged
// with zeros and padded by as much more computes the same conv.
#include <numeric>

#include "verifier/axioms/axiom_util.h"

namespace pet::axioms {
namespace {

std::vector<AxiomParams> plain_convs(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& conv : index.of("Conv"))
    if (is_plain_conv(conv)) result.push_back(conv_params(conv));
  return result;
}

bool any_conv(const AxiomParams&) { return true; }

// Conv parameters plus `key` = the axis sizes of each group-1 conv operand that a Concat on
// `axis` produces (`operand` 0: the input, 1: the weight).
std::vector<AxiomParams> convs_of_concat(const SignatureIndex& index, int operand, int64_t axis, const char* key) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& conv : index.of("Conv")) {
    if (!is_plain_conv(conv) || conv.attrs.get_int("group") != 1) continue;
    for (const NodeSignature& concat : index.of("Concat"))
      if (concat.attrs.get_int("axis") == axis && concat.outputs[0] == conv.inputs[static_cast<size_t>(operand)]) {
        AxiomParams params = conv_params(conv);
        params.set(key, axis_sizes(concat.inputs, static_cast<int>(axis)));
        result.push_back(params);
      }
  }
  return result;
}

ValueId conv(Graph& side, const AxiomParams& p, ValueId x, ValueId w) {
  return node(side, "Conv", conv_attrs(p), {x, w});
}

AxiomSchema linear(bool in_weight) {
  return {in_weight ? "conv-linear-in-weight" : "conv-linear-in-input",
          "conv",
          in_weight ? "Conv(x, Add(w, v)) = Add(Conv(x, w), Conv(x, v))"
                    : "Conv(Add(x, y), w) = Add(Conv(x, w), Conv(y, w))",
          plain_convs,
          any_conv,
          [in_weight](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "x")), w = s.input("w", shape_param(p, "w"));
            ValueId other = s.input("other", shape_param(p, in_weight ? "w" : "x"));
            ValueId left = in_weight ? conv(s.lhs, p, x, node(s.lhs, "Add", {}, {w, other}))
                                     : conv(s.lhs, p, node(s.lhs, "Add", {}, {x, other}), w);
            ValueId second = in_weight ? conv(s.rhs, p, x, other) : conv(s.rhs, p, other, w);
            s.set_outputs({left}, {node(s.rhs, "Add", {}, {conv(s.rhs, p, x, w), second})});
            return s;
          },
          {conv_example({1, 2, 5, 5}, {3, 2, 3, 3}, 1, 1, 1), conv_example({2, 4, 6, 6}, {2, 2, 3, 3}, 2, 0, 2),
           conv_example({1, 3, 4, 4}, {2, 3, 1, 1}, 1, 0, 1)}};
}

AxiomSchema concat_weights() {
  return {"conv-concat-weights",
          "conv",
          "Conv(x, Concat[0](w1, w2)) = Concat[1](Conv(x, w1), Conv(x, w2))",
          [](const SignatureIndex& index) { return convs_of_concat(index, 1, 0, "filters"); },
          [](const AxiomParams& p) {
            auto filters = p.get_ints("filters");
            return p.get_int("group") == 1 && all_positive(filters) &&
                   std::accumulate(filters.begin(), filters.end(), int64_t{0}) == p.get_ints("w")[0];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "x"));
            std::vector<ValueId> w = inputs(s, "w", pieces(shape_param(p, "w"), 0, p.get_ints("filters")));
            ValueId left = conv(s.lhs, p, x, node(s.lhs, "Concat", concat_attrs(0), w));
            std::vector<ValueId> convs;
            for (ValueId piece : w) convs.push_back(conv(s.rhs, p, x, piece));
            s.set_outputs({left}, {node(s.rhs, "Concat", concat_attrs(1), convs)});
            return s;
          },
          {with_param(conv_example({1, 2, 5, 5}, {5, 2, 3, 3}, 1, 1, 1), "filters", std::vector<int64_t>{2, 3}),
           with_param(conv_example({2, 3, 6, 6}, {4, 3, 3, 3}, 2, 0, 1), "filters", std::vector<int64_t>{1, 1, 2})}};
}

AxiomSchema concat_channels() {
  return {"conv-concat-channels",
          "conv",
          "Conv(Concat[1](x1, x2), Concat[1](w1, w2)) = Add(Conv(x1, w1), Conv(x2, w2))",
          [](const SignatureIndex& index) { return convs_of_concat(index, 0, 1, "channels"); },
          [](const AxiomParams& p) {
            auto channels = p.get_ints("channels");
            return p.get_int("group") == 1 && all_positive(channels) && channels.size() >= 2 &&
                   std::accumulate(channels.begin(), channels.end(), int64_t{0}) == p.get_ints("x")[1];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            auto channels = p.get_ints("channels");
            std::vector<ValueId> x = inputs(s, "x", pieces(shape_param(p, "x"), 1, channels));
            std::vector<ValueId> w = inputs(s, "w", pieces(shape_param(p, "w"), 1, channels));
            ValueId w_joined = node(s.lhs, "Concat", concat_attrs(1), w);  // one node per statement: see matmul.cpp
            ValueId x_joined = node(s.lhs, "Concat", concat_attrs(1), x);
            ValueId left = conv(s.lhs, p, x_joined, w_joined);
            ValueId sum = conv(s.rhs, p, x[0], w[0]);
            for (size_t i = 1; i < x.size(); ++i) sum = node(s.rhs, "Add", {}, {sum, conv(s.rhs, p, x[i], w[i])});
            s.set_outputs({left}, {sum});
            return s;
          },
          {with_param(conv_example({1, 5, 5, 5}, {3, 5, 3, 3}, 1, 1, 1), "channels", std::vector<int64_t>{2, 3}),
           with_param(conv_example({2, 4, 5, 5}, {2, 4, 1, 1}, 2, 0, 1), "channels", std::vector<int64_t>{1, 1, 2})}};
}

AxiomSchema concat_batch() {
  return {"conv-concat-batch",
          "conv",
          "Conv(Concat[0](x1, x2), w) = Concat[0](Conv(x1, w), Conv(x2, w))",
          [](const SignatureIndex& index) {
            std::vector<AxiomParams> result;
            for (const NodeSignature& c : index.of("Conv"))
              for (const NodeSignature& concat : index.of("Concat"))
                if (is_plain_conv(c) && concat.attrs.get_int("axis") == 0 && concat.outputs[0] == c.inputs[0]) {
                  AxiomParams params = conv_params(c);
                  params.set("batches", axis_sizes(concat.inputs, 0));
                  result.push_back(params);
                }
            return result;
          },
          [](const AxiomParams& p) {
            auto batches = p.get_ints("batches");
            return all_positive(batches) &&
                   std::accumulate(batches.begin(), batches.end(), int64_t{0}) == p.get_ints("x")[0];
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            std::vector<ValueId> x = inputs(s, "x", pieces(shape_param(p, "x"), 0, p.get_ints("batches")));
            ValueId w = s.input("w", shape_param(p, "w"));
            std::vector<ValueId> convs;
            for (ValueId piece : x) convs.push_back(conv(s.rhs, p, piece, w));
            s.set_outputs({conv(s.lhs, p, node(s.lhs, "Concat", concat_attrs(0), x), w)},
                          {node(s.rhs, "Concat", concat_attrs(0), convs)});
            return s;
          },
          {with_param(conv_example({3, 2, 5, 5}, {3, 2, 3, 3}, 1, 1, 1), "batches", std::vector<int64_t>{1, 2}),
           with_param(conv_example({4, 4, 6, 6}, {2, 2, 3, 3}, 2, 1, 2), "batches", std::vector<int64_t>{2, 2})}};
}

// Pad attributes that surround every spatial dim of a conv weight with `margin` zeros.
Attributes kernel_margin_pads(int rank, int64_t margin) {
  std::vector<int64_t> pads;
  for (int side = 0; side < 2; ++side)
    for (int d = 0; d < rank; ++d) pads.push_back(d < 2 ? 0 : margin);
  return {{"mode", std::string("constant")}, {"pads", pads}, {"value", 0.0}};
}

// The margin of a zero Pad that enlarges every spatial dim of a weight equally, or 0.
int64_t kernel_margin(const NodeSignature& pad) {
  int rank = pad.inputs[0].shape.rank();
  if (pad.attrs.get_string("mode") != "constant" || pad.attrs.get_float("value") != 0.0 || rank < 3) return 0;
  int64_t margin = pad.attrs.get_ints("pads")[2];
  return pad.attrs == kernel_margin_pads(rank, margin) ? margin : 0;
}

std::vector<AxiomParams> enlarged_kernel_convs(const SignatureIndex& index) {
  std::vector<AxiomParams> result;
  for (const NodeSignature& pad : index.of("Pad"))
    for (const NodeSignature& c : index.of("Conv"))
      if (int64_t margin = kernel_margin(pad); margin > 0 && is_plain_conv(c) && pad.outputs[0] == c.inputs[1]) {
        AxiomParams params = conv_params(c);
        params.set("w", pad.inputs[0].shape.dims());
        std::vector<int64_t> pads = params.get_ints("pads");
        for (int64_t& value : pads) value -= margin;
        params.set("pads", pads);
        params.set("margin", margin);
        result.push_back(params);
      }
  return result;
}

AxiomSchema zero_enlarged_kernel() {
  return {"conv-zero-enlarged-kernel",
          "conv",
          "Conv[pads + m](x, Pad[m zeros around the kernel](w)) = Conv[pads](x, w) for undilated convs",
          enlarged_kernel_convs,
          [](const AxiomParams& p) {
            auto dilations = p.get_ints("dilations");
            auto pads = p.get_ints("pads");
            return p.get_int("margin") > 0 &&
                   std::all_of(dilations.begin(), dilations.end(), [](int64_t d) { return d == 1; }) &&
                   std::all_of(pads.begin(), pads.end(), [](int64_t v) { return v >= 0; });
          },
          [](const AxiomParams& p) {
            AxiomSides s;
            ValueId x = s.input("x", shape_param(p, "x")), w = s.input("w", shape_param(p, "w"));
            int64_t margin = p.get_int("margin");
            AxiomParams enlarged = p;
            std::vector<int64_t> pads = p.get_ints("pads");
            for (int64_t& value : pads) value += margin;
            enlarged.set("pads", pads);
            ValueId padded = node(s.lhs, "Pad", kernel_margin_pads(shape_param(p, "w").rank(), margin), {w});
            s.set_outputs({conv(s.lhs, enlarged, x, padded)}, {conv(s.rhs, p, x, w)});
            return s;
          },
          {with_param(conv_example({1, 2, 5, 5}, {3, 2, 1, 1}, 1, 0, 1), "margin", int64_t{1}),
           with_param(conv_example({2, 4, 7, 7}, {2, 2, 3, 3}, 2, 1, 2), "margin", int64_t{1}),
           with_param(conv_example({1, 1, 6, 6}, {1, 1, 1, 1}, 1, 0, 1), "margin", int64_t{2})}};
}

}  // namespace

std::vector<AxiomSchema> conv_axioms() {
  return {linear(false), linear(true), concat_weights(), concat_channels(), concat_batch(), zero_enlarged_kernel()};
}

}  // namespace pet::axioms
