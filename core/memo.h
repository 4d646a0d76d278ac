// Memo: a bounded, thread-safe table of answers keyed by strings, and forget_memos() to empty the cheap ones.
#pragma once

#include <cstddef>
#include <cstdint>
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

// What forget_memos() does to a Memo: empties it, or keeps it because its answers are dear to
// recompute (a Z3 proof is seconds, whether a layout chain is the identity microseconds).
enum class OnForget : uint8_t { Empty, Keep };

// Remembers answers that are a function of their key alone (a rule instance's proof, whether a
// layout chain is the identity): a process-wide function-local static shared by every search and
// thread. It holds at most `capacity` answers and starts over when full, so a long-lived process
// (the harness, a fuzzer) does not grow without end. Given `weigh`, the capacity counts what it
// says each answer weighs (bytes, say) rather than answers.
template <typename Value>
class Memo final : public detail::MemoBase {
 public:
  using Weigh = size_t (*)(const Value&);
  explicit Memo(size_t capacity, OnForget on_forget = OnForget::Empty, Weigh weigh = nullptr)
      : capacity_(capacity), on_forget_(on_forget), weigh_(weigh) {}

  std::optional<Value> find(const std::string& key) const {
    std::lock_guard lock(mutex_);
    auto found = answers_.find(key);
    if (found == answers_.end()) return std::nullopt;
    return found->second;
  }

  void remember(std::string key, Value value) {
    size_t weight = weigh_ ? weigh_(value) : 1;
    std::lock_guard lock(mutex_);
    if (held_ + weight > capacity_) {
      answers_.clear();
      held_ = 0;
    }
    if (weight > capacity_) return;  // an answer heavier than the whole table is not kept
    if (answers_.emplace(std::move(key), std::move(value)).second) held_ += weight;
  }

  size_t size() const {
    std::lock_guard lock(mutex_);
    return answers_.size();
  }

  void forget() override {
    if (on_forget_ == OnForget::Keep) return;
    std::lock_guard lock(mutex_);
    answers_ = {};
    held_ = 0;
  }

 private:
  size_t capacity_;
  OnForget on_forget_;
  Weigh weigh_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Value> answers_;
  size_t held_ = 0;  // the answers' weight (their count without `weigh`)
};

// Empties every Memo of the process made with OnForget::Empty (their memory is released). Answers
// are recomputed on demand, so this changes no result; the fuzzer calls it after each execution,
// which keeps most executions' allocations balanced (libFuzzer re-runs any execution that ends
// with more allocations than frees to look for a leak).
void forget_memos();

}  // namespace pet
