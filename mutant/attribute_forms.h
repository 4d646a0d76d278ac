// The attribute forms of the mutant set's ops: how one point of a domain (axes, a value, a side,
// a target shape or an original op) reads as the attributes of one op. A form builds; it does
// not choose: which points are tried is the template's domain, and what fits is the op's shape
// rule. Nothing here names a transformation family.
#pragma once

#include "mutant/attribute_domain.h"

namespace pet::mutant::form {

// Any operands the op's shape rule accepts; the op has no attributes.
std::optional<Attributes> no_attributes(const DomainPoint& point);

// Layout (the one general layout op, core/ops/layout.h).
std::optional<Attributes> batch_to_axis(const DomainPoint& point);        // batch chunks stacked on the axis
std::optional<Attributes> axis_to_batch(const DomainPoint& point);        // the axis cut into batch chunks
std::optional<Attributes> deinterleave(const DomainPoint& point);         // residues mod value to the batch
std::optional<Attributes> interleave(const DomainPoint& point);           // its inverse
std::optional<Attributes> stack_residues(const DomainPoint& point);       // residues mod value stacked on the axis
std::optional<Attributes> unstack_residues(const DomainPoint& point);     // its inverse
std::optional<Attributes> channels_into_axis(const DomainPoint& point);   // channel groups of value interleaved into the axis
std::optional<Attributes> swap_axes(const DomainPoint& point);            // the two axes of the set exchanged

// Transpose, Reshape, Pad, Slice.
std::optional<Attributes> transpose_axes(const DomainPoint& point);       // the two axes of the set exchanged
std::optional<Attributes> merge_spatial(const DomainPoint& point);        // [n, c, h, w...] -> [n, c, h*w...]
std::optional<Attributes> drop_unit_spatial(const DomainPoint& point);    // [n, c, 1, 1...] -> [n, c]
std::optional<Attributes> reshape_to_target(const DomainPoint& point);
std::optional<Attributes> pad_to_multiple(const DomainPoint& point);      // zeros on the side, up to a multiple of value
std::optional<Attributes> pad_to_kernel(const DomainPoint& point);        // zeros around a kernel, up to the target's
std::optional<Attributes> pad_to_square(const DomainPoint& point);        // zeros around an r x s kernel, up to max(r, s)
std::optional<Attributes> slice_to_target(const DomainPoint& point);      // the side of the axis cut to the target's size

// Concat and Split.
std::optional<Attributes> on_axis(const DomainPoint& point);              // {axis}
std::optional<Attributes> split_equal(const DomainPoint& point);          // value equal pieces
std::optional<Attributes> split_to_targets(const DomainPoint& point);     // one piece per target

// Inherited from the original compute op (Conv-like: strides, pads, dilations), the group
// following from the operands' channels.
std::optional<Attributes> inherited(const DomainPoint& point);            // as they are
std::optional<Attributes> undilated(const DomainPoint& point);            // dilation 1, pads / dilation
std::optional<Attributes> spatial_swapped(const DomainPoint& point);      // the two spatial axes' values exchanged
std::optional<Attributes> first_axis_strided(const DomainPoint& point);   // first spatial stride and pads doubled
std::optional<Attributes> pads_follow_kernel(const DomainPoint& point);   // pads grown with a zero-grown kernel

}  // namespace pet::mutant::form
