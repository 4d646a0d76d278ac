// for_each_in_parallel(): indices taken from an atomic counter by the caller and by helpers of one
// process-wide pool of threads, started once and kept, so a loop costs no thread creation.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>

namespace pet {

namespace detail {

// One parallel loop: its indices, the work on each, and how many pool helpers may join the caller.
struct ParallelLoop {
  size_t count = 0;
  std::atomic<size_t> next{0};
  void (*call)(const void* work, size_t index) = nullptr;
  const void* work = nullptr;
  unsigned helpers_wanted = 0;
  std::exception_ptr failure;  // the first exception a call threw
  std::mutex failure_mutex;

  // Runs indices until none is left; an exception is kept and stops the indices not yet taken.
  void take_indices() {
    for (size_t i = next++; i < count; i = next++) {
      try {
        call(work, i);
      } catch (...) {
        std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;
      }
    }
  }
};

// Offers `loop` to the pool's idle helpers, takes indices on the calling thread, and returns once
// every index has run and every helper that joined has left it.
void run_with_helpers(ParallelLoop& loop);

// Threads the pool holds besides callers (started at its first use: the cores less one).
unsigned pool_helpers();

}  // namespace detail

// Calls work(i) for every i < count on up to `threads` threads, the caller's among them (helpers
// come from the pool; a loop inside work(i) is itself parallel, its caller taking its indices when
// no helper is idle); the first exception a call throws stops the rest and is rethrown here once
// every thread has left the loop. Which thread runs which index is unspecified: `work` writes only
// to its own slot.
template <typename Work>
void for_each_in_parallel(size_t count, unsigned threads, const Work& work) {
  threads = std::clamp<unsigned>(threads, 1, static_cast<unsigned>(std::max<size_t>(count, 1)));
  detail::ParallelLoop loop;
  loop.count = count;
  loop.call = [](const void* erased, size_t index) { (*static_cast<const Work*>(erased))(index); };
  loop.work = &work;
  loop.helpers_wanted = threads - 1;
  if (loop.helpers_wanted == 0)
    loop.take_indices();
  else
    detail::run_with_helpers(loop);
  if (loop.failure) std::rethrow_exception(loop.failure);
}

// The threads to use when the user asked for `requested` (0 or less: every core).
inline unsigned thread_count_for(int requested) {
  return requested > 0 ? static_cast<unsigned>(requested) : std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace pet
