// NameSet: the set of a graph's value names, shared between a graph and its copies except for
// what each changed since.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <unordered_set>

namespace pet {

// A frozen base, shared by every copy, plus this set's own additions and removals. The search
// copies whole graphs for every candidate it builds and changes a few names in each: a copy shares
// the base and copies only the changes. When the additions outgrow a quarter of the base, or the
// removals half of it, the changes are folded into a new base, so a set built name by name costs
// amortized O(1) per name. Removals get the larger margin: the finalize passes on a candidate's
// copy remove hundreds of names at once (every fused activation's), and a fold there would copy the
// whole base for a graph about to be priced and dropped.
class NameSet {
 public:
  bool contains(const std::string& name) const {
    if (added_.count(name)) return true;
    return in_base(name) && !removed_.count(name);
  }
  // Internal check: the name must be absent.
  void insert(const std::string& name);
  // Internal check: the name must be present.
  void erase(const std::string& name);
  size_t size() const { return (base_ ? base_->size() : 0) - removed_.size() + added_.size(); }
  // How many names this set holds apart from its base (for tests: a copy shares the rest).
  size_t changes() const { return added_.size() + removed_.size(); }

 private:
  using Names = std::unordered_set<std::string>;
  bool in_base(const std::string& name) const { return base_ && base_->count(name); }
  void fold_when_large();

  std::shared_ptr<const Names> base_;  // never changed once shared
  Names added_;                        // not in the base
  Names removed_;                      // in the base
};

}  // namespace pet
