// Index arithmetic printed as CUDA C: a row-major element index split into coordinates, and the
// offset a strided view of a tensor reads for it (dense, transposed, sliced, broadcast alike).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/shape.h"

namespace pet::gpu::codegen {

// Element k of a row-major index space `dims` reads element offset + sum(coordinate_d * strides[d])
// of its source. Strides are in elements: 0 where the source is broadcast, negative where a slice
// walks backwards.
struct StridedAccess {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

int64_t product(const std::vector<int64_t>& dims, size_t from = 0, size_t to = SIZE_MAX);
std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims);

// A row-major tensor of dims `expanded` read with its axes in the order `perm` (a Layout's view:
// the tensor reshaped to `expanded`, then transposed).
StridedAccess permuted_view(const std::vector<int64_t>& expanded, const std::vector<int64_t>& perm);

// The same reads with unit dims dropped and each pair of neighbours merged where stepping the outer
// one moves as far as a whole run of the inner one (so a dense read becomes one dim of stride 1).
StridedAccess simplified(StridedAccess access);

// Coordinate `axis` of row-major index `flat` in `dims`: (flat / inner) % dims[axis], where inner
// is the product of the dims after `axis`; the division by 1 is left out, and so is the modulo
// where every dim before `axis` is 1 (the flat index is below the product of all dims); "0" along
// a unit dim.
std::string coordinate(const std::string& flat, const std::vector<int64_t>& dims, size_t axis);

// "    const index <name> = <coordinate>;" for each axis of `dims`, in order; an axis of extent 1 gets
// no variable and its name in `names` becomes "0" (so terms using it drop out).
std::string declare_coordinates(const std::string& flat, const std::vector<int64_t>& dims,
                                std::vector<std::string>& names);

// sum of expression * factor + constant, leaving out factors of 1 and zero terms; "0" if empty.
// Compound expressions are parenthesized before they are scaled or negated.
std::string linear_combination(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t constant = 0);

// The offset `access` (simplified first) reads for index `flat`: "flat" for a dense read.
std::string strided_offset(const StridedAccess& access, const std::string& flat);

// Strides of a row-major tensor of shape `operand` read at the coordinates of `out`, the two
// aligned at their last dims (numpy broadcasting): 0 where the operand has no dim or a unit dim.
std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& out);

}  // namespace pet::gpu::codegen
