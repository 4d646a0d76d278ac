// Box-wise random testing of two multi-linear programs over Z_p.
#include "verifier/examine.h"

#include <optional>

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/prime_field.h"
#include "verifier/box_analysis.h"
#include "verifier/element_domain.h"
#include "verifier/field_evaluator.h"

namespace pet {

// What an ExamineReference keeps of its original, each computed when first asked.
struct ReferenceMemory {
  static const std::string& refusal(ExamineReference& reference);
  static int degree(ExamineReference& reference);
  static const std::vector<BoxGrid>& grids(ExamineReference& reference);
  static FieldEvaluator& trial(ExamineReference& reference, int trial);
};

namespace {

std::string interface_refusal(const Graph& original, const Graph& candidate) {
  auto types = [](const Graph& graph, const std::vector<ValueId>& ids) {
    std::vector<TensorType> result;
    for (ValueId id : ids) result.push_back(graph.value(id).type);
    return result;
  };
  if (types(original, original.inputs()) != types(candidate, candidate.inputs()))
    return "the programs take different inputs";
  if (types(original, original.outputs()) != types(candidate, candidate.outputs()))
    return "the programs produce outputs of different types";
  return "";
}

// Why one program cannot be examined ("" when it can).
std::string program_refusal(const Graph& graph) {
  // A point of an empty tensor does not exist, and its layout's index arithmetic divides by the
  // empty dimension; two programs over empty tensors compute nothing worth comparing.
  for (const Value& value : graph.values())
    if (value.type.shape.numel() == 0)
      return fmt::format("'{}' is an empty tensor ({}): examine compares programs over non-empty tensors only",
                         value.name, value.type.to_string());
  for (const Node& node : graph.nodes()) {
    bool linear = node.def->traits.is_linear(node.attrs) && node.def->eval_point && node.def->propagate_boxes;
    if (!linear)
      return fmt::format("node '{}' ({}) is not multi-linear: examine compares programs of linear ops only", node.name,
                         node.op());
  }
  if (!may_rewrite(graph))
    return "the programs compute over values other than f32: examine tests arithmetic over f32 only (integer "
           "arithmetic wraps)";
  return "";
}

// Polynomial degree of every output in the graph inputs, the highest over all outputs.
int polynomial_degree(const Graph& graph) {
  std::vector<int> degree(graph.values().size(), 0);
  for (ValueId id : graph.inputs()) degree[static_cast<size_t>(id)] = 1;
  for (const Node& node : graph.nodes()) {
    int result = 0;
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] == kNoValue) continue;
      int d = degree[static_cast<size_t>(node.inputs[i])];
      const auto& linear = node.def->traits.linear_inputs;
      bool multiplies = node.def->traits.linearity == Linearity::Multilinear &&
                        std::find(linear.begin(), linear.end(), static_cast<int>(i)) != linear.end();
      result = multiplies ? result + d : std::max(result, d);
    }
    for (ValueId out : node.outputs) degree[static_cast<size_t>(out)] = result;
  }
  int highest = 1;
  for (ValueId id : graph.outputs()) highest = std::max(highest, degree[static_cast<size_t>(id)]);
  return highest;
}

// Distinct corners of the box plus its center.
std::vector<std::vector<int64_t>> sample_points(const Box& box) {
  size_t rank = box.lo.size();
  std::set<std::vector<int64_t>> points;
  for (uint64_t mask = 0; mask < (uint64_t{1} << rank); ++mask) {
    std::vector<int64_t> point(rank);
    for (size_t d = 0; d < rank; ++d) point[d] = (mask >> d) & 1 ? box.hi[d] - 1 : box.lo[d];
    points.insert(point);
  }
  std::vector<int64_t> center(rank);
  for (size_t d = 0; d < rank; ++d) center[d] = (box.lo[d] + box.hi[d] - 1) / 2;
  points.insert(center);
  return {points.begin(), points.end()};
}

struct BoxPlan {
  int output;
  Box box;
  std::vector<std::vector<int64_t>> points;
  bool correct = true;
};

std::vector<BoxPlan> plan_boxes(ExamineReference& reference, const Graph& candidate) {
  const Graph& original = reference.original();
  const std::vector<BoxGrid>& original_grids = ReferenceMemory::grids(reference);
  std::vector<BoxGrid> candidate_grids = analyze_boxes(candidate);
  std::vector<BoxPlan> plans;
  for (size_t k = 0; k < original.outputs().size(); ++k) {
    const BoxGrid& a = original_grids[static_cast<size_t>(original.outputs()[k])];
    const BoxGrid& b = candidate_grids[static_cast<size_t>(candidate.outputs()[k])];
    for (Box& box : a.refined_with(b).boxes()) {
      auto points = sample_points(box);
      plans.push_back({static_cast<int>(k), std::move(box), std::move(points)});
    }
  }
  return plans;
}

int trials_for(const ExamineOptions& options, int degree, int64_t points) {
  if (options.trials > 0) return options.trials;
  double per_trial = std::log2(static_cast<double>(degree)) - 61.0;  // Schwartz-Zippel: degree / p
  double needed = (options.target_bound_log2 - std::log2(static_cast<double>(std::max<int64_t>(points, 1)))) / per_trial;
  return std::max(1, static_cast<int>(std::ceil(needed)));
}

// Tests every box; returns "" when it did, else the budget that ran out first (the verdict would
// be unfounded). Adds the elements read to `work`.
std::string run_trials(ExamineReference& reference, const Graph& candidate, std::vector<BoxPlan>& plans, int trials,
                       const ExamineOptions& options, int64_t& work) {
  FieldEvaluator b(candidate, reference.seed(), 0);
  int64_t original_reads = 0;  // of this candidate's trials, by reads() before and after each
  auto budget_spent = [&](int64_t reads_so_far) -> std::string {
    if (options.max_work && work + reads_so_far > *options.max_work) return "the work budget ran out";
    return "";
  };
  for (int trial = 0; trial < trials; ++trial) {
    if (trial > 0) b.start_trial(trial);
    FieldEvaluator& a = ReferenceMemory::trial(reference, trial);
    int64_t a_before = a.reads();
    auto reads_so_far = [&] { return original_reads + a.reads() - a_before + b.reads(); };
    for (BoxPlan& plan : plans) {
      if (std::string spent = budget_spent(reads_so_far()); !spent.empty()) {
        work += reads_so_far();
        return spent;
      }
      if (!plan.correct) continue;
      for (const auto& point : plan.points)
        if (a.output(plan.output, point.data()) != b.output(plan.output, point.data())) {
          plan.correct = false;
          break;
        }
    }
    original_reads += a.reads() - a_before;
  }
  work += original_reads + b.reads();
  return "";
}

// Adds the elements read to `work`.
bool wrong_at_every_screening_point(ExamineReference& reference, const Graph& candidate, int64_t& work) {
  const Graph& original = reference.original();
  FieldEvaluator& a = ReferenceMemory::trial(reference, 0);
  FieldEvaluator b(candidate, reference.seed(), 0, /*memoize=*/false);
  int64_t a_before = a.reads();
  auto wrong_everywhere = [&] {
    for (size_t k = 0; k < original.outputs().size(); ++k) {
      const Shape& shape = original.value(original.outputs()[k]).type.shape;
      for (int quarter = 1; quarter <= 3; ++quarter) {
        std::vector<int64_t> point;
        for (int64_t d : shape.dims()) point.push_back(d * quarter / 4);
        if (a.output(static_cast<int>(k), point.data()) == b.output(static_cast<int>(k), point.data())) return false;
      }
    }
    return true;
  };
  bool wrong = wrong_everywhere();
  work += a.reads() - a_before + b.reads();
  return wrong;
}

Verdict rejected(std::string reason, uint64_t seed) {
  Verdict verdict;
  verdict.kind = VerdictKind::Rejected;
  verdict.reason = std::move(reason);
  verdict.seed = seed;
  return verdict;
}

}  // namespace

std::string verdict_kind_name(VerdictKind kind) {
  switch (kind) {
    case VerdictKind::Full: return "full";
    case VerdictKind::Partial: return "partial";
    case VerdictKind::Rejected: return "rejected";
  }
  return "?";
}

std::string Verdict::summary() const {
  if (kind == VerdictKind::Rejected && points_tested == 0) return "rejected: " + reason;
  size_t incorrect = 0;
  for (const auto& boxes : incorrect_boxes) incorrect += boxes.size();
  return fmt::format("{}: {:.4f} of elements correct, {} of {} boxes incorrect, {} points x {} trials, degree {}, "
                     "false-equality bound 2^{:.0f}, seed {}{}",
                     verdict_kind_name(kind), fraction_correct, incorrect, boxes_tested, points_tested, trials, degree,
                     bound_log2, seed, reason.empty() ? "" : " (" + reason + ")");
}

ExamineReference::ExamineReference(const Graph& original, uint64_t seed) : original_(original), seed_(seed) {}

ExamineReference::~ExamineReference() = default;

const std::string& ReferenceMemory::refusal(ExamineReference& reference) {
  if (!reference.refusal_) reference.refusal_ = program_refusal(reference.original_);
  return *reference.refusal_;
}

int ReferenceMemory::degree(ExamineReference& reference) {
  if (!reference.degree_) reference.degree_ = polynomial_degree(reference.original_);
  return *reference.degree_;
}

const std::vector<BoxGrid>& ReferenceMemory::grids(ExamineReference& reference) {
  if (!reference.grids_) reference.grids_ = analyze_boxes(reference.original_);
  return *reference.grids_;
}

FieldEvaluator& ReferenceMemory::trial(ExamineReference& reference, int trial) {
  auto& trials = reference.trials_;
  while (static_cast<int>(trials.size()) <= trial)
    trials.push_back(
        std::make_unique<FieldEvaluator>(reference.original_, reference.seed_, static_cast<int>(trials.size())));
  return *trials[static_cast<size_t>(trial)];
}

Verdict examine(const Graph& original, const Graph& candidate, const ExamineOptions& options) {
  ExamineReference reference(original, options.seed);
  return examine(reference, candidate, options);
}

Verdict examine(ExamineReference& reference, const Graph& candidate, const ExamineOptions& options) {
  PET_CHECK(options.seed == reference.seed(),
            fmt::format("examine: options seed {} but the reference's is {}", options.seed, reference.seed()));
  const Graph& original = reference.original();
  std::string refused = interface_refusal(original, candidate);
  if (refused.empty()) refused = ReferenceMemory::refusal(reference);
  if (refused.empty()) refused = program_refusal(candidate);
  if (!refused.empty()) return rejected(refused, options.seed);
  int64_t work = 0;
  if (options.screen_first && wrong_at_every_screening_point(reference, candidate, work)) {
    Verdict screened = rejected("wrong at every screening point (a quarter, half and three quarters of every axis)", options.seed);
    screened.work = work;
    return screened;
  }
  std::vector<BoxPlan> plans = plan_boxes(reference, candidate);
  Verdict verdict;
  verdict.seed = options.seed;
  verdict.degree = std::max(ReferenceMemory::degree(reference), polynomial_degree(candidate));
  verdict.boxes_tested = static_cast<int64_t>(plans.size());
  for (const BoxPlan& plan : plans) verdict.points_tested += static_cast<int64_t>(plan.points.size());
  verdict.trials = trials_for(options, verdict.degree, verdict.points_tested);
  verdict.bound_log2 = std::log2(static_cast<double>(std::max<int64_t>(verdict.points_tested, 1))) +
                       verdict.trials * (std::log2(static_cast<double>(verdict.degree)) - 61.0);
  if (std::string spent = run_trials(reference, candidate, plans, verdict.trials, options, work);
      !spent.empty()) {
    Verdict cut = rejected("not examined to the end: " + spent, options.seed);
    cut.work = work;
    return cut;
  }
  verdict.work = work;

  verdict.incorrect_boxes.resize(original.outputs().size());
  double total = 0, correct = 0;
  for (const BoxPlan& plan : plans) {
    total += static_cast<double>(plan.box.numel());
    if (plan.correct) correct += static_cast<double>(plan.box.numel());
    else verdict.incorrect_boxes[static_cast<size_t>(plan.output)].push_back(plan.box);
  }
  for (auto& boxes : verdict.incorrect_boxes) boxes = merge_adjacent_boxes(std::move(boxes));
  verdict.fraction_correct = total == 0 ? 1.0 : correct / total;
  if (correct == total) verdict.kind = VerdictKind::Full;
  else if (verdict.fraction_correct >= options.min_fraction_correct) verdict.kind = VerdictKind::Partial;
  else {
    verdict.kind = VerdictKind::Rejected;
    verdict.reason = fmt::format("only {:.1f}% of output elements agree", 100 * verdict.fraction_correct);
  }
  return verdict;
}

}  // namespace pet
