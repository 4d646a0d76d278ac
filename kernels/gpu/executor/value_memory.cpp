// ValueMemory: every pointer a step gets comes from storage_root, so views, in-place Concats and
// Split pieces resolve exactly as the plan placed them.
#include "kernels/gpu/executor/value_memory.h"

#include <fmt/format.h>

#include "core/error.h"
#include "kernels/gpu/executor/cuda_check.h"

namespace pet::gpu {
namespace {

std::span<const std::byte> bytes_of(const Tensor& tensor) { return {tensor.raw(), tensor.nbytes()}; }

}  // namespace

ValueMemory::ValueMemory(const Graph& graph, const GpuPlan& plan, cudaStream_t stream)
    : graph_(graph), plan_(plan), stream_(stream), arena_(plan.arena_bytes) {
  for (size_t id = 0; id < plan.values.size(); ++id) {
    const ValueStorage& storage = plan.values[id].storage;
    if (storage.kind == StorageKind::input || storage.kind == StorageKind::output)
      staging_.emplace(static_cast<ValueId>(id), DeviceBuffer(storage.bytes));
  }
}

std::byte* ValueMemory::root_pointer(ValueId root) {
  const ValueStorage& storage = plan_.values.at(static_cast<size_t>(root)).storage;
  switch (storage.kind) {
    case StorageKind::arena:
      return arena_.data() + storage.offset;
    case StorageKind::input:
    case StorageKind::output:
      return staging_.at(root).data();
    case StorageKind::weight: {
      auto key = std::make_pair(root, std::string());
      auto found = weights_.find(key);
      if (found != weights_.end()) return found->second.data();
      const Tensor& tensor = *graph_.value(root).constant;
      DeviceBuffer buffer(static_cast<int64_t>(tensor.nbytes()));
      buffer.upload(bytes_of(tensor), stream_);
      return weights_.emplace(key, std::move(buffer)).first->second.data();
    }
    case StorageKind::view:
    case StorageKind::fused:
      break;
  }
  PET_CHECK(false, fmt::format("value '{}' is {} and has no bytes of its own",
                               plan_.values[static_cast<size_t>(root)].name, to_string(storage.kind)));
  return nullptr;
}

std::byte* ValueMemory::pointer(ValueId id) {
  StorageRoot root = storage_root(plan_.values, id);
  return root_pointer(root.value) + root.offset;
}

std::byte* ValueMemory::prepared(ValueId id, const std::string& key,
                                 const std::function<std::vector<float>()>& values) {
  PET_CHECK(!key.empty() && graph_.is_constant(id), "a prepared weight needs a key and a weight");
  auto found = weights_.find({id, key});
  if (found != weights_.end()) return found->second.data();
  std::vector<float> host = values();
  DeviceBuffer buffer(static_cast<int64_t>(host.size() * sizeof(float)));
  buffer.upload(std::as_bytes(std::span<const float>(host)), stream_);
  return weights_.emplace(std::make_pair(id, key), std::move(buffer)).first->second.data();
}

std::byte* ValueMemory::zeros(int64_t count) {
  int64_t bytes = count * int64_t{sizeof(float)};
  if (zeros_.empty() || zeros_.back().bytes() < bytes) {
    zeros_.emplace_back(bytes);
    check_cuda(cudaMemsetAsync(zeros_.back().data(), 0, static_cast<size_t>(bytes), stream_),
               "cudaMemsetAsync (zeros)");
  }
  return zeros_.back().data();
}

void ValueMemory::upload_inputs(const std::vector<Tensor>& inputs) {
  const std::vector<ValueId>& ids = graph_.inputs();
  if (inputs.size() != ids.size())
    throw UserError(fmt::format("pet-gpu: the model takes {} inputs, {} were given", ids.size(), inputs.size()));
  for (size_t i = 0; i < ids.size(); ++i) {
    const Value& value = graph_.value(ids[i]);
    if (inputs[i].type() != value.type)
      throw UserError(fmt::format("pet-gpu: input {} '{}' is {}, but the model takes {}", i, value.name,
                                  inputs[i].type().to_string(), value.type.to_string()));
    StorageRoot root = storage_root(plan_.values, ids[i]);
    staging_.at(root.value).upload(bytes_of(inputs[i]), stream_, root.offset);
  }
}

std::vector<Tensor> ValueMemory::download_outputs() {
  std::vector<Tensor> outputs;
  for (ValueId id : graph_.outputs()) {
    Tensor tensor(graph_.value(id).type);
    std::byte* device = pointer(id);
    if (tensor.nbytes() > 0)
      check_cuda(cudaMemcpyAsync(tensor.mutable_raw(), device, tensor.nbytes(), cudaMemcpyDeviceToHost, stream_),
                 "cudaMemcpyAsync (an output to the host)");
    outputs.push_back(std::move(tensor));
  }
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (after downloading the outputs)");
  return outputs;
}

void ValueMemory::poison() {
  arena_.poison(stream_);
  for (auto& [id, buffer] : staging_)
    if (plan_.values[static_cast<size_t>(id)].storage.kind == StorageKind::output) buffer.poison(stream_);
}

void ValueMemory::fill_random(uint64_t seed) {
  arena_.fill_random(seed, stream_);
  for (auto& [id, buffer] : staging_) {
    if (plan_.values[static_cast<size_t>(id)].type.dtype == DType::f32) {
      buffer.fill_random(seed + static_cast<uint64_t>(id) + 1, stream_);
      continue;
    }
    // Indices and masks: zeros index every non-empty axis (the load's eager pass reads them).
    check_cuda(cudaMemsetAsync(buffer.data(), 0, static_cast<size_t>(buffer.bytes()), stream_),
               "cudaMemsetAsync (integer inputs)");
  }
  check_cuda(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (after filling the buffers)");
}

int64_t ValueMemory::weight_bytes() const {
  int64_t bytes = 0;
  for (const auto& [key, buffer] : weights_) bytes += buffer.bytes();
  return bytes;
}

}  // namespace pet::gpu
