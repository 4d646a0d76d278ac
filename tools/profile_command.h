// pet-profile as a library function, so tests can run it without a process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace pet {

inline constexpr const char* kPetProfileHelp = R"(usage: pet-profile --import RESULTS --misses FILE --out DB.json
       pet-profile --merge DB --out DB.json
       pet-profile --summary DB
       pet-profile --estimate MODEL [--estimate MODEL2 ...] --device NAME|FILE [--device ...]

Turns the timings a GPU machine returned for exported misses into profile DB entries, with the
functions pet-opt's measured path records its own timings with. The loop: here,
  pet-opt MODEL --target h100 --export-misses FILE
writes what h100's profile DB lacks; there,
  pet-gpu measure FILE --deadline S --out RESULTS
times it in pet-gpu; here again, this command adds the results to the DB, under a key naming the
target, the card, the libraries pet-gpu loaded and the version of pet's GPU kernels, so that
pet-opt --target h100 replays them (only while its kernels are the same). --merge adds a DB that
pet-opt --live wrote on a GPU machine (the live stage of scripts/device/session.sh) instead.
--summary says what a DB holds for each device, and which GPU entries this build replays.
--estimate prints what each device spec's analytic model estimates for each kernel group of a model
(what a GPU target prices a group its DB lacks at), one JSON line per group (times in µs, one per
--device given), for comparing with a card's per-step times (bench/gpu/fit_spec.py).

options:
  --import RESULTS   the results file of pet-gpu measure (a run cut short imports what it finished)
  --misses FILE      the misses file those results answer (its models, FILE.models/, are read for
                     the in-context runs)
  --merge DB         a profile DB whose every entry is added (an entry of the same key and device
                     replaced)
  --out DB           the profile DB to extend (created when absent), e.g. bench/profiles/h100.json
  --summary DB       per device: its entries by the request kind that made them (kernel-groups,
                     in-context, ranked, selection) and dates; for a GPU device, whether its
                     kernels are this build's
  --estimate MODEL   an ONNX or textual IR model whose kernel groups to estimate (repeat it for
                     several: each model's lines follow its own header line)
  --device SPEC      with --estimate: a device spec, h100, h200, a100, v100 or a JSON file (repeat
                     it for several)
  -h, --help         this text
)";

// Exit status: 0 ok, 1 internal error, 2 user error.
int pet_profile_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace pet
