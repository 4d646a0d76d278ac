// Evaluates single output elements of a multi-linear graph over Z_p by pulling exactly the input
// elements they read; graph inputs take seeded pseudo-random values, constants their exact value.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/graph.h"

namespace pet {

class FieldEvaluator {
 public:
  // Input element j of graph input i takes value hash(seed, trial, i, j) mod p, so two graphs
  // with the same inputs see the same values under the same seed and trial.
  FieldEvaluator(const Graph& graph, uint64_t seed, int trial);

  uint64_t value(ValueId id, const int64_t* index);
  uint64_t output(int output_index, const int64_t* index) {
    return value(graph_.outputs().at(static_cast<size_t>(output_index)), index);
  }
  // The random value of graph input `position` at flat element `flat`.
  static uint64_t input_value(uint64_t seed, int trial, int position, int64_t flat);

 private:
  uint64_t node_value(ValueId id, const int64_t* index);
  uint64_t constant_value(ValueId id, int64_t flat);

  const Graph& graph_;
  uint64_t seed_;
  int trial_;
  std::vector<int> input_position_;  // per value: its graph-input position, or -1
  std::vector<std::vector<const TensorType*>> node_input_types_;
  std::vector<std::unordered_map<int64_t, uint64_t>> memo_;  // per value: flat index -> value
};

}  // namespace pet
