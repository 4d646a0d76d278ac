// Cancellation: a caller's hook that says stop unwinds optimize() with Cancelled, from whichever
// stage it is asked in (generation, search, between stages).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include "core/error.h"
#include "core/text_ir.h"
#include "search/pipeline.h"

namespace pet {
namespace {

// Two 3x3 convs with a bias and Relu between: mutants to generate and a search over them.
const char* kTwoConvs = R"(graph "two" opset 13 {
  input %x : f32[2,8,16,16]
  const %w1 : f32[8,8,3,3] = random(1)
  const %w2 : f32[8,8,3,3] = random(2)
  %a = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%x, %w1) : f32[2,8,16,16]
  %ra = Relu(%a) : f32[2,8,16,16]
  %b = Conv[dilations=[1,1], group=1, pads=[1,1,1,1], strides=[1,1]](%ra, %w2) : f32[2,8,16,16]
  output %b
}
)";

OptimizeOptions quick() {
  OptimizeOptions options;
  options.target.spec = TargetSpec::parse("h100");  // analytic: nothing is timed
  options.search.beam = 2;
  options.generate.mutation_rounds = 1;
  options.generate.top_k = 2;
  return options;
}

// A hook that counts how often it is asked (from any thread) and says stop from the `stop_at`th time on.
struct CountingHook {
  std::atomic<int64_t> asked{0};
  int64_t stop_at = INT64_MAX;
  CancelHook hook() {
    return [this] { return ++asked >= stop_at; };
  }
};

TEST(Cancel, AHookThatSaysStopMakesOptimizeThrowCancelled) {
  OptimizeOptions options = quick();
  options.hooks.cancelled = [] { return true; };
  EXPECT_THROW(optimize(parse_graph(kTwoConvs), options), Cancelled);
}

TEST(Cancel, AHookThatNeverSaysStopChangesNothing) {
  OptimizeOptions asked = quick();
  CountingHook counter;
  asked.hooks.cancelled = counter.hook();
  Graph graph = parse_graph(kTwoConvs);
  OptimizeResult with_hook = optimize(graph, asked), without = optimize(graph, quick());
  EXPECT_EQ(report_json(with_hook, false), report_json(without, false));
  // Asked at each step of the mutant enumeration, each expansion and candidate, each stage's end.
  EXPECT_GT(counter.asked.load(), 1000);
}

TEST(Cancel, StoppingAtAnyAskUnwindsTheRun) {
  Graph graph = parse_graph(kTwoConvs);
  CountingHook counting;
  OptimizeOptions options = quick();
  options.hooks.cancelled = counting.hook();
  optimize(graph, options);
  const int64_t asks = counting.asked.load();
  // The first ask, one in generation (most of the asks), one late in the search, the last.
  for (int64_t stop_at : {int64_t{1}, asks / 4, asks - 20, asks}) {
    CountingHook stopping;
    stopping.stop_at = stop_at;
    options.hooks.cancelled = stopping.hook();
    SCOPED_TRACE(stop_at);
    EXPECT_THROW(optimize(graph, options), Cancelled);
    EXPECT_LE(stopping.asked.load(), stop_at + 64) << "the threads stop soon after the hook says so";
  }
}

TEST(Cancel, TheSearchBudgetAsksBeforeEachCandidate) {
  search::SearchBudget budget;
  EXPECT_EQ(budget.spent(0, 0), std::nullopt);
  budget.cancelled = [] { return true; };
  EXPECT_THROW(budget.spent(0, 0), Cancelled);
  EXPECT_THROW(budget.exhausted(0, 0, 0), Cancelled);
}

}  // namespace
}  // namespace pet
