// The mutant generation stage: partitions a program into multi-linear regions and parallel
// groups and, for each distinct one, generates, examines, corrects and ranks its mutants.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mutant/generator.h"
#include "search/cost/cost_model.h"
#include "search/generate/partition.h"
#include "search/search_types.h"

namespace pet::search {

inline PartitionOptions conv_only_regions() {
  PartitionOptions options;
  options.max_ops = 1;
  options.max_group = 3;  // Q/K/V; with the merge templates three matmuls take ~1.5 s to generate
  return options;
}

struct GenerateOptions {
  // Conv-only regions: the generator finds no mutant for conv + residual Add regions.
  PartitionOptions partition = conv_only_regions();
  mutant::GeneratorOptions generator = {};
  // Parallel groups are mutated with the merging part of the operator set only.
  std::vector<mutant::MutantTemplate> group_templates = mutant::merge_templates();
  int mutation_rounds = 2;  // round r mutates the kept fully equivalent mutants of round r-1
  int top_k = 4;            // mutants kept per subprogram, per kind and round, by cost
  int threads = 0;          // subprograms generated in parallel (0: hardware concurrency)
  // A measured target times here: each round then generates every subprogram on `threads` and
  // prices them one after another in order, so what is timed, and when, does not depend on them.
  bool times_in_order = false;
  // Elements the generator's Z_p evaluations may read in all (GeneratorOptions::max_work), shared
  // by the subprograms, a group taking two shares (at most a quarter each); unset: no limit. Unlike
  // a time limit it cuts every run at the same mutant, so the mutants do not depend on the machine.
  std::optional<int64_t> work;
};

// How a replacement moves its activation (its first input) into another layout with a Layout and
// its output back out of one (through its corrections and a bias given back after it): what a
// neighbour's opposite layout can cancel. Stage moves use the families that have them.
struct LayoutEnds {
  Shape entering;          // the activation's shape
  Attributes entry;        // the Layout that moves it in
  Shape leaving;           // the shape the exit Layout writes
  Attributes exit_undone;  // the Layout that undoes the exit (for inputs of shape `leaving`)
};
// The replacement's layout ends; nullopt when it does not move its activation's layout.
std::optional<LayoutEnds> layout_ends(const Graph& replacement);
// Whether a replacement with ends `next` enters the layout one with ends `previous` leaves: as
// neighbours in a stage, the exit layout of one and the entry of the next cancel.
bool continues_layout(const LayoutEnds& previous, const LayoutEnds& next);

// A replacement for one subprogram: a mutant (corrected when partial) with its evidence.
struct MutantOption {
  Graph replacement;         // the subprogram's interface
  Graph mutant;              // the generator's program (bias-free when the bias was split off)
  Transformation info;       // kind "mutant", name, evidence; costs filled per application
  bool partial = false;
  // Kept beyond the top K only for stage moves (a layout-moving family's variant): never a move of
  // its own, nor a base for the next mutation round.
  bool stage_only = false;
  // Its layout ends (layout_ends of the replacement), found once when it is kept.
  std::optional<LayoutEnds> ends;
  // What it saved in the program it was generated for (score before minus after, µs, at the
  // subprogram's first site): the estimate that orders the moves of every later expansion.
  double gain_us = 0;
};

// One distinct subprogram (its first site) with the mutants kept for it: full first, then
// partial, each round's sorted by cost.
struct GeneratedSubprogram {
  uint64_t key = 0;  // subprogram_key: every site of the same subprogram shares it
  SubprogramKind kind = SubprogramKind::linear;
  std::string location;
  std::shared_ptr<const std::vector<MutantOption>> options;
};

struct GeneratedMutants {
  std::vector<GeneratedSubprogram> subprograms;  // groups first, then regions by their cost share
  GenerationStats stats;                         // seconds left for the caller's clock
};

// Every distinct subprogram of `start` (subprograms_to_mutate, by subprogram_key) with its
// mutants: generated and examined for up to `mutation_rounds` rounds, the partial ones corrected,
// each round's full and partial ones ranked by the score of `start` with the mutant spliced in
// and trimmed to `top_k`. Only the counted work budget bounds it, never the clock, so the result
// does not depend on `threads` or the machine.
GeneratedMutants generate_mutants_stage(const Graph& start, const cost::CostModel& cost,
                                        const GenerateOptions& options);

}  // namespace pet::search
