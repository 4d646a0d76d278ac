// Memo: a bounded, thread-safe table of answers keyed by strings, and forget_memos() to empty them all.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace pet {

namespace detail {
// Every Memo adds itself here when it is built and leaves when it is destroyed.
class MemoBase {
 public:
  MemoBase();
  virtual ~MemoBase();
  MemoBase(const MemoBase&) = delete;
  MemoBase& operator=(const MemoBase&) = delete;
  virtual void forget() = 0;
};
}  // namespace detail

// Remembers answers that are a function of their key alone (a shape rule's verdict, whether a
// layout chain is the identity): a process-wide function-local static shared by every search and
// thread. It holds at most `capacity` answers and starts over when full, so a long-lived process
// (the harness, a fuzzer) does not grow without end.
template <typename Value>
class Memo final : public detail::MemoBase {
 public:
  explicit Memo(size_t capacity) : capacity_(capacity) {}

  std::optional<Value> find(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto found = answers_.find(key);
    if (found == answers_.end()) return std::nullopt;
    return found->second;
  }

  void remember(std::string key, Value value) {
    std::lock_guard lock(mutex_);
    if (answers_.size() >= capacity_) answers_.clear();
    answers_.emplace(std::move(key), std::move(value));
  }

  size_t size() const {
    std::lock_guard lock(mutex_);
    return answers_.size();
  }

  void forget() override {
    std::lock_guard lock(mutex_);
    answers_ = {};
  }

 private:
  size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Value> answers_;
};

// Empties every Memo of the process (their memory is released). Answers are recomputed on demand,
// so this changes no result; the fuzzer calls it after each execution, which keeps an execution's
// allocations balanced (libFuzzer re-runs any execution that ends with more allocations than frees
// to look for a leak).
void forget_memos();

}  // namespace pet
