// The activation arena's property tests: random lifetimes straight into the allocator, and random
// graphs (convs, elementwise ops, in-place and copied concats, split views, reshapes) through the
// whole plan. Two values alive at a common step never share a byte; offsets are aligned; the arena
// never exceeds the no-reuse size. Prints its seed; PET_PROPERTY_SEED reuses one; failures report
// the smallest failing case (requests shrunk one by one, graphs the smallest of those failing).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "core/text_ir.h"
#include "kernels/gpu/plan/arena.h"
#include "tests/kernels/gpu/plan_checks.h"

namespace pet::gpu {
namespace {

constexpr int64_t kAlignment = 256;

uint64_t property_seed() {
  const char* given = std::getenv("PET_PROPERTY_SEED");
  return given ? std::strtoull(given, nullptr, 10) : 2026;
}

int64_t uniform(std::mt19937_64& rng, int64_t low, int64_t high) {
  return std::uniform_int_distribution<int64_t>(low, high)(rng);
}

std::vector<ArenaRequest> random_requests(std::mt19937_64& rng) {
  std::vector<ArenaRequest> requests;
  int64_t count = uniform(rng, 1, 300), steps = uniform(rng, 1, 120);
  for (int64_t i = 0; i < count; ++i) {
    int64_t bytes = uniform(rng, 0, 3) == 0 ? uniform(rng, 1, 4) * kAlignment : uniform(rng, 0, int64_t{1} << 20);
    int first = static_cast<int>(uniform(rng, 0, steps - 1));
    int last = static_cast<int>(std::min<int64_t>(steps - 1, first + uniform(rng, 0, uniform(rng, 0, 2) ? 4 : steps)));
    requests.push_back({bytes, {first, last}});
  }
  return requests;
}

// Written here without the allocator's helpers: what a sound layout must satisfy.
std::optional<std::string> layout_problem(const std::vector<ArenaRequest>& requests, const ArenaLayout& layout) {
  int64_t no_reuse = 0, largest_live = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    no_reuse += (requests[i].bytes + kAlignment - 1) / kAlignment * kAlignment;
    if (layout.offsets[i] % kAlignment != 0)
      return fmt::format("request {} at offset {} is misaligned", i, layout.offsets[i]);
    if (layout.offsets[i] + requests[i].bytes > layout.arena_bytes)
      return fmt::format("request {} ends past the arena", i);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      bool alive_together = requests[i].lifetime.first_step <= requests[j].lifetime.last_step &&
                            requests[j].lifetime.first_step <= requests[i].lifetime.last_step;
      bool share_bytes = layout.offsets[i] < layout.offsets[j] + requests[j].bytes &&
                         layout.offsets[j] < layout.offsets[i] + requests[i].bytes;
      if (alive_together && share_bytes)
        return fmt::format("requests {} (steps {}..{}, {}+{}) and {} (steps {}..{}, {}+{}) share bytes", i,
                           requests[i].lifetime.first_step, requests[i].lifetime.last_step, layout.offsets[i],
                           requests[i].bytes, j, requests[j].lifetime.first_step, requests[j].lifetime.last_step,
                           layout.offsets[j], requests[j].bytes);
    }
  }
  for (const ArenaRequest& at : requests) {
    int64_t live = 0;
    for (const ArenaRequest& other : requests)
      if (other.lifetime.first_step <= at.lifetime.first_step && at.lifetime.first_step <= other.lifetime.last_step)
        live += other.bytes;
    largest_live = std::max(largest_live, live);
  }
  if (layout.no_reuse_bytes != no_reuse)
    return fmt::format("no-reuse {} is not the aligned sum {}", layout.no_reuse_bytes, no_reuse);
  if (layout.arena_bytes > no_reuse)
    return fmt::format("arena {} exceeds the no-reuse {}", layout.arena_bytes, no_reuse);
  if (layout.arena_bytes < largest_live)
    return fmt::format("arena {} is below the {} bytes alive at once", layout.arena_bytes, largest_live);
  return std::nullopt;
}

std::optional<std::string> allocation_problem(const std::vector<ArenaRequest>& requests) {
  return layout_problem(requests, allocate_arena(requests, kAlignment));
}

// Drops requests one at a time while the failure stays, until no single drop keeps it.
std::vector<ArenaRequest> shrink(std::vector<ArenaRequest> requests) {
  for (bool dropped = true; dropped;) {
    dropped = false;
    for (size_t i = 0; i < requests.size();) {
      std::vector<ArenaRequest> fewer = requests;
      fewer.erase(fewer.begin() + static_cast<int64_t>(i));
      if (allocation_problem(fewer))
        requests = std::move(fewer), dropped = true;
      else
        ++i;
    }
  }
  return requests;
}

std::string describe(const std::vector<ArenaRequest>& requests) {
  std::string text;
  for (const ArenaRequest& r : requests)
    text += fmt::format("  {} bytes, steps {}..{}\n", r.bytes, r.lifetime.first_step, r.lifetime.last_step);
  return text;
}

TEST(ArenaProperty, LiveValuesNeverShareBytes) {
  uint64_t seed = property_seed();
  std::cout << "arena property test: seed " << seed << " (PET_PROPERTY_SEED=" << seed << " reuses it)\n";
  std::mt19937_64 rng(seed);
  int64_t requests_seen = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<ArenaRequest> requests = random_requests(rng);
    requests_seen += static_cast<int64_t>(requests.size());
    if (std::optional<std::string> problem = allocation_problem(requests)) {
      std::vector<ArenaRequest> smallest = shrink(requests);
      FAIL() << "round " << round << ": " << *problem << "\nshrunk to " << smallest.size() << " requests ("
             << allocation_problem(smallest).value_or("") << "):\n"
             << describe(smallest);
    }
  }
  std::cout << "  " << requests_seen << " lifetimes in 300 rounds\n";
}

// Random graphs over one activation shape [N, C, H, W] (C even), every op keeping that shape.
class RandomGraph {
 public:
  explicit RandomGraph(std::mt19937_64& rng) : rng_(rng) {
    int64_t n = uniform(rng_, 0, 4) == 0 ? 2 : 1;
    shape_ = Shape{n, 2 * uniform(rng_, 1, 4), uniform(rng_, 3, 8), uniform(rng_, 3, 8)};
    pool_.push_back(graph_.add_input("x", {DType::f32, shape_}));
  }

  Graph build() {
    int64_t ops = uniform(rng_, 3, 40);
    for (int64_t i = 0; i < ops; ++i) add_random_op();
    graph_.add_output(pool_.back());
    for (size_t i = 1; i + 1 < pool_.size(); ++i)
      if (uniform(rng_, 0, 9) == 0) graph_.add_output(pool_[i]);
    graph_.validate();
    return std::move(graph_);
  }

 private:
  ValueId pick() {
    if (uniform(rng_, 0, 2) > 0)
      return pool_[static_cast<size_t>(
          std::max<int64_t>(0, static_cast<int64_t>(pool_.size()) - 1 - uniform(rng_, 0, 2)))];
    return pool_[static_cast<size_t>(uniform(rng_, 0, static_cast<int64_t>(pool_.size()) - 1))];
  }
  std::string fresh() { return fmt::format("n{}", counter_++); }
  ValueId add(const std::string& op, Attributes attrs, std::vector<ValueId> inputs) {
    return graph_.add_node1(op, std::move(attrs), std::move(inputs), fresh());
  }
  ValueId weight(Shape shape) {
    return graph_.add_constant(fresh(), Tensor::random_f32(std::move(shape), static_cast<uint64_t>(counter_)));
  }
  ValueId conv(ValueId input, int64_t in_channels, int64_t kernel) {
    int64_t pad = kernel / 2;
    Attributes attrs{{"strides", std::vector<int64_t>{1, 1}},
                     {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                     {"dilations", std::vector<int64_t>{1, 1}},
                     {"group", int64_t{1}}};
    return add("Conv", attrs, {input, weight(Shape{shape_[1], in_channels, kernel, kernel})});
  }
  ValueId concat(ValueId a, ValueId b) { return add("Concat", {{"axis", int64_t{1}}}, {a, b}); }

  void add_random_op() {
    const char* unary[] = {"Relu", "Sigmoid", "Tanh"};
    switch (uniform(rng_, 0, 6)) {
      case 0:
        pool_.push_back(add(unary[uniform(rng_, 0, 2)], {}, {pick()}));
        break;
      case 1:
        pool_.push_back(add("Add", {}, {pick(), pick()}));
        break;
      case 2:
        pool_.push_back(conv(pick(), shape_[1], 3));
        break;
      case 3:
        pool_.push_back(add("Softmax", {{"axis", int64_t{1}}}, {pick()}));
        break;
      case 4:
        pool_.push_back(conv(concat(pick(), pick()), 2 * shape_[1], 1));
        break;
      case 5: {
        int64_t half = shape_[1] / 2;
        std::vector<ValueId> parts = graph_.add_node(
            "Split", {{"axis", int64_t{1}}, {"split", std::vector<int64_t>{half, half}}}, {pick()}, fresh());
        pool_.push_back(concat(parts[1], parts[0]));
        break;
      }
      default: {
        ValueId flat =
            add("Reshape", {{"shape", std::vector<int64_t>{shape_[0], shape_[1], shape_[2] * shape_[3]}}}, {pick()});
        ValueId soft = add("Softmax", {{"axis", int64_t{2}}}, {flat});
        pool_.push_back(add("Reshape", {{"shape", shape_.dims()}}, {soft}));
      }
    }
  }

  std::mt19937_64& rng_;
  Graph graph_;
  Shape shape_;
  std::vector<ValueId> pool_;
  int counter_ = 0;
};

TEST(ArenaProperty, RandomGraphsPlanSoundly) {
  uint64_t seed = property_seed();
  std::cout << "plan property test: seed " << seed << " (PET_PROPERTY_SEED=" << seed << " reuses it)\n";
  std::mt19937_64 rng(seed);
  std::optional<Graph> smallest;
  std::string smallest_problem;
  int failures = 0, in_place = 0, reused = 0;
  for (int i = 0; i < 200; ++i) {
    Graph graph = RandomGraph(rng).build();
    GpuPlan plan = plan_for_gpu(graph);
    std::vector<std::string> problems = testing::plan_problems(graph, plan);
    for (const Alias& alias : plan.aliases) in_place += alias.kind == AliasKind::concat_in_place;
    reused += plan.arena_bytes < plan.no_reuse_bytes;
    if (problems.empty()) continue;
    ++failures;
    if (!smallest || graph.nodes().size() < smallest->nodes().size())
      smallest = std::move(graph), smallest_problem = problems[0];
  }
  std::cout << "  200 graphs: " << in_place << " concats written in place, " << reused << " arenas reusing bytes\n";
  EXPECT_GT(in_place, 0) << "the generator should make concats the plan writes in place";
  EXPECT_GT(reused, 0) << "the generator should make lifetimes the arena can reuse";
  if (smallest)
    ADD_FAILURE() << failures << " graphs planned unsoundly; the smallest: " << smallest_problem << "\n"
                  << print_graph(*smallest) << format_plan(plan_for_gpu(*smallest));
}

}  // namespace
}  // namespace pet::gpu
