// What one cudnn_conv step asks of cuDNN, read from the graph alone (pure host code, tested on a
// CPU): the tensor, filter and convolution dimensions, the epilogue, and which cuDNN call runs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {

struct ConvConfig {
  std::vector<int> input, filter, output;     // NCHW or NCDHW; a 1-D Conv as 2-D with a unit height
  std::vector<int> pads, strides, dilations;  // one per spatial dim of `input`; pads: at the start
  std::vector<int> pads_end;                  // at the end of each spatial dim (cuDNN's legacy API: = pads)
  int groups = 1;
  ValueId x = kNoValue, w = kNoValue, y = kNoValue;  // the Conv's input and filter, the step's output
  ValueId bias = kNoValue;                           // per output channel (the epilogue's)
  bool bias_is_weight = false;                       // a constant, prepared once at load
  ValueId residual = kNoValue;                       // a value of the output's type, added before the ReLU
  bool relu = false;

  int channels() const { return output.at(1); }
  bool symmetric_pads() const { return pads == pads_end; }
  int64_t output_elements() const;
  // The algorithm search's cache key: the shapes and geometry, not the epilogue or the values
  // ("pads_end[...]" follows the pads only where they differ).
  std::string key() const;
};

// The config of `step` (a cudnn_conv step of `graph`), or why neither cuDNN nor the column path
// (conv_columns.h) can run it: an extent beyond int, an activation other than ReLU, a bias that is
// no weight and holds other than one value per channel. Pads that differ at the two ends of an axis
// are kept: cuDNN's legacy API cannot pad so, the graph API and the column path may.
struct ConvPreparation {
  std::optional<ConvConfig> config;
  std::string refusal;  // empty when config is set
};
ConvPreparation prepare_conv(const Graph& graph, const Step& step);

enum class ConvCall : uint8_t {
  forward,                // cudnnConvolutionForward alone: no bias, residual or activation
  fused,                  // cudnnConvolutionBiasActivationForward: relu(conv + residual + bias)
  forward_then_epilogue,  // cudnnConvolutionForward, then pet's generated epilogue kernel
};
std::string to_string(ConvCall call);

// cuDNN's fused call takes RELU with any algorithm, but IDENTITY only with
// CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM; the fused call always adds a bias (a zero one
// when the step has none).
ConvCall conv_call(const ConvConfig& config, bool implicit_precomp_gemm);

}  // namespace pet::gpu
