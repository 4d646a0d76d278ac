// The operator registry: every OpDef by name and by ONNX op type, in a stable order.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/op_def.h"

namespace pet {

class OpRegistry {
 public:
  // The registry with every op listed in core/ops/op_list.h.
  static OpRegistry& global();

  // Registers one more op (tests and extensions use this; built-in ops come from op_list.h).
  // Internal check on a duplicate name or ONNX op type.
  const OpDef& add(OpDef def);
  const OpDef* find(const std::string& name) const;
  const OpDef& get(const std::string& name) const;  // internal check when missing
  const OpDef* find_onnx(const std::string& onnx_op) const;
  // In registration order.
  std::vector<const OpDef*> all() const;

 private:
  std::vector<std::unique_ptr<OpDef>> defs_;  // stable addresses: nodes point at their OpDef
  std::map<std::string, const OpDef*> by_name_;
  std::map<std::string, const OpDef*> by_onnx_;
};

}  // namespace pet
