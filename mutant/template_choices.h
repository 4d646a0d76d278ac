// Attribute choices of the built-in templates: each returns the attribute sets worth trying for
// the operand types in the context (empty when the template does not apply).
#pragma once

#include <vector>

#include "mutant/template.h"

namespace pet::mutant::choices {

using Choices = std::vector<Attributes>;

// Layouts (the one general layout op, PET's N2H/H2N, D2H, C2H and H<->W as data).
Choices batch_to_axis(const TemplateContext& context);
Choices axis_to_batch(const TemplateContext& context);
Choices dilation_deinterleave(const TemplateContext& context);
Choices dilation_interleave(const TemplateContext& context);
Choices rows_deinterleave_stacked(const TemplateContext& context);
Choices rows_interleave_stacked(const TemplateContext& context);
Choices channels_to_rows(const TemplateContext& context);
Choices swap_height_width(const TemplateContext& context);

// Shape changes, padding and slicing.
Choices flatten_spatial(const TemplateContext& context);
Choices reshape_to_target(const TemplateContext& context);
Choices pad_odd_side(const TemplateContext& context);
Choices enlarge_kernel(const TemplateContext& context);
Choices slice_to_target(const TemplateContext& context);
Choices transpose_last_two(const TemplateContext& context);

// Combining and splitting.
Choices concat(const TemplateContext& context);
Choices split_halves(const TemplateContext& context);
Choices split_to_targets(const TemplateContext& context);

// Compute ops.
Choices conv(const TemplateContext& context);
Choices matmul(const TemplateContext& context);

}  // namespace pet::mutant::choices
