// The built-in mutant operator set: one line per template.
#include "mutant/template.h"

#include <algorithm>

#include "mutant/template_choices.h"

namespace pet::mutant {

const std::vector<MutantTemplate>& default_templates() {
  using namespace choices;
  static const std::vector<MutantTemplate> kTemplates = {
      {"batch-to-axis", "Layout", Stage::Pre, 1, 1, Role::Activation, batch_to_axis},
      {"axis-to-batch", "Layout", Stage::Pre, 1, 1, Role::Activation, axis_to_batch},
      {"dilation-deinterleave", "Layout", Stage::Pre, 1, 1, Role::Activation, dilation_deinterleave},
      {"rows-deinterleave-stacked", "Layout", Stage::Pre, 1, 1, Role::Activation, rows_deinterleave_stacked},
      {"channels-to-rows", "Layout", Stage::Pre, 1, 1, Role::Any, channels_to_rows},
      {"swap-height-width", "Layout", Stage::Pre, 1, 1, Role::Any, swap_height_width},
      {"flatten-spatial", "Reshape", Stage::Pre, 1, 1, Role::Any, flatten_spatial},
      {"pad-odd-side", "Pad", Stage::Pre, 1, 1, Role::Activation, pad_odd_side},
      {"enlarge-kernel", "Pad", Stage::Pre, 1, 1, Role::Weight, enlarge_kernel},
      {"transpose-operand", "Transpose", Stage::Pre, 1, 1, Role::Any, transpose_last_two},
      {"concat-operands", "Concat", Stage::Pre, 2, 3, Role::Any, concat},
      {"split-operand", "Split", Stage::Pre, 1, 1, Role::Any, split_halves},
      {"conv", "Conv", Stage::Compute, 2, 2, Role::Any, conv, {Role::Activation, Role::Weight}},
      {"matmul", "MatMul", Stage::Compute, 2, 2, Role::Any, matmul},
      {"batch-to-axis-back", "Layout", Stage::Post, 1, 1, Role::Any, batch_to_axis},
      {"axis-to-batch-back", "Layout", Stage::Post, 1, 1, Role::Any, axis_to_batch},
      {"dilation-interleave", "Layout", Stage::Post, 1, 1, Role::Any, dilation_interleave},
      {"rows-interleave-stacked", "Layout", Stage::Post, 1, 1, Role::Any, rows_interleave_stacked},
      {"swap-height-width-back", "Layout", Stage::Post, 1, 1, Role::Any, swap_height_width},
      {"reshape-to-output", "Reshape", Stage::Post, 1, 1, Role::Any, reshape_to_target},
      {"slice-to-output", "Slice", Stage::Post, 1, 1, Role::Any, slice_to_target},
      {"transpose-result", "Transpose", Stage::Post, 1, 1, Role::Any, transpose_last_two},
      {"split-to-outputs", "Split", Stage::Post, 1, 1, Role::Any, split_to_targets},
      {"concat-results", "Concat", Stage::Post, 2, 3, Role::Any, concat},
  };
  return kTemplates;
}

const std::vector<MutantTemplate>& merge_templates() {
  static const std::vector<MutantTemplate> kMerging = [] {
    const std::vector<std::string> names = {"concat-operands", "enlarge-kernel",  "conv",
                                            "matmul",          "split-to-outputs", "slice-to-output"};
    std::vector<MutantTemplate> kept;
    for (const MutantTemplate& entry : default_templates())
      if (std::find(names.begin(), names.end(), entry.name) != names.end()) kept.push_back(entry);
    for (MutantTemplate& entry : kept) entry.ascending_operands = entry.name == "concat-operands";
    return kept;
  }();
  return kMerging;
}

}  // namespace pet::mutant
