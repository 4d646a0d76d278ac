// Structural keys of enumerated programs and their translation to pet graphs.
#include "mutant/rules/program.h"

#include <algorithm>

#include "core/error.h"
#include "core/hash.h"
#include "mutant/rules/rule_ops.h"

namespace pet::rules {

int Program::num_values() const {
  int count = pool_size;
  for (const Step& step : steps) count += step.num_outputs;
  return count;
}

std::vector<int> Program::first_outputs() const {
  std::vector<int> first;
  int next = pool_size;
  for (const Step& step : steps) {
    first.push_back(next);
    next += step.num_outputs;
  }
  return first;
}

std::vector<int> Program::used_inputs() const {
  std::vector<bool> used(static_cast<size_t>(pool_size), false);
  auto mark = [&](int value) {
    if (value < pool_size) used[static_cast<size_t>(value)] = true;
  };
  for (const Step& step : steps)
    for (int input : step.inputs) mark(input);
  for (int output : outputs) mark(output);
  std::vector<int> result;
  for (int i = 0; i < pool_size; ++i)
    if (used[static_cast<size_t>(i)]) result.push_back(i);
  return result;
}

uint64_t input_key(int position) {
  Hasher hasher;
  hasher.add(std::string_view("input"));
  hasher.add(static_cast<uint64_t>(position));
  return hasher.value();
}

uint64_t step_key(int op, int output, std::vector<uint64_t> input_keys) {
  if (rule_op_set()[static_cast<size_t>(op)].commutative) std::sort(input_keys.begin(), input_keys.end());
  Hasher hasher;
  hasher.add(static_cast<uint64_t>(op));
  hasher.add(static_cast<uint64_t>(output));
  for (uint64_t input : input_keys) hasher.add(input);
  return hasher.value();
}

std::vector<uint64_t> value_keys(const Program& program, const std::vector<int>& rename) {
  std::vector<uint64_t> keys;
  keys.reserve(static_cast<size_t>(program.num_values()));
  for (int i = 0; i < program.pool_size; ++i) keys.push_back(input_key(rename[static_cast<size_t>(i)]));
  for (const Step& step : program.steps) {
    std::vector<uint64_t> inputs;
    for (int input : step.inputs) inputs.push_back(keys[static_cast<size_t>(input)]);
    for (int k = 0; k < step.num_outputs; ++k) keys.push_back(step_key(step.op, k, inputs));
  }
  return keys;
}

std::vector<uint64_t> step_value_keys(const Program& program, const std::vector<int>& rename) {
  std::vector<uint64_t> keys = value_keys(program, rename);
  std::vector<uint64_t> steps(keys.begin() + program.pool_size, keys.end());
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

uint64_t program_key(const Program& program, const std::vector<int>& rename) {
  std::vector<uint64_t> keys = value_keys(program, rename);
  std::vector<uint64_t> outputs;
  for (int output : program.outputs) outputs.push_back(keys[static_cast<size_t>(output)]);
  std::sort(outputs.begin(), outputs.end());
  outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
  Hasher hasher;
  for (uint64_t key : step_value_keys(program, rename)) hasher.add(key);
  hasher.add(std::string_view("outputs"));
  for (uint64_t key : outputs) hasher.add(key);
  return hasher.value();
}

std::vector<int> identity_renaming(int pool_size) {
  std::vector<int> rename(static_cast<size_t>(pool_size));
  for (int i = 0; i < pool_size; ++i) rename[static_cast<size_t>(i)] = i;
  return rename;
}

Graph to_graph(const ShapeClass& shape_class, const Program& program, const std::vector<int>& output_order,
               const std::string& graph_name) {
  Graph graph;
  graph.name = graph_name;
  std::vector<ValueId> ids(static_cast<size_t>(program.num_values()), kNoValue);
  for (int input : program.used_inputs()) {
    const PoolInput& pool = shape_class.inputs.at(static_cast<size_t>(input));
    ids[static_cast<size_t>(input)] = graph.add_input(pool.name, pool.type);
  }
  const auto& ops = rule_op_set();
  int next = program.pool_size;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    const Step& step = program.steps[s];
    const RuleOpTemplate& op = ops[static_cast<size_t>(step.op)];
    std::vector<ValueId> inputs;
    std::vector<const TensorType*> types;
    for (int input : step.inputs) {
      inputs.push_back(ids[static_cast<size_t>(input)]);
      types.push_back(&graph.value(inputs.back()).type);
    }
    std::optional<Attributes> attrs = op.attrs_for(types);
    PET_CHECK(attrs.has_value(), "enumerated step " + op.label + " does not apply to its inputs");
    std::vector<std::string> names;
    for (int k = 0; k < step.num_outputs; ++k) names.push_back("t" + std::to_string(next + k - program.pool_size));
    std::vector<ValueId> outputs = graph.add_node(op.op, *attrs, inputs, "n" + std::to_string(s), names);
    for (ValueId output : outputs) ids[static_cast<size_t>(next++)] = output;
  }
  for (int output : output_order) graph.add_output(ids.at(static_cast<size_t>(output)));
  return graph;
}

std::string step_labels(const Program& program) {
  if (program.steps.empty()) return "identity";
  std::string text;
  for (const Step& step : program.steps) {
    if (!text.empty()) text += "-";
    text += rule_op_set()[static_cast<size_t>(step.op)].label;
  }
  return text;
}

}  // namespace pet::rules
