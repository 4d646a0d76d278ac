// Pool maps by brute force: the pools hold at most a handful of inputs per type.
#include "mutant/rules/renamings.h"

#include <algorithm>

#include "core/hash.h"

namespace pet::rules {
namespace {

// Extends `prefix` to every type-preserving map (or bijection) of the pool.
void extend_maps(const ShapeClass& shape_class, bool permutations_only, std::vector<int>& prefix,
                 std::vector<std::vector<int>>& maps) {
  size_t i = prefix.size();
  if (i == shape_class.inputs.size()) {
    maps.push_back(prefix);
    return;
  }
  for (size_t j = 0; j < shape_class.inputs.size(); ++j) {
    if (shape_class.inputs[j].type != shape_class.inputs[i].type) continue;
    if (permutations_only && std::find(prefix.begin(), prefix.end(), static_cast<int>(j)) != prefix.end()) continue;
    prefix.push_back(static_cast<int>(j));
    extend_maps(shape_class, permutations_only, prefix, maps);
    prefix.pop_back();
  }
}

}  // namespace

std::vector<std::vector<int>> pool_maps(const ShapeClass& shape_class, bool permutations_only) {
  std::vector<std::vector<int>> maps;
  std::vector<int> prefix;
  extend_maps(shape_class, permutations_only, prefix, maps);
  return maps;
}

uint64_t pair_key(const Program& a, const Program& b, const std::vector<int>& rename) {
  uint64_t ka = program_key(a, rename), kb = program_key(b, rename);
  Hasher hasher;
  hasher.add(std::min(ka, kb));
  hasher.add(std::max(ka, kb));
  return hasher.value();
}

uint64_t canonical_pair_key(const Program& a, const Program& b, const std::vector<int>& map,
                            const std::vector<std::vector<int>>& permutations) {
  uint64_t best = UINT64_MAX;
  std::vector<int> composed(map.size());
  for (const std::vector<int>& permutation : permutations) {
    for (size_t i = 0; i < map.size(); ++i) composed[i] = permutation[static_cast<size_t>(map[i])];
    best = std::min(best, pair_key(a, b, composed));
  }
  return best;
}

}  // namespace pet::rules
