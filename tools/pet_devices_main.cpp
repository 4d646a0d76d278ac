// pet-devices: the device report and self-test, kept under its old name (same as `pet-gpu devices`).
#include <iostream>

#include "tools/gpu_command.h"

int main() { return pet::pet_gpu_main({"devices"}, std::cout, std::cerr); }
