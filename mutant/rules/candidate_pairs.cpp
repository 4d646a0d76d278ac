// Pairing by fingerprint and the four prunings, in order: common subgraph, one-sided inputs,
// renamings, substitutions.
#include "mutant/rules/candidate_pairs.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "mutant/rules/renamings.h"
#include "mutant/rules/rule_ops.h"

namespace pet::rules {
namespace {

std::vector<std::pair<int, int>> raw_pairs(const std::vector<EnumeratedProgram>& programs, size_t max_class_pairs,
                                           PairingStats& stats) {
  std::map<uint64_t, std::vector<int>> groups;
  for (size_t i = 0; i < programs.size(); ++i) groups[programs[i].fingerprint].push_back(static_cast<int>(i));
  stats.fingerprint_classes += groups.size();
  std::vector<std::pair<int, int>> pairs;
  for (const auto& [fingerprint, members] : groups) {
    if (members.size() < 2) continue;
    ++stats.shared_classes;
    bool all = members.size() * (members.size() - 1) / 2 <= max_class_pairs;
    for (size_t i = 0; i < members.size(); ++i)
      for (size_t j = i + 1; j < members.size() && (all || i == 0); ++j) pairs.emplace_back(members[i], members[j]);
  }
  stats.candidate_pairs += pairs.size();
  return pairs;
}

bool share_a_step(const Program& a, const Program& b, const std::vector<int>& identity) {
  std::vector<uint64_t> ka = step_value_keys(a, identity), kb = step_value_keys(b, identity), common;
  std::set_intersection(ka.begin(), ka.end(), kb.begin(), kb.end(), std::back_inserter(common));
  return !common.empty();
}

// Steps none of whose outputs another step reads.
std::vector<size_t> sink_steps(const Program& program) {
  std::vector<bool> consumed(static_cast<size_t>(program.num_values()), false);
  for (const Step& step : program.steps)
    for (int input : step.inputs) consumed[static_cast<size_t>(input)] = true;
  std::vector<int> first = program.first_outputs();
  std::vector<size_t> sinks;
  for (size_t s = 0; s < program.steps.size(); ++s) {
    bool sink = true;
    for (int k = 0; k < program.steps[s].num_outputs; ++k) sink = sink && !consumed[static_cast<size_t>(first[s] + k)];
    if (sink) sinks.push_back(s);
  }
  return sinks;
}

std::vector<uint64_t> input_hashes(const EnumeratedProgram& p, const Step& step) {
  std::vector<uint64_t> hashes;
  for (int input : step.inputs) hashes.push_back(p.value_hashes[static_cast<size_t>(input)]);
  if (rule_op_set()[static_cast<size_t>(step.op)].commutative) std::sort(hashes.begin(), hashes.end());
  return hashes;
}

// Both sides end in the same op applied to equal values: the pair follows, by congruence, from
// the smaller pair without that op.
bool share_a_context(const EnumeratedProgram& a, const EnumeratedProgram& b) {
  for (size_t sa : sink_steps(a.program))
    for (size_t sb : sink_steps(b.program)) {
      const Step& x = a.program.steps[sa];
      const Step& y = b.program.steps[sb];
      if (x.op == y.op && input_hashes(a, x) == input_hashes(b, y)) return true;
    }
  return false;
}

bool reads_within(const Program& reader, const Program& other) {
  std::vector<int> mine = reader.used_inputs(), theirs = other.used_inputs();
  return std::includes(theirs.begin(), theirs.end(), mine.begin(), mine.end());
}

// Orients a pair so the left side reads every input the right side reads, preferring the larger
// program on the left; false when neither side does.
bool orient(const std::vector<EnumeratedProgram>& programs, CandidatePair& pair) {
  const EnumeratedProgram& a = programs[static_cast<size_t>(pair.left)];
  const EnumeratedProgram& b = programs[static_cast<size_t>(pair.right)];
  bool a_left = std::make_tuple(a.program.steps.size(), b.key) > std::make_tuple(b.program.steps.size(), a.key);
  if (!a_left) std::swap(pair.left, pair.right);
  const Program& left = programs[static_cast<size_t>(pair.left)].program;
  const Program& right = programs[static_cast<size_t>(pair.right)].program;
  if (reads_within(right, left)) return true;
  std::swap(pair.left, pair.right);
  return reads_within(left, right);
}

// Inputs used by either side, for preferring pairs that use the first names of the pool.
std::vector<int> used_by_pair(const std::vector<EnumeratedProgram>& programs, const CandidatePair& pair) {
  std::vector<int> a = programs[static_cast<size_t>(pair.left)].program.used_inputs();
  std::vector<int> b = programs[static_cast<size_t>(pair.right)].program.used_inputs();
  std::vector<int> both;
  std::set_union(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(both));
  return both;
}

std::vector<CandidatePair> drop_renamings(const std::vector<EnumeratedProgram>& programs,
                                          std::vector<CandidatePair> pairs, PairingStats& stats) {
  auto rank = [&](const CandidatePair& p) {
    uint64_t identity =
        pair_key(programs[static_cast<size_t>(p.left)].program, programs[static_cast<size_t>(p.right)].program,
                 identity_renaming(programs[static_cast<size_t>(p.left)].program.pool_size));
    return std::make_tuple(p.canonical_key, used_by_pair(programs, p), identity, p.left, p.right);
  };
  std::sort(pairs.begin(), pairs.end(),
            [&](const CandidatePair& a, const CandidatePair& b) { return rank(a) < rank(b); });
  std::vector<CandidatePair> kept;
  for (const CandidatePair& pair : pairs)
    if (kept.empty() || kept.back().canonical_key != pair.canonical_key) kept.push_back(pair);
  stats.renamings += pairs.size() - kept.size();
  return kept;
}

bool identifies_inputs(const std::vector<int>& map, const std::vector<int>& used) {
  std::set<int> images;
  for (int input : used) images.insert(map[static_cast<size_t>(input)]);
  return images.size() < used.size();
}

std::vector<CandidatePair> drop_substitutions(const ShapeClass& shape_class,
                                              const std::vector<EnumeratedProgram>& programs,
                                              const std::vector<CandidatePair>& pairs, PairingStats& stats) {
  std::vector<std::vector<int>> maps = pool_maps(shape_class, false), permutations = pool_maps(shape_class, true);
  std::set<uint64_t> implied;
  for (const CandidatePair& pair : pairs) {
    const Program& left = programs[static_cast<size_t>(pair.left)].program;
    const Program& right = programs[static_cast<size_t>(pair.right)].program;
    std::vector<int> used = used_by_pair(programs, pair);
    for (const std::vector<int>& map : maps) {
      if (!identifies_inputs(map, used) || program_key(left, map) == program_key(right, map)) continue;
      implied.insert(canonical_pair_key(left, right, map, permutations));
    }
  }
  std::vector<CandidatePair> kept;
  for (const CandidatePair& pair : pairs)
    if (!implied.count(pair.canonical_key)) kept.push_back(pair);
  stats.substitutions += pairs.size() - kept.size();
  return kept;
}

}  // namespace

std::vector<CandidatePair> candidate_pairs(const ShapeClass& shape_class,
                                           const std::vector<EnumeratedProgram>& programs, size_t max_class_pairs,
                                           PairingStats& stats) {
  std::vector<std::vector<int>> permutations = pool_maps(shape_class, true);
  std::vector<int> identity = identity_renaming(static_cast<int>(shape_class.inputs.size()));
  std::vector<CandidatePair> pairs;
  for (auto [a, b] : raw_pairs(programs, max_class_pairs, stats)) {
    const Program& pa = programs[static_cast<size_t>(a)].program;
    const Program& pb = programs[static_cast<size_t>(b)].program;
    if (share_a_step(pa, pb, identity)) {
      ++stats.common_subgraph;
      continue;
    }
    if (share_a_context(programs[static_cast<size_t>(a)], programs[static_cast<size_t>(b)])) {
      ++stats.common_context;
      continue;
    }
    CandidatePair pair{a, b, canonical_pair_key(pa, pb, identity, permutations)};
    if (!orient(programs, pair)) {
      ++stats.one_sided_inputs;
      continue;
    }
    pairs.push_back(pair);
  }
  std::vector<CandidatePair> kept =
      drop_substitutions(shape_class, programs, drop_renamings(programs, std::move(pairs), stats), stats);
  stats.kept += kept.size();
  return kept;
}

}  // namespace pet::rules
