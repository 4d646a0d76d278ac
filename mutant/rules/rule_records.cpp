// Rule records: output alignment by data hash, names like "concat-1-split-1-to-identity-3fa2c1".
#include "mutant/rules/rule_records.h"

#include <fmt/format.h>

#include "core/error.h"
#include "core/hash.h"
#include "core/text_ir.h"

namespace pet::rules {
namespace {

// The right side's outputs in the order of the left side's, matched by contents.
std::vector<int> aligned_outputs(const EnumeratedProgram& left, const EnumeratedProgram& right) {
  std::vector<int> order;
  std::vector<bool> taken(right.program.outputs.size(), false);
  for (uint64_t hash : left.output_hashes) {
    size_t k = 0;
    while (k < taken.size() && (taken[k] || right.output_hashes[k] != hash)) ++k;
    PET_CHECK(k < taken.size(), "paired programs have different outputs");
    taken[k] = true;
    order.push_back(right.program.outputs[k]);
  }
  return order;
}

nlohmann::ordered_json constraints_of(const ShapeClass& shape_class, const Program& left) {
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  for (int index : left.used_inputs()) {
    const PoolInput& input = shape_class.inputs[static_cast<size_t>(index)];
    inputs.push_back({{"name", input.name}, {"type", input.type.to_string()}, {"symbolic", input.symbolic}});
  }
  nlohmann::ordered_json json;
  json["inputs"] = inputs;
  json["dimensions"] = shape_class.dimensions;
  return json;
}

}  // namespace

ProofJob pair_graphs(const ShapeClass& shape_class, const std::vector<EnumeratedProgram>& programs,
                     const CandidatePair& pair) {
  const EnumeratedProgram& left = programs[static_cast<size_t>(pair.left)];
  const EnumeratedProgram& right = programs[static_cast<size_t>(pair.right)];
  return {to_graph(shape_class, left.program, left.program.outputs, "lhs"),
          to_graph(shape_class, right.program, aligned_outputs(left, right), "rhs")};
}

RuleRecord make_record(const ShapeClass& shape_class, const std::vector<EnumeratedProgram>& programs,
                       const CandidatePair& pair, const ProofJob& graphs) {
  const Program& left = programs[static_cast<size_t>(pair.left)].program;
  const Program& right = programs[static_cast<size_t>(pair.right)].program;
  Hasher hasher;
  hasher.add(shape_class.name);
  hasher.add(pair.canonical_key);
  RuleRecord record;
  record.content_hash = hasher.value();
  record.name = fmt::format("{}-to-{}-{:06x}", step_labels(left), step_labels(right), record.content_hash >> 40);
  record.shape_class = shape_class.name;
  record.lhs = print_graph(graphs.lhs);
  record.rhs = print_graph(graphs.rhs);
  record.constraints = constraints_of(shape_class, left);
  record.bidirectional = left.used_inputs() == right.used_inputs();
  return record;
}

}  // namespace pet::rules
