// The search's typed vocabulary: the mode, TASO's search algorithm, the algorithm a search ran,
// why it stopped, which kind of subprogram was mutated, what kind of step a transformation is and
// what evidence backs it, where the selection's times came from, how the cost model is
// calibrated; each parsed once at the edge and printed with the strings the reports, golden files
// and harness have always used.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pet {

enum class Mode { none, taso, pet, pet_eq_only, pet_neq_only };
enum class StopReason { converged, candidate_limit, work_limit, expansion_limit, time_limit, no_search };
enum class SubprogramKind { linear, group };  // a multi-linear region, or parallel compute ops
enum class EvidenceKind { z3_proof, random_test, partial_correction, construction };
enum class TasoSearch { beam, alpha };  // taso mode: the beam, or TASO's α-relaxed best-first search
// What a search ran: none (mode none), the beam, pet's two-phase beam (full moves, then every
// move from that beam), TASO's α-search.
enum class SearchAlgorithm { none, beam, full_then_all_beam, alpha };
enum class TransformationKind { rule, mutant, padding };
// Where the selection's end-to-end times came from; none for a target that selects by estimate alone.
enum class SelectionSource { none, measured, replayed, estimated };
// Measured targets: the cost model's per-op scales fitted on the cleaned input run whole, or the
// stand-alone kernel-group times as they are.
enum class Calibration { in_context, standalone };

// Each enum's values in declaration order (report and harness column order).
const std::vector<Mode>& all_modes();
const std::vector<StopReason>& all_stop_reasons();
const std::vector<SubprogramKind>& all_subprogram_kinds();
const std::vector<EvidenceKind>& all_evidence_kinds();

std::string to_string(Mode mode);                // "none", "taso", "pet", "pet-eq-only", "pet-neq-only"
std::string to_string(StopReason reason);        // "converged", "candidate-limit", "work-limit", ...
std::string to_string(SubprogramKind kind);      // "linear", "group"
std::string to_string(EvidenceKind kind);        // "z3-proof", "random-test", "partial+correction", "construction"
std::string to_string(TasoSearch search);        // "beam", "alpha"
std::string to_string(SearchAlgorithm algorithm);  // "none", "beam", "beam (full moves, then full and partial)", "alpha"
std::string to_string(TransformationKind kind);  // "rule", "mutant", "padding"
std::string to_string(SelectionSource source);   // "", "measured", "replayed", "estimated"
std::string to_string(Calibration calibration);  // "in-context", "standalone"

// Streams print the same spellings (test failures and logs read them).
inline std::ostream& operator<<(std::ostream& out, Mode mode) { return out << to_string(mode); }
inline std::ostream& operator<<(std::ostream& out, StopReason reason) { return out << to_string(reason); }
inline std::ostream& operator<<(std::ostream& out, SubprogramKind kind) { return out << to_string(kind); }
inline std::ostream& operator<<(std::ostream& out, EvidenceKind kind) { return out << to_string(kind); }
inline std::ostream& operator<<(std::ostream& out, TasoSearch search) { return out << to_string(search); }
inline std::ostream& operator<<(std::ostream& out, SearchAlgorithm algorithm) { return out << to_string(algorithm); }
inline std::ostream& operator<<(std::ostream& out, TransformationKind kind) { return out << to_string(kind); }
inline std::ostream& operator<<(std::ostream& out, SelectionSource source) { return out << to_string(source); }
inline std::ostream& operator<<(std::ostream& out, Calibration calibration) { return out << to_string(calibration); }

// The value spelled `text`; UserError "<what> '<text>' is not one of <the spellings>" otherwise,
// `what` naming the flag (or field) it came from.
Mode parse_mode(const std::string& text, const std::string& what = "--mode");
StopReason parse_stop_reason(const std::string& text, const std::string& what = "stop reason");
SubprogramKind parse_subprogram_kind(const std::string& text, const std::string& what = "subprogram kind");
EvidenceKind parse_evidence_kind(const std::string& text, const std::string& what = "evidence kind");
TasoSearch parse_taso_search(const std::string& text, const std::string& what = "--taso-search");
Calibration parse_calibration(const std::string& text, const std::string& what = "--calibration");

}  // namespace pet
