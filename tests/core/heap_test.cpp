// return_free_heap_to_system: freed small blocks the allocator keeps are given back (resident size
// falls), under glibc's malloc here and under jemalloc in pet_heap_jemalloc_tests (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cstdlib>  // defines __GLIBC__ on glibc
#include <fstream>
#include <memory>
#include <vector>

#include "core/heap.h"

namespace pet {
namespace {

// The process's resident pages, from /proc/self/statm (Linux).
long resident_pages() {
  std::ifstream statm("/proc/self/statm");
  long size = 0, resident = -1;
  statm >> size >> resident;
  return resident;
}

TEST(Heap, FreedBlocksTheHeapKeepsGoBackToTheSystem) {
#if !defined(__linux__) || (!defined(__GLIBC__) && !defined(PET_WITH_JEMALLOC))
  GTEST_SKIP() << "glibc's malloc or jemalloc on Linux only";
#else
  // Before: 64 MiB in small blocks, all freed but the last, which keeps the heap's top in place, so
  // glibc cannot shrink the heap and keeps every freed page resident (jemalloc keeps them until its
  // decay time has passed).
  constexpr size_t kBlocks = 64 * 1024, kBlockBytes = 1024;
  std::vector<std::unique_ptr<char[]>> blocks;
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks.push_back(std::make_unique<char[]>(kBlockBytes));
    blocks.back()[0] = 1;  // touched: resident
  }
  std::unique_ptr<char[]> pinned_top = std::make_unique<char[]>(kBlockBytes);
  pinned_top[0] = 1;
  blocks.clear();
  blocks.shrink_to_fit();
  long kept = resident_pages();
  // After: most of those pages are the system's again.
  return_free_heap_to_system();
  long returned_pages = kept - resident_pages();
  constexpr long kPage = 4096;
  EXPECT_GT(returned_pages * kPage, static_cast<long>(kBlocks * kBlockBytes / 2))
      << "resident pages before " << kept << ", after " << kept - returned_pages;
#endif
}

// pet-opt's report names its allocator (--report-times): this binary's, as it was linked.
TEST(Heap, TheAllocatorIsNamed) {
#if defined(PET_WITH_JEMALLOC)
  EXPECT_EQ(heap_allocator().rfind("jemalloc ", 0), 0u) << heap_allocator();
#elif defined(__GLIBC__)
  EXPECT_EQ(heap_allocator().rfind("glibc 2.", 0), 0u) << heap_allocator();
#endif
}

}  // namespace
}  // namespace pet
