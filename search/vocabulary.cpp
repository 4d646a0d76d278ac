// Every spelling lives in one table per enum; parse and print both read it.
#include "search/vocabulary.h"

#include <fmt/format.h>

#include "core/error.h"

namespace pet {
namespace {

template <typename Enum>
struct Spelling {
  Enum value;
  const char* text;
};

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

template <typename Enum, size_t N>
std::string spell(const Spelling<Enum> (&table)[N], Enum value) {
  for (const Spelling<Enum>& entry : table)
    if (entry.value == value) return entry.text;
  PET_CHECK(false, fmt::format("enum value {} has no spelling", static_cast<int>(value)));
  return "";
}

template <typename Enum, size_t N>
Enum parse(const Spelling<Enum> (&table)[N], const std::string& text, const std::string& what) {
  std::vector<std::string> texts;
  for (const Spelling<Enum>& entry : table) {
    if (entry.text == text) return entry.value;
    texts.push_back(entry.text);
  }
  throw UserError(fmt::format("{} '{}' is not one of {}", what, text, fmt::join(texts, ", ")));
}

template <typename Enum, size_t N>
std::vector<Enum> values(const Spelling<Enum> (&table)[N]) {
  std::vector<Enum> result;
  for (const Spelling<Enum>& entry : table) result.push_back(entry.value);
  return result;
}

}  // namespace

const std::vector<Mode>& all_modes() {
  static const std::vector<Mode> modes = values(kModes);
  return modes;
}
const std::vector<StopReason>& all_stop_reasons() {
  static const std::vector<StopReason> reasons = values(kStopReasons);
  return reasons;
}
const std::vector<SubprogramKind>& all_subprogram_kinds() {
  static const std::vector<SubprogramKind> kinds = values(kSubprogramKinds);
  return kinds;
}
const std::vector<EvidenceKind>& all_evidence_kinds() {
  static const std::vector<EvidenceKind> kinds = values(kEvidenceKinds);
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

Mode parse_mode(const std::string& text, const std::string& what) { return parse(kModes, text, what); }
StopReason parse_stop_reason(const std::string& text, const std::string& what) {
  return parse(kStopReasons, text, what);
}
SubprogramKind parse_subprogram_kind(const std::string& text, const std::string& what) {
  return parse(kSubprogramKinds, text, what);
}
EvidenceKind parse_evidence_kind(const std::string& text, const std::string& what) {
  return parse(kEvidenceKinds, text, what);
}
TasoSearch parse_taso_search(const std::string& text, const std::string& what) {
  return parse(kTasoSearches, text, what);
}
Calibration parse_calibration(const std::string& text, const std::string& what) {
  return parse(kCalibrations, text, what);
}

}  // namespace pet
