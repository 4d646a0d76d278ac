// Builders for the attributes of common Layout transforms (declared in core/ops/layout.h).
#include <numeric>

#include <fmt/format.h>

#include "core/error.h"
#include "core/ops/import_util.h"
#include "core/ops/layout.h"

namespace pet::ops {

Attributes layout_attrs(std::vector<int64_t> expanded, std::vector<int64_t> perm, std::vector<int64_t> groups) {
  return {{"expanded", std::move(expanded)}, {"perm", std::move(perm)}, {"groups", std::move(groups)}};
}

static std::vector<int64_t> iota_ints(size_t count) {
  std::vector<int64_t> values(count);
  std::iota(values.begin(), values.end(), 0);
  return values;
}

Attributes layout_identity(const Shape& shape) {
  return layout_attrs(shape.dims(), iota_ints(static_cast<size_t>(shape.rank())),
                      std::vector<int64_t>(static_cast<size_t>(shape.rank()), 1));
}

Attributes layout_transpose(const Shape& shape, const std::vector<int64_t>& perm) {
  return layout_attrs(shape.dims(), perm, std::vector<int64_t>(static_cast<size_t>(shape.rank()), 1));
}

std::optional<std::string> axis_split_refusal(const Shape& shape, int axis, int64_t factor, bool allow_batch,
                                              const char* what) {
  if (axis < (allow_batch ? 0 : 1) || axis >= shape.rank())
    return fmt::format("{}: axis {} is not {} of {}", what, axis, allow_batch ? "an axis" : "a non-batch axis",
                       shape.to_string());
  if (factor < 1 || shape[axis] % factor != 0)
    return fmt::format("{}: axis {} of {} (size {}) is not divisible by factor {}", what, axis, shape.to_string(),
                       shape[axis], factor);
  return std::nullopt;
}

// `what` axis of `shape` must exist (and not be the batch) and be divisible by `factor`.
static int64_t checked_quotient(const Shape& shape, int axis, int64_t factor, bool allow_batch, const char* what) {
  if (std::optional<std::string> refusal = axis_split_refusal(shape, axis, factor, allow_batch, what))
    throw UserError(*refusal);
  return shape[axis] / factor;
}

// `shape` with dimension `axis` replaced by the two factors (outer, inner).
static std::vector<int64_t> split_dim(const Shape& shape, int axis, int64_t outer, int64_t inner) {
  std::vector<int64_t> dims = shape.dims();
  dims[static_cast<size_t>(axis)] = inner;
  dims.insert(dims.begin() + axis, outer);
  return dims;
}

// Group counts of 1 for `rank` output dims, with the one at `merged` taking two factors.
static std::vector<int64_t> groups_merging(int rank, int merged) {
  std::vector<int64_t> groups(static_cast<size_t>(rank), 1);
  groups[static_cast<size_t>(merged)] = 2;
  return groups;
}

Attributes layout_batch_to_axis(const Shape& shape, int axis, int64_t factor) {
  checked_quotient(shape, axis, 1, false, "batch-to-axis layout");
  int64_t n = checked_quotient(shape, 0, factor, true, "batch-to-axis layout");
  // expanded [f, n, S1, ..]: factor f moves right before S_axis and merges with it.
  std::vector<int64_t> perm = iota_ints(static_cast<size_t>(shape.rank()) + 1);
  perm.erase(perm.begin());
  perm.insert(perm.begin() + axis, 0);
  return layout_attrs(split_dim(shape, 0, factor, n), perm, groups_merging(shape.rank(), axis));
}

Attributes layout_axis_to_batch(const Shape& shape, int axis, int64_t factor) {
  int64_t rest = checked_quotient(shape, axis, factor, false, "axis-to-batch layout");
  // expanded [S0, .., f, rest, ..]: factor f moves to the front and merges with the batch.
  std::vector<int64_t> perm = iota_ints(static_cast<size_t>(shape.rank()) + 1);
  perm.erase(perm.begin() + axis);
  perm.insert(perm.begin(), axis);
  return layout_attrs(split_dim(shape, axis, factor, rest), perm, groups_merging(shape.rank(), 0));
}

Attributes layout_batch_to_height(const Shape& shape, int64_t factor) { return layout_batch_to_axis(shape, 2, factor); }

Attributes layout_height_to_batch(const Shape& shape, int64_t factor) { return layout_axis_to_batch(shape, 2, factor); }

Attributes layout_channel_to_height(const Shape& shape, int64_t factor) {
  checked_quotient(shape, 2, 1, false, "channel-to-height layout");
  int64_t channels = checked_quotient(shape, 1, factor, false, "channel-to-height layout");
  // expanded [N, c, f, H, ..] is already in output order: f merges with H.
  std::vector<int64_t> perm = iota_ints(static_cast<size_t>(shape.rank()) + 1);
  return layout_attrs(split_dim(shape, 1, channels, factor), perm, groups_merging(shape.rank(), 2));
}

Attributes layout_dilation_deinterleave(const Shape& shape, int axis, int64_t factor) {
  int64_t rest = checked_quotient(shape, axis, factor, false, "dilation de-interleave layout");
  // expanded [S0, .., rest, f, ..]: the residue factor f moves to the front and merges with the batch.
  std::vector<int64_t> perm = iota_ints(static_cast<size_t>(shape.rank()) + 1);
  perm.erase(perm.begin() + axis + 1);
  perm.insert(perm.begin(), axis + 1);
  return layout_attrs(split_dim(shape, axis, rest, factor), perm, groups_merging(shape.rank(), 0));
}

Attributes layout_dilation_interleave(const Shape& shape, int axis, int64_t factor) {
  checked_quotient(shape, axis, 1, false, "dilation interleave layout");
  int64_t n = checked_quotient(shape, 0, factor, true, "dilation interleave layout");
  // expanded [f, n, S1, ..]: f moves right after S_axis and merges with it as the inner factor.
  std::vector<int64_t> perm = iota_ints(static_cast<size_t>(shape.rank()) + 1);
  perm.erase(perm.begin());
  perm.insert(perm.begin() + axis + 1, 0);
  return layout_attrs(split_dim(shape, 0, factor, n), perm, groups_merging(shape.rank(), axis));
}

// The NCHW shape checks of DepthToSpace / SpaceToDepth.
static void check_nchw_blocks(const Shape& shape, int64_t blocksize, const char* what) {
  if (shape.rank() != 4) throw UserError(fmt::format("{}: {} is not a 4-D NCHW shape", what, shape.to_string()));
  if (blocksize < 1) throw UserError(fmt::format("{}: blocksize {} must be positive", what, blocksize));
}

Attributes layout_depth_to_space(const Shape& shape, int64_t blocksize, bool crd) {
  check_nchw_blocks(shape, blocksize, "depth-to-space layout");
  int64_t b = blocksize, channels = checked_quotient(shape, 1, b * b, false, "depth-to-space layout");
  int64_t n = shape[0], h = shape[2], w = shape[3];
  if (crd) return layout_attrs({n, channels, b, b, h, w}, {0, 1, 4, 2, 5, 3}, {1, 1, 2, 2});
  return layout_attrs({n, b, b, channels, h, w}, {0, 3, 4, 1, 5, 2}, {1, 1, 2, 2});
}

Attributes layout_space_to_depth(const Shape& shape, int64_t blocksize) {
  check_nchw_blocks(shape, blocksize, "space-to-depth layout");
  int64_t b = blocksize;
  int64_t h = checked_quotient(shape, 2, b, false, "space-to-depth layout");
  int64_t w = checked_quotient(shape, 3, b, false, "space-to-depth layout");
  return layout_attrs({shape[0], shape[1], h, b, w, b}, {0, 3, 5, 1, 2, 4}, {1, 3, 1, 1});
}

Attributes layout_inverse(const Shape& input, const Attributes& attrs) {
  const auto& expanded = attrs.get_ints("expanded");
  const auto& perm = attrs.get_ints("perm");
  std::optional<std::vector<int64_t>> counts = layout_refinement(input.dims(), expanded);
  if (!counts)
    throw UserError(fmt::format("layout inverse: expanded {} does not refine {}", ints_to_string(expanded),
                                input.to_string()));
  std::vector<int64_t> permuted, inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    permuted.push_back(expanded[static_cast<size_t>(perm[i])]);
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  }
  return layout_attrs(permuted, inverse, *counts);
}

namespace {

// The Layout's flat-index map as (factors, perm) with unit factors dropped and factors that stay
// adjacent and in order merged: unique for each map of a given input shape.
std::pair<std::vector<int64_t>, std::vector<int64_t>> canonical_map(const Attributes& layout) {
  std::vector<int64_t> factors, perm;
  const auto& expanded = layout.get_ints("expanded");
  std::vector<int64_t> renumbered(expanded.size(), -1);
  for (size_t i = 0; i < expanded.size(); ++i)
    if (expanded[i] != 1) {
      renumbered[i] = static_cast<int64_t>(factors.size());
      factors.push_back(expanded[i]);
    }
  for (int64_t source : layout.get_ints("perm"))
    if (renumbered[static_cast<size_t>(source)] >= 0) perm.push_back(renumbered[static_cast<size_t>(source)]);
  for (size_t j = 0; j + 1 < perm.size();) {
    if (perm[j + 1] != perm[j] + 1) {
      ++j;
      continue;
    }
    int64_t outer = perm[j];
    factors[static_cast<size_t>(outer)] *= factors[static_cast<size_t>(outer + 1)];
    factors.erase(factors.begin() + outer + 1);
    perm.erase(perm.begin() + static_cast<std::ptrdiff_t>(j) + 1);
    for (int64_t& source : perm)
      if (source > outer) --source;
  }
  return {factors, perm};
}

}  // namespace

bool layouts_move_alike(const Shape& input, const Attributes& a, const Attributes& b) {
  if (!layout_refinement(input.dims(), a.get_ints("expanded")) || !layout_refinement(input.dims(), b.get_ints("expanded")))
    return false;
  return layout_output_shape(a) == layout_output_shape(b) && canonical_map(a) == canonical_map(b);
}

}  // namespace pet::ops
