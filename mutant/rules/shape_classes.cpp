// Three shape classes. Sizes are distinct small numbers, so a symbol's value is unambiguous
// and Concat and Split still find equal sizes to join and halve.
#include "mutant/rules/shape_classes.h"

#include "core/error.h"

namespace pet::rules {
namespace {

PoolInput input(std::string name, Shape shape, std::string symbolic) {
  return {std::move(name), {DType::f32, std::move(shape)}, std::move(symbolic)};
}

ShapeClass elementwise_class() {
  return {"elementwise",
          {input("x", {2, 3}, "[M,N]"), input("y", {2, 3}, "[M,N]"), input("z", {2, 3}, "[M,N]"), input("s", {}, "[]")},
          {"add", "mul", "scalar-mul", "transpose", "concat-0", "concat-1", "split-0", "split-1", "relu"},
          {"M=2", "N=3"}};
}

ShapeClass matmul_class() {
  return {"matmul",
          {input("a", {2, 3}, "[M,K]"), input("b", {3, 4}, "[K,N]"), input("c", {3, 4}, "[K,N]"),
           input("d", {4, 5}, "[N,P]"), input("s", {}, "[]")},
          {"add", "scalar-mul", "matmul", "transpose", "concat-0", "concat-1", "split-0", "split-1", "relu"},
          {"M=2", "K=3", "N=4", "P=5"}};
}

ShapeClass conv_class() {
  return {"conv",
          {input("x", {1, 2, 4, 4}, "[B,C,H,W]"), input("y", {1, 2, 4, 4}, "[B,C,H,W]"),
           input("w", {2, 2, 3, 3}, "[C,C,3,3]"), input("v", {2, 2, 3, 3}, "[C,C,3,3]"), input("s", {}, "[]")},
          {"add", "scalar-mul", "conv", "concat-0", "concat-1", "split-0", "split-1", "relu", "maxpool", "avgpool"},
          {"B=1", "C=2", "H=4", "W=4"}};
}

}  // namespace

const std::vector<ShapeClass>& shape_classes() {
  static const std::vector<ShapeClass> kClasses = {elementwise_class(), matmul_class(), conv_class()};
  return kClasses;
}

const ShapeClass& named_class() {
  static const ShapeClass kNamed = {"taso", {}, {}, {}, true};
  return kNamed;
}

std::vector<ShapeClass> select_shape_classes(const std::string& names) {
  if (names.empty() || names == "all") return shape_classes();
  std::vector<ShapeClass> selected;
  size_t start = 0;
  while (start <= names.size()) {
    size_t end = names.find(',', start);
    std::string name = names.substr(start, end == std::string::npos ? std::string::npos : end - start);
    bool found = name == named_class().name;
    if (found) selected.push_back(named_class());
    for (const ShapeClass& c : shape_classes())
      if (c.name == name) {
        selected.push_back(c);
        found = true;
      }
    if (!found) throw UserError("unknown shape class '" + name + "': use elementwise, matmul, conv, taso or all");
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return selected;
}

}  // namespace pet::rules
