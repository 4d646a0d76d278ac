// Accessors and error helpers of the contexts handed to op facets.
#include "core/op_def.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace pet {

const TensorType& ShapeContext::input(int index) const {
  PET_CHECK(has_input(index), fmt::format("{} input {} is absent", op, index));
  return *inputs[static_cast<size_t>(index)];
}

bool ShapeContext::has_input(int index) const {
  return index >= 0 && index < num_inputs() && inputs[static_cast<size_t>(index)] != nullptr;
}

Refusal ShapeContext::refuse(const std::string& what) const {
  return Refusal{fmt::format("node '{}' ({}): {}", node_name, op, what)};
}

const Tensor& KernelContext::input(int index) const {
  PET_CHECK(has_input(index), fmt::format("kernel input {} is absent", index));
  return *inputs[static_cast<size_t>(index)];
}

bool KernelContext::has_input(int index) const {
  return index >= 0 && index < static_cast<int>(inputs.size()) && inputs[static_cast<size_t>(index)] != nullptr;
}

void FieldPuller::pull_run(int input, const int64_t* index, int rank, int axis, int64_t count, uint64_t* out) const {
  PET_CHECK(rank >= 0 && rank <= kMaxRank && axis >= 0 && axis < rank,
            fmt::format("pull_run: axis {} of a rank-{} input", axis, rank));
  int64_t moving[kMaxRank];
  std::copy(index, index + rank, moving);
  for (int64_t k = 0; k < count; ++k) {
    moving[axis] = index[axis] + k;
    out[k] = pull(input, moving);
  }
}

const TensorType& CostContext::input(int index) const {
  PET_CHECK(index >= 0 && index < static_cast<int>(inputs.size()) && inputs[static_cast<size_t>(index)],
            "cost input absent");
  return *inputs[static_cast<size_t>(index)];
}

static double type_bytes(const TensorType& type) {
  return static_cast<double>(type.shape.numel()) * static_cast<double>(dtype_size(type.dtype));
}

double CostContext::input_bytes() const {
  double total = 0;
  for (const TensorType* type : inputs)
    if (type) total += type_bytes(*type);
  return total;
}

double CostContext::output_bytes() const {
  double total = 0;
  for (const TensorType& type : outputs) total += type_bytes(type);
  return total;
}

}  // namespace pet
