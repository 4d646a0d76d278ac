// ReverseSequence: for each batch entry b (along batch_axis), reverses the first
// sequence_lens[b] positions along time_axis and keeps the rest. Linear in the input.
#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/indexing.h"
#include "core/ops/op_util.h"

namespace pet::ops {

static ShapeResult infer_reverse_sequence(const ShapeContext& context) {
  const TensorType& x = context.input(0);
  const TensorType& lengths = context.input(1);
  PET_REFUSE_UNLESS(context, x.shape.rank() >= 2, "input " + x.to_string() + " needs at least two axes");
  int64_t batch = context.attrs.get_int("batch_axis"), time = context.attrs.get_int("time_axis");
  PET_REFUSE_UNLESS(context, (batch == 0 && time == 1) || (batch == 1 && time == 0),
                    fmt::format("batch_axis {} and time_axis {} must be 0 and 1 in some order", batch, time));
  PET_REFUSE_UNLESS(context, lengths.dtype == DType::i64 && lengths.shape == Shape{x.shape[static_cast<int>(batch)]},
                    fmt::format("sequence_lens {} must be i64 with one length per batch entry ({})",
                                lengths.to_string(), x.shape[static_cast<int>(batch)]));
  return {x};
}

static void compute_reverse_sequence(KernelContext& context) {
  const Tensor& x = context.input(0);
  auto lengths = context.input(1).i64();
  auto batch_axis = static_cast<size_t>(context.attrs.get_int("batch_axis"));
  auto time_axis = static_cast<size_t>(context.attrs.get_int("time_axis"));
  std::vector<int64_t> strides = x.shape().strides();
  const std::vector<int64_t>& dims = x.shape().dims();
  int64_t steps = dims[time_axis];
  for (int64_t length : lengths)
    if (length < 0 || length > steps)
      throw UserError(fmt::format("ReverseSequence: sequence length {} is outside [0, {}]", length, steps));
  std::vector<int64_t> offsets(static_cast<size_t>(x.numel()));
  for (int64_t i = 0, end = x.numel(); i < end; ++i) {
    int64_t b = (i / strides[batch_axis]) % dims[batch_axis], t = (i / strides[time_axis]) % steps;
    int64_t length = lengths[static_cast<size_t>(b)];
    offsets[static_cast<size_t>(i)] = t < length ? i + (length - 1 - 2 * t) * strides[time_axis] : i;
  }
  gather_elements(x, offsets, context.outputs[0]);
}

static OnnxImported import_reverse_sequence(const OpDef& def, const OnnxImportNode& node) {
  reject_unknown_attrs(node, {"batch_axis", "time_axis"});
  return {def.name, {{"batch_axis", node.attr_int("batch_axis", 1)}, {"time_axis", node.attr_int("time_axis", 0)}},
          {0, 1}};
}

static void export_reverse_sequence(const Node& node, OnnxExportNode& out) {
  require_export_opset(node, out, 10, "ReverseSequence");
  export_same_name(node, out);
}

OpDef make_ReverseSequence() {
  OpDef def;
  def.name = "ReverseSequence";
  def.extra_types = kAllDTypeSet;
  def.onnx_ops = {"ReverseSequence"};
  def.attrs = {attr_int("batch_axis", 1), attr_int("time_axis", 0)};
  def.min_inputs = def.max_inputs = 2;
  def.traits.linearity = Linearity::Joint;
  def.traits.linear_inputs = {0};
  def.infer = infer_reverse_sequence;
  def.compute = compute_reverse_sequence;
  def.cost = data_movement_cost;
  def.from_onnx = import_reverse_sequence;
  def.to_onnx = export_reverse_sequence;
  return def;
}

}  // namespace pet::ops
