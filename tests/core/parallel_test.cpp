// for_each_in_parallel over the pool: every index once, the first exception rethrown, loops inside
// loops, one thread on the caller alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/parallel.h"

namespace pet {
namespace {

TEST(Parallel, EveryIndexRunsOnceWhateverTheThreadCount) {
  for (unsigned threads : {1u, 2u, 4u, 64u}) {
    std::vector<int> runs(10000, 0);
    for_each_in_parallel(runs.size(), threads, [&](size_t i) { ++runs[i]; });
    // Before: no index run. After: each exactly once.
    EXPECT_EQ(std::count(runs.begin(), runs.end(), 1), 10000) << threads << " threads";
  }
  bool ran = false;
  for_each_in_parallel(0, 4, [&](size_t) { ran = true; });
  EXPECT_FALSE(ran);
}

TEST(Parallel, OneThreadRunsEveryIndexOnTheCaller) {
  std::set<std::thread::id> seen;
  for_each_in_parallel(100, 1, [&](size_t) { seen.insert(std::this_thread::get_id()); });
  EXPECT_EQ(seen, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(Parallel, ALoopUsesAtMostItsThreadsAndThePoolsHelpers) {
  std::mutex mutex;
  std::set<std::thread::id> seen;
  for (int repeat = 0; repeat < 20; ++repeat)
    for_each_in_parallel(64, 3, [&](size_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // time for helpers to join
      std::lock_guard lock(mutex);
      seen.insert(std::this_thread::get_id());
    });
  // The caller and the pool's helpers, whatever the number of loops: no thread made per loop.
  EXPECT_LE(seen.size(), detail::pool_helpers() + 1);
  EXPECT_TRUE(seen.count(std::this_thread::get_id()));
}

TEST(Parallel, TheFirstExceptionIsRethrownOnceEveryThreadLeft) {
  std::atomic<int> running{0};
  std::atomic<int> after_failure{0};
  std::atomic<bool> failed{false};
  EXPECT_THROW(for_each_in_parallel(1000, 4,
                                    [&](size_t i) {
                                      ++running;
                                      if (failed) ++after_failure;
                                      if (i == 10) {
                                        failed = true;
                                        --running;
                                        throw std::runtime_error("index 10");
                                      }
                                      std::this_thread::sleep_for(std::chrono::microseconds(50));
                                      --running;
                                    }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 0) << "a call still running after the rethrow";
  EXPECT_LT(after_failure.load(), 1000 - 11) << "the indices after the failure were not stopped";
}

TEST(Parallel, LoopsInsideLoopsRunEveryIndex) {
  std::vector<std::atomic<int>> runs(32 * 100);
  for_each_in_parallel(32, 8, [&](size_t outer) {
    for_each_in_parallel(100, 8, [&](size_t inner) { ++runs[outer * 100 + inner]; });
  });
  for (size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << i;
}

}  // namespace
}  // namespace pet
