// Two graphs' outputs compared on the same seeded inputs: floats within a per-type tolerance, integers exactly.
#include "verifier/differential.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <span>

#include <fmt/format.h>

#include "core/element_cast.h"
#include "core/error.h"
#include "core/executor.h"
#include "core/text_ir.h"

namespace pet {
namespace {

enum class ValueKind { Finite, NaN, PlusInf, MinusInf };

ValueKind kind_of(double value) {
  if (std::isnan(value)) return ValueKind::NaN;
  if (std::isinf(value)) return value > 0 ? ValueKind::PlusInf : ValueKind::MinusInf;
  return ValueKind::Finite;
}

// The root-mean-square magnitude of the finite elements, at least 1 (see Tolerance).
double tolerance_scale(const std::vector<double>& expected) {
  double squares = 0;
  int64_t finite = 0;
  for (double a : expected)
    if (std::isfinite(a)) squares += a * a, ++finite;
  return std::max(1.0, finite ? std::sqrt(squares / static_cast<double>(finite)) : 1.0);
}

void require_same_interface(const Graph& original, const Graph& optimized) {
  auto types = [](const Graph& graph, const std::vector<ValueId>& ids) {
    std::vector<TensorType> result;
    for (ValueId id : ids) result.push_back(graph.value(id).type);
    return result;
  };
  if (types(original, original.inputs()) != types(optimized, optimized.inputs()) ||
      types(original, original.outputs()) != types(optimized, optimized.outputs()))
    throw UserError(fmt::format("graphs '{}' and '{}' differ in their input or output types; the differential check "
                                "compares graphs with the same interface",
                                original.name, optimized.name));
}

// random_inputs(original, seed) with the float inputs drawn on [-range, range) instead (same seeds).
std::vector<Tensor> inputs_on_range(const Graph& original, uint64_t seed, double range) {
  std::vector<Tensor> inputs = random_inputs(original, seed);
  if (range == 1) return inputs;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (is_float_dtype(inputs[i].dtype())) inputs[i] = random_input(inputs[i].type(), seed + i, range);
  return inputs;
}

// Integer and bool elements must be equal; the errors are reported as for floats.
template <DType D>
void compare_exactly(const Tensor& expected, const Tensor& actual, OutputDifference& difference) {
  std::span<const storage_t<D>> a = expected.view<D>(), b = actual.view<D>();
  for (size_t i = 0; i < a.size(); ++i) {
    if (widen<D>(a[i]) == widen<D>(b[i])) continue;
    ++difference.elements_outside;
    double x = static_cast<double>(widen<D>(a[i])), y = static_cast<double>(widen<D>(b[i]));
    double error = std::abs(x - y);
    difference.max_abs_error = std::max(difference.max_abs_error, error);
    difference.max_rel_error = std::max(difference.max_rel_error, error / std::max(std::abs(x), 1e-6));
  }
}

// Float elements within the tolerance (scaled as Tolerance says), non-finite ones by kind.
void compare_within(const Tensor& expected, const Tensor& actual, const Tolerance& tolerance,
                    OutputDifference& difference) {
  const std::vector<double> expected_values = expected.to_double_vector(), actual_values = actual.to_double_vector();
  PET_CHECK(expected_values.size() == actual_values.size(), "compared outputs have as many elements");
  double scale = tolerance_scale(expected_values);
  for (size_t i = 0; i < expected_values.size(); ++i) {
    double a = expected_values[i], b = actual_values[i];
    ValueKind expected_kind = kind_of(a), actual_kind = kind_of(b);
    difference.nonfinite_expected += expected_kind != ValueKind::Finite;
    if (expected_kind != ValueKind::Finite || actual_kind != ValueKind::Finite) {
      if (expected_kind == actual_kind) continue;  // NaN and NaN, +Inf and +Inf: the same value
      ++difference.elements_outside;
      ++difference.nonfinite_mismatches;
      difference.max_abs_error = difference.max_rel_error = INFINITY;
      continue;
    }
    double error = std::abs(a - b);
    difference.max_abs_error = std::max(difference.max_abs_error, error);
    difference.max_rel_error = std::max(difference.max_rel_error, error / std::max(std::abs(a), 1e-6));
    if (!(error <= tolerance.absolute * scale + tolerance.relative * std::abs(a))) ++difference.elements_outside;
  }
}

DifferentialReport compare_on(const Graph& original, const Graph& optimized, bool same, const std::vector<Tensor>& inputs,
                              uint64_t seed, double range, const Tolerance& tolerance, ReferenceOutputs* reference) {
  std::vector<Tensor> computed;
  if (!reference) computed = execute(original, inputs);
  const std::vector<Tensor>& expected = reference ? reference->on(seed, range, inputs) : computed;
  std::vector<Tensor> actual = same ? expected : execute(optimized, inputs);
  DifferentialReport report;
  report.seed = seed;
  report.same_graph = same;
  for (size_t i = 0; i < expected.size(); ++i) {
    report.outputs.push_back(compare_outputs(original.value(original.outputs()[i]).name, expected[i], actual[i], tolerance));
    report.passed = report.passed && report.outputs.back().passed;
  }
  return report;
}

std::vector<std::string> all_nonfinite_outputs(const DifferentialReport& report) {
  std::vector<std::string> names;
  for (const OutputDifference& output : report.outputs)
    if (output.all_nonfinite()) names.push_back("'" + output.name + "'");
  return names;
}

}  // namespace

double DifferentialReport::max_abs_error() const {
  double worst = 0;
  for (const OutputDifference& output : outputs) worst = std::max(worst, output.max_abs_error);
  return worst;
}

std::string DifferentialReport::failure_reason() const {
  if (passed) return "";
  if (inconclusive)
    return fmt::format("check inconclusive: the original's output {} is NaN or infinite at every element, even on "
                       "inputs drawn from [-{}, {}), so comparing it proves nothing",
                       fmt::join(all_nonfinite_outputs(*this), ", "), input_range, input_range);
  std::vector<std::string> parts;
  for (const OutputDifference& output : outputs) {
    if (output.passed) continue;
    std::string part = fmt::format("'{}' ({}): {} of {} elements {}", output.name, dtype_name(output.dtype),
                                   output.elements_outside, output.elements,
                                   output.exact() ? "differ (compared exactly)" : "outside the tolerance");
    if (output.nonfinite_mismatches)
      part += fmt::format(" ({} of them NaN or infinite in one model only, or of another kind)", output.nonfinite_mismatches);
    parts.push_back(part);
  }
  return fmt::format("the optimized model computes different values (max abs error {:.3g}): {}", max_abs_error(),
                     fmt::join(parts, "; "));
}

std::string DifferentialReport::summary() const {
  std::string text = passed ? fmt::format("check passed (max abs error {:.3g}, seed {})", max_abs_error(), seed)
                            : fmt::format("check FAILED (seed {}): {}", seed, failure_reason());
  if (same_graph) text += "; the same graph as the original, so not run again";
  for (const std::string& warning : warnings) text += "; warning: " + warning;
  return text;
}

bool same_graph(const Graph& a, const Graph& b) {
  if (&a == &b) return true;
  if (a.nodes().size() != b.nodes().size() || a.values().size() != b.values().size()) return false;
  for (size_t v = 0; v < a.values().size(); ++v) {
    const std::optional<Tensor>& x = a.values()[v].constant;
    const std::optional<Tensor>& y = b.values()[v].constant;
    if (x.has_value() != y.has_value()) return false;
    if (x && (x->type() != y->type() || (x->nbytes() > 0 && std::memcmp(x->raw(), y->raw(), x->nbytes()) != 0)))
      return false;
  }
  // The constants are equal byte for byte: the rest of the text need not hash them again.
  const PrintOptions structure{.constant_values = false};
  return print_graph(a, structure) == print_graph(b, structure);
}

Tolerance tolerance_for(DType type, const Tolerance& f32_tolerance) {
  constexpr double kBFloat16Epsilon = 1.0 / 128;  // 2^-7
  switch (type) {
    case DType::f32: return f32_tolerance;
    case DType::f64: return {f32_tolerance.absolute * 1e-6, f32_tolerance.relative * 1e-6};
    case DType::bf16:
      return {std::max(f32_tolerance.absolute, kBFloat16Epsilon), std::max(f32_tolerance.relative, kBFloat16Epsilon)};
    default: return {0, 0};
  }
}

OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance) {
  return compare_outputs(name, expected, actual, tolerance, expected.dtype());
}

OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance, DType computed_in) {
  OutputDifference difference{name, expected.dtype()};
  difference.elements = expected.numel();
  if (expected.type() != actual.type()) {
    difference.passed = false;
    difference.elements_outside = expected.numel();
    difference.max_abs_error = INFINITY;
    return difference;
  }
  if (difference.exact())
    visit_dtype(expected.dtype(), [&]<DType D>() {
      if constexpr (!is_float_dtype(D)) compare_exactly<D>(expected, actual, difference);
    });
  else
    compare_within(expected, actual,
                   tolerance_for(is_float_dtype(computed_in) ? computed_in : expected.dtype(), tolerance), difference);
  difference.passed = difference.elements_outside == 0;
  return difference;
}

const std::vector<Tensor>& ReferenceOutputs::on(uint64_t seed, double range, const std::vector<Tensor>& inputs) {
  auto [entry, added] = outputs_.try_emplace({seed, range});
  if (added) {
    entry->second = execute(*original_, inputs);
    ++runs_;
  }
  return entry->second;
}

DifferentialReport differential(const Graph& original, const Graph& optimized, uint64_t seed,
                                const Tolerance& tolerance, ReferenceOutputs* reference) {
  PET_CHECK(!reference || reference->is_of(original), "reference outputs made for another graph");
  require_same_interface(original, optimized);
  const bool same = same_graph(original, optimized);
  DifferentialReport report =
      compare_on(original, optimized, same, random_inputs(original, seed), seed, 1, tolerance, reference);
  std::vector<std::string> everywhere = all_nonfinite_outputs(report);
  if (everywhere.empty()) return report;
  // Inputs of magnitude 1 can overflow a deep or exponential model everywhere; smaller ones
  // often do not, and then the comparison says something again.
  std::string first_draw = fmt::format("the original's output {} was NaN or infinite at every element on inputs drawn "
                                       "from [-1, 1); redrawn from [-{}, {})",
                                       fmt::join(everywhere, ", "), kRedrawInputRange, kRedrawInputRange);
  report = compare_on(original, optimized, same, inputs_on_range(original, seed, kRedrawInputRange), seed,
                      kRedrawInputRange, tolerance, reference);
  report.input_range = kRedrawInputRange;
  report.warnings.push_back(first_draw);
  if (!all_nonfinite_outputs(report).empty()) {
    report.inconclusive = true;
    report.passed = false;
  }
  return report;
}

}  // namespace pet
