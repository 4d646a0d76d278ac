// Attributes: typed access, and copies that share one map until one of them changes.
#include <gtest/gtest.h>

#include "core/attributes.h"
#include "core/error.h"

namespace pet::test {
namespace {

Attributes conv_attributes() {
  return {{"strides", std::vector<int64_t>{1, 1}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"group", int64_t{1}}};
}

TEST(Attributes, ACopyThatChangesLeavesItsSourceAsItWas) {
  Attributes source = conv_attributes();
  Attributes copy = source;
  EXPECT_EQ(&copy.entries(), &source.entries()) << "a copy shares the map";
  copy.set("group", int64_t{2});
  copy.erase("pads");
  EXPECT_NE(&copy.entries(), &source.entries());
  // Before: group 1 and pads in both; after: the copy alone changed.
  EXPECT_EQ(source.get_int("group"), 1);
  EXPECT_TRUE(source.has("pads"));
  EXPECT_EQ(copy.get_int("group"), 2);
  EXPECT_FALSE(copy.has("pads"));
  EXPECT_EQ(source.to_string(), "[group=1, pads=[1,1,1,1], strides=[1,1]]");
  EXPECT_EQ(copy.to_string(), "[group=2, strides=[1,1]]");
}

TEST(Attributes, EqualityComparesEntriesNotSharing) {
  Attributes a = conv_attributes(), b = conv_attributes(), shared = a;
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, shared);
  b.set("group", int64_t{4});
  EXPECT_NE(a, b);
  Attributes empty, emptied = Attributes{{"axis", int64_t{0}}};
  emptied.erase("axis");
  EXPECT_EQ(empty, emptied);
  EXPECT_EQ(empty.to_string(), "");
}

TEST(Attributes, AMissingOrMistypedAttributeIsAnInternalError) {
  Attributes attrs = conv_attributes();
  EXPECT_THROW(attrs.get_int("axis"), InternalError);
  EXPECT_THROW(attrs.get_int("pads"), InternalError);
  Attributes empty;
  EXPECT_THROW(empty.get_ints("pads"), InternalError);
  empty.erase("pads");  // erasing what is absent changes nothing
  EXPECT_TRUE(empty.entries().empty());
}

}  // namespace
}  // namespace pet::test
