// Returning freed heap memory to the system, through glibc's malloc_trim where it is there.
#include "core/heap.h"

#include <cstdlib>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace pet {

void return_free_heap_to_system() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace pet
