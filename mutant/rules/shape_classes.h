// The shape classes the rule generator enumerates over: small pools of named inputs whose
// concrete sizes stand for symbolic dimensions, each with the rule operators that apply to them.
#pragma once

#include <string>
#include <vector>

#include "core/tensor.h"

namespace pet::rules {

struct PoolInput {
  std::string name;  // the graph input's name in every rule of the class
  TensorType type;
  std::string symbolic;  // the shape in the class's dimension symbols, e.g. "[M,K]"
};

struct ShapeClass {
  std::string name;
  std::vector<PoolInput> inputs;
  std::vector<std::string> ops;         // labels of rule op templates used in this class
  std::vector<std::string> dimensions;  // "M=2", ...: what each symbol stands for
  bool named = false;  // no enumeration: the hand-written rules of named_rules.h
};

// The built-in classes: elementwise matrices, matrix products, and NCHW convolutions.
const std::vector<ShapeClass>& shape_classes();

// The class of the hand-written TASO substitutions, "taso": selected by name only, so "all"
// keeps meaning the enumerated classes.
const ShapeClass& named_class();

// The classes named in a comma-separated list ("all" or empty for every enumerated class);
// UserError on an unknown name.
std::vector<ShapeClass> select_shape_classes(const std::string& names);

}  // namespace pet::rules
