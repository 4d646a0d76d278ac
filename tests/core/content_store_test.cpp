// ContentStore: a payload remembered then found byte for byte; none for another key at the same
// path, a torn, changed or foreign file, another version; a store that cannot be written says so.
#include <chrono>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "core/content_store.h"
#include "core/temporary_folder.h"

namespace pet {
namespace {

TEST(ContentStore, APayloadRememberedIsFoundByteForByte) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  ContentStore store(folder.path(), "version 1");
  std::string payload("binary\0bytes\n\xff", 14);
  EXPECT_FALSE(store.find("a key\nof two lines").has_value());  // before: empty
  ASSERT_TRUE(store.remember("a key\nof two lines", payload));
  EXPECT_EQ(store.find("a key\nof two lines"), payload);  // after: the same bytes
  EXPECT_FALSE(store.find("a key").has_value());
  EXPECT_EQ(store.entry_path("k").parent_path().parent_path(), folder.path());
}

TEST(ContentStore, AnotherKeysEntryATornFileOrAnotherVersionReadsAsNone) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  ContentStore store(folder.path(), "version 1");
  ASSERT_TRUE(store.remember("first", "payload one"));
  ASSERT_TRUE(store.remember("second", "payload two"));
  // Another key's entry where this key's lies (what a hash collision would leave).
  std::filesystem::copy_file(store.entry_path("second"), store.entry_path("first"),
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(store.find("first").has_value());
  // Torn: the payload cut short; then a file that is no entry at all.
  ASSERT_TRUE(store.remember("first", "payload one"));
  std::filesystem::resize_file(store.entry_path("first"), std::filesystem::file_size(store.entry_path("first")) - 3);
  EXPECT_FALSE(store.find("first").has_value());
  // Changed in place, its lengths intact (a disk's bit flip, a CUBIN overwritten): none.
  ASSERT_TRUE(store.remember("first", "payload one"));
  {
    std::fstream file(store.entry_path("first"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('X');
  }
  EXPECT_FALSE(store.find("first").has_value());
  std::ofstream(store.entry_path("first")) << "not an entry";
  EXPECT_FALSE(store.find("first").has_value());
  ASSERT_TRUE(store.remember("first", "payload one"));  // written whole again
  EXPECT_EQ(store.find("first"), "payload one");
  EXPECT_FALSE(ContentStore(folder.path(), "version 2").find("first").has_value());
}

TEST(ContentStore, AnotherVersionsFolderUntouchedForAMonthGoesWhenThisVersionStarts) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  ContentStore old_version(folder.path(), "version 1"), recent_version(folder.path(), "version 2");
  ASSERT_TRUE(old_version.remember("key", "old"));
  ASSERT_TRUE(recent_version.remember("key", "recent"));
  std::filesystem::path old_folder = old_version.entry_path("key").parent_path();
  std::filesystem::last_write_time(old_folder, std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 31));
  std::ofstream(folder.path() / "not a version folder") << "kept";
  // Before: both versions' folders. After this version's first write: the month-old one is gone.
  ContentStore current(folder.path(), "version 3");
  ASSERT_TRUE(current.remember("key", "current"));
  EXPECT_FALSE(std::filesystem::exists(old_folder));
  EXPECT_EQ(recent_version.find("key"), "recent");
  EXPECT_TRUE(std::filesystem::exists(folder.path() / "not a version folder"));
  EXPECT_EQ(current.find("key"), "current");
}

// Sets an entry's last use `hours` ago.
void used_hours_ago(const ContentStore& store, const std::string& key, int hours) {
  std::filesystem::last_write_time(store.entry_path(key),
                                   std::filesystem::file_time_type::clock::now() - std::chrono::hours(hours));
}

TEST(ContentStore, TrimmingRemovesTheLeastRecentlyUsedEntriesAndAFindCountsAsAUse) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  ContentStore store(folder.path(), "version 1");
  for (const char* key : {"a", "b", "c", "d"}) ASSERT_TRUE(store.remember(key, std::string(1000, 'x')));
  used_hours_ago(store, "a", 4);
  used_hours_ago(store, "b", 3);
  used_hours_ago(store, "c", 2);
  used_hours_ago(store, "d", 1);
  EXPECT_TRUE(store.find("a").has_value());  // a used now: the newest
  uint64_t entry_bytes = std::filesystem::file_size(store.entry_path("a"));
  std::filesystem::path left_behind = store.entry_path("e");
  left_behind += ".tmp-1-0";  // a writer that died two hours ago
  std::ofstream(left_behind) << "half an entry";
  std::filesystem::last_write_time(left_behind, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  // Before: four entries. After trimming to two entries' bytes: the two used longest ago are gone.
  store.trim(2 * entry_bytes);
  EXPECT_FALSE(store.find("b").has_value());
  EXPECT_FALSE(store.find("c").has_value());
  EXPECT_TRUE(store.find("a").has_value());
  EXPECT_TRUE(store.find("d").has_value());
  EXPECT_FALSE(std::filesystem::exists(left_behind));
}

TEST(ContentStore, AWriteBeyondTheBudgetTrimsToThreeQuartersOfIt) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  ContentStore unbounded(folder.path(), "version 1");
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(unbounded.remember("key " + std::to_string(i), std::string(1000, 'x')));
    used_hours_ago(unbounded, "key " + std::to_string(i), 10 - i);
  }
  uint64_t entry_bytes = std::filesystem::file_size(unbounded.entry_path("key 0"));
  // The same folder with a budget of four entries: some write of the next kTrimEvery trims it.
  ContentStore bounded(folder.path(), "version 1", 4 * entry_bytes);
  for (uint64_t i = 0; i < ContentStore::kTrimEvery; ++i)
    ASSERT_TRUE(bounded.remember("new " + std::to_string(i), std::string(1000, 'y')));
  EXPECT_FALSE(bounded.find("key 0").has_value());  // the oldest went first
  int kept = 0;
  for (const auto& file : std::filesystem::directory_iterator(bounded.entry_path("x").parent_path()))
    kept += file.path().extension() == ".entry" ? 1 : 0;
  // Untrimmed, 8 + kTrimEvery; trimmed to 3 at one of the writes, then at most the writes since.
  EXPECT_LE(kept, 3 + static_cast<int>(ContentStore::kTrimEvery));
}

TEST(ContentStore, AStoreThatCannotBeWrittenSaysSoAndThrowsNothing) {
  TemporaryFolder folder("pet-content-store", "a test's store");
  std::ofstream(folder.path() / "a file") << "not a folder";
  ContentStore store(folder.path() / "a file" / "store", "version 1");
  EXPECT_FALSE(store.remember("key", "payload"));
  EXPECT_FALSE(store.find("key").has_value());
  EXPECT_NO_THROW(store.forget_stale_versions(ContentStore::kStaleVersionAge));  // no folder to walk
  EXPECT_NO_THROW(ContentStore(folder.path() / "missing", "v").forget_stale_versions(std::chrono::hours(0)));
}

}  // namespace
}  // namespace pet
