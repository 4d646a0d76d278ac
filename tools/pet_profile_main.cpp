// pet-profile: a thin main over pet_profile_main.
#include <iostream>

#include "tools/profile_command.h"

int main(int argc, char** argv) { return pet::pet_profile_main({argv + 1, argv + argc}, std::cout, std::cerr); }
