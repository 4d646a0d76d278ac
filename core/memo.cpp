// The registry of live Memos behind forget_memos().
#include "core/memo.h"

#include <algorithm>
#include <vector>

namespace pet {
namespace {

struct Registry {
  std::mutex mutex;
  std::vector<detail::MemoBase*> memos;
};

// Never destroyed: function-local static Memos may outlive any other static at exit.
Registry& registry() {
  static Registry* instance = new Registry;
  return *instance;
}

}  // namespace

detail::MemoBase::MemoBase() {
  std::lock_guard lock(registry().mutex);
  registry().memos.push_back(this);
}

detail::MemoBase::~MemoBase() {
  std::lock_guard lock(registry().mutex);
  auto& memos = registry().memos;
  memos.erase(std::remove(memos.begin(), memos.end(), this), memos.end());
}

void forget_memos() {
  std::lock_guard lock(registry().mutex);
  for (detail::MemoBase* memo : registry().memos) memo->forget();
}

}  // namespace pet
