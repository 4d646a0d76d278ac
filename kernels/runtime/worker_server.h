// The worker side of the JSON-line protocol (kernels/runtime/json_worker.h) over any Runtime: what
// `pet-gpu worker` runs, so pet-opt times on a GPU without linking a CUDA library.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernels/runtime/runtime.h"

namespace pet::runtime {

// The reply to one request line. {"version": true} gets `version_reply`; a timing or run request's
// models are read from the paths it gives. A model the runtime refuses is {"ok": false, "index": i};
// a malformed request, an unreadable file or the runtime's own failure is index -1.
nlohmann::json answer_worker_request(Runtime& runtime, const nlohmann::json& version_reply, const std::string& line);

// Answers each non-blank line of `in` with one line on `out`, flushed, until `in` ends. With a
// `gpu_lock` file, workers of several processes sharing one GPU time one at a time (their waits are
// outside every timing): the runtime holds an exclusive lock on it around each request's device
// work where it can (Runtime::share_device), else each request is answered holding it.
void serve_worker(Runtime& runtime, const nlohmann::json& version_reply, std::istream& in, std::ostream& out,
                  const std::string& gpu_lock = "");

// When $PET_GPU_ACTIVITY_LOG names a file, one line appended to it as a worker ends: what its loads
// did ("pet-gpu worker PID: L loads, mean M ms; ..."), one write, so the workers of concurrent runs
// do not interleave their lines. A log that cannot be written is skipped.
void log_worker_activity(const Runtime& runtime, const std::string& worker);

// A worker that has no runtime to serve (no device): every request, the version request included, is
// answered {"ok": false, "index": -1, "error": reason}, which the client reports as the reason.
void refuse_worker(const std::string& reason, std::istream& in, std::ostream& out);

}  // namespace pet::runtime
