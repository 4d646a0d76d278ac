// Mutants of ResNet-18 3x3 convolutions at depth 3 (the target: under 1 s per conv), of
// BERT's Q/K/V projections taken as a parallel group (two or all three matmuls) and of
// Inception-v3's three 1x1 convs on one input (Mixed_7c), with the elements their Z_p
// evaluations read (the generator's deterministic work budget counts these).
#include <benchmark/benchmark.h>

#include "mutant/generator.h"

namespace pet {
namespace {

struct ConvShape {
  int64_t batch, channels, size;
};

Graph conv_subprogram(const ConvShape& shape) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {shape.batch, shape.channels, shape.size, shape.size}});
  ValueId w = graph.add_input("w", {DType::f32, {shape.channels, shape.channels, 3, 3}});
  Attributes attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}},
                      {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
  graph.add_output(graph.add_node1("Conv", attrs, {x, w}));
  return graph;
}

void BM_MutantsOfConv(benchmark::State& state, ConvShape shape) {
  Graph conv = conv_subprogram(shape);
  mutant::Generation result;
  for (auto _ : state) result = mutant::generate_mutants(conv);
  state.counters["mutants"] = static_cast<double>(result.mutants.size());
  state.counters["full"] = static_cast<double>(result.stats.full);
  state.counters["partial"] = static_cast<double>(result.stats.partial);
  state.counters["examined"] = static_cast<double>(result.stats.examined);
  state.counters["placed"] = static_cast<double>(result.stats.placed);
  state.counters["work"] = static_cast<double>(result.stats.work);
}

void report_counters(benchmark::State& state, const mutant::GeneratorStats& stats) {
  state.counters["full"] = static_cast<double>(stats.full);
  state.counters["examined"] = static_cast<double>(stats.examined);
  state.counters["placed"] = static_cast<double>(stats.placed);
  state.counters["work"] = static_cast<double>(stats.work);
}

// `count` matmuls reading one activation [1,seq,768], each with its own [768,768] weight.
Graph projection_group(int count, int64_t seq) {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {1, seq, 768}});
  for (int i = 0; i < count; ++i) {
    ValueId w = graph.add_input("w" + std::to_string(i), {DType::f32, {768, 768}});
    graph.add_output(graph.add_node1("MatMul", {}, {x, w}));
  }
  return graph;
}

void BM_MutantsOfProjectionGroup(benchmark::State& state, int count, bool merge_templates_only) {
  Graph group = projection_group(count, 128);
  mutant::GeneratorOptions options;
  if (merge_templates_only) options.templates = mutant::merge_templates();
  mutant::Generation result;
  for (auto _ : state) result = mutant::generate_mutants(group, options);
  report_counters(state, result.stats);
}

// Inception-v3 Mixed_7c: 1x1 convs from one [1,2048,8,8] input to 320, 384 and 448 channels.
Graph inception_branch_group() {
  Graph graph;
  ValueId x = graph.add_input("x", {DType::f32, {1, 2048, 8, 8}});
  Attributes attrs = {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{0, 0, 0, 0}},
                      {"dilations", std::vector<int64_t>{1, 1}}, {"group", int64_t{1}}};
  for (int64_t out : {320, 384, 448}) {
    ValueId w = graph.add_input("w" + std::to_string(out), {DType::f32, {out, 2048, 1, 1}});
    graph.add_output(graph.add_node1("Conv", attrs, {x, w}));
  }
  return graph;
}

void BM_MutantsOfInceptionGroup(benchmark::State& state) {
  Graph group = inception_branch_group();
  mutant::GeneratorOptions options;
  options.templates = mutant::merge_templates();
  mutant::Generation result;
  for (auto _ : state) result = mutant::generate_mutants(group, options);
  report_counters(state, result.stats);
  state.counters["prune_work"] = static_cast<double>(result.stats.prune_work);
}
BENCHMARK(BM_MutantsOfInceptionGroup)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_CAPTURE(BM_MutantsOfProjectionGroup, bert_qk, 2, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MutantsOfProjectionGroup, bert_qkv, 3, false)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_MutantsOfProjectionGroup, bert_qk_merge_templates, 2, true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MutantsOfProjectionGroup, bert_qkv_merge_templates, 3, true)->Unit(benchmark::kMillisecond);

BENCHMARK_CAPTURE(BM_MutantsOfConv, resnet18_stage1_batch1, ConvShape{1, 64, 56})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MutantsOfConv, resnet18_stage4_batch1, ConvShape{1, 512, 7})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_MutantsOfConv, resnet18_stage1_batch16, ConvShape{16, 64, 56})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace pet
