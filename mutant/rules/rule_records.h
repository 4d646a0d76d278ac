// Turns an oriented candidate pair into a rule record: both sides as graphs with aligned outputs,
// a content-derived name, and the shapes the rule holds at.
#pragma once

#include "mutant/rules/candidate_pairs.h"
#include "mutant/rules/prove_pairs.h"
#include "mutant/rules/rule_library.h"

namespace pet::rules {

// The two graphs of a pair; the right side's outputs are ordered to match the left's.
ProofJob pair_graphs(const ShapeClass& shape_class, const std::vector<EnumeratedProgram>& programs,
                     const CandidatePair& pair);

// The record of a pair (proof left empty).
RuleRecord make_record(const ShapeClass& shape_class, const std::vector<EnumeratedProgram>& programs,
                       const CandidatePair& pair, const ProofJob& graphs);

}  // namespace pet::rules
