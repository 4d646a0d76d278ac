// N-D sliding-window arithmetic shared by convolutions and pools: output lengths, auto_pad
// resolution at import, and the checks of the canonical strides/pads/dilations attributes.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/onnx_mapping.h"
#include "core/op_def.h"

namespace pet::ops {

// Span of a kernel of `kernel` taps spaced `dilation` apart.
inline int64_t dilated_extent(int64_t kernel, int64_t dilation) { return dilation * (kernel - 1) + 1; }

// Number of window positions along one axis. With ceil_mode a last partial window counts, but
// (as in ONNX Runtime and PyTorch) never one that starts inside the end padding.
int64_t window_output_length(int64_t input, int64_t kernel, int64_t stride, int64_t dilation, int64_t pad_begin,
                             int64_t pad_end, bool ceil_mode);

// The spatial part of a window op: everything but the leading batch and channel dims.
struct WindowGeometry {
  std::vector<int64_t> input;   // spatial input extents
  std::vector<int64_t> output;  // spatial output extents
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;  // the first half of the canonical pads

  int rank() const { return static_cast<int>(input.size()); }
  int64_t input_size() const;   // product of input extents
  int64_t output_size() const;  // product of output extents
  int64_t kernel_size() const;  // product of kernel extents
};

// Geometry from a full [N, C, spatial...] input shape, a kernel and canonical attributes.
// Output extents follow window_output_length.
WindowGeometry make_window_geometry(const std::vector<int64_t>& input_shape, std::vector<int64_t> kernel,
                                    const Attributes& attrs, bool ceil_mode = false);

// The most spatial dimensions a convolution or pooling takes: their point facets keep a window
// tap's input and weight coordinates in fixed arrays of this many.
inline constexpr int kMaxSpatialRank = 4;

// Shape-rule check of canonical strides, pads and (when `has_dilations`) dilations against a
// spatial rank: at most kMaxSpatialRank, right lengths, strides/dilations >= 1, pads >= 0.
ShapeCheck check_window_attrs(const ShapeContext& context, int spatial_rank, bool has_dilations);

// Shape-rule checks of a Conv or ConvTranspose node's inputs (x, w, optional bias), in order:
// f32 input and weight, an input of rank >= 3 ([N, C, spatial...]), a weight of the same rank,
// group >= 1; then `check_channels(group)`, the op's own channel rules, which returns the number
// of output channels (or its refusal); then a bias (when present) of f32[that number].
ShapeCheck check_conv_inputs(const ShapeContext& context,
                             const std::function<Refusable<int64_t>(int64_t group)>& check_channels);

// An ONNX ints attribute of `count` entries, or `count` copies of `fallback` when absent.
std::vector<int64_t> import_spatial_ints(const OnnxImportNode& node, const std::string& name, int count,
                                         int64_t fallback);

// Canonical pads (begin..., end...) of a forward window op (Conv, pools): explicit `pads`, or
// the ONNX auto_pad rule (VALID, SAME_UPPER, SAME_LOWER) applied to the static input extents.
std::vector<int64_t> import_window_pads(const OnnxImportNode& node, const std::vector<int64_t>& input_spatial,
                                        const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                                        const std::vector<int64_t>& dilations);

// Spatial extents of ONNX input `index` (its dims after batch and channel), or a UserError
// when that input has fewer than three dims.
std::vector<int64_t> import_spatial_extents(const OnnxImportNode& node, int index);

}  // namespace pet::ops
