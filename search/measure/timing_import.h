// pet-profile --import: a GPU machine's timings of exported misses turned into profile DB entries
// by the same functions the live path records them with (kernel_group_entries,
// context_run_entries, ranked_entries, selection_entries), under the device key of the card.
#pragma once

#include <string>
#include <vector>

#include "kernels/runtime/timing_request.h"
#include "search/cost/cost_model.h"

namespace pet {

struct ImportReport {
  cost::Target target;        // the key the entries are recorded under (the last result's)
  int results = 0;            // requests with timings
  int entries = 0;            // entries added or replaced
  std::vector<std::string> notes;  // what was left out, and why
};

// Adds the entries of `results` to `db`. The models of in-context runs are read from
// `models_folder` (runtime::models_folder of the misses file the requests came from). UserError for
// an unknown kind or a result that does not fit its request.
ImportReport import_timings(const runtime::TimingResults& results, const std::string& models_folder, cost::ProfileDb& db);

// The kind of request whose timings make an entry keyed `key` (cost::kKernelGroups, cost::kInContext,
// search::kRanked or kSelection), from the form the key makers give it.
std::string entry_kind(const std::string& key);

// The target a results file's entries are keyed by: the request's target on the card that timed it.
cost::Target measured_on(const runtime::MeasuringDevice& device, const runtime::TimingRequest& request);

}  // namespace pet
