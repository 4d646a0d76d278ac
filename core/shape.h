// Static tensor shapes: a list of non-negative dimensions with element counts and strides.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "core/refusal.h"

namespace pet {

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t operator[](int axis) const { return dims_.at(static_cast<size_t>(axis)); }
  int64_t& operator[](int axis) { return dims_.at(static_cast<size_t>(axis)); }
  const std::vector<int64_t>& dims() const { return dims_; }
  // The element count; an internal check when it does not fit in int64 (importers and shape rules
  // reject such shapes first, through checked_numel and require_allocatable).
  int64_t numel() const;
  // The element count, or nullopt when the product of the dimensions overflows int64.
  std::optional<int64_t> checked_numel() const;
  // Row-major strides in elements.
  std::vector<int64_t> strides() const;
  // "1x3x224x224"; a scalar prints as "scalar".
  std::string to_string() const;
  bool operator==(const Shape&) const = default;

 private:
  std::vector<int64_t> dims_;
};

// The largest rank pet handles: point facets keep one index per dimension in arrays of this size.
inline constexpr int kMaxRank = 16;

// A refusal naming `what` when `shape` has more than kMaxRank dimensions. Every shape rule's
// outputs (infer_types) are checked, and Graph::add_input and Graph::add_constant raise it as a
// UserError (require_supported_rank), so no value of a graph has more.
ShapeCheck check_supported_rank(const Shape& shape, const std::string& what);
void require_supported_rank(const Shape& shape, const std::string& what);

// Turns a possibly negative axis into [0, rank); returns -1 when out of range.
int normalize_axis(int64_t axis, int rank);

}  // namespace pet
