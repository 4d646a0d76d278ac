// The textual IR: prints a Graph in a compact, line-per-node form and parses it back.
//
//   graph "tiny" opset 13 {
//     input %x : f32[1,4]
//     const %b : f32[4] = [1,2,3,4]
//     const %w : f32[4,4] = random(7)
//     %y = Add(%x, %b) : f32[1,4]
//     %z = Relu(%y) : f32[1,4]
//     output %z
//   }
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/graph.h"
#include "core/structural_hash.h"

namespace pet {

struct PrintOptions {
  int64_t inline_limit = kInlineElements;  // constants up to this many elements print their values
  bool node_names = false;                 // append "@name" to each node line
  // Weights (is_weight, whatever inline_limit says) print as random(SEED, SCALE): seeded uniform
  // noise in [-SCALE, SCALE) with the constant's own root mean square, so a model travels without
  // its weights (a GPU check) and is regenerated bit for bit wherever it is parsed, its
  // activations as large as the original's. The seed is the constant's content hash. Other
  // constants print inline, whatever their size, so the text parses without a blob table.
  bool weight_free = false;
  // false: every constant prints as "..." (the text does not parse back), for a comparison of two
  // graphs' structure that compares their constants byte for byte itself, without hashing them.
  bool constant_values = true;
};

std::string print_graph(const Graph& graph, const PrintOptions& options = {});

// Larger constants print as blob(HASH); parsing needs their tensors, keyed by that hash.
using BlobTable = std::map<uint64_t, Tensor>;
BlobTable collect_blobs(const Graph& graph);

// Parses printed IR; `random(SEED)` constants are uniform in [-1, 1), `random(SEED, SCALE)` in
// [-SCALE, SCALE) (Tensor::random_f32). UserError with the line
// number and what was expected on malformed text, unknown ops, or types that disagree with
// the op's shape rule.
Graph parse_graph(const std::string& text, const BlobTable& blobs = {});

}  // namespace pet
