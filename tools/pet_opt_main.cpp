// pet-opt: a thin main over pet_opt_main.
#include <iostream>

#include "tools/commands.h"

int main(int argc, char** argv) { return pet::pet_opt_main({argv + 1, argv + argc}, std::cout, std::cerr); }
