// The search's typed vocabulary: the mode, why a search stopped, which kind of subprogram was
// mutated and what evidence backs a transformation; each parsed once at the edge and printed
// with the strings the reports, golden files and harness have always used.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pet {

enum class Mode { none, taso, pet, pet_eq_only, pet_neq_only };
enum class StopReason { converged, candidate_limit, work_limit, expansion_limit, time_limit, no_search };
enum class SubprogramKind { linear, group };  // a multi-linear region, or parallel compute ops
enum class EvidenceKind { z3_proof, random_test, partial_correction, construction };

// Each enum's values in declaration order (report and harness column order).
const std::vector<Mode>& all_modes();
const std::vector<StopReason>& all_stop_reasons();
const std::vector<SubprogramKind>& all_subprogram_kinds();
const std::vector<EvidenceKind>& all_evidence_kinds();

std::string to_string(Mode mode);                // "none", "taso", "pet", "pet-eq-only", "pet-neq-only"
std::string to_string(StopReason reason);        // "converged", "candidate-limit", "work-limit", ...
std::string to_string(SubprogramKind kind);      // "linear", "group"
std::string to_string(EvidenceKind kind);        // "z3-proof", "random-test", "partial+correction", "construction"

// Streams print the same spellings (test failures and logs read them).
inline std::ostream& operator<<(std::ostream& out, Mode mode) { return out << to_string(mode); }
inline std::ostream& operator<<(std::ostream& out, StopReason reason) { return out << to_string(reason); }
inline std::ostream& operator<<(std::ostream& out, SubprogramKind kind) { return out << to_string(kind); }
inline std::ostream& operator<<(std::ostream& out, EvidenceKind kind) { return out << to_string(kind); }

// The value spelled `text`; UserError "<what> '<text>' is not one of <the spellings>" otherwise,
// `what` naming the flag (or field) it came from.
Mode parse_mode(const std::string& text, const std::string& what = "--mode");
StopReason parse_stop_reason(const std::string& text, const std::string& what = "stop reason");
SubprogramKind parse_subprogram_kind(const std::string& text, const std::string& what = "subprogram kind");
EvidenceKind parse_evidence_kind(const std::string& text, const std::string& what = "evidence kind");

}  // namespace pet
