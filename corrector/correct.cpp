// The correction pass: plans boxes per output, pulls each box's regions back through the
// original, rebuilds that slice of the original inside the mutant, and overwrites the output.
#include "corrector/correct.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "corrector/plan_boxes.h"
#include "corrector/program_cost.h"
#include "corrector/read_region.h"

namespace pet::corrector {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& fix) {
  throw UserError(fmt::format("correct(): {}; {}", what, fix));
}

void check_interface(const Graph& original, const Graph& candidate) {
  auto types = [](const Graph& graph, const std::vector<ValueId>& ids) {
    std::vector<std::string> result;
    for (ValueId id : ids) result.push_back(graph.value(id).type.to_string());
    return fmt::format("({})", fmt::join(result, ", "));
  };
  std::string fix = "a mutant must have the original's input and output types, in order";
  if (types(original, original.inputs()) != types(candidate, candidate.inputs()))
    fail(fmt::format("the candidate's inputs {} differ from the original's {}", types(candidate, candidate.inputs()),
                     types(original, original.inputs())), fix);
  if (types(original, original.outputs()) != types(candidate, candidate.outputs()))
    fail(fmt::format("the candidate's outputs {} differ from the original's {}", types(candidate, candidate.outputs()),
                     types(original, original.outputs())), fix);
}

void check_box(const Shape& shape, const Box& box, size_t output) {
  bool fits = box.lo.size() == static_cast<size_t>(shape.rank()) && box.hi.size() == box.lo.size();
  for (size_t d = 0; fits && d < box.lo.size(); ++d)
    fits = box.lo[d] >= 0 && box.lo[d] < box.hi[d] && box.hi[d] <= shape[static_cast<int>(d)];
  if (!fits)
    fail(fmt::format("incorrect box {} of output {} is empty or does not fit its shape {}", box.to_string(), output,
                     shape.to_string()), "pass the verdict examine() gave for this candidate");
}

void check_verdict(const Graph& original, const Verdict& verdict) {
  if (verdict.kind == VerdictKind::Rejected)
    fail(fmt::format("the candidate was rejected ({})", verdict.reason.empty() ? "no reason given" : verdict.reason),
         "only a Partial verdict has boxes to correct");
  if (verdict.kind == VerdictKind::Full && verdict.incorrect_boxes.empty()) return;
  if (verdict.incorrect_boxes.size() != original.outputs().size())
    fail(fmt::format("the verdict lists incorrect boxes for {} outputs, the program has {}",
                     verdict.incorrect_boxes.size(), original.outputs().size()),
         "pass the verdict examine() gave for this candidate");
  for (size_t o = 0; o < verdict.incorrect_boxes.size(); ++o)
    for (const Box& box : verdict.incorrect_boxes[o]) check_box(original.value(original.outputs()[o]).type.shape, box, o);
}

// Per value and node of the original: the box recomputing `box` of `output` needs, and how.
struct Regions {
  std::vector<std::optional<Box>> needed;       // by value id
  std::vector<std::optional<RegionPlan>> plans;  // by node id
};

Regions pull_back(const Graph& original, ValueId output, const Box& box) {
  Regions regions{std::vector<std::optional<Box>>(original.values().size()),
                  std::vector<std::optional<RegionPlan>>(original.nodes().size())};
  regions.needed[static_cast<size_t>(output)] = box;
  for (auto n = static_cast<NodeId>(original.nodes().size()) - 1; n >= 0; --n) {
    const Node& node = original.node(n);
    const std::optional<Box>& wanted = regions.needed[static_cast<size_t>(node.outputs[0])];
    bool any = false;
    for (ValueId out : node.outputs) any = any || regions.needed[static_cast<size_t>(out)].has_value();
    if (!any) continue;
    RegionPlan plan = plan_region(original, node, wanted ? *wanted : whole_box(original.value(node.outputs[0]).type.shape));
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (!plan.inputs[i]) continue;
      std::optional<Box>& slot = regions.needed[static_cast<size_t>(node.inputs[i])];
      slot = slot ? bounding_box(*slot, *plan.inputs[i]) : *plan.inputs[i];
    }
    regions.plans[static_cast<size_t>(n)] = std::move(plan);
  }
  return regions;
}

// A value of the corrected program holding one box of an original value.
struct Held {
  ValueId value = kNoValue;
  Box box;
};

// Builds one correction inside `program`, appending nodes named after `tag`.
class CorrectionBuilder {
 public:
  CorrectionBuilder(const Graph& original, Graph& program, std::string tag)
      : original_(original), program_(program), tag_(std::move(tag)), held_(original.values().size()) {}

  // The recomputed `box` of original output `output`, as a value of `program`.
  ValueId recompute(ValueId output, const Box& box, std::vector<InputSlice>& slices) {
    Regions regions = pull_back(original_, output, box);
    bind_sources(regions, slices);
    for (size_t n = 0; n < original_.nodes().size(); ++n)
      if (regions.plans[n]) add_recomputation(original_.node(static_cast<NodeId>(n)), *regions.plans[n]);
    return slice_to(static_cast<size_t>(output), box);
  }

 private:
  // Graph inputs map to the program's inputs at the same position; constants are copied.
  void bind_sources(const Regions& regions, std::vector<InputSlice>& slices) {
    for (size_t i = 0; i < original_.inputs().size(); ++i) {
      auto id = static_cast<size_t>(original_.inputs()[i]);
      if (!regions.needed[id]) continue;
      held_[id] = Held{program_.inputs()[i], whole_box(original_.value(original_.inputs()[i]).type.shape)};
      slices.push_back({original_.values()[id].name, *regions.needed[id]});
    }
    for (size_t id = 0; id < original_.values().size(); ++id) {
      const Value& value = original_.values()[id];
      if (!value.constant || !regions.needed[id]) continue;
      held_[id] = Held{program_.add_constant(value.name, *value.constant), whole_box(value.type.shape)};
      slices.push_back({value.name, *regions.needed[id]});
    }
  }

  void add_recomputation(const Node& node, const RegionPlan& plan) {
    std::vector<ValueId> inputs;
    for (size_t i = 0; i < node.inputs.size(); ++i)
      inputs.push_back(plan.inputs[i] ? slice_to(static_cast<size_t>(node.inputs[i]), *plan.inputs[i]) : kNoValue);
    std::vector<ValueId> outputs = program_.add_node(node.op(), plan.attrs, inputs, name(node.name));
    for (size_t o = 0; o < outputs.size(); ++o)
      held_[static_cast<size_t>(node.outputs[o])] = Held{outputs[o], plan.computed[o]};
  }

  // The held value of original value `id`, sliced down to `want` when it holds more.
  ValueId slice_to(size_t id, const Box& want) {
    const std::optional<Held>& held = held_[id];
    PET_CHECK(held.has_value(), "correction reads a value it did not recompute");
    if (held->box == want) return held->value;
    std::vector<int64_t> starts, ends, steps(want.lo.size(), 1);
    for (size_t d = 0; d < want.lo.size(); ++d) {
      starts.push_back(want.lo[d] - held->box.lo[d]);
      ends.push_back(want.hi[d] - held->box.lo[d]);
    }
    return program_.add_node1("Slice", {{"starts", starts}, {"ends", ends}, {"steps", steps}}, {held->value},
                              name("slice_" + original_.values()[id].name));
  }

  std::string name(const std::string& what) { return fmt::format("{}/{}_{}", tag_, what, counter_++); }

  const Graph& original_;
  Graph& program_;
  std::string tag_;
  std::vector<std::optional<Held>> held_;
  int counter_ = 0;
};

double weight(const Cost& cost) { return cost.flops + cost.bytes; }

// Corrects output `o`; returns the value now holding it.
ValueId correct_output(const Graph& original, size_t o, const std::vector<Box>& incorrect, const CorrectOptions& options,
                       CorrectedProgram& result) {
  ValueId current = result.program.outputs()[o];
  for (const Box& box : plan_correction_boxes(incorrect, options.per_correction_overhead)) {
    Correction correction{static_cast<int>(o), box, {}, {}, {}, 0};
    for (const Box& covered : incorrect)
      if (bounding_box(box, covered) == box) correction.covers.push_back(covered);
    size_t first = result.program.nodes().size();
    std::string tag = fmt::format("correction{}", result.corrections.size());
    ValueId patch = CorrectionBuilder(original, result.program, tag)
                        .recompute(original.outputs()[o], box, correction.input_slices);
    current = result.program.add_node1("Overwrite", {{"offsets", box.lo}}, {current, patch}, tag + "/overwrite");
    correction.cost = nodes_cost(result.program, first, result.program.nodes().size());
    result.correction_cost.flops += correction.cost.flops;
    result.correction_cost.bytes += correction.cost.bytes;
    result.corrections.push_back(std::move(correction));
  }
  return current;
}

// The corrected values take the names of the outputs they replace, so the interface is kept.
void rename_outputs(Graph& program, const std::vector<ValueId>& corrected) {
  for (size_t o = 0; o < corrected.size(); ++o) {
    ValueId old = program.outputs()[o];
    if (old == corrected[o] || program.value(old).producer < 0) continue;
    std::string name = program.value(old).name;
    program.rename_value(old, program.unique_value_name(name + "_uncorrected"));
    program.rename_value(corrected[o], name);
  }
  program.set_outputs(corrected);
}

}  // namespace

std::string Correction::summary() const {
  std::vector<std::string> reads;
  for (const InputSlice& slice : input_slices) reads.push_back("%" + slice.value + slice.region.to_string());
  return fmt::format("output {} box {} ({} incorrect boxes) reads {}: {:.0f} flops, {:.0f} bytes, overhead {:.4f}",
                     output, box.to_string(), covers.size(), fmt::join(reads, " "), cost.flops, cost.bytes,
                     overhead_ratio);
}

double CorrectedProgram::overhead_ratio() const {
  double base = weight(mutant_cost);
  return base > 0 ? weight(correction_cost) / base : 0;
}

std::string CorrectedProgram::summary() const {
  std::string text;
  for (const Correction& correction : corrections) text += correction.summary() + "\n";
  return text + fmt::format("{} corrections, overhead {:.4f} of the mutant's flops+bytes\n", corrections.size(),
                            overhead_ratio());
}

CorrectedProgram correct(const Graph& original, const Graph& candidate, const Verdict& verdict,
                         const CorrectOptions& options) {
  check_verdict(original, verdict);
  check_interface(original, candidate);
  CorrectedProgram result{candidate, {}, program_cost(candidate), {}};
  std::vector<ValueId> outputs = result.program.outputs();
  for (size_t o = 0; o < verdict.incorrect_boxes.size(); ++o)
    if (!verdict.incorrect_boxes[o].empty())
      outputs[o] = correct_output(original, o, verdict.incorrect_boxes[o], options, result);
  rename_outputs(result.program, outputs);
  for (Correction& correction : result.corrections)
    correction.overhead_ratio = weight(result.mutant_cost) > 0 ? weight(correction.cost) / weight(result.mutant_cost) : 0;
  result.program.validate();
  return result;
}

}  // namespace pet::corrector
