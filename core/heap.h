// Returning the heap's free memory to the system after a phase that allocated and freed a lot.
#pragma once

#include <string>

namespace pet {

// Hands the pages of freed heap memory back to the system (an allocator keeps them otherwise: a
// search's candidate programs, all freed when it ends, would stay in the process's resident size
// through the writing and checking of the model): jemalloc's arenas purged where the program links
// jemalloc (pet-opt, tools/CMakeLists.txt), else glibc's malloc_trim; a no-op on other C libraries.
void return_free_heap_to_system();

// The allocator serving this process's malloc: "jemalloc <version>", "glibc <version> malloc", or
// "the C library's malloc".
std::string heap_allocator();

}  // namespace pet
