// examine() on ResNet-18 convolutions against their N2H mutants (batch stacked along H).
#include <benchmark/benchmark.h>

#include "core/ops/layout.h"
#include "verifier/examine.h"

namespace pet {
namespace {

struct ConvStage {
  int64_t batch, channels, size;
};

Graph n2h_pair_side(const ConvStage& stage, bool stacked) {
  Shape x_shape{stage.batch, stage.channels, stage.size, stage.size};
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, x_shape});
  ValueId w = graph.add_input("w", {DType::f32, {stage.channels, stage.channels, 3, 3}});
  Attributes conv = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                     {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
  if (!stacked) {
    graph.add_output(graph.add_node1("Conv", conv, {x, w}));
    return graph;
  }
  ValueId tall = graph.add_node1("Layout", ops::layout_batch_to_height(x_shape, stage.batch), {x});
  ValueId y = graph.add_node1("Conv", conv, {tall, w});
  graph.add_output(graph.add_node1("Layout", ops::layout_height_to_batch(graph.value(y).type.shape, stage.batch), {y}));
  return graph;
}

void BM_ExamineN2H(benchmark::State& state, ConvStage stage) {
  Graph original = n2h_pair_side(stage, false), candidate = n2h_pair_side(stage, true);
  Verdict verdict;
  for (auto _ : state) verdict = examine(original, candidate);
  if (verdict.kind != VerdictKind::Partial) state.SkipWithError("expected a partial verdict");
  state.counters["boxes"] = static_cast<double>(verdict.boxes_tested);
  state.counters["points"] = static_cast<double>(verdict.points_tested);
  state.counters["trials"] = verdict.trials;
  state.counters["bound_log2"] = verdict.bound_log2;
}

// ResNet-18's stages at 224x224: 64 channels at 56x56 ... 512 channels at 7x7.
BENCHMARK_CAPTURE(BM_ExamineN2H, stage1_64ch_56px_batch2, ConvStage{2, 64, 56})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExamineN2H, stage2_128ch_28px_batch2, ConvStage{2, 128, 28})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExamineN2H, stage3_256ch_14px_batch2, ConvStage{2, 256, 14})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExamineN2H, stage4_512ch_7px_batch2, ConvStage{2, 512, 7})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ExamineN2H, stage1_64ch_56px_batch16, ConvStage{16, 64, 56})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pet
