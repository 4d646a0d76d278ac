// Random multi-op regions for the property tests: two or three convs in a row (a stage without its
// Relus, so the region stays multi-linear), and the same convs run on the batch stacked along H or
// W with one layout at the entry and one at the exit, as a stage move leaves them after finalize.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/graph.h"
#include "core/ops/layout.h"

namespace pet::testing {

struct StagePair {
  std::string family;
  Graph original;
  Graph candidate;
};

// Seeded: the same generator state gives the same pair. Convs keep their size (pads k/2, odd k),
// so the stacked images stay stacked from one conv to the next; the seams spread by k/2 rows per conv.
inline StagePair random_stacked_stage(std::mt19937_64& rng) {
  auto pick = [&](int64_t low, int64_t high) { return low + static_cast<int64_t>(rng() % static_cast<uint64_t>(high - low + 1)); };
  int axis = static_cast<int>(pick(2, 3));
  int64_t n = pick(2, 3), convs = pick(2, 3);
  Shape x{n, pick(1, 2), pick(3, 6), pick(3, 6)};
  std::vector<Shape> weights;
  int64_t channels = x[1];
  for (int64_t c = 0; c < convs; ++c) {
    int64_t k = 2 * pick(0, 1) + 1, out = pick(1, 2);
    weights.push_back(Shape{out, channels, k, k});
    channels = out;
  }
  auto conv_attrs = [](int64_t k) {
    int64_t pad = k / 2;
    return Attributes{{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                      {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
  };
  auto build = [&](bool stacked) {
    Graph graph;
    ValueId value = graph.add_input("x", {DType::f32, x});
    std::vector<ValueId> w;
    for (size_t c = 0; c < weights.size(); ++c) w.push_back(graph.add_input("w" + std::to_string(c), {DType::f32, weights[c]}));
    if (stacked) value = graph.add_node1("Layout", ops::layout_batch_to_axis(x, axis, n), {value});
    for (size_t c = 0; c < weights.size(); ++c) value = graph.add_node1("Conv", conv_attrs(weights[c][2]), {value, w[c]});
    if (stacked) value = graph.add_node1("Layout", ops::layout_axis_to_batch(graph.value(value).type.shape, axis, n), {value});
    graph.add_output(value);
    return graph;
  };
  return {fmt::format("{}-stage-of-{}", axis == 2 ? "n2h" : "n2w", convs), build(false), build(true)};
}

}  // namespace pet::testing
