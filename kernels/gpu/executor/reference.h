// The references pet-gpu check compares against: seeded random inputs (never zeros) and the
// outputs of pet's CPU executor, kept as ONNX TensorProto files input_<i>.pb and output_<i>.pb
// (the layout of an ONNX test data set) so they are computed here and carried to the GPU; and
// the relative L2 error a check reads. Host code only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace pet::gpu {

struct ReferenceData {
  std::vector<Tensor> inputs;   // in the graph's input order
  std::vector<Tensor> outputs;  // in the graph's output order
  std::vector<std::string> input_names, output_names;
};

// random_inputs(graph, seed) and what pet's CPU executor computes from them.
ReferenceData compute_reference(const Graph& graph, uint64_t seed);

// Writes input_<i>.pb and output_<i>.pb into `folder` (created when missing); UserError when it
// cannot be.
void write_reference(const std::string& folder, const ReferenceData& reference);

// Reads input_0.pb, input_1.pb, ... and output_0.pb, ... up to the first missing index. UserError
// when the folder holds no input_0.pb or a file cannot be read.
ReferenceData read_reference(const std::string& folder);

// UserError naming the first input or output of `reference` (read from `folder`) whose count or
// type differs from the graph's.
void require_reference_fits(const Graph& graph, const ReferenceData& reference, const std::string& folder);

// ||output - reference|| / ||reference|| over every element (as doubles), or ||output|| when the
// reference is all zeros; NaN when either holds a NaN, so a NaN never passes. Internal check when
// the two types differ.
double relative_l2_error(const Tensor& output, const Tensor& reference);

}  // namespace pet::gpu
