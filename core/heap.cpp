// Returning freed heap memory to the system: jemalloc's purge where a program links it, glibc's malloc_trim otherwise.
#include "core/heap.h"

#include <cstddef>
#include <cstdlib>  // defines __GLIBC__ on glibc

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <gnu/libc-version.h>
#include <malloc.h>
#endif

// jemalloc's control interface, defined only in a program that links jemalloc (weak: null elsewhere).
extern "C" int mallctl(const char* name, void* old_value, size_t* old_length, void* new_value, size_t new_length)
    __attribute__((weak));

namespace pet {
namespace {

bool jemalloc_linked() { return mallctl != nullptr; }

}  // namespace

void return_free_heap_to_system() {
  if (jemalloc_linked()) {
    // "arena.<MALLCTL_ARENAS_ALL>.purge" (4096 in jemalloc 5): every arena's unused dirty pages
    // returned now rather than after the decay time; the thread's cache flushed first, so the
    // blocks it holds are among them.
    mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

std::string heap_allocator() {
  if (jemalloc_linked()) {
    const char* version = nullptr;
    size_t length = sizeof version;
    if (mallctl("version", &version, &length, nullptr, 0) == 0 && version) return fmt::format("jemalloc {}", version);
    return "jemalloc";
  }
#if defined(__GLIBC__)
  return fmt::format("glibc {} malloc", gnu_get_libc_version());
#else
  return "the C library's malloc";
#endif
}

}  // namespace pet
