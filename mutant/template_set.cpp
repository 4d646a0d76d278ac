// The built-in mutant operator set: one line per template, naming its op, stage, role and the
// attribute domain it enumerates; the names become the family names in reports.
#include "mutant/template.h"

#include <algorithm>

#include "mutant/attribute_forms.h"

namespace pet::mutant {
namespace {

// Shorthands for the domains' columns: axes, fixed values, value source, forms, sides, ranks.
constexpr Side kEnd = Side::End, kStart = Side::Start;
using S = Source;
using A = Axes;

}  // namespace

const std::vector<MutantTemplate>& default_templates() {
  using namespace form;
  static const std::vector<MutantTemplate> kTemplates = {
      {"batch-to-axis", "Layout", Stage::Pre, 1, 1, Role::Activation, {{A::Spatial, {2, 3, 4}, S::BatchRatios, {batch_to_axis}, {kEnd}, 3}}},
      {"axis-to-batch", "Layout", Stage::Pre, 1, 1, Role::Activation, {{A::Spatial, {2, 3, 4}, S::BatchRatios, {axis_to_batch}, {kEnd}, 3}}},
      {"dilation-deinterleave", "Layout", Stage::Pre, 1, 1, Role::Activation, {{A::BothSpatialThenEach, {}, S::OriginalDilation, {deinterleave}, {kEnd}, 3}}},
      {"rows-deinterleave-stacked", "Layout", Stage::Pre, 1, 1, Role::Activation, {{A::Height, {}, S::OriginalDilation, {stack_residues}, {kEnd}, 4, 4}}},
      {"channels-to-rows", "Layout", Stage::Pre, 1, 1, Role::Any, {{A::Height, {2}, S::Fixed, {channels_into_axis}, {kEnd}, 4, 4}}},
      {"swap-height-width", "Layout", Stage::Pre, 1, 1, Role::Any, {{A::LastTwo, {}, S::NoValue, {swap_axes}, {kEnd}, 4, 4}}},
      {"flatten-spatial", "Reshape", Stage::Pre, 1, 1, Role::Any, {{A::None, {}, S::NoValue, {merge_spatial, drop_unit_spatial}, {kEnd}, 4, 4}}},
      {"pad-odd-side", "Pad", Stage::Pre, 1, 1, Role::Activation, {{A::Spatial, {2}, S::Fixed, {pad_to_multiple}, {kStart, kEnd}, 4, 4}}},
      {"pad-channels", "Pad", Stage::Pre, 1, 1, Role::Any, {{A::Channel, {}, S::ChannelMultiples, {pad_to_multiple}, {kEnd}, 4, 4}}},
      {"enlarge-kernel", "Pad", Stage::Pre, 1, 1, Role::Weight, {{A::None, {}, S::OriginalKernels, {pad_to_kernel}, {kEnd}, 4, 4}}},
      {"transpose-operand", "Transpose", Stage::Pre, 1, 1, Role::Any, {{A::LastTwo, {}, S::NoValue, {transpose_axes}, {kEnd}, 2, 3}}},
      {"concat-operands", "Concat", Stage::Pre, 2, 3, Role::Any, {{A::Every, {}, S::NoValue, {on_axis}}}},
      {"split-operand", "Split", Stage::Pre, 1, 1, Role::Any, {{A::Leading, {2}, S::Fixed, {split_equal}}}},
      {"conv", "Conv", Stage::Compute, 2, 2, Role::Any, {{A::None, {}, S::OriginalCompute, {inherited, undilated, spatial_swapped, first_axis_strided}}}, {Role::Activation, Role::Weight}},
      {"matmul", "MatMul", Stage::Compute, 2, 2, Role::Any, {{A::None, {}, S::NoValue, {no_attributes}}}},
      {"batch-to-axis-back", "Layout", Stage::Post, 1, 1, Role::Any, {{A::Spatial, {2, 3, 4}, S::BatchRatios, {batch_to_axis}, {kEnd}, 3}}},
      {"axis-to-batch-back", "Layout", Stage::Post, 1, 1, Role::Any, {{A::Spatial, {2, 3, 4}, S::BatchRatios, {axis_to_batch}, {kEnd}, 3}}},
      {"dilation-interleave", "Layout", Stage::Post, 1, 1, Role::Any, {{A::BothSpatialThenEach, {}, S::OriginalDilation, {interleave}, {kEnd}, 3}}},
      {"rows-interleave-stacked", "Layout", Stage::Post, 1, 1, Role::Any, {{A::Height, {}, S::OriginalDilation, {unstack_residues}, {kEnd}, 4, 4}}},
      {"swap-height-width-back", "Layout", Stage::Post, 1, 1, Role::Any, {{A::LastTwo, {}, S::NoValue, {swap_axes}, {kEnd}, 4, 4}}},
      {"reshape-to-output", "Reshape", Stage::Post, 1, 1, Role::Any, {{A::None, {}, S::Targets, {reshape_to_target}}}},
      {"slice-to-output", "Slice", Stage::Post, 1, 1, Role::Any, {{A::Every, {}, S::Targets, {slice_to_target}, {kStart, kEnd}}}},
      {"transpose-result", "Transpose", Stage::Post, 1, 1, Role::Any, {{A::LastTwo, {}, S::NoValue, {transpose_axes}, {kEnd}, 2, 3}}},
      {"split-to-outputs", "Split", Stage::Post, 1, 1, Role::Any, {{A::Every, {}, S::NoValue, {split_to_targets}}}},
      {"concat-results", "Concat", Stage::Post, 2, 3, Role::Any, {{A::Every, {}, S::NoValue, {on_axis}}}},
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
