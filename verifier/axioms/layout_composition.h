// Composition and identity tests of Layout attributes, computed on their strided-view form: each
// output factor of a Layout is a (size, stride into the flat input) digit.
#pragma once

#include <optional>

#include "core/attributes.h"
#include "core/shape.h"

namespace pet::axioms {

// The Layout equal to `first` (on an input of shape `input`) followed by `second`, or nullopt
// when the two factorizations of the middle tensor have no common refinement, so that no single
// Layout exists (e.g. reading 6 elements as 2x3 and then as 3x2 with a transpose in between).
// Shapes must be positive.
std::optional<Attributes> compose_layouts(const Shape& input, const Attributes& first, const Attributes& second);

// Whether the Layout reads its positive-shaped input in order into the same shape.
bool is_identity_layout(const Shape& input, const Attributes& layout);

}  // namespace pet::axioms
