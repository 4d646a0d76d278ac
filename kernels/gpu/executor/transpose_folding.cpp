// fold_transposes: per MatMul step, its operands' producers and its output's reader looked at,
// each candidate checked against the plan's arena (byte ranges and lifetimes), the strided config
// made once for all of them.
#include "kernels/gpu/executor/transpose_folding.h"

#include <optional>
#include <vector>

#include "kernels/gpu/executor/gemm_config.h"

namespace pet::gpu {
namespace {

struct Candidate {
  int step = -1;            // the transpose step
  StridedView view;         // what the GEMM reads or writes in its place
  ValueId unused;           // the value no step writes or reads once folded (the transpose's output
                            // for an operand, the MatMul's own output for the output)
  int first = 0, last = 0;  // the steps over which the view's bytes must hold nothing else
  bool writes = false;      // the GEMM writes the view (the output) rather than reads it
};

// The bytes a fold keeps in use beyond the plan's lifetimes: a source read later, or a destination
// written earlier, than the transpose would.
struct Window {
  ValueId root;
  int first, last;
  bool writes;
};

class Folder {
 public:
  Folder(const Graph& graph, HostProgram& program)
      : graph_(graph), program_(program), readers_(graph.consumers()), step_of_node_(graph.nodes().size(), -1) {
    const std::vector<Step>& steps = program.plan.steps;
    for (size_t s = 0; s < steps.size(); ++s)
      for (NodeId n : steps[s].nodes) step_of_node_[static_cast<size_t>(n)] = static_cast<int>(s);
  }

  void fold(int gemm_step) {
    StepProgram& gemm = program_.steps[static_cast<size_t>(gemm_step)];
    if (!gemm.gemm || !gemm.gemm->calls.empty()) return;
    const Step& step = program_.plan.steps[static_cast<size_t>(gemm_step)];
    const Node& matmul = graph_.node(step.nodes.front());
    if (matmul.op() != "MatMul") return;
    // A residual read as C shares D's layout, so D stays dense.
    std::optional<Candidate> output =
        gemm.gemm->c == kNoValue ? folded_output(step.outputs[0], gemm_step) : std::nullopt;
    std::vector<std::optional<Candidate>> candidates{folded_input(matmul.inputs[0], step.nodes.front(), gemm_step),
                                                     folded_input(matmul.inputs[1], step.nodes.front(), gemm_step),
                                                     output};
    keep_safe(candidates);
    StridedView a = candidates[0] ? candidates[0]->view : dense_view(graph_, matmul.inputs[0]);
    StridedView b = candidates[1] ? candidates[1]->view : dense_view(graph_, matmul.inputs[1]);
    StridedView d = candidates[2] ? candidates[2]->view : dense_view(graph_, step.outputs[0]);
    if (!candidates[0] && !candidates[1] && !candidates[2]) return;
    std::optional<GemmConfig> config = strided_matmul_config(*gemm.gemm, a, b, d);
    if (!config) return;
    gemm.gemm = config;
    for (const std::optional<Candidate>& candidate : candidates) {
      if (!candidate) continue;
      StepProgram& transpose = program_.steps[static_cast<size_t>(candidate->step)];
      transpose.folded_into = gemm_step;
      transpose.kernel.reset();
      unused_.push_back(candidate->unused);
      windows_.push_back(window_of(*candidate));
    }
  }

 private:
  // The transpose step of one node that writes `value`, or -1.
  int transpose_step_writing(ValueId value) const {
    NodeId producer = graph_.value(value).producer;
    if (producer < 0) return -1;
    return transpose_step_of(producer);
  }

  int transpose_step_of(NodeId node) const {
    int step = step_of_node_[static_cast<size_t>(node)];
    if (step < 0) return -1;
    const Step& planned = program_.plan.steps[static_cast<size_t>(step)];
    bool alone = planned.kind == StepKind::transpose && planned.nodes.size() == 1;
    return alone && graph_.node(node).op() == "Transpose" ? step : -1;
  }

  bool read_only_by(ValueId value, NodeId node) const {
    auto readers = readers_[static_cast<size_t>(value)];
    return !graph_.is_output(value) && readers.size() == 1 && readers[0] == node;
  }

  // Operand `value` of the MatMul `node` (step `gemm_step`) as the source of the transpose that
  // writes it, where that transpose can be folded.
  std::optional<Candidate> folded_input(ValueId value, NodeId node, int gemm_step) const {
    int step = transpose_step_writing(value);
    if (step < 0 || step >= gemm_step || !read_only_by(value, node)) return std::nullopt;
    const Node& transpose = graph_.node(graph_.value(value).producer);
    ValueId source = transpose.inputs[0];
    return Candidate{step, transposed_view(graph_, source, transpose.attrs.get_ints("perm")), value, step + 1,
                     gemm_step, false};
  }

  // The MatMul's output written straight into the destination of the transpose that alone reads it.
  std::optional<Candidate> folded_output(ValueId output, int gemm_step) const {
    auto readers = readers_[static_cast<size_t>(output)];
    if (graph_.is_output(output) || readers.size() != 1) return std::nullopt;
    int step = transpose_step_of(readers[0]);
    if (step <= gemm_step) return std::nullopt;
    const Node& transpose = graph_.node(readers[0]);
    ValueId destination = transpose.outputs[0];
    // Destination axis j is the output's axis perm[j]: the output's axis perm[j] steps as it.
    const std::vector<int64_t>& perm = transpose.attrs.get_ints("perm");
    StridedView dense = dense_view(graph_, destination);
    StridedView view{destination, graph_.value(output).type.shape.dims(), std::vector<int64_t>(perm.size(), 0)};
    for (size_t j = 0; j < perm.size(); ++j) view.strides[static_cast<size_t>(perm[j])] = dense.strides[j];
    return Candidate{step, view, output, gemm_step, step - 1, true};
  }

  // Drops the candidates whose bytes another value may hold in between, counting as free the bytes
  // of values folding leaves unused (earlier folds' and the other candidates'), until all left hold.
  void keep_safe(std::vector<std::optional<Candidate>>& candidates) const {
    for (bool dropped = true; dropped;) {
      dropped = false;
      std::vector<ValueId> unused = unused_;
      for (const std::optional<Candidate>& candidate : candidates)
        if (candidate) unused.push_back(candidate->unused);
      for (std::optional<Candidate>& candidate : candidates) {
        if (!candidate) continue;
        std::vector<Window> others = windows_;
        for (const std::optional<Candidate>& other : candidates)
          if (other && &other != &candidate) others.push_back(window_of(*other));
        if (bytes_kept(candidate->view.value, candidate->first, candidate->last, unused) &&
            !clashes(window_of(*candidate), others))
          continue;
        candidate.reset();
        dropped = true;
      }
    }
  }

  Window window_of(const Candidate& candidate) const {
    return {storage_root(program_.plan.values, candidate.view.value).value, candidate.first, candidate.last,
            candidate.writes};
  }

  // Whether `window`'s bytes meet another fold's while either writes them.
  bool clashes(const Window& window, const std::vector<Window>& others) const {
    for (const Window& other : others)
      if ((window.writes || other.writes) && Lifetime{window.first, window.last}.overlaps({other.first, other.last}) &&
          bytes_meet(window.root, other.root))
        return true;
    return false;
  }

  // Whether two roots' bytes overlap (only arena values share a buffer).
  bool bytes_meet(ValueId a, ValueId b) const {
    const ValueStorage& x = program_.plan.values[static_cast<size_t>(a)].storage;
    const ValueStorage& y = program_.plan.values[static_cast<size_t>(b)].storage;
    if (a == b) return true;
    if (x.kind != StorageKind::arena || y.kind != StorageKind::arena) return false;
    return x.offset < y.offset + y.bytes && y.offset < x.offset + x.bytes;
  }

  // Whether no arena value other than `value`'s own storage and the `unused` ones shares its bytes
  // while alive in steps `first` to `last` (a graph input's, output's or weight's bytes are never
  // shared).
  bool bytes_kept(ValueId value, int first, int last, const std::vector<ValueId>& unused) const {
    const std::vector<PlannedValue>& values = program_.plan.values;
    StorageRoot root = storage_root(values, value);
    const ValueStorage& own = values[static_cast<size_t>(root.value)].storage;
    if (own.kind != StorageKind::arena) return own.kind != StorageKind::fused;
    Lifetime between{first, last};
    for (size_t v = 0; v < values.size(); ++v) {
      auto id = static_cast<ValueId>(v);
      if (id == root.value || !bytes_meet(root.value, id) || !values[v].storage.lifetime.overlaps(between)) continue;
      if (!is_unused(v, unused)) return false;
    }
    return true;
  }

  // Whether arena value `v` is one of `unused` (or the storage root of one).
  bool is_unused(size_t v, const std::vector<ValueId>& unused) const {
    for (ValueId id : unused)
      if (storage_root(program_.plan.values, id).value == static_cast<ValueId>(v)) return true;
    return false;
  }

  const Graph& graph_;
  HostProgram& program_;
  Consumers readers_;
  std::vector<int> step_of_node_;
  std::vector<ValueId> unused_;  // values earlier folds left unused
  std::vector<Window> windows_;  // bytes earlier folds keep in use
};

}  // namespace

void fold_transposes(const Graph& graph, HostProgram& program) {
  Folder folder(graph, program);
  for (int s = 0; s < static_cast<int>(program.steps.size()); ++s) folder.fold(s);
}

}  // namespace pet::gpu
