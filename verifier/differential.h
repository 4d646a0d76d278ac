// The differential check: an optimized graph against its original on seeded random inputs of every element type.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace pet {

// An element passes when |a - b| <= absolute * scale + relative * |a|, where scale is the
// output's root-mean-square magnitude (at least 1): a float32 sum's rounding error grows with the
// size of its terms, not of its result, so an element that cancels to near zero in a large
// output may differ by more than `absolute` between two summation orders (two BLAS kernels, a
// dilated conv and its de-interleaved form) without either being wrong.
// Non-finite elements are compared by kind, never by tolerance: where the original is NaN, +Inf
// or -Inf the optimized value must be the same kind, and a finite value where the other is not
// fails (a tolerance relative to |Inf| would accept anything).
// The tolerance is for float32 outputs; tolerance_for gives the one other element types are
// compared with. Integer and bool outputs are compared exactly.
struct Tolerance {
  double absolute = 1e-4;
  double relative = 1e-3;
};

// The tolerance an output of element type `type` is compared with, from the float32 one: f32 as
// given; f64 a millionth of it (double's rounding is 2^29 times finer, a millionth leaves room for
// long sums); bf16 at least 2^-7 both ways (one bfloat16 rounding is up to 2^-8 relative, and a
// rewrite rounds in other places); integers and bool zero (compared exactly).
Tolerance tolerance_for(DType type, const Tolerance& f32_tolerance);

struct OutputDifference {
  std::string name;
  DType dtype = DType::f32;  // the original output's element type
  double max_abs_error = 0;  // over the elements finite in both (INFINITY when a kind differs)
  double max_rel_error = 0;  // |a - b| / max(|a|, 1e-6), worst element
  int64_t elements_outside = 0;     // outside the tolerance; for integers and bool, elements not equal
  int64_t elements = 0;             // the output's element count
  int64_t nonfinite_expected = 0;   // elements where the original is NaN or infinite
  int64_t nonfinite_mismatches = 0; // of the elements outside, those whose kinds differ (NaN, +Inf, -Inf, finite)
  bool passed = true;
  // Integer and bool outputs are compared element for element, without a tolerance.
  bool exact() const { return !is_float_dtype(dtype); }
  // Every element of the original is NaN or infinite: agreeing on it proves little.
  bool all_nonfinite() const { return elements > 0 && nonfinite_expected == elements; }
};

struct DifferentialReport {
  uint64_t seed = 0;
  std::vector<OutputDifference> outputs;
  bool passed = true;
  // Half-width of the range the float inputs were drawn from: 1 for random_inputs' [-1, 1); when
  // an original output was non-finite everywhere the inputs are redrawn on a smaller range.
  double input_range = 1;
  // Still non-finite everywhere after the redraw: the check proves nothing, so it does not pass.
  bool inconclusive = false;
  std::vector<std::string> warnings;  // e.g. the redraw and why
  // The optimized graph is the original itself (same_graph): its outputs are the original's on the
  // draw, taken from that run instead of executing the same computation again.
  bool same_graph = false;
  double max_abs_error() const;
  // Why the check failed ("" when it passed): values that differ, or an inconclusive check.
  std::string failure_reason() const;
  // One line for a terminal: the result, the worst error and any warnings.
  std::string summary() const;
};

// The original graph's outputs per draw, computed on first need and kept: pet-opt compares the
// same original with its result in memory, with the written file on several draws and with the
// runtime's outputs, and the original's run on a draw is the same every time.
class ReferenceOutputs {
 public:
  explicit ReferenceOutputs(const Graph& original) : original_(&original) {}
  bool is_of(const Graph& graph) const { return &graph == original_; }
  // execute(original, inputs), where `inputs` are the draw (seed, range); from memory after the first time.
  const std::vector<Tensor>& on(uint64_t seed, double range, const std::vector<Tensor>& inputs);
  int runs() const { return runs_; }  // executions of the original so far

 private:
  const Graph* original_;
  std::map<std::pair<uint64_t, double>, std::vector<Tensor>> outputs_;
  int runs_ = 0;
};

// The same computation node for node: equal textual IR (ops, attributes, value names and types in
// order, inputs and outputs) and byte-equal constants. Executing both on a draw gives equal outputs.
bool same_graph(const Graph& a, const Graph& b);

// The smaller range the inputs are redrawn on when an original output is non-finite everywhere.
inline constexpr double kRedrawInputRange = 1.0 / 64;

// Runs both graphs (same input and output types, else UserError) on random_inputs(original,
// seed) and compares output by output (compare_outputs); redraws the float inputs once on
// [-kRedrawInputRange, kRedrawInputRange) (integer and bool inputs stay as drawn) when an original
// output is non-finite at every element (see DifferentialReport). With `reference` (made for this
// `original`), the original's outputs come from it. An optimized graph that is the
// original (same_graph) is not run: its outputs are the original's.
DifferentialReport differential(const Graph& original, const Graph& optimized, uint64_t seed,
                                const Tolerance& tolerance = {}, ReferenceOutputs* reference = nullptr);

// The same comparison for given output tensors (used by tests against reference outputs): float
// outputs within tolerance_for(their type, tolerance), integer and bool outputs exactly; tensors of
// different types or shapes differ at every element.
OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance);
// The same where `actual` was computed in the float type `computed_in` (a runtime that computes f64
// in f32): float outputs are compared with tolerance_for(computed_in, tolerance).
OutputDifference compare_outputs(const std::string& name, const Tensor& expected, const Tensor& actual,
                                 const Tolerance& tolerance, DType computed_in);

}  // namespace pet
