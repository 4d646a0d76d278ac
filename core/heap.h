// Returning the heap's free memory to the system after a phase that allocated and freed a lot.
#pragma once

namespace pet {

// Hands the pages of freed heap memory back to the system (glibc keeps them otherwise: a search's
// candidate programs, all freed when it ends, would stay in the process's resident size through the
// writing and checking of the model). A no-op on other C libraries.
void return_free_heap_to_system();

}  // namespace pet
