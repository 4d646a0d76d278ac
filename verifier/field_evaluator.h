// Evaluates single output elements of a multi-linear graph over Z_p by pulling exactly the input
// elements they read; graph inputs take seeded pseudo-random values, constants their exact value.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/graph.h"

namespace pet {

class FieldEvaluator {
 public:
  // Input element j of graph input i takes value hash(seed, trial, i, j) mod p, so two graphs
  // with the same inputs see the same values under the same seed and trial.
  // `memoize` off suits a handful of evaluations: no per-value arrays are allocated.
  FieldEvaluator(const Graph& graph, uint64_t seed, int trial, bool memoize = true);

  // Starts another trial: new input values, the memo forgotten but its storage kept.
  void start_trial(int trial);

  // From now on `id` takes pseudo-random values of its own, like one more graph input: a cut, so
  // what computes it is never evaluated. Call before the first evaluation.
  void read_as_input(ValueId id);

  uint64_t value(ValueId id, const int64_t* index);
  // value() at `count` positions from `index` on along `axis`, into out[0, count): the same
  // values and reads, with the position arithmetic done once per run.
  void values_along(ValueId id, const int64_t* index, int axis, int64_t count, uint64_t* out);
  uint64_t output(int output_index, const int64_t* index) {
    return value(graph_.outputs().at(static_cast<size_t>(output_index)), index);
  }
  // Elements read so far (every value() call, memoized or not): the deterministic measure of
  // evaluation work that budgets count instead of wall-clock time.
  int64_t reads() const { return reads_; }
  // The random value of graph input `position` at flat element `flat`.
  static uint64_t input_value(uint64_t seed, int trial, int position, int64_t flat);
  // The per-(seed, trial, input) stream base input_value() adds flat * golden gamma to.
  static uint64_t input_stream(uint64_t seed, int trial, int position);

 private:
  uint64_t node_value(ValueId id, const int64_t* index);
  uint64_t constant_value(ValueId id, int64_t flat);

  const Graph& graph_;
  uint64_t seed_;
  int trial_;
  bool memoize_;
  int64_t reads_ = 0;
  std::vector<int> input_position_;  // per value: its graph-input position, or -1
  std::vector<int64_t> numel_;         // per value
  std::vector<uint64_t> input_streams_;  // per graph input (then per cut value), for the current trial
  std::vector<std::vector<const TensorType*>> node_input_types_;
  // What one node output remembers. Each input element is pulled many times (once per output
  // channel and kernel tap), so remembering beats recomputing even for layout ops. A small value
  // lives in a dense array (kUnknown where not yet computed); a larger one starts in the hash map
  // and moves to a dense array once a trial has computed a sixteenth of it, unless it is too large
  // to allocate densely: a trial that reads a few elements of a large activation neither
  // allocates nor clears all of it.
  struct Memo {
    std::vector<uint64_t> dense;
    std::vector<int64_t> touched;  // dense slots set this trial, while fewer than dense.size() / 8
    bool touched_overflow = false;
    std::unordered_map<int64_t, uint64_t> sparse;
  };
  uint64_t remembered(size_t slot, const int64_t* index, int64_t flat);
  uint64_t from_dense(Memo& memo, ValueId id, const int64_t* index, int64_t flat);  // computed if unknown
  static void turn_dense(Memo& memo, int64_t numel);          // the hash map's entries move over
  static void note_touched(Memo& memo, int64_t flat);         // a dense slot set this trial
  static void forget(Memo& memo);
  std::vector<Memo> memo_;
};

}  // namespace pet
