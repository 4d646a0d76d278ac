// Canonical structural hashes of values and graphs, independent of node order and names.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace pet {

// Constants up to this many elements are part of a program's structure (shapes, indices, scales):
// text prints them inline, weight-free text included, and timing hashes keep their values.
inline constexpr int64_t kInlineElements = 16;

// A weight: an f32 constant of more than kInlineElements elements. Weight-free text regenerates
// its values from a seed; no runtime's time depends on them.
bool is_weight(const Tensor& tensor);
// The scale s of the uniform noise in [-s, s) that stands in for a weight with its root mean square:
// weight-free text writes a weight as random(content hash, s), and so does a weight-free export.
float rms_keeping_scale(const Tensor& tensor);

enum class ConstantHashing {
  content,          // every constant by its values
  weights_by_type,  // weights by dtype and shape alone, other constants by their values
};

// Hash of the computation producing each value: inputs by position and type, constants as
// `hashing` says, node outputs by op, attributes and input hashes (commutative inputs sorted).
std::vector<uint64_t> value_hashes(const Graph& graph, ConstantHashing hashing = ConstantHashing::content);

// Hash of the graph's outputs in order plus the sorted hashes of all nodes, constants by content:
// equal hashes, the same computation. The search's dedup key.
uint64_t structural_hash(const Graph& graph);

// The structural hash blind to the values of weights: what a time measured in a runtime depends
// on. A model, the same model with other weights and its weight-free form share it, so a profile
// DB's entries recorded on one replay on the others, and the search breaks its ties by it.
uint64_t timing_hash(const Graph& graph);

uint64_t attributes_hash(const Attributes& attrs);

class Hasher;
// Adds one attribute value to `hasher` as attributes_hash adds each (its kind, then its content;
// floats as float32, as ONNX stores them).
void add_attr_value(Hasher& hasher, const AttrValue& value);

}  // namespace pet
