// pet-gpu: a thin main over pet_gpu_main.
#include <iostream>

#include "tools/gpu_command.h"

int main(int argc, char** argv) { return pet::pet_gpu_main({argv + 1, argv + argc}, std::cout, std::cerr); }
