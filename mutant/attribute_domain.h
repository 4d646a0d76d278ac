// Attribute domains: the attribute values a mutant template enumerates, declared per template as
// data (which axes, which values: split factors, pad multiples, the original's dilations and
// kernels, the output types to close towards) and expanded by one generic enumerator; the
// generator then keeps the sets the op's own shape rule accepts (core/shape_fit.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::mutant {

// What the generator knows when it places a template on some operands.
struct TemplateContext {
  std::vector<TensorType> operands;
  std::vector<TensorType> targets;             // the original's output types
  std::vector<const Node*> original_compute;   // the original's compute ops (attribute sources)
  std::vector<TensorType> original_weights;    // types of the original compute ops' weight inputs
  std::vector<int64_t> channel_multiples;      // the target's preferred channel multiples
};

// The axes of the first operand a domain ranges over, as the axis sets tried in turn.
enum class Axes {
  None,                   // one empty set: the attributes name no axis
  Every,                  // each axis alone
  Leading,                // the batch, then the channels (axes 0 and 1)
  Channel,                // axis 1
  Height,                 // axis 2
  Spatial,                // each axis from 2 on, alone
  BothSpatialThenEach,    // axes {2, 3} together (4-D operands), then each spatial axis alone
  LastTwo,                // the last two axes together
};

// Where a domain's values come from, besides the fixed ones it lists.
enum class Source {
  Fixed,             // the listed values only
  NoValue,           // one point without a value: the form needs none
  BatchRatios,       // the ratios between the operand's batch and the original outputs' batches
  OriginalDilation,  // the original compute ops' dilations (above 1) on every axis of the set
  ChannelMultiples,  // the context's preferred channel multiples
  OriginalKernels,   // a weight of the original grown to another original weight's kernel
  Targets,           // each of the original's output types (closing templates)
  OriginalCompute,   // each original compute op of the template's op (attributes inherited)
};

// Which end of an axis a pad or a slice acts on.
enum class Side { Start, End };

// One point of a domain for the operands in `context`: the form turns it into attributes.
struct DomainPoint {
  const TemplateContext& context;
  std::vector<int> axes;
  int64_t value = 0;
  Side side = Side::End;
  const Shape* target = nullptr;   // Targets and OriginalKernels: the shape to reach
  const Node* original = nullptr;  // OriginalCompute: the op whose attributes are inherited
  const Shape& operand(size_t i = 0) const { return context.operands.at(i).shape; }
};

// Builds the op's attributes at a point, or nothing where the form does not apply (an axis that
// does not divide, a kernel that does not grow); mutant/attribute_forms.h declares them.
using Form = std::optional<Attributes> (*)(const DomainPoint& point);

struct AttributeDomain {
  Axes axes = Axes::None;
  std::vector<int64_t> values = {};  // fixed values (split factors, pad multiples, ...)
  Source source = Source::Fixed;
  std::vector<Form> forms = {};      // each tried at every point, in order
  std::vector<Side> sides = {Side::End};
  int min_rank = 0;                  // of the first operand
  int max_rank = 8;
};

// Every attribute set of the domains for the operands in `context`, in declaration order
// (axis sets, then values, then sides, then forms), each once. `op` is the template's op.
std::vector<Attributes> enumerate_attributes(const std::vector<AttributeDomain>& domains, const std::string& op,
                                             const TemplateContext& context);

}  // namespace pet::mutant
