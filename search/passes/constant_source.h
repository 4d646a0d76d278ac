// The constant behind a value, seen through a Reshape (how split-off biases and broadcast
// constants reach the passes before weights are folded).
#pragma once

#include "core/graph.h"

namespace pet {

// The value's constant, or the constant a Reshape producing it reads; nullptr otherwise.
inline const Tensor* constant_source(const Graph& graph, ValueId value) {
  const Value& entry = graph.value(value);
  if (entry.constant) return &*entry.constant;
  if (entry.producer >= 0 && graph.node(entry.producer).op() == "Reshape" &&
      graph.is_constant(graph.node(entry.producer).inputs[0]))
    return &*graph.value(graph.node(entry.producer).inputs[0]).constant;
  return nullptr;
}

}  // namespace pet
