// Reduce steps (ReduceSum, ReduceMean, ReduceMax, ReduceMin over given axes) and the global pools
// (a mean or max over every spatial dim): one block per output element of the hand-written
// handwritten/reduce.cu, which finds its inputs through a generated input_offset(slot, j).
#include <limits>

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/handwritten.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

enum class Reduction : uint8_t { sum, mean, max, min };

struct ReductionOp {
  const char* op;
  Reduction reduction;
};

constexpr ReductionOp kReductionOps[] = {
    {"ReduceSum", Reduction::sum}, {"ReduceMean", Reduction::mean},        {"ReduceMax", Reduction::max},
    {"ReduceMin", Reduction::min}, {"GlobalAveragePool", Reduction::mean}, {"GlobalMaxPool", Reduction::max},
};

Reduction reduction_of(const Node& node) {
  for (const ReductionOp& entry : kReductionOps)
    if (node.op() == entry.op) return entry.reduction;
  refuse_node(node, "the reduction kernel computes no other op",
              "ReduceSum, ReduceMean, ReduceMax, ReduceMin, GlobalAveragePool and GlobalMaxPool");
}

// The input's kept dims (the output slots, row-major) and its reduced dims, each with the input's
// strides: element j of slot s sits at offset(kept, s) + offset(reduced, j).
std::string input_offset_function(const Shape& input, const std::vector<bool>& reduced) {
  std::vector<int64_t> strides = row_major_strides(input.dims());
  StridedAccess kept, folded;
  for (int d = 0; d < input.rank(); ++d) {
    StridedAccess& part = reduced[static_cast<size_t>(d)] ? folded : kept;
    part.dims.push_back(input[d]);
    part.strides.push_back(strides[static_cast<size_t>(d)]);
  }
  return fmt::format("__device__ __forceinline__ index input_offset(index slot, index j) {{ return {}; }}\n",
                     linear_combination({{strided_offset(kept, "slot"), 1}, {strided_offset(folded, "j"), 1}}));
}

// The fold, its identity and the finish. Bool inputs (ReduceMax and ReduceMin only) fold as int:
// max is "any", min is "all".
std::string fold_functions(Reduction reduction, DType type, int64_t count) {
  bool boolean = type == DType::boolean;
  std::string accumulator = boolean ? "int" : "float";
  std::string identity = boolean                       ? (reduction == Reduction::min ? "1" : "0")
                         : reduction == Reduction::max ? float_literal(-std::numeric_limits<double>::infinity())
                         : reduction == Reduction::min ? float_literal(std::numeric_limits<double>::infinity())
                                                       : "0.0f";
  std::string fold = reduction == Reduction::max ? "MaxOf" : reduction == Reduction::min ? "MinOf" : "SumOf";
  std::string finish = boolean ? "static_cast<unsigned char>(total != 0)"
                       : reduction == Reduction::mean
                           ? fmt::format("total / {}", float_literal(static_cast<double>(count)))
                           : "total";
  return fmt::format(
      "using element = {};\n"
      "using accumulator = {};\n"
      "using Fold = {};\n"
      "__device__ __forceinline__ accumulator initial() {{ return {}; }}\n"
      "__device__ __forceinline__ element finish(accumulator total) {{ return {}; }}\n",
      memory_type(type), accumulator, fold, identity, finish);
}

GeneratedKernel reduction_kernel(const StepContext& context, const std::vector<bool>& reduced) {
  const Node& node = context.node();
  Reduction reduction = reduction_of(node);
  const TensorType& input = context.type(node.inputs.at(0));
  const TensorType& output = context.type(node.outputs.at(0));
  int64_t slots = output.shape.numel();
  int64_t count = 1;
  for (int d = 0; d < input.shape.rank(); ++d)
    if (reduced[static_cast<size_t>(d)]) count *= input.shape[d];
  int64_t block = reduction_block(count);
  TemplateKernel kernel;
  kernel.family = "reduce";
  kernel.summary = fmt::format("{} of {} -> {}", node.op(), input.to_string(), output.to_string());
  kernel.constants = {index_constant("kSlots", slots), index_constant("kCount", count),
                      index_constant("kBlock", block)};
  kernel.functions = fold_functions(reduction, input.dtype, count) + input_offset_function(input.shape, reduced);
  kernel.libraries = {"block_reduce"};
  kernel.kernel_template = "reduce";
  kernel.arguments = {{node.inputs[0], ArgumentAccess::read}, {node.outputs[0], ArgumentAccess::write}};
  kernel.launch = block_per_item_launch(slots, block);
  kernel.largest = input.shape.numel();
  return template_kernel(kernel);
}

}  // namespace

GeneratedKernel generate_reduce(const StepContext& context) {
  const Node& node = context.node();
  int rank = context.type(node.inputs.at(0)).shape.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t axis : node.attrs.get_ints("axes")) reduced[static_cast<size_t>(normalize_axis(axis, rank))] = true;
  return reduction_kernel(context, reduced);  // no axes: every slot folds its one element
}

GeneratedKernel generate_global_pool(const StepContext& context) {
  int rank = context.type(context.node().inputs.at(0)).shape.rank();
  std::vector<bool> reduced(static_cast<size_t>(rank), true);
  reduced[0] = reduced[1] = false;  // [N, C, spatial...]: each plane folds into one value
  return reduction_kernel(context, reduced);
}

}  // namespace pet::gpu::codegen
