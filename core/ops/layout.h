// Layout: pet's one general data-layout op. It reshapes the input into `expanded` (each input
// dimension split into consecutive factors whose product is that dimension), permutes those
// factors by `perm`, then merges consecutive permuted factors into output dimensions, `groups[j]`
// factors for output dimension j. Every layout trick of PET (N2H/H2N batch stacking, C2H,
// D2H/D2W dilation de-interleaving, transposes, reshapes) is one Layout with different data.
// The builders below produce its attributes for the common cases; they throw a UserError when
// a shape does not allow the requested transform (e.g. a factor that does not divide an axis).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attributes.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace pet::ops {

// The most factors `expanded` may hold: the point facet keeps one coordinate per factor in an
// array of this many (input and output ranks are at most kMaxRank, like every value's).
inline constexpr int kMaxLayoutFactors = 2 * kMaxRank;

// How many consecutive `factors` each dimension of `dims` takes (trailing factors of 1 join the
// last dimension), or nullopt when `factors` does not refine `dims`.
std::optional<std::vector<int64_t>> layout_refinement(const std::vector<int64_t>& dims,
                                                     const std::vector<int64_t>& factors);

// The output shape of a Layout with valid attributes.
Shape layout_output_shape(const Attributes& attrs);

// The attributes from their three parts.
Attributes layout_attrs(std::vector<int64_t> expanded, std::vector<int64_t> perm, std::vector<int64_t> groups);

// Output equals input.
Attributes layout_identity(const Shape& shape);

// Output axis i is input axis perm[i] (a Transpose).
Attributes layout_transpose(const Shape& shape, const std::vector<int64_t>& perm);

// Why `axis` of `shape` cannot be split into `factor` pieces, or nullopt when it can: the builders
// below need it to be a non-batch axis (the batch too when `allow_batch`) divisible by `factor`,
// and throw a UserError with this reason otherwise. A caller choosing among candidate factors
// asks first.
std::optional<std::string> axis_split_refusal(const Shape& shape, int axis, int64_t factor, bool allow_batch,
                                              const char* what);

// Batch stacking (N2H): the batch splits into `factor` chunks of n, stacked along `axis`:
// out[i, .., k*S + s, ..] = in[k*n + i, .., s, ..]. The batch must be divisible by factor.
Attributes layout_batch_to_axis(const Shape& shape, int axis, int64_t factor);
// Its inverse (H2N): `axis` splits into `factor` chunks that move to the batch.
Attributes layout_axis_to_batch(const Shape& shape, int axis, int64_t factor);
// The NCHW forms of the two above (axis 2).
Attributes layout_batch_to_height(const Shape& shape, int64_t factor);
Attributes layout_height_to_batch(const Shape& shape, int64_t factor);

// Channel to height (C2H) for NC H...: channel c*factor + k goes to channel c, row k*H + h.
Attributes layout_channel_to_height(const Shape& shape, int64_t factor);

// Dilation de-interleave (D2H/D2W): positions of `axis` with the same residue mod `factor` form
// a batch chunk: out[r*N + n, .., j, ..] = in[n, .., j*factor + r, ..]. A convolution with
// dilation `factor` along `axis` becomes an undilated one on the result.
Attributes layout_dilation_deinterleave(const Shape& shape, int axis, int64_t factor);
// Its inverse: interleaves `factor` batch chunks back into `axis`.
Attributes layout_dilation_interleave(const Shape& shape, int axis, int64_t factor);

// DepthToSpace on NCHW: DCR (crd = false) splits C into [b, b, C / b^2], CRD into [C / b^2, b, b];
// the two b factors become inner factors of H and W. The shape must be 4-D with C divisible by b^2.
Attributes layout_depth_to_space(const Shape& shape, int64_t blocksize, bool crd);
// SpaceToDepth on NCHW: H and W split into [H / b, b] and [W / b, b]; the b factors move in
// front of C: out channel (bh * b + bw) * C + c. H and W must be divisible by b.
Attributes layout_space_to_depth(const Shape& shape, int64_t blocksize);

// Runs the Layout `attrs` (valid for the input's shape) on `input` into `output`.
void apply_layout(const Tensor& input, const Attributes& attrs, Tensor& output);

// The Layout that undoes `attrs` applied to an input of shape `input`.
Attributes layout_inverse(const Shape& input, const Attributes& attrs);

// Whether two Layouts valid for inputs of shape `input` move every element to the same place
// (their attributes may differ: unit factors, or adjacent factors that stay together, split apart).
bool layouts_move_alike(const Shape& input, const Attributes& a, const Attributes& b);

}  // namespace pet::ops
