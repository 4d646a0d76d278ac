// The non-generic half of the elementwise builders: their OpDef skeletons, shape rules and the
// bool-only logical ops.
#include "core/ops/elementwise_builders.h"

#include <fmt/format.h>

namespace pet::ops {

// "f32, f64 or bf16": the types of `types` in DType order.
static std::string type_names(DTypeSet types) {
  std::vector<std::string_view> names;
  for (DType type : kAllDTypes)
    if (types.contains(type)) names.push_back(dtype_name(type));
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += fmt::format("{}{}", i == 0 ? "" : i + 1 == names.size() ? " or " : ", ", names[i]);
  return text;
}

static bool only_floats(DTypeSet types) {
  for (DType type : kAllDTypes)
    if (types.contains(type) && !is_float_dtype(type)) return false;
  return true;
}

ShapeCheck check_input_type(const ShapeContext& context, DTypeSet types, int input) {
  const TensorType& type = context.input(input);
  if (types.contains(type.dtype)) return {};
  if (only_floats(types))
    return context.refuse(fmt::format("expects a float input ({}), got {}", type_names(types), type.to_string()));
  std::string which = input > 0 ? fmt::format(" (input {})", input) : "";
  return context.refuse(fmt::format("does not support element type {}{}", dtype_name(type.dtype), which));
}

OpDef elementwise_def(const std::string& name, DTypeSet types, int inputs, double flops_per_element) {
  OpDef def;
  def.name = name;
  def.onnx_ops = {name};
  def.min_inputs = def.max_inputs = inputs;
  def.extra_types = types;
  def.traits.elementwise = true;
  def.cost = [flops_per_element](const CostContext& context) { return elementwise_cost(context, flops_per_element); };
  def.from_onnx = import_same_name;
  def.to_onnx = export_same_name;
  return def;
}

ShapeResult infer_unary(const ShapeContext& context, DTypeSet types, std::optional<DType> output) {
  PET_TRY(check_input_type(context, types, 0));
  return std::vector<TensorType>{{output.value_or(context.input(0).dtype), context.input(0).shape}};
}

// Inputs of one type, in `types`, broadcast together; the output has their type, or `output`.
static ShapeResult infer_same_type_broadcast(const ShapeContext& context, DTypeSet types,
                                             std::optional<DType> output) {
  DType type = context.input(0).dtype;
  for (int i = 1; i < context.num_inputs(); ++i)
    PET_REFUSE_UNLESS(
        context, context.input(i).dtype == type,
        fmt::format("input types differ: {} and {}", context.input(0).to_string(), context.input(i).to_string()));
  PET_TRY(check_input_type(context, types, 0));
  PET_TRY_ASSIGN(Shape shape, broadcast_inputs(context));
  return {{output.value_or(type), shape}};
}

OpDef broadcasting_def(const std::string& name, DTypeSet types, int inputs, OpTraits traits,
                       std::optional<DType> output) {
  OpDef def = elementwise_def(name, types, inputs, 1.0);
  traits.elementwise = true;
  def.traits = std::move(traits);
  def.infer = [types, output](const ShapeContext& context) {
    return infer_same_type_broadcast(context, types, output);
  };
  def.from_onnx = import_broadcasting_binary;
  return def;
}

void broadcast_first_input(KernelContext& context) {
  Tensor& out = context.outputs[0];
  if (context.input(0).shape() == out.shape()) out = context.input(0);
  else broadcast_elements(context.input(0), out);
}

static constexpr DTypeSet kBoolOnly = {DType::boolean};

OpDef logical_op(const std::string& name, std::function<bool(bool, bool)> combine) {
  OpTraits traits;
  traits.commutative = true;
  OpDef def = comparison_op<kBoolOnly>(name, std::move(combine), traits);
  ShapeRule comparison_rule = def.infer;
  def.infer = [comparison_rule](const ShapeContext& context) -> ShapeResult {
    for (int i = 0; i < 2; ++i)
      PET_REFUSE_UNLESS(context, context.input(i).dtype == DType::boolean,
                        fmt::format("expects bool inputs, got {}", context.input(i).to_string()));
    return comparison_rule(context);
  };
  return def;
}

}  // namespace pet::ops
