// for_each_in_parallel(): a fixed pool of std::threads taking indices from an atomic counter.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace pet {

// Calls work(i) for every i < count on up to `threads` threads, the caller's among them; the
// first exception a call throws stops the rest and is rethrown here once every thread has
// stopped. Which thread runs which index is unspecified: `work` writes only to its own slot.
template <typename Work>
void for_each_in_parallel(size_t count, unsigned threads, const Work& work) {
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto worker = [&] {
    for (size_t i = next++; i < count; i = next++) {
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  };
  threads = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(std::max<size_t>(count, 1)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
}

// The threads to use when the user asked for `requested` (0 or less: every core).
inline unsigned thread_count_for(int requested) {
  return requested > 0 ? static_cast<unsigned>(requested) : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace pet
