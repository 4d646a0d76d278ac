// The built-in mutant operator set: one line per template, naming its op, stage, arity, role and
// the attribute domain it enumerates ({axes, fixed values, value source, forms, sides, min rank,
// max rank}, mutant/attribute_domain.h); the names become the family names in reports.
#include "mutant/template.h"

#include <algorithm>

#include "mutant/attribute_forms.h"

namespace pet::mutant {
const std::vector<MutantTemplate>& default_templates() {
  using namespace form;
  static const std::vector<MutantTemplate> kTemplates = {
      {"batch-to-axis", "Layout", Stage::Pre, 1, 1, Role::Activation, {{Axes::Spatial, {2, 3, 4}, Source::BatchRatios, {batch_to_axis}, {Side::End}, 3}}},
      {"axis-to-batch", "Layout", Stage::Pre, 1, 1, Role::Activation, {{Axes::Spatial, {2, 3, 4}, Source::BatchRatios, {axis_to_batch}, {Side::End}, 3}}},
      {"dilation-deinterleave", "Layout", Stage::Pre, 1, 1, Role::Activation, {{Axes::BothSpatialThenEach, {}, Source::OriginalDilation, {deinterleave}, {Side::End}, 3}}},
      {"rows-deinterleave-stacked", "Layout", Stage::Pre, 1, 1, Role::Activation, {{Axes::Height, {}, Source::OriginalDilation, {stack_residues}, {Side::End}, 4, 4}}},
      {"channels-to-rows", "Layout", Stage::Pre, 1, 1, Role::Any, {{Axes::Height, {2}, Source::Fixed, {channels_into_axis}, {Side::End}, 4, 4}}},
      {"swap-height-width", "Layout", Stage::Pre, 1, 1, Role::Any, {{Axes::LastTwo, {}, Source::NoValue, {swap_axes}, {Side::End}, 4, 4}}},
      {"flatten-spatial", "Reshape", Stage::Pre, 1, 1, Role::Any, {{Axes::None, {}, Source::NoValue, {merge_spatial, drop_unit_spatial}, {Side::End}, 4, 4}}},
      {"pad-odd-side", "Pad", Stage::Pre, 1, 1, Role::Activation, {{Axes::Spatial, {2}, Source::Fixed, {pad_to_multiple}, {Side::Start, Side::End}, 4, 4}}},
      {"pad-channels", "Pad", Stage::Pre, 1, 1, Role::Any, {{Axes::Channel, {}, Source::ChannelMultiples, {pad_to_multiple}, {Side::End}, 4, 4}}},
      {"enlarge-kernel", "Pad", Stage::Pre, 1, 1, Role::Weight, {{Axes::None, {}, Source::OriginalKernels, {pad_to_kernel}, {Side::End}, 4, 4}}},
      {"transpose-operand", "Transpose", Stage::Pre, 1, 1, Role::Any, {{Axes::LastTwo, {}, Source::NoValue, {transpose_axes}, {Side::End}, 2, 3}}},
      {"concat-operands", "Concat", Stage::Pre, 2, 3, Role::Any, {{Axes::Every, {}, Source::NoValue, {on_axis}}}},
      {"split-operand", "Split", Stage::Pre, 1, 1, Role::Any, {{Axes::Leading, {2}, Source::Fixed, {split_equal}}}},
      {"conv", "Conv", Stage::Compute, 2, 2, Role::Any, {{Axes::None, {}, Source::OriginalCompute, {inherited, undilated, spatial_swapped, first_axis_strided, pads_follow_kernel}}}, {Role::Activation, Role::Weight}},
      {"matmul", "MatMul", Stage::Compute, 2, 2, Role::Any, {{Axes::None, {}, Source::NoValue, {no_attributes}}}},
      {"batch-to-axis-back", "Layout", Stage::Post, 1, 1, Role::Any, {{Axes::Spatial, {2, 3, 4}, Source::BatchRatios, {batch_to_axis}, {Side::End}, 3}}},
      {"axis-to-batch-back", "Layout", Stage::Post, 1, 1, Role::Any, {{Axes::Spatial, {2, 3, 4}, Source::BatchRatios, {axis_to_batch}, {Side::End}, 3}}},
      {"dilation-interleave", "Layout", Stage::Post, 1, 1, Role::Any, {{Axes::BothSpatialThenEach, {}, Source::OriginalDilation, {interleave}, {Side::End}, 3}}},
      {"rows-interleave-stacked", "Layout", Stage::Post, 1, 1, Role::Any, {{Axes::Height, {}, Source::OriginalDilation, {unstack_residues}, {Side::End}, 4, 4}}},
      {"swap-height-width-back", "Layout", Stage::Post, 1, 1, Role::Any, {{Axes::LastTwo, {}, Source::NoValue, {swap_axes}, {Side::End}, 4, 4}}},
      {"reshape-to-output", "Reshape", Stage::Post, 1, 1, Role::Any, {{Axes::None, {}, Source::Targets, {reshape_to_target}}}},
      {"slice-to-output", "Slice", Stage::Post, 1, 1, Role::Any, {{Axes::Every, {}, Source::Targets, {slice_to_target}, {Side::Start, Side::End}}}},
      {"transpose-result", "Transpose", Stage::Post, 1, 1, Role::Any, {{Axes::LastTwo, {}, Source::NoValue, {transpose_axes}, {Side::End}, 2, 3}}},
      {"split-to-outputs", "Split", Stage::Post, 1, 1, Role::Any, {{Axes::Every, {}, Source::NoValue, {split_to_targets}}}},
      {"concat-results", "Concat", Stage::Post, 2, 3, Role::Any, {{Axes::Every, {}, Source::NoValue, {on_axis}}}},
  };
  return kTemplates;
}

// Kernels squared with zeros (r x s -> max(r, s)), so 1 x k and k x 1 siblings merge into one conv
// whose pads grow alike (conv's pads_follow_kernel). Opt-in: in the default set it makes single
// convs dearer, and in the merge set it spent enough of Inception-v3's --mutant-work budget that
// 22 of 1044 mutants went unfound (same chosen cost on h100).
const std::vector<MutantTemplate>& square_kernel_templates() {
  static const std::vector<MutantTemplate> kSquare = {
      {"square-kernel", "Pad", Stage::Pre, 1, 1, Role::Weight, {{Axes::None, {}, Source::NoValue, {form::pad_to_square}, {Side::End}, 4, 4}}},
  };
  return kSquare;
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
