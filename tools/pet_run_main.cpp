// pet-run: a thin main over pet_run_main.
#include <csignal>
#include <iostream>

#include "tools/commands.h"

int main(int argc, char** argv) {
  std::signal(SIGXFSZ, SIG_IGN);  // a write past the file size limit fails with EFBIG, which pet reports
  return pet::pet_run_main({argv + 1, argv + argc}, std::cout, std::cerr);
}
