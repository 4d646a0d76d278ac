// Small programs over a shape class's input pool, as the rule generator enumerates them: a list
// of template applications, their structural keys under input renamings, and the Graph they denote.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"
#include "mutant/rules/shape_classes.h"

namespace pet::rules {

// Value numbering: the pool inputs are values 0..P-1, then each step's outputs in order.
struct Step {
  int op = 0;               // index into rule_op_set()
  std::vector<int> inputs;  // value numbers
  int num_outputs = 1;
};

struct Program {
  int pool_size = 0;
  std::vector<Step> steps;
  std::vector<int> outputs;  // value numbers: the step outputs nothing consumes (or pool inputs)
  int num_values() const;
  // The first value number of each step's outputs.
  std::vector<int> first_outputs() const;
  // Pool inputs the program reads, ascending.
  std::vector<int> used_inputs() const;
};

// The key of pool input `position` and of output `output` of a step over keyed inputs; value_keys()
// and the enumerator build every key from these two.
uint64_t input_key(int position);
uint64_t step_key(int op, int output, std::vector<uint64_t> input_keys);

// Hash of every value when pool input i is replaced by pool input rename[i]: inputs by their
// (renamed) position, step outputs by template, output index and input hashes (sorted for
// commutative templates). Renamings may identify inputs.
std::vector<uint64_t> value_keys(const Program& program, const std::vector<int>& rename);

// The program's canonical hash under a renaming: its distinct step values and distinct outputs,
// independent of step order (identified inputs merge equal steps, as CSE would).
uint64_t program_key(const Program& program, const std::vector<int>& rename);

// The distinct keys of the program's step outputs (not its inputs), sorted.
std::vector<uint64_t> step_value_keys(const Program& program, const std::vector<int>& rename);

std::vector<int> identity_renaming(int pool_size);

// The Graph of a program: inputs named after the pool (only the used ones), nodes t0, t1, ...,
// outputs in the listed order (value numbers).
Graph to_graph(const ShapeClass& shape_class, const Program& program, const std::vector<int>& output_order,
               const std::string& graph_name);

// Labels of the program's steps in order, joined by '-' ("identity" for no steps).
std::string step_labels(const Program& program);

}  // namespace pet::rules
