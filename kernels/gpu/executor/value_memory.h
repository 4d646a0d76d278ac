// Where every value of a plan lives on the device: the activation arena at the plan's offsets,
// one staging buffer per graph input and output, weights uploaded once (as stored, or expanded
// as a library reads them), and views as byte offsets into those.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/executor/device_memory.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

class ValueMemory {
 public:
  // Allocates the arena and the staging buffers; weights are uploaded when first asked for.
  ValueMemory(const Graph& graph, const GpuPlan& plan, cudaStream_t stream);

  // The device address of `id`'s bytes, following views to the buffer that owns them; a weight as
  // stored. Internal check for a fused value, which never is in memory.
  std::byte* pointer(ValueId id);
  // Weight `id` as `values` computes it (an expanded bias, a broadcast C), uploaded once per key.
  std::byte* prepared(ValueId id, const std::string& key, const std::function<std::vector<float>()>& values);
  // `count` zero floats (the bias cuDNN's fused call needs when a step has none); the address
  // stays valid for the memory's lifetime.
  std::byte* zeros(int64_t count);

  // UserError naming the input whose count or type differs from the graph's.
  void upload_inputs(const std::vector<Tensor>& inputs);
  std::vector<Tensor> download_outputs();
  // Poisons the arena and the output buffers (NaN in every float) before a checked run.
  void poison();
  // Random floats over the arena and every f32 staging buffer, for the algorithm searches; zeros
  // in integer and boolean inputs, which are valid indices.
  void fill_random(uint64_t seed);

  int64_t weight_bytes() const;
  int64_t arena_bytes() const { return arena_.bytes(); }

 private:
  std::byte* root_pointer(ValueId root);

  const Graph& graph_;
  const GpuPlan& plan_;
  cudaStream_t stream_;
  DeviceBuffer arena_;
  std::map<ValueId, DeviceBuffer> staging_;                          // graph inputs and outputs
  std::map<std::pair<ValueId, std::string>, DeviceBuffer> weights_;  // key "" is the weight as stored
  std::vector<DeviceBuffer> zeros_;  // each larger than the one before; none freed while in use
};

}  // namespace pet::gpu
