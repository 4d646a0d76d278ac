// The kernel families behind generate_kernel, one per file: what each needs of a step, and the
// refusal every family uses for a node whose form its kernels do not take.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu::codegen {

struct StepContext {
  const Graph& graph;
  const Step& step;

  const Node& node() const { return graph.node(step.nodes.back()); }  // the node that writes the outputs
  const TensorType& type(ValueId id) const { return graph.value(id).type; }
  // The position of `id` in the step's inputs: kernel parameter in<position>.
  size_t input_position(ValueId id) const;
};

// UserError: "pet-gpu cannot generate a kernel for node 'NAME' (op OP): WHY; the generated kernels
// take WHAT_RUNS; run this model on a CPU target (--target ort-cpu)".
[[noreturn]] void refuse_node(const Node& node, const std::string& why, const std::string& what_runs);

// The parameters in0.. for the step's inputs, then out0.. for its outputs, with their arguments.
struct Parameters {
  std::vector<std::string> declarations;
  std::vector<KernelArgument> arguments;
};
Parameters step_parameters(const StepContext& context);

// The most elements of any value the step reads or writes.
int64_t largest_value(const StepContext& context);

// elementwise.cpp: the step's nodes as one expression per output element.
GeneratedKernel generate_elementwise(const StepContext& context);
// strided_copy.cpp: transpose, layout, slice, expand and copy steps as one strided read each.
GeneratedKernel generate_strided_copy(const StepContext& context);
// pad.cpp
GeneratedKernel generate_pad(const StepContext& context);
// concat_split.cpp
GeneratedKernel generate_concat(const StepContext& context);
GeneratedKernel generate_split(const StepContext& context);
// gather.cpp
GeneratedKernel generate_gather(const StepContext& context);
// correction.cpp: an Overwrite or LayoutOverwrite node (its patches computed by earlier steps).
GeneratedKernel generate_correction(const StepContext& context);
// softmax.cpp, layer_norm.cpp, pool.cpp, reduce.cpp: the hand-written templates, constants filled in.
GeneratedKernel generate_softmax(const StepContext& context);
GeneratedKernel generate_layer_norm(const StepContext& context);
GeneratedKernel generate_pool(const StepContext& context);
GeneratedKernel generate_reduce(const StepContext& context);
GeneratedKernel generate_global_pool(const StepContext& context);  // in reduce.cpp: a reduction per plane

}  // namespace pet::gpu::codegen
