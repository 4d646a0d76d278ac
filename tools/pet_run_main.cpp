// pet-run: a thin main over pet_run_main.
#include <iostream>

#include "tools/commands.h"

int main(int argc, char** argv) { return pet::pet_run_main({argv + 1, argv + argc}, std::cout, std::cerr); }
