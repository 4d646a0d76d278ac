// Coordinates, strided offsets and broadcast strides as CUDA C expressions.
#include "kernels/gpu/codegen/index_math.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace pet::gpu::codegen {
namespace {

bool is_compound(const std::string& expression) { return expression.find(' ') != std::string::npos; }

std::string parenthesized(const std::string& expression) {
  return is_compound(expression) ? "(" + expression + ")" : expression;
}

// |factor| * expression, without the sign.
std::string scaled(const std::string& expression, int64_t factor) {
  int64_t magnitude = factor < 0 ? -factor : factor;
  if (magnitude == 1) return expression;
  return fmt::format("{} * {}", parenthesized(expression), magnitude);
}

}  // namespace

int64_t product(const std::vector<int64_t>& dims, size_t from, size_t to) {
  int64_t result = 1;
  for (size_t d = from; d < std::min(to, dims.size()); ++d) result *= dims[d];
  return result;
}

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) strides[d - 1] = strides[d] * dims[d];
  return strides;
}

StridedAccess permuted_view(const std::vector<int64_t>& expanded, const std::vector<int64_t>& perm) {
  std::vector<int64_t> strides = row_major_strides(expanded);
  StridedAccess view;
  for (int64_t axis : perm) {
    view.dims.push_back(expanded[static_cast<size_t>(axis)]);
    view.strides.push_back(strides[static_cast<size_t>(axis)]);
  }
  return view;
}

StridedAccess simplified(StridedAccess access) {
  PET_CHECK(access.dims.size() == access.strides.size(), "a strided access needs one stride per dim");
  StridedAccess result{{}, {}, access.offset};
  for (size_t d = 0; d < access.dims.size(); ++d) {
    if (access.dims[d] == 1) continue;  // coordinate 0 always: reads nothing but the offset
    bool merges = !result.dims.empty() && result.strides.back() == access.strides[d] * access.dims[d];
    if (merges) {
      result.dims.back() *= access.dims[d];
      result.strides.back() = access.strides[d];
    } else {
      result.dims.push_back(access.dims[d]);
      result.strides.push_back(access.strides[d]);
    }
  }
  return result;
}

std::string coordinate(const std::string& flat, const std::vector<int64_t>& dims, size_t axis) {
  PET_CHECK(axis < dims.size(), "a coordinate beyond the index space's rank");
  if (dims[axis] == 1) return "0";
  int64_t inner = product(dims, axis + 1);
  std::string text = inner == 1 ? flat : fmt::format("{} / {}", parenthesized(flat), inner);
  bool outermost = product(dims, 0, axis) == 1;  // then flat / inner is below dims[axis] already
  if (!outermost) text = fmt::format("{} % {}", inner == 1 ? parenthesized(text) : text, dims[axis]);
  return text;
}

std::string declare_coordinates(const std::string& flat, const std::vector<int64_t>& dims,
                                std::vector<std::string>& names) {
  PET_CHECK(names.size() == dims.size(), "one name per coordinate");
  std::string text;
  for (size_t d = 0; d < dims.size(); ++d) {
    std::string value = coordinate(flat, dims, d);
    if (value == "0")
      names[d] = "0";
    else
      text += fmt::format("    const index {} = {};\n", names[d], value);
  }
  return text;
}

std::string linear_combination(const std::vector<std::pair<std::string, int64_t>>& terms, int64_t constant) {
  std::vector<std::pair<std::string, int64_t>> present;
  for (const auto& [expression, factor] : terms)
    if (factor != 0 && expression != "0") present.emplace_back(expression, factor);
  // A positive constant goes first where the first term would be negated: "95 - a * 30", not "-(a * 30) + 95".
  bool constant_first = constant > 0 && !present.empty() && present.front().second < 0;
  std::string text = constant_first ? std::to_string(constant) : "";
  for (const auto& [expression, factor] : present) {
    std::string term = scaled(expression, factor);
    if (text.empty())
      text = factor < 0 ? "-" + parenthesized(term) : term;
    else
      text += fmt::format(" {} {}", factor < 0 ? '-' : '+', term);
  }
  if (text.empty()) return std::to_string(constant);
  if (constant != 0 && !constant_first)
    text += fmt::format(" {} {}", constant < 0 ? '-' : '+', constant < 0 ? -constant : constant);
  return text;
}

std::string strided_offset(const StridedAccess& access, const std::string& flat) {
  StridedAccess simple = simplified(access);
  std::vector<std::pair<std::string, int64_t>> terms;
  for (size_t d = 0; d < simple.dims.size(); ++d)
    if (simple.strides[d] != 0) terms.emplace_back(coordinate(flat, simple.dims, d), simple.strides[d]);
  return linear_combination(terms, simple.offset);
}

std::vector<int64_t> broadcast_strides(const Shape& operand, const Shape& out) {
  PET_CHECK(operand.rank() <= out.rank(), "a broadcast operand has more dims than its result");
  std::vector<int64_t> own = row_major_strides(operand.dims());
  std::vector<int64_t> strides(static_cast<size_t>(out.rank()), 0);
  int pad = out.rank() - operand.rank();
  for (int d = 0; d < operand.rank(); ++d) {
    if (operand[d] == 1) continue;
    PET_CHECK(operand[d] == out[d + pad], "an operand dim that neither is 1 nor matches its result's");
    strides[static_cast<size_t>(d + pad)] = own[static_cast<size_t>(d)];
  }
  return strides;
}

}  // namespace pet::gpu::codegen
