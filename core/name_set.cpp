// A graph's value names as a shared base plus a copy's own changes.
#include "core/name_set.h"

#include <algorithm>

#include "core/error.h"

namespace pet {
namespace {

constexpr size_t kSmallestFold = 64;  // changes kept apart at least up to this many

}  // namespace

void NameSet::insert(const std::string& name) {
  PET_CHECK(!contains(name), "value name '" + name + "' is taken");
  if (!removed_.erase(name)) added_.insert(name);  // a removed base name comes back by forgetting its removal
  fold_when_large();
}

void NameSet::erase(const std::string& name) {
  PET_CHECK(contains(name), "value name '" + name + "' is not in the graph");
  if (!added_.erase(name)) removed_.insert(name);
  fold_when_large();
}

void NameSet::fold_when_large() {
  size_t base_size = base_ ? base_->size() : 0;
  if (added_.size() <= std::max(kSmallestFold, base_size / 4) && removed_.size() <= std::max(kSmallestFold, base_size / 2))
    return;
  auto folded = std::make_shared<Names>();
  folded->reserve(size());
  if (base_)
    for (const std::string& name : *base_)
      if (!removed_.count(name)) folded->insert(name);
  folded->insert(added_.begin(), added_.end());
  base_ = std::move(folded);
  added_ = Names();  // with their buckets: a copy allocates as many as the set holds
  removed_ = Names();
}

}  // namespace pet
