// The constant behind a value, seen through a Reshape (how split-off biases and broadcast
// constants reach the passes before weights are folded).
#pragma once

#include <cstdint>
#include <map>
#include <optional>

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

// The value computed from constants only, evaluated with the reference kernels, when its
// producers read at most `max_elements` constant elements in all (a bias a rule scaled, before
// fold-weights has run); nullopt for a value that depends on an input, or reads more.
std::optional<Tensor> small_derived_constant(const Graph& graph, ValueId value, int64_t max_elements = 1 << 16);

// A value computed from constants only, by the reference kernels of its producers; `memo` keeps
// the values computed on the way (and the returned reference's storage).
const Tensor& computed_constant(const Graph& graph, ValueId value, std::map<ValueId, Tensor>& memo);

}  // namespace pet
