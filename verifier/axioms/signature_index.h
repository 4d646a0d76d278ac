// The distinct node signatures (op, canonical attributes, input and output types) of graphs: what
// axiom schemas read to decide which of their instances a goal needs.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/graph.h"

namespace pet::axioms {

struct NodeSignature {
  std::string op;
  Attributes attrs;
  std::vector<TensorType> inputs;  // present inputs only
  std::vector<TensorType> outputs;
  std::vector<bool> present;  // which declared input positions are present
};

// "Op[attrs](types)": equal keys mean the same function of the inputs.
std::string signature_key(const NodeSignature& signature);

// The node's own computation: its op, canonical attributes without a fused activation, and types.
NodeSignature signature_of(const Graph& graph, const Node& node);
// A fused activation (core/ops/fused_activation.h) as the standard op it stands for, applied to
// output 0 after the node's own computation; nullopt when the node has none.
std::optional<NodeSignature> activation_signature_of(const Graph& graph, const Node& node);

class SignatureIndex {
 public:
  // Adds every node of the graph; returns how many signatures were new.
  int add_graph(const Graph& graph);
  // Signatures of one op in the order they were first seen (deterministic for a given goal).
  const std::vector<NodeSignature>& of(const std::string& op) const;
  size_t size() const { return keys_.size(); }

 private:
  std::set<std::string> keys_;
  std::map<std::string, std::vector<NodeSignature>> by_op_;
};

}  // namespace pet::axioms
