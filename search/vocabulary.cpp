// Every spelling lives in one table per enum; parse and print both read it.
#include "search/vocabulary.h"

#include "core/spelling.h"

namespace pet {
namespace {

constexpr Spelling<Mode> kModes[] = {{Mode::none, "none"},
                                     {Mode::taso, "taso"},
                                     {Mode::pet, "pet"},
                                     {Mode::pet_eq_only, "pet-eq-only"},
                                     {Mode::pet_neq_only, "pet-neq-only"}};
constexpr Spelling<StopReason> kStopReasons[] = {{StopReason::converged, "converged"},
                                                 {StopReason::candidate_limit, "candidate-limit"},
                                                 {StopReason::work_limit, "work-limit"},
                                                 {StopReason::expansion_limit, "expansion-limit"},
                                                 {StopReason::time_limit, "time-limit"},
                                                 {StopReason::no_search, "no-search"}};
constexpr Spelling<SubprogramKind> kSubprogramKinds[] = {{SubprogramKind::linear, "linear"},
                                                         {SubprogramKind::group, "group"}};
constexpr Spelling<EvidenceKind> kEvidenceKinds[] = {{EvidenceKind::z3_proof, "z3-proof"},
                                                     {EvidenceKind::random_test, "random-test"},
                                                     {EvidenceKind::partial_correction, "partial+correction"},
                                                     {EvidenceKind::construction, "construction"}};

constexpr Spelling<TasoSearch> kTasoSearches[] = {{TasoSearch::beam, "beam"}, {TasoSearch::alpha, "alpha"}};
constexpr Spelling<SearchAlgorithm> kSearchAlgorithms[] = {
    {SearchAlgorithm::none, "none"},
    {SearchAlgorithm::beam, "beam"},
    {SearchAlgorithm::full_then_all_beam, "beam (full moves, then full and partial)"},
    {SearchAlgorithm::alpha, "alpha"}};
constexpr Spelling<TransformationKind> kTransformationKinds[] = {
    {TransformationKind::rule, "rule"}, {TransformationKind::mutant, "mutant"}, {TransformationKind::padding, "padding"}};
constexpr Spelling<SelectionSource> kSelectionSources[] = {{SelectionSource::none, ""},
                                                           {SelectionSource::measured, "measured"},
                                                           {SelectionSource::replayed, "replayed"},
                                                           {SelectionSource::estimated, "estimated"}};
constexpr Spelling<Calibration> kCalibrations[] = {{Calibration::in_context, "in-context"},
                                                   {Calibration::standalone, "standalone"}};

}  // namespace

const std::vector<Mode>& all_modes() {
  static const std::vector<Mode> modes = spelled_values(kModes);
  return modes;
}
const std::vector<StopReason>& all_stop_reasons() {
  static const std::vector<StopReason> reasons = spelled_values(kStopReasons);
  return reasons;
}
const std::vector<SubprogramKind>& all_subprogram_kinds() {
  static const std::vector<SubprogramKind> kinds = spelled_values(kSubprogramKinds);
  return kinds;
}
const std::vector<EvidenceKind>& all_evidence_kinds() {
  static const std::vector<EvidenceKind> kinds = spelled_values(kEvidenceKinds);
  return kinds;
}

std::string to_string(Mode mode) { return spell(kModes, mode); }
std::string to_string(StopReason reason) { return spell(kStopReasons, reason); }
std::string to_string(SubprogramKind kind) { return spell(kSubprogramKinds, kind); }
std::string to_string(EvidenceKind kind) { return spell(kEvidenceKinds, kind); }
std::string to_string(TasoSearch search) { return spell(kTasoSearches, search); }
std::string to_string(SearchAlgorithm algorithm) { return spell(kSearchAlgorithms, algorithm); }
std::string to_string(TransformationKind kind) { return spell(kTransformationKinds, kind); }
std::string to_string(SelectionSource source) { return spell(kSelectionSources, source); }
std::string to_string(Calibration calibration) { return spell(kCalibrations, calibration); }

Mode parse_mode(const std::string& text, const std::string& what) { return parse_spelling(kModes, text, what); }
StopReason parse_stop_reason(const std::string& text, const std::string& what) {
  return parse_spelling(kStopReasons, text, what);
}
SubprogramKind parse_subprogram_kind(const std::string& text, const std::string& what) {
  return parse_spelling(kSubprogramKinds, text, what);
}
EvidenceKind parse_evidence_kind(const std::string& text, const std::string& what) {
  return parse_spelling(kEvidenceKinds, text, what);
}
TasoSearch parse_taso_search(const std::string& text, const std::string& what) {
  return parse_spelling(kTasoSearches, text, what);
}
Calibration parse_calibration(const std::string& text, const std::string& what) {
  return parse_spelling(kCalibrations, text, what);
}

}  // namespace pet
