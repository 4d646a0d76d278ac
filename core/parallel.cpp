// The pool behind for_each_in_parallel: helpers wait for loops offered by callers, join one while it
// wants more hands and has indices left, and leave it when its indices run out.
#include "core/parallel.h"

#include <pthread.h>

#include <condition_variable>
#include <deque>

namespace pet::detail {
namespace {

// Kept for the process's life (never destroyed: a helper may still be leaving a loop while static
// objects are destroyed at exit; its threads end with the process).
class Pool {
 public:
  explicit Pool(unsigned helpers) : helpers_(helpers) {
    for (unsigned i = 0; i < helpers; ++i) std::thread([this] { serve(); }).detach();
  }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  unsigned helpers() const { return helpers_; }

  void run(ParallelLoop& loop) {
    Entry entry{&loop};
    {
      std::lock_guard lock(mutex_);
      loops_.push_back(&entry);
    }
    offered_.notify_all();
    loop.take_indices();
    std::unique_lock lock(mutex_);
    withdraw(&entry);  // no helper joins it from now on
    left_.wait(lock, [&] { return entry.inside == 0; });
  }

 private:
  // A loop on offer: how many helpers joined it and how many are still inside.
  struct Entry {
    ParallelLoop* loop;
    unsigned joined = 0;
    unsigned inside = 0;
  };

  void withdraw(Entry* entry) {
    for (auto at = loops_.begin(); at != loops_.end(); ++at)
      if (*at == entry) {
        loops_.erase(at);
        return;
      }
  }

  // The first loop on offer that wants another helper and has indices left (guarded by mutex_).
  Entry* loop_to_join() {
    for (Entry* entry : loops_)
      if (entry->joined < entry->loop->helpers_wanted && entry->loop->next.load() < entry->loop->count) return entry;
    return nullptr;
  }

  [[noreturn]] void serve() {
    std::unique_lock lock(mutex_);
    while (true) {
      Entry* entry = nullptr;
      offered_.wait(lock, [&] { return (entry = loop_to_join()) != nullptr; });
      ++entry->joined;
      ++entry->inside;
      lock.unlock();
      entry->loop->take_indices();
      lock.lock();
      if (--entry->inside == 0) left_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable offered_;  // a loop was offered
  std::condition_variable left_;     // a helper left a loop
  std::deque<Entry*> loops_;         // on offer, oldest first
  const unsigned helpers_;
};

// The process's pool. A child forked while helpers ran has none of them (and perhaps a locked
// mutex): it starts a pool of its own at its next loop, leaving the parent's copy untouched.
std::atomic<Pool*> current_pool{nullptr};
std::once_flag fork_handler_installed;

void forget_pool_in_child() { current_pool.store(nullptr); }

Pool& pool() {
  std::call_once(fork_handler_installed, [] { pthread_atfork(nullptr, nullptr, forget_pool_in_child); });
  static std::mutex starting;
  Pool* found = current_pool.load();
  if (found) return *found;
  std::lock_guard lock(starting);
  found = current_pool.load();
  if (!found) {
    found = new Pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
    current_pool.store(found);
  }
  return *found;
}

}  // namespace

void run_with_helpers(ParallelLoop& loop) {
  Pool& helpers = pool();
  if (helpers.helpers() == 0) return loop.take_indices();
  helpers.run(loop);
}

unsigned pool_helpers() { return pool().helpers(); }

}  // namespace pet::detail
