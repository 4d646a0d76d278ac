// Builds the global registry from core/ops/op_list.h: one line there registers one op.
#include "core/registry.h"

#include "core/error.h"

namespace pet::ops {
#define PET_OP(name) OpDef make_##name();
#include "core/ops/op_list.h"
#undef PET_OP
}  // namespace pet::ops

namespace pet {

OpRegistry& OpRegistry::global() {
  static OpRegistry* registry = [] {
    auto* built = new OpRegistry;
#define PET_OP(name) built->add(ops::make_##name());
#include "core/ops/op_list.h"
#undef PET_OP
    return built;
  }();
  return *registry;
}

const OpDef& OpRegistry::add(OpDef def) {
  PET_CHECK(!def.name.empty(), "op without a name");
  PET_CHECK(!by_name_.count(def.name), "op '" + def.name + "' registered twice");
  for (const std::string& onnx_op : def.onnx_ops)
    PET_CHECK(!by_onnx_.count(onnx_op), "ONNX op '" + onnx_op + "' claimed by two ops");
  defs_.push_back(std::make_unique<OpDef>(std::move(def)));
  const OpDef* stored = defs_.back().get();
  by_name_[stored->name] = stored;
  for (const std::string& onnx_op : stored->onnx_ops) by_onnx_[onnx_op] = stored;
  return *stored;
}

const OpDef* OpRegistry::find(const std::string& name) const {
  auto found = by_name_.find(name);
  return found == by_name_.end() ? nullptr : found->second;
}

const OpDef& OpRegistry::get(const std::string& name) const {
  const OpDef* def = find(name);
  PET_CHECK(def != nullptr, "unknown op '" + name + "'");
  return *def;
}

const OpDef* OpRegistry::find_onnx(const std::string& onnx_op) const {
  auto found = by_onnx_.find(onnx_op);
  return found == by_onnx_.end() ? nullptr : found->second;
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> result;
  for (const auto& def : defs_) result.push_back(def.get());
  return result;
}

}  // namespace pet
