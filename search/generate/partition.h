// Partition: the multi-linear subprograms of a graph (cut at non-linear ops and at values other
// nodes also read) and the groups of parallel compute ops that could merge, each as a standalone
// graph the mutant generator can take, and splice() to put a replacement back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "search/vocabulary.h"

namespace pet::search {

// A region of the parent graph. `program` is standalone: its inputs are, in order, the parent
// values listed in `inputs` (weights included: the generator and examiner need them as variables),
// named after them; its outputs correspond to `outputs`.
struct Subprogram {
  std::vector<NodeId> nodes;    // parent node ids, ascending
  std::vector<ValueId> inputs;  // parent values read from outside the region
  std::vector<ValueId> outputs; // parent values read outside the region or graph outputs
  Graph program;
  SubprogramKind kind = SubprogramKind::linear;
  std::string location;         // the parent node names, joined by ", " (for reports)
};

struct PartitionOptions {
  int max_compute_ops = 1;  // compute-heavy ops per linear region (the generator works on small programs)
  int max_ops = 4;          // ops per region
  int max_group = 4;        // compute ops per parallel group
};

// Multi-linear regions holding at least one compute-heavy op, in parent topological order.
std::vector<Subprogram> partition(const Graph& graph, const PartitionOptions& options = {});

// Groups of 2..max_group compute ops of one op kind that read a common input (Inception branches,
// BERT Q/K/V) or have equal types, with no path between any two of them.
std::vector<Subprogram> parallel_groups(const Graph& graph, const PartitionOptions& options = {});

// The Subprogram of the listed parent nodes (a convex set: no path leaves it and comes back):
// its inputs in order of first read, its outputs in node order, its standalone program.
Subprogram make_subprogram(const Graph& parent, std::vector<NodeId> nodes, SubprogramKind kind);
// The same with the parent's consumer lists (Graph::consumers) already at hand: callers that make
// many subprograms of one graph pass them once instead of rebuilding them per region.
Subprogram make_subprogram(const Graph& parent, std::vector<NodeId> nodes, SubprogramKind kind,
                           const Consumers& consumers);

// Every subprogram the search mutates: the parallel groups, then the regions, each in graph order;
// a subprogram over an empty tensor (a zero dimension) computes nothing and is left out.
std::vector<Subprogram> subprograms_to_mutate(const Graph& graph, const PartitionOptions& options);
// The key every site of the same subprogram shares: its structural hash, and its kind.
uint64_t subprogram_key(const Subprogram& sub);

// Adds `source`'s constants and nodes to `target`, source input i reading target value
// `inputs[i]`; names get the prefix and are made unique. Returns the target values of the
// source's outputs (an output that is a source input maps to the bound target value). Types
// follow from the bound values, so a source written at other shapes is instantiated at theirs;
// UserError from a shape rule when its ops do not fit them.
std::vector<ValueId> insert_graph(Graph& target, const Graph& source, const std::vector<ValueId>& inputs,
                                  const std::string& name_prefix);

// The parent with the region's nodes replaced by `replacement` (same interface as
// sub.program: inputs by position, outputs by position). Internal check on interface mismatch.
// Node and value names of the replacement are made unique with the prefix; graph outputs keep
// their names (an exported model's output names must not change). The result is topologically
// sorted, free of nodes that became dead, and valid.
Graph splice(const Graph& parent, const Subprogram& sub, const Graph& replacement, const std::string& name_prefix);

// splice() at several node-disjoint sites of the parent with the same replacement, in one pass
// (one copy, one renumbering, one sort); site s's names get name_prefixes[s]. A site may read
// another's outputs: it then reads that site's replacement. Internal check on overlapping sites.
Graph splice_all(const Graph& parent, const std::vector<const Subprogram*>& sites, const Graph& replacement,
                 const std::vector<std::string>& name_prefixes);
// The same with a replacement of its own per site (replacements[s] for sites[s]).
Graph splice_all(const Graph& parent, const std::vector<const Subprogram*>& sites,
                 const std::vector<const Graph*>& replacements, const std::vector<std::string>& name_prefixes);

// The stages of a program: chains of single-output linear subprograms (indices into `subs`, in
// graph order) where each one's output reaches the next one's input through unary elementwise
// ops only (Relu, a bias or scale by a constant), read by nothing else. A layout chosen for the
// whole chain sinks through those ops and cancels between neighbours (finalize). Each chain is
// offered as its windows of 2..max_sites consecutive subprograms.
std::vector<std::vector<size_t>> stage_windows(const Graph& graph, const std::vector<Subprogram>& subs, int max_sites);
// The stage windows no other window holds: each chain's longest ones.
std::vector<std::vector<size_t>> longest_stage_windows(const Graph& graph, const std::vector<Subprogram>& subs,
                                                      int max_sites);

// A stage window as a standalone program: its subprograms and the elementwise ops between them,
// reading the values it takes from outside as inputs, except constants (its weights), which it
// holds; it writes the last site's output.
Graph stage_program(const Graph& graph, const std::vector<Subprogram>& subs, const std::vector<size_t>& window);

}  // namespace pet::search
