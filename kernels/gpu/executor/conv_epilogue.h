// The generated epilogue of a cudnn_conv step whose bias, residual and activation cuDNN's fused
// call cannot take with the algorithm chosen: one grid-stride kernel, shapes baked in, updating
// the convolution's output in place (host code: NVRTC compiles it like every own kernel).
#pragma once

#include "kernels/gpu/codegen/kernel_text.h"
#include "kernels/gpu/executor/conv_config.h"

namespace pet::gpu {

// y = act(y + bias[channel] + residual), with the terms the config has; parameters in0 (the bias
// as channels() floats, when present), in1 or in0 (the residual, when present), then out0 (y).
// The arguments name the config's values in that order. Internal check for a config with nothing
// to add or apply.
codegen::GeneratedKernel conv_epilogue_kernel(const ConvConfig& config);

}  // namespace pet::gpu
