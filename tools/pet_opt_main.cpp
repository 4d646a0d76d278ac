// pet-opt: a thin main over pet_opt_main; SIGINT or SIGTERM cancels the run (a second one ends it).
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "tools/commands.h"

namespace {

std::atomic<bool> stop_requested{false};  // lock-free, so a signal handler may set it

extern "C" void request_stop(int signal) {
  if (stop_requested.exchange(true)) {  // the second signal: no waiting for the run to wind down
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

}  // namespace

int main(int argc, char** argv) {
#ifdef PET_WITH_JEMALLOC
  // pet-opt's malloc is jemalloc (tools/CMakeLists.txt). OpenVINO's TBB loads its hwloc with
  // RTLD_DEEPBIND unless this (documented) setting is on, and hwloc would then free with glibc's
  // free what jemalloc allocated; without DEEPBIND it binds to the program's malloc like the rest.
  setenv("TBB_ENABLE_SANITIZERS", "1", 1);  // over any value a user set: 0 would abort
#endif
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the file size limit fails with EFBIG, which pet reports
  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  return pet::pet_opt_main({argv + 1, argv + argc}, std::cout, std::cerr, [] { return stop_requested.load(); });
}
