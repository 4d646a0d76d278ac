// The rule operator set: Add, Mul, scalar Mul, MatMul, Conv, Transpose, Concat, Split, Relu and
// pooling, each with the attribute choices that keep small shapes composable.
#include "mutant/rules/rule_ops.h"

#include "core/error.h"
#include "core/ops/pooling.h"
#include "core/prime_field.h"
#include "core/registry.h"

namespace pet::rules {
namespace {

using Types = std::vector<const TensorType*>;
using Dims = std::vector<int64_t>;

bool same_types(const Types& types) { return *types[0] == *types[1]; }

std::optional<Attributes> elementwise(const Types& types) {
  if (!same_types(types) || types[0]->shape.rank() == 0) return std::nullopt;
  return Attributes{};
}

std::optional<Attributes> scalar_operand(const Types& types) {
  if (types[0]->shape.rank() == 0 || types[1]->shape.rank() != 0) return std::nullopt;
  return Attributes{};
}

std::optional<Attributes> matrix_product(const Types& types) {
  const Shape& a = types[0]->shape;
  const Shape& b = types[1]->shape;
  if (a.rank() != 2 || b.rank() != 2 || a[1] != b[0]) return std::nullopt;
  return Attributes{};
}

// A stride-1 "same" conv of an NCHW input with an odd square kernel of matching channels.
std::optional<Attributes> same_conv(const Types& types) {
  const Shape& x = types[0]->shape;
  const Shape& w = types[1]->shape;
  if (x.rank() != 4 || w.rank() != 4 || x[1] != w[1] || w[2] != w[3] || w[2] % 2 == 0) return std::nullopt;
  int64_t pad = (w[2] - 1) / 2;
  return Attributes{
      {"strides", Dims{1, 1}}, {"pads", Dims{pad, pad, pad, pad}}, {"dilations", Dims{1, 1}}, {"group", int64_t{1}}};
}

// Matrices swap rows and columns; NCHW tensors swap H and W.
std::optional<Attributes> swap_last_two(const Types& types) {
  int rank = types[0]->shape.rank();
  if (rank == 2) return Attributes{{"perm", Dims{1, 0}}};
  if (rank == 4) return Attributes{{"perm", Dims{0, 1, 3, 2}}};
  return std::nullopt;
}

bool same_except(const Shape& a, const Shape& b, int axis) {
  if (a.rank() != b.rank() || a.rank() <= axis) return false;
  for (int d = 0; d < a.rank(); ++d)
    if (d != axis && a[d] != b[d]) return false;
  return true;
}

std::function<std::optional<Attributes>(const Types&)> concat_on(int axis) {
  return [axis](const Types& types) -> std::optional<Attributes> {
    if (!same_except(types[0]->shape, types[1]->shape, axis)) return std::nullopt;
    return Attributes{{"axis", int64_t{axis}}};
  };
}

// Two equal halves, which undo a Concat of equal-shape pieces.
std::function<std::optional<Attributes>(const Types&)> halves_on(int axis) {
  return [axis](const Types& types) -> std::optional<Attributes> {
    const Shape& x = types[0]->shape;
    if (x.rank() <= axis || x[axis] % 2 != 0) return std::nullopt;
    return Attributes{{"axis", int64_t{axis}}, {"split", Dims{x[axis] / 2, x[axis] / 2}}};
  };
}

std::optional<Attributes> any_tensor(const Types& types) {
  if (types[0]->shape.rank() == 0) return std::nullopt;
  return Attributes{};
}

// 2x2 windows with stride 2 over NCHW tensors of even height and width.
std::optional<Attributes> pool_2x2(const Types& types) {
  const Shape& x = types[0]->shape;
  if (x.rank() != 4 || x[2] % 2 != 0 || x[3] % 2 != 0) return std::nullopt;
  return Attributes{{"kernel_shape", Dims{2, 2}}, {"strides", Dims{2, 2}}, {"pads", Dims{0, 0, 0, 0}}};
}

std::optional<Attributes> max_pool_2x2(const Types& types) {
  std::optional<Attributes> attrs = pool_2x2(types);
  if (attrs) attrs->set("dilations", Dims{1, 1});
  return attrs;
}

FieldData relu_stand_in(const Attributes&, const Types&, const std::vector<const FieldData*>& inputs,
                        const TensorType&) {
  FieldData out(inputs[0]->size());
  uint64_t c = relu_stand_in_offset();
  for (size_t i = 0; i < out.size(); ++i) out[i] = field::mul((*inputs[0])[i], field::add((*inputs[0])[i], c));
  return out;
}

// The sum of cubes over each window: per-window and per-channel like a max, but not linear.
FieldData max_pool_stand_in(const Attributes& attrs, const Types& types, const std::vector<const FieldData*>& inputs,
                            const TensorType& output) {
  const Shape& x = types[0]->shape;
  ops::WindowGeometry geometry = ops::pool_geometry(x, attrs);
  ops::PoolWindows windows(geometry, attrs.get_ints("pads"));
  int64_t planes = x[0] * x[1], in_size = geometry.input_size(), out_size = geometry.output_size();
  FieldData out(static_cast<size_t>(output.shape.numel()), 0);
  for (int64_t p = 0; p < planes; ++p)
    windows.for_each([&](int64_t index, std::span<const int64_t> taps, int64_t) {
      uint64_t total = 0;
      for (int64_t tap : taps) {
        uint64_t v = (*inputs[0])[static_cast<size_t>(p * in_size + tap)];
        total = field::add(total, field::mul(v, field::mul(v, v)));
      }
      out[static_cast<size_t>(p * out_size + index)] = total;
    });
  return out;
}

RuleOpTemplate make(std::string label, std::string op, int arity,
                    std::function<std::optional<Attributes>(const Types&)> attrs_for, StandIn stand_in = {}) {
  RuleOpTemplate t{std::move(label), std::move(op), arity, std::move(attrs_for), std::move(stand_in), false};
  t.commutative = arity == 2 && OpRegistry::global().get(t.op).traits.commutative && t.label != "scalar-mul";
  return t;
}

std::vector<RuleOpTemplate> build_rule_op_set() {
  return {make("add", "Add", 2, elementwise),
          make("mul", "Mul", 2, elementwise),
          make("scalar-mul", "Mul", 2, scalar_operand),
          make("matmul", "MatMul", 2, matrix_product),
          make("conv", "Conv", 2, same_conv),
          make("transpose", "Transpose", 1, swap_last_two),
          make("concat-0", "Concat", 2, concat_on(0)),
          make("concat-1", "Concat", 2, concat_on(1)),
          make("split-0", "Split", 1, halves_on(0)),
          make("split-1", "Split", 1, halves_on(1)),
          make("relu", "Relu", 1, any_tensor, relu_stand_in),
          make("maxpool", "MaxPool", 1, max_pool_2x2, max_pool_stand_in),
          make("avgpool", "AveragePool", 1, pool_2x2)};
}

}  // namespace

const std::vector<RuleOpTemplate>& rule_op_set() {
  static const std::vector<RuleOpTemplate> kSet = build_rule_op_set();
  return kSet;
}

int rule_op_index(const std::string& label) {
  const auto& set = rule_op_set();
  for (size_t i = 0; i < set.size(); ++i)
    if (set[i].label == label) return static_cast<int>(i);
  PET_CHECK(false, "no rule op template labelled " + label);
  return -1;
}

uint64_t relu_stand_in_offset() { return 0x1f2e3d4c5b6a7988ULL % field::kPrime; }

}  // namespace pet::rules
