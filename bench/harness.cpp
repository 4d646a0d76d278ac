// pet_harness: a thin main over harness_main (bench/harness_cli.h).
#include <iostream>

#include "bench/harness_cli.h"

int main(int argc, char** argv) {
  return pet::bench::harness_main({argv + 1, argv + argc}, PET_DEFAULT_MODELS_DIR, std::cout, std::cerr);
}
