// References as ONNX test data: the names inside the TensorProtos are the graph's value names, so
// a folder read back says which model it was written for.
#include "kernels/gpu/executor/reference.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <system_error>

#include "core/error.h"
#include "core/executor.h"
#include "core/onnx_tensor.h"

namespace pet::gpu {
namespace {

namespace fs = std::filesystem;

std::string tensor_path(const std::string& folder, const char* role, size_t index) {
  return (fs::path(folder) / fmt::format("{}_{}.pb", role, index)).string();
}

void read_all(const std::string& folder, const char* role, std::vector<Tensor>& tensors,
              std::vector<std::string>& names) {
  for (size_t i = 0; fs::exists(tensor_path(folder, role, i)); ++i) {
    std::string name;
    tensors.push_back(read_tensor_file(tensor_path(folder, role, i), &name));
    names.push_back(std::move(name));
  }
}

void require_types(const Graph& graph, const std::vector<ValueId>& ids, const std::vector<Tensor>& tensors,
                   const char* role, const std::string& folder) {
  if (tensors.size() != ids.size())
    throw UserError(
        fmt::format("reference folder '{}' holds {} {} files, but the model has {} {}s; write it for this "
                    "model with pet-gpu reference",
                    folder, tensors.size(), role, ids.size(), role));
  for (size_t i = 0; i < ids.size(); ++i) {
    const Value& value = graph.value(ids[i]);
    if (tensors[i].type() != value.type)
      throw UserError(
          fmt::format("reference folder '{}': {}_{}.pb is {}, but the model's {} '{}' is {}; write it for "
                      "this model with pet-gpu reference",
                      folder, role, i, tensors[i].type().to_string(), role, value.name, value.type.to_string()));
  }
}

}  // namespace

ReferenceData compute_reference(const Graph& graph, uint64_t seed) {
  ReferenceData reference;
  reference.inputs = random_inputs(graph, seed);
  reference.outputs = execute(graph, reference.inputs);
  for (ValueId id : graph.inputs()) reference.input_names.push_back(graph.value(id).name);
  for (ValueId id : graph.outputs()) reference.output_names.push_back(graph.value(id).name);
  return reference;
}

void write_reference(const std::string& folder, const ReferenceData& reference) {
  std::error_code error;
  fs::create_directories(folder, error);
  if (error) throw UserError(fmt::format("cannot create the reference folder '{}': {}", folder, error.message()));
  for (size_t i = 0; i < reference.inputs.size(); ++i)
    write_tensor_file(tensor_path(folder, "input", i), reference.inputs[i], reference.input_names.at(i));
  for (size_t i = 0; i < reference.outputs.size(); ++i)
    write_tensor_file(tensor_path(folder, "output", i), reference.outputs[i], reference.output_names.at(i));
}

ReferenceData read_reference(const std::string& folder) {
  if (!fs::exists(tensor_path(folder, "input", 0)))
    throw UserError(
        fmt::format("reference folder '{}' holds no input_0.pb; write one with pet-gpu reference MODEL "
                    "--out {}",
                    folder, folder));
  ReferenceData reference;
  read_all(folder, "input", reference.inputs, reference.input_names);
  read_all(folder, "output", reference.outputs, reference.output_names);
  return reference;
}

void require_reference_fits(const Graph& graph, const ReferenceData& reference, const std::string& folder) {
  require_types(graph, graph.inputs(), reference.inputs, "input", folder);
  require_types(graph, graph.outputs(), reference.outputs, "output", folder);
}

double relative_l2_error(const Tensor& output, const Tensor& reference) {
  PET_CHECK(output.type() == reference.type(), fmt::format("comparing {} with a reference of {}",
                                                           output.type().to_string(), reference.type().to_string()));
  double difference = 0, norm = 0;
  for (int64_t i = 0; i < output.numel(); ++i) {
    double got = output.as_double(i), want = reference.as_double(i);
    if (std::isnan(got) || std::isnan(want)) return std::nan("");
    difference += (got - want) * (got - want);
    norm += want * want;
  }
  return norm == 0 ? std::sqrt(difference) : std::sqrt(difference / norm);
}

}  // namespace pet::gpu
