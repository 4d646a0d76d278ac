// The search space: the moves that turn one whole program into another (a proved rule applied
// at a match, or a subprogram replaced by one of its examined mutants, corrected where partial)
// and the score that ranks programs.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "search/cost/cost_model.h"
#include "search/generate/generate_stage.h"
#include "search/generate/partition.h"
#include "search/program.h"
#include "search/rules/rule_matcher.h"
#include "search/search_budget.h"

namespace pet::search {

// Which moves a mode allows.
struct MoveKinds {
  bool rules = false;            // Z3-proved rule applications
  bool full_mutants = false;     // fully equivalent mutants (random-test evidence)
  bool partial_mutants = false;  // partially equivalent mutants with their corrections

  bool allows(bool partial_mutant) const { return partial_mutant ? partial_mutants : full_mutants; }
};

struct SearchSpaceOptions {
  // The subprograms looked for in each program: those the generation stage mutated.
  PartitionOptions partition = conv_only_regions();
  int threads = 0;          // building and scoring candidates in parallel (0: hardware concurrency)
  // A measured target times here: scoring then finalizes the candidates, and prices those whose
  // kernel groups are all known, on `threads`, and prices (and times) the rest one by one in order.
  bool times_in_order = false;
  // Mutant moves scored per expanded program, best estimated gain first, single-site and
  // repeated-block moves each (scoring copies and finalizes the whole program; most moves save
  // nothing). 0: every move.
  int scored_per_expansion = 32;
  // Subprograms per stage move (stage_windows): one mutant family at every site of a chain of up
  // to this many convs joined by unary elementwise ops. Below 2: no stage moves.
  int stage_sites = 4;
};

class SearchSpace {
 public:
  // The mutant moves replace a subprogram by one of the options `mutants` holds for it, wherever
  // the same subprogram (by subprogram_key) occurs.
  SearchSpace(const cost::CostModel& cost, const RuleMatcher* rules, SearchSpaceOptions options,
              const std::vector<GeneratedSubprogram>& mutants = {});

  // The program's score: its cost after the finalize passes that do not fold weights.
  double score(const Graph& graph) const;
  Program make_program(Graph graph, std::vector<Transformation> history) const;

  // The programs one move away whose hash `is_new` accepts, scored, in a deterministic order:
  // every rule application by match, then the mutant moves with the highest estimated gain
  // (MutantOption::gain_us; ties in graph order), up to `scored_per_expansion` of each kind.
  // Once `budget` is spent no more candidates are built (the caller then stops).
  std::vector<Program> expand(const Program& program, const MoveKinds& kinds, SearchStats& stats,
                              const std::function<bool(uint64_t)>& is_new, const SearchBudget& budget) const;

 private:
  // Scores the candidates (and their last step's cost after) and gives each its timing hash, on
  // threads_ threads; Cancelled when `cancelled` says so before one is scored.
  void score_all(std::vector<Program>& candidates, const CancelHook& cancelled) const;
  void score_all_timing_in_order(std::vector<Program>& candidates, const CancelHook& cancelled) const;
  using Options = std::vector<MutantOption>;  // full first, then partial; each sorted by cost
  const cost::CostModel& cost_;
  const RuleMatcher* rules_;
  SearchSpaceOptions options_;
  unsigned threads_;  // options_.threads, 0 resolved to the core count
  std::map<uint64_t, std::shared_ptr<const Options>> options_by_subprogram_;

  // A mutant move before it is built: its estimated gain, its (first) site and its option.
  struct PendingMove {
    double gain_us;
    size_t site;
    uint64_t key;
    const MutantOption* option;
  };
  // Takes a candidate (its graph, the step that made it, its structural hash); true when it was
  // new and will be scored.
  using Consider = std::function<bool(Graph, Transformation, uint64_t)>;
  using BuildMove = std::function<Graph(const PendingMove&, Transformation&)>;
  void add_rule_moves(const Program& program, SearchStats& stats, const Consider& consider) const;
  // Zero channel padding to the vector blocks CPU runtimes use (8 and 16 f32 lanes): exact.
  void add_padding_moves(const Program& program, const Consider& consider) const;
  void add_mutant_moves(const Program& program, const MoveKinds& kinds, const SearchStats& stats,
                        const SearchBudget& budget, const Consider& consider) const;
  // Builds the moves best estimated gain first until `scored_per_expansion` of them were new.
  void take_best_first(std::vector<PendingMove>& moves, const SearchStats& stats, const SearchBudget& budget,
                       const Consider& consider, const BuildMove& build) const;
  std::vector<PendingMove> single_site_moves(const std::vector<Subprogram>& subs, const std::vector<uint64_t>& keys,
                                             const MoveKinds& kinds) const;
  std::vector<PendingMove> repeated_block_moves(const std::vector<uint64_t>& keys, const MoveKinds& kinds) const;
  // One family's best option at each site of a stage window, with their summed gain.
  struct StageMove {
    double gain_us = 0;
    std::vector<size_t> sites;
    std::vector<const MutantOption*> options;
  };
  std::vector<StageMove> stage_moves(const Graph& graph, const std::vector<Subprogram>& subs,
                                     const std::vector<uint64_t>& keys, const MoveKinds& kinds) const;

  // `graph` with its subprograms `sites` (all of one key) replaced in one splice, a site that
  // overlaps an earlier one left out; appends their locations and counts them in `replaced`.
  Graph replace_everywhere(const Graph& graph, const std::vector<const Subprogram*>& sites, const Graph& replacement,
                           const std::string& prefix, std::string& locations, int& replaced) const;
};

}  // namespace pet::search
