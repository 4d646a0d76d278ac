// The elementwise family: a step's nodes in node order, each one local per output element, with
// every outside value read once at its broadcast offset and scalar constants baked in as literals.
#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "kernels/gpu/codegen/elementwise_ops.h"
#include "kernels/gpu/codegen/families.h"
#include "kernels/gpu/codegen/index_math.h"

namespace pet::gpu::codegen {
namespace {

// A constant of one element needs no memory read: any broadcast of it is that element.
bool is_scalar_constant(const Graph& graph, ValueId id) {
  return graph.is_constant(id) && graph.value(id).type.shape.numel() == 1;
}

class ElementwiseWriter {
 public:
  explicit ElementwiseWriter(const StepContext& context)
      : context_(context), output_(context.step.outputs.at(0)), out_(context.type(output_).shape) {
    for (ValueId id : context.step.inputs)
      if (!is_scalar_constant(context.graph, id)) read_.push_back(id);
  }

  GeneratedKernel write() {
    std::vector<std::string> ops;
    std::string last;
    for (NodeId n : context_.step.nodes) {
      last = compute(context_.graph.node(n));
      ops.push_back(context_.graph.node(n).op());
    }
    DType type = context_.type(output_).dtype;
    body_ += fmt::format("    out0[i] = {};\n", store_as_memory(type, last));
    GridStrideKernel kernel{"elementwise",
                            fmt::format("{} -> {}", fmt::join(ops, ", "), context_.type(output_).to_string()),
                            helper_definitions(helpers_),
                            {},
                            {},
                            out_.numel(),
                            largest_value(context_),
                            body_};
    for (size_t k = 0; k < read_.size(); ++k) {
      kernel.parameters.push_back(
          pointer_parameter(context_.type(read_[k]).dtype, fmt::format("in{}", k), ArgumentAccess::read));
      kernel.arguments.push_back({read_[k], ArgumentAccess::read});
    }
    kernel.parameters.push_back(pointer_parameter(type, "out0", ArgumentAccess::write));
    kernel.arguments.push_back({output_, ArgumentAccess::write});
    return grid_stride_kernel(kernel);
  }

 private:
  // Declares the node's output element as a local and returns its name.
  std::string compute(const Node& node) {
    PET_CHECK(node.outputs.size() == 1, "an elementwise node with more than one output");
    ElementwiseTerms terms{node, {}, {}, context_.type(node.outputs[0]).dtype};
    for (size_t p = 0; p < node.inputs.size(); ++p) {
      PET_CHECK(node.inputs[p] != kNoValue, "an elementwise node with an absent input");
      terms.operands.push_back(operand(node, p));
      terms.operand_types.push_back(context_.type(node.inputs[p]).dtype);
    }
    std::optional<std::string> expression = elementwise_expression(terms, helpers_);
    if (!expression)
      refuse_node(node, "the elementwise kernel has no CUDA expression for this op",
                  "the ops of core/ops with the elementwise trait, BatchNormalization and Cast");
    std::string name = fmt::format("v{}", locals_.size());
    body_ += fmt::format("    const {} {} = {};\n", register_type(terms.result), name, *expression);
    locals_[node.outputs[0]] = name;
    return name;
  }

  std::string operand(const Node& node, size_t input) {
    ValueId id = node.inputs[input];
    if (auto local = locals_.find(id); local != locals_.end()) return local->second;
    const Value& value = context_.graph.value(id);
    if (is_scalar_constant(context_.graph, id)) return typed_literal(value.type.dtype, value.constant->as_double(0));
    return load(id, strides_of(node, input));
  }

  // How the operand's elements sit under the step output's coordinates. Every node's output
  // broadcasts into the step's output (they only combine elementwise), and broadcasting twice from
  // the right is broadcasting once, so an operand aligns with the step output directly.
  std::vector<int64_t> strides_of(const Node& node, size_t input) const {
    const Shape& operand = context_.type(node.inputs[input]).shape;
    if (!reads_per_channel(node, input)) return broadcast_strides(operand, out_);
    // One value per channel: axis 1 of the node's output, which sits at this axis of the step's.
    int channel_axis = 1 + out_.rank() - context_.type(node.outputs[0]).shape.rank();
    std::vector<int64_t> strides(static_cast<size_t>(out_.rank()), 0);
    if (operand.numel() > 1) {
      PET_CHECK(operand.numel() == out_[channel_axis], "a per-channel operand that does not match the channels");
      strides[static_cast<size_t>(channel_axis)] = 1;
    }
    return strides;
  }

  // Each (value, offset) is read once, into a local named a<k>.
  std::string load(ValueId id, std::vector<int64_t> strides) {
    auto parameter = static_cast<size_t>(std::find(read_.begin(), read_.end(), id) - read_.begin());
    PET_CHECK(parameter < read_.size(), "an elementwise operand that is no input of its step");
    std::string offset = strided_offset({out_.dims(), std::move(strides), 0}, "i");
    auto key = std::make_pair(parameter, offset);
    if (auto loaded = loads_.find(key); loaded != loads_.end()) return loaded->second;
    std::string name = fmt::format("a{}", loads_.size());
    DType type = context_.type(id).dtype;
    body_ += fmt::format("    const {} {} = {};\n", register_type(type), name,
                         load_as_register(type, fmt::format("in{}[{}]", parameter, offset)));
    loads_[key] = name;
    return name;
  }

  const StepContext& context_;
  ValueId output_;
  const Shape& out_;
  std::vector<ValueId> read_;  // kernel parameters in0..: the step's inputs that are not baked in
  std::map<ValueId, std::string> locals_;
  std::map<std::pair<size_t, std::string>, std::string> loads_;
  HelperSet helpers_;
  std::string body_;
};

}  // namespace

GeneratedKernel generate_elementwise(const StepContext& context) { return ElementwiseWriter(context).write(); }

}  // namespace pet::gpu::codegen
