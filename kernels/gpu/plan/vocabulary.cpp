// The plan's enums spelled once each, in kebab-case, for dumps, tests and logs.
#include "core/spelling.h"
#include "kernels/gpu/plan/plan.h"

namespace pet::gpu {
namespace {

constexpr Spelling<StepKind> kStepKinds[] = {{StepKind::cudnn_conv, "cudnn-conv"},
                                             {StepKind::cublaslt_gemm, "cublaslt-gemm"},
                                             {StepKind::elementwise, "elementwise"},
                                             {StepKind::transpose, "transpose"},
                                             {StepKind::layout, "layout"},
                                             {StepKind::pad, "pad"},
                                             {StepKind::slice, "slice"},
                                             {StepKind::concat, "concat"},
                                             {StepKind::split, "split"},
                                             {StepKind::gather, "gather"},
                                             {StepKind::expand, "expand"},
                                             {StepKind::copy, "copy"},
                                             {StepKind::softmax, "softmax"},
                                             {StepKind::layer_norm, "layer-norm"},
                                             {StepKind::pool, "pool"},
                                             {StepKind::reduce, "reduce"},
                                             {StepKind::correction, "correction"}};
constexpr Spelling<AliasKind> kAliasKinds[] = {{AliasKind::view, "view"},
                                               {AliasKind::concat_in_place, "concat-in-place"},
                                               {AliasKind::split_views, "split-views"}};
constexpr Spelling<StorageKind> kStorageKinds[] = {{StorageKind::weight, "weight"}, {StorageKind::input, "input"},
                                                   {StorageKind::output, "output"}, {StorageKind::arena, "arena"},
                                                   {StorageKind::view, "view"},     {StorageKind::fused, "fused"}};
constexpr Spelling<WeightPreparation> kPreparations[] = {{WeightPreparation::upload, "upload"},
                                                         {WeightPreparation::conv_filter, "conv-filter"},
                                                         {WeightPreparation::conv_bias, "conv-bias"},
                                                         {WeightPreparation::gemm_operand, "gemm-operand"},
                                                         {WeightPreparation::gemm_bias, "gemm-bias"}};

}  // namespace

std::string to_string(StepKind kind) { return spell(kStepKinds, kind); }
std::string to_string(AliasKind kind) { return spell(kAliasKinds, kind); }
std::string to_string(StorageKind kind) { return spell(kStorageKinds, kind); }
std::string to_string(WeightPreparation preparation) { return spell(kPreparations, preparation); }

}  // namespace pet::gpu
