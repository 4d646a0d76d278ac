// CompiledRule: one direction of a library rule, both sides parsed, with the order in which the
// matcher binds the left side's nodes (from its last node outward along shared values).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::search {

// How the matcher finds the graph node for one left-side node, given the nodes bound before it.
struct MatchStep {
  enum class Link : uint8_t {
    Anchor,    // any graph node (the matcher's index already picked it)
    Producer,  // the producer of the graph value bound to `via` (an output of this node)
    Consumer,  // a reader of the graph value bound to `via` at input `position`
  };
  NodeId node = 0;  // left-side node
  Link link = Link::Anchor;
  ValueId via = kNoValue;  // left-side value bound before this step
  int position = 0;
};

struct CompiledRule {
  std::string name;          // kebab-case; " (reversed)" appended for right-to-left
  std::string library_name;  // the library entry's name
  Graph lhs;                 // the side to find
  Graph rhs;                 // the replacement; its inputs are lhs's inputs, same order and names
  std::vector<MatchStep> plan;  // plan[0] is the anchor: lhs's last node
  uint64_t anchor_key = 0;      // anchor_key_of(op, attributes) of the anchor
  std::vector<bool> internal;   // per lhs value: produced by an lhs node and not an lhs output
  int lhs_compute_ops = 0, rhs_compute_ops = 0;

  // nullopt with `why` set when the direction cannot be matched as a subgraph: an output that is
  // an input, an input the left side never reads, a right side reading a variable the left
  // side lacks, or a left side in several disconnected pieces.
  static std::optional<CompiledRule> compile(const std::string& name, const std::string& library_name,
                                             const std::string& lhs_text, const std::string& rhs_text,
                                             std::string& why);
};

// The index key of a node: its op and attributes.
uint64_t anchor_key_of(const std::string& op, const Attributes& attrs);

// The side re-built over inputs of the given types (same names as the side's inputs), or nothing
// with the shape rule's reason in `refusal` when a node of the side does not fit them. With
// `output_types` (a right side: the types the match must produce), a Split whose pieces are all
// outputs cuts those sizes.
std::optional<Graph> instantiate(const Graph& side, const std::vector<TensorType>& input_types,
                                 const std::vector<TensorType>* output_types, std::string& refusal);

}  // namespace pet::search
