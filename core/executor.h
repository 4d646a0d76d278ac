// The CPU reference executor: runs any graph node by node with each op's reference kernel.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet {

// Runs the graph on values for its inputs (in graph-input order) and returns its outputs.
// A UserError names the input whose type does not match.
std::vector<Tensor> execute(const Graph& graph, const std::vector<Tensor>& inputs);

// The same, with inputs by name; missing or unknown names are UserErrors.
std::vector<Tensor> execute_named(const Graph& graph, const std::map<std::string, Tensor>& inputs);

// Runs one node's kernel on concrete inputs (constant folding uses this).
std::vector<Tensor> execute_node(const Node& node, const std::vector<const Tensor*>& inputs,
                                 const std::vector<TensorType>& output_types);

// Seeded random values for one input of `type`, drawn per element type so each gets values a model
// of that type expects:
//   f32: uniform in [-range, range) (Tensor::random_f32; f32 draws are what every golden holds);
//   f64: uniform in [-range, range) from 53 random bits; bf16: the same from 24 bits, rounded to
//     bfloat16 (a value that rounds up to `range` takes the bfloat16 just below it);
//   i8, u8, i16, u16: uniform over the whole range, extremes included (a u8 image gets 0..255);
//   i64, i32, u32, u64: 0 or 1, since such inputs are almost always indices, shapes or masks and
//     0 and 1 are valid for any non-empty axis;
//   bool: fair coins.
// `range` (> 0) scales the float types only.
Tensor random_input(const TensorType& type, uint64_t seed, double range = 1);

// random_input for every graph input, with range 1; input i uses seed + i.
std::vector<Tensor> random_inputs(const Graph& graph, uint64_t seed);

}  // namespace pet
