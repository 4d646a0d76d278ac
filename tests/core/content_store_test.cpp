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
